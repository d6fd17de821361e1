# cmake -DSOURCE_DIR=.. -DOUTPUT=.. -DVERSION=.. -P WriteVersionHeader.cmake
# Writes OUTPUT with the version and `git describe` of SOURCE_DIR ("unknown" outside a git
# tree, e.g. a source tarball); configure_file leaves OUTPUT untouched when nothing changed.
find_package(Git QUIET)
set(GRAPHLENS_GIT_REVISION unknown)
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} -C ${SOURCE_DIR} describe --always --dirty --abbrev=12
                  OUTPUT_VARIABLE revision OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE failed ERROR_QUIET)
  if(NOT failed AND revision)
    set(GRAPHLENS_GIT_REVISION ${revision})
  endif()
endif()
set(GRAPHLENS_VERSION ${VERSION})
configure_file(${CMAKE_CURRENT_LIST_DIR}/graphlens_version.h.in ${OUTPUT} @ONLY)
