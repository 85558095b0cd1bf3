# Use ccache when it is installed. CCACHE_BASEDIR makes cache entries
# relative to the checkout, so a fresh clone elsewhere still hits the cache.
find_program(TESSERA_CCACHE ccache)
if(TESSERA_CCACHE)
  set(CMAKE_CXX_COMPILER_LAUNCHER
      ${CMAKE_COMMAND} -E env CCACHE_BASEDIR=${PROJECT_SOURCE_DIR}
      CCACHE_NOHASHDIR=1 ${TESSERA_CCACHE})
  set(CMAKE_C_COMPILER_LAUNCHER ${CMAKE_CXX_COMPILER_LAUNCHER})
  message(STATUS "Using ccache: ${TESSERA_CCACHE}")
endif()
