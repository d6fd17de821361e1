# graphlens_add_layer(NAME dir DEPS ...): a static library made of every .cpp under
# core/<dir>/src, so each layer builds on its own and a half-written file in one layer does not
# break another's build. Its public headers are core/<dir>/include/graphlens/<dir>/*.h, and
# that include root is the only one it exports: a layer sees the headers of the layers it
# links and no others, so an include that climbs a layer does not compile. Its private
# headers are included as "<dir>/src/x.h".
function(graphlens_add_layer name dir)
  cmake_parse_arguments(L "" "" "DEPS" ${ARGN})
  set(layer_root ${CMAKE_CURRENT_SOURCE_DIR}/${dir})
  file(GLOB_RECURSE srcs CONFIGURE_DEPENDS ${layer_root}/src/*.cpp)
  if(NOT srcs)
    add_library(${name} INTERFACE)
    target_include_directories(${name} INTERFACE ${layer_root}/include)
    target_link_libraries(${name} INTERFACE ${L_DEPS})
    return()
  endif()
  add_library(${name} STATIC ${srcs})
  target_include_directories(${name} PUBLIC ${layer_root}/include
                                     PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(${name} PUBLIC ${L_DEPS})
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
endfunction()

# graphlens_add_test_dir(area [DIR folder] DEPS ...): one GoogleTest binary test_<area> from
# tests/<folder>/*.cpp (folder defaults to core/<area>: tests mirror the layers); every test
# runs with validation + synchronization validation on, labelled with its area (ctest -L graph).
function(graphlens_add_test_dir area)
  cmake_parse_arguments(T "" "DIR" "DEPS" ${ARGN})
  if(NOT T_DIR)
    set(T_DIR core/${area})
  endif()
  file(GLOB srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${T_DIR}/*.cpp)
  if(NOT srcs)
    return()
  endif()
  add_executable(test_${area} ${srcs})
  target_link_libraries(test_${area} PRIVATE ${T_DEPS} GTest::gtest GTest::gtest_main)
  target_include_directories(test_${area} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/core
                             ${PROJECT_SOURCE_DIR}/core)
  target_compile_definitions(test_${area} PRIVATE
    GRAPHLENS_TEST_DATA_DIR="${CMAKE_CURRENT_SOURCE_DIR}/data")
  gtest_discover_tests(test_${area}
    DISCOVERY_MODE PRE_TEST
    # One ENVIRONMENT entry only: gtest_discover_tests flattens a ';' list into the property
    # pairs. scripts/test.sh also exports GRAPHLENS_DEVICE=llvmpipe (lavapipe).
    PROPERTIES ENVIRONMENT GRAPHLENS_VALIDATION=1 TIMEOUT 600 LABELS ${area})
endfunction()
