# tessera_add_kernels(<name> SOURCES k.mlir... [TARGETS host ...]
#                     [PASSES pass,pass...] [CHECK_TAGS ON|OFF]
#                     [NAMESPACE ns])
#
# Compiles the kernels at build time with tessera-compile into a bundle,
# embeds the bundle in a static library <name> that links Tessera::runtime,
# and generates <name>.h (on the library's include path) with typed launch
# functions and `ns::load(device)`. NAMESPACE defaults to <name>, TARGETS to
# host, CHECK_TAGS to ON. Editing a source rebuilds only this library.
#
# The compiler is ${TESSERA_COMPILE_EXECUTABLE}: a target or a path.
function(tessera_add_kernels name)
  cmake_parse_arguments(ARG "" "CHECK_TAGS;NAMESPACE" "SOURCES;TARGETS;PASSES"
                        ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR
      "tessera_add_kernels(${name}): unknown arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "tessera_add_kernels(${name}): SOURCES is required")
  endif()
  if(NOT ARG_TARGETS)
    set(ARG_TARGETS host)
  endif()
  if(NOT ARG_NAMESPACE)
    set(ARG_NAMESPACE ${name})
  endif()
  if(NOT DEFINED ARG_CHECK_TAGS)
    set(ARG_CHECK_TAGS ON)
  endif()
  if(NOT TESSERA_COMPILE_EXECUTABLE)
    message(FATAL_ERROR "tessera_add_kernels: TESSERA_COMPILE_EXECUTABLE is "
                        "not set; use find_package(Tessera)")
  endif()

  set(sources)
  foreach(source ${ARG_SOURCES})
    get_filename_component(absolute ${source} ABSOLUTE)
    list(APPEND sources ${absolute})
  endforeach()
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/${name}.tessera)
  set(bundle ${dir}/${name}.bundle)
  set(header ${dir}/${name}.h)
  set(embed ${dir}/${name}.bundle.cpp)
  string(REPLACE ";" "," targets "${ARG_TARGETS}")
  set(options --target=${targets} --header-namespace=${ARG_NAMESPACE})
  if(NOT ARG_CHECK_TAGS)
    list(APPEND options --no-tag-check)
  endif()
  if(ARG_PASSES)
    string(REPLACE ";" "," passes "${ARG_PASSES}")
    list(APPEND options --passes=${passes})
  endif()
  if(TARGET ${TESSERA_COMPILE_EXECUTABLE})
    set(compiler $<TARGET_FILE:${TESSERA_COMPILE_EXECUTABLE}>)
  else()
    set(compiler ${TESSERA_COMPILE_EXECUTABLE})
  endif()
  add_custom_command(
    OUTPUT ${bundle} ${header} ${embed}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${dir}
    COMMAND ${compiler} ${sources} ${options} -o ${bundle}
            --emit-header=${header} --emit-embed=${embed}
    DEPENDS ${sources} ${TESSERA_COMPILE_EXECUTABLE}
    COMMENT "Compiling Tessera kernels ${name}"
    VERBATIM)
  add_library(${name} STATIC ${embed} ${header})
  target_include_directories(${name} PUBLIC $<BUILD_INTERFACE:${dir}>)
  target_link_libraries(${name} PUBLIC Tessera::runtime)
  set_target_properties(${name} PROPERTIES
    TESSERA_BUNDLE ${bundle} POSITION_INDEPENDENT_CODE ON)
endfunction()
