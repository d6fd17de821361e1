# graphlens_version: an interface target whose header <graphlens_version.h> states the project
# version and the git revision the binaries were built from (`graphlens-cli --version`, the
# GUI's About). The revision is read at build time, not configure time, so a commit after
# configuring still shows; the header is rewritten only when the revision changes, so an
# unchanged tree rebuilds nothing.
set(GRAPHLENS_VERSION_HEADER ${PROJECT_BINARY_DIR}/generated/graphlens_version.h)
add_custom_target(graphlens_version_header
  COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR} -DOUTPUT=${GRAPHLENS_VERSION_HEADER}
          -DVERSION=${PROJECT_VERSION} -P ${PROJECT_SOURCE_DIR}/cmake/WriteVersionHeader.cmake
  BYPRODUCTS ${GRAPHLENS_VERSION_HEADER}
  COMMENT "Reading the git revision"
  VERBATIM)
add_library(graphlens_version INTERFACE)
target_include_directories(graphlens_version INTERFACE ${PROJECT_BINARY_DIR}/generated)
add_dependencies(graphlens_version graphlens_version_header)
