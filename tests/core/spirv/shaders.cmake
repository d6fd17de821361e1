# The GLSL compute shaders of test_spirv (tests/core/spirv/shaders/*.comp), compiled by glslang
# at build time for three SPIR-V versions: 1.0 (vulkan1.0: buffers are Uniform + BufferBlock and
# the entry point lists no buffers), 1.5 (vulkan1.2, what GraphLens's own kernels use) and 1.6
# (vulkan1.3: local_size_x_id becomes LocalSizeId). The tests read <stem>.<env>.spv from
# GRAPHLENS_SPIRV_TEST_SHADERS.
file(GLOB spirv_test_sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/core/spirv/shaders/*.comp)
set(spirv_test_dir ${CMAKE_CURRENT_BINARY_DIR}/spirv_test_shaders)
file(MAKE_DIRECTORY ${spirv_test_dir})
set(spirv_test_outputs "")
foreach(src ${spirv_test_sources})
  get_filename_component(stem ${src} NAME_WE)
  foreach(env vulkan1.0 vulkan1.2 vulkan1.3)
    set(out ${spirv_test_dir}/${stem}.${env}.spv)
    add_custom_command(OUTPUT ${out}
                       COMMAND ${GLSLANG_VALIDATOR} -V --target-env ${env} -o ${out} ${src}
                       DEPENDS ${src} COMMENT "glslang ${stem} (${env})" VERBATIM)
    list(APPEND spirv_test_outputs ${out})
  endforeach()
endforeach()
add_custom_target(spirv_test_shaders DEPENDS ${spirv_test_outputs})
add_dependencies(test_spirv spirv_test_shaders)
target_compile_definitions(test_spirv PRIVATE GRAPHLENS_SPIRV_TEST_SHADERS="${spirv_test_dir}")
