# tessera_add_kernels(<name> SOURCES k.mlir... [TARGETS host sm_80 ...]
#                     [PASSES pass,pass...] [CHECK_TAGS ON|OFF]
#                     [NAMESPACE ns])
#
# Compiles the kernels at build time with tessera-compile into one bundle
# holding an image per target (a GPU target also gives the emulator's),
# embeds the bundle in a static library <name> that links Tessera::runtime,
# and generates <name>.h (on the library's include path) with typed launch
# functions and `ns::load(device)`, which loads the image of whichever
# device it is given. NAMESPACE defaults to <name>, TARGETS to host,
# CHECK_TAGS to ON. Editing a source rebuilds only this library.
#
# At configure time, TARGETS are checked against what the installed
# compiler builds (tessera-compile --print-targets): a target it does not
# build is an error, and a GPU target missing a toolchain piece (sm_XX
# without ptxas: no cubin, only PTX and the emulator image) a warning that
# names it.
#
# The compiler is ${TESSERA_COMPILE_EXECUTABLE}: a target or a path.

# The targets the compiler builds and the images each gives, one
# "<target> <image>..." line each, asked once; empty when the compiler is
# built by this project (it does not exist yet at configure time).
function(_tessera_compiler_targets out)
  get_property(asked GLOBAL PROPERTY TESSERA_COMPILER_TARGETS SET)
  if(NOT asked)
    set(compiler ${TESSERA_COMPILE_EXECUTABLE})
    if(TARGET ${compiler})
      get_target_property(imported ${compiler} IMPORTED)
      if(imported)
        get_target_property(compiler ${compiler} IMPORTED_LOCATION)
      else()
        set(compiler "")
      endif()
    endif()
    set(lines "")
    if(compiler)
      execute_process(COMMAND ${compiler} --print-targets
                      OUTPUT_VARIABLE text RESULT_VARIABLE failed ERROR_QUIET)
      if(NOT failed)
        string(STRIP "${text}" text)
        string(REPLACE "\n" ";" lines "${text}")
      endif()
    endif()
    set_property(GLOBAL PROPERTY TESSERA_COMPILER_TARGETS "${lines}")
  endif()
  get_property(lines GLOBAL PROPERTY TESSERA_COMPILER_TARGETS)
  set(${out} "${lines}" PARENT_SCOPE)
endfunction()

function(_tessera_check_targets name)
  _tessera_compiler_targets(lines)
  if(NOT lines)
    return()
  endif()
  set(built)
  foreach(line ${lines})
    string(REGEX MATCH "^[^ ]+" target "${line}")
    list(APPEND built ${target})
  endforeach()
  list(JOIN built ", " builtText)
  foreach(target ${ARGN})
    set(images)
    foreach(line ${lines})
      if(line MATCHES "^${target} (.*)$")
        set(images "${CMAKE_MATCH_1}")
      endif()
    endforeach()
    if(NOT images)
      message(FATAL_ERROR
        "tessera_add_kernels(${name}): target '${target}' is not one this "
        "Tessera compiles for (it compiles for ${builtText})")
    endif()
    if(target MATCHES "^sm_" AND NOT images MATCHES "${target}-cubin")
      message(WARNING
        "tessera_add_kernels(${name}): no ptxas (the CUDA toolkit's "
        "assembler) for ${target}: its image holds PTX, which the CUDA "
        "driver compiles when it loads it, and the emulator's, but no cubin")
    endif()
  endforeach()
endfunction()

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
  _tessera_check_targets(${name} ${ARG_TARGETS})

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
