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

# Hand-written SPIR-V assembly (tests/core/spirv/assembly/*.spvasm) for what glslang does not
# emit on its own (cooperative-matrix decode callbacks, addresses made from integers),
# assembled by spirv-as (Debian's spirv-tools) into <stem>.asm.spv beside the GLSL ones.
find_program(SPIRV_AS spirv-as REQUIRED)
file(GLOB spirv_test_assembly CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/core/spirv/assembly/*.spvasm)
set(spirv_assembly_outputs "")
foreach(src ${spirv_test_assembly})
  get_filename_component(stem ${src} NAME_WE)
  set(out ${spirv_test_dir}/${stem}.asm.spv)
  add_custom_command(OUTPUT ${out}
                     COMMAND ${SPIRV_AS} --target-env vulkan1.2 -o ${out} ${src}
                     DEPENDS ${src} COMMENT "spirv-as ${stem}" VERBATIM)
  list(APPEND spirv_assembly_outputs ${out})
endforeach()
add_custom_target(spirv_test_assembly DEPENDS ${spirv_assembly_outputs})
add_dependencies(test_spirv spirv_test_assembly)
