# Thin wrappers over the MLIR CMake helpers. Every Tessera library links the
# shared libMLIR.so (target MLIR), never the static MLIR component libraries.

# add_tessera_library(name SOURCES... [DEPENDS tgt...] [LINK_LIBS lib...])
function(add_tessera_library name)
  cmake_parse_arguments(ARG "" "" "DEPENDS;LINK_LIBS" ${ARGN})
  add_library(${name} STATIC ${ARG_UNPARSED_ARGUMENTS})
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
  target_link_libraries(${name} PUBLIC ${ARG_LINK_LIBS} MLIR LLVM)
endfunction()

# tessera_tablegen_dialect(<Dialect> <td-dir>): generates the dialect, op,
# type, attribute and enum declarations of dialects/<Dialect>/ into the
# current binary include folder, as target Tessera<Dialect>IncGen.
function(tessera_tablegen_dialect dialect)
  set(td_dir ${PROJECT_SOURCE_DIR}/dialects/${dialect})
  string(TOLOWER ${dialect} ns)
  set(LLVM_TARGET_DEFINITIONS ${td_dir}/${dialect}Ops.td)
  mlir_tablegen(${dialect}Dialect.h.inc -gen-dialect-decls -dialect=${ns})
  mlir_tablegen(${dialect}Dialect.cpp.inc -gen-dialect-defs -dialect=${ns})
  mlir_tablegen(${dialect}Ops.h.inc -gen-op-decls)
  mlir_tablegen(${dialect}Ops.cpp.inc -gen-op-defs)
  mlir_tablegen(${dialect}Types.h.inc -gen-typedef-decls -typedefs-dialect=${ns})
  mlir_tablegen(${dialect}Types.cpp.inc -gen-typedef-defs -typedefs-dialect=${ns})
  mlir_tablegen(${dialect}Attrs.h.inc -gen-attrdef-decls -attrdefs-dialect=${ns})
  mlir_tablegen(${dialect}Attrs.cpp.inc -gen-attrdef-defs -attrdefs-dialect=${ns})
  mlir_tablegen(${dialect}Enums.h.inc -gen-enum-decls)
  mlir_tablegen(${dialect}Enums.cpp.inc -gen-enum-defs)
  # The language reference, generated from the same ODS; test/docs checks
  # that the copy under docs/reference/ is current.
  mlir_tablegen(${dialect}Dialect.md -gen-dialect-doc -dialect=${ns})
  add_public_tablegen_target(Tessera${dialect}IncGen)
endfunction()
