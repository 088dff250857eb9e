# NPU code generation on the simulator (label npu; paths relative to tests/):
# the NPU batch and the MLP sample verified on every shipped profile (every
# kernel also clean in the hazard checker: a race fails the graph), and the
# C that `compile --target npu` writes compiled as C99.
set(ATOLL_NPU_BATCHES
  ${CMAKE_CURRENT_SOURCE_DIR}/data/npu_ops.json
  ${CMAKE_CURRENT_SOURCE_DIR}/data/npu_f16.json
  ${PROJECT_SOURCE_DIR}/samples/mlp.json)
foreach(batch ${ATOLL_NPU_BATCHES})
  get_filename_component(name ${batch} NAME_WE)
  foreach(profile tiny lite ascend-like)
    add_test(NAME npu.run.${name}.${profile}
      COMMAND $<TARGET_FILE:atoll> run ${batch} --target npu:${profile} --verify --quiet)
    set_tests_properties(npu.run.${name}.${profile} PROPERTIES LABELS "npu;backends" TIMEOUT 300)
  endforeach()
  add_test(NAME npu.c99.${name}
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/npu/check_npu_c.sh $<TARGET_FILE:atoll> ${batch}
            ${CMAKE_CURRENT_BINARY_DIR}/npu-work/${name} ${PROJECT_SOURCE_DIR}/backends/npu/include)
  set_tests_properties(npu.c99.${name} PROPERTIES LABELS "npu;backends" TIMEOUT 300)
endforeach()
# Random graphs (tests/npu/random_graphs.py): every one verifies or is
# refused with a clean message; a bounded run here, longer ones by hand.
foreach(profile tiny ascend-like)
  add_test(NAME npu.random.${profile}
    COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/npu/random_graphs.py $<TARGET_FILE:atoll> 1 40 ${profile}
            ${CMAKE_CURRENT_BINARY_DIR}/npu-work/random-${profile})
  set_tests_properties(npu.random.${profile} PROPERTIES LABELS "npu;backends" TIMEOUT 300)
endforeach()
