# The GPU targets without a GPU (label gpu): every sample and regression
# batch verified through --target opencl on the machine's OpenCL platform
# (PoCL), and compiled with NVRTC for sm_80 and sm_90 with clean ptxas
# reports. Skipped (exit 77) where PoCL or NVRTC is missing. Paths relative to tests/.
set(ATOLL_GPU_BATCHES
  ${PROJECT_SOURCE_DIR}/samples/mlp.json
  ${PROJECT_SOURCE_DIR}/samples/custom_compute.json
  ${PROJECT_SOURCE_DIR}/samples/bert_encoder_layer.json
  ${PROJECT_SOURCE_DIR}/samples/mobilenetv2_block.json
  ${PROJECT_SOURCE_DIR}/samples/resnet50_bottleneck.json
  ${CMAKE_CURRENT_SOURCE_DIR}/data/op_regressions.json
  ${CMAKE_CURRENT_SOURCE_DIR}/data/random_graphs.json
  ${CMAKE_CURRENT_SOURCE_DIR}/data/low_precision.json
  ${CMAKE_CURRENT_SOURCE_DIR}/data/onnx_ops.json
  ${CMAKE_CURRENT_SOURCE_DIR}/data/wide_dtypes.json)
# Under the sanitizers: one batch (the GPU path's own code runs under
# ASan and UBSan; PoCL and NVRTC are not instrumented), within CI's budget.
# LeakSanitizer ignores what PoCL's and NVRTC's libraries keep until exit.
if(ATOLL_SANITIZE)
  set(ATOLL_GPU_BATCHES ${PROJECT_SOURCE_DIR}/samples/mlp.json)
endif()
set(ATOLL_GPU_ENV "POCL_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/pocl-cache"
                  "LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_SOURCE_DIR}/gpu/lsan.supp")
foreach(batch ${ATOLL_GPU_BATCHES})
  get_filename_component(name ${batch} NAME_WE)
  add_test(NAME gpu.opencl.${name}
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/gpu/run_opencl.sh $<TARGET_FILE:atoll> ${batch})
  set_tests_properties(gpu.opencl.${name} PROPERTIES LABELS "gpu;backends" SKIP_RETURN_CODE 77 TIMEOUT 600
                       ENVIRONMENT "${ATOLL_GPU_ENV}")
  # The 90 random graphs for sm_90 only (CI's time budget); the rest for both.
  set(sms "80 90")
  if(name STREQUAL "random_graphs")
    set(sms "90")
  endif()
  add_test(NAME gpu.nvrtc.${name}
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/gpu/check_cuda.sh $<TARGET_FILE:atoll> ${batch}
            ${CMAKE_CURRENT_BINARY_DIR}/gpu-work/${name} ${sms})
  set_tests_properties(gpu.nvrtc.${name} PROPERTIES LABELS "gpu;backends" SKIP_RETURN_CODE 77 TIMEOUT 600
                       ENVIRONMENT "${ATOLL_GPU_ENV}")
endforeach()

# The CUDA driver's absence and its stub library, as report.json says them.
add_test(NAME gpu.cuda_driver
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/gpu/check_cuda_driver.sh $<TARGET_FILE:atoll>
          ${PROJECT_SOURCE_DIR}/samples/mlp.json ${CMAKE_CURRENT_BINARY_DIR}/gpu-work/cuda-driver)
set_tests_properties(gpu.cuda_driver PROPERTIES LABELS "gpu;backends" SKIP_RETURN_CODE 77 TIMEOUT 300
                     ENVIRONMENT "${ATOLL_GPU_ENV}")
