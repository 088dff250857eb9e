# GPU backend sources (paths relative to backends/).
target_sources(atoll_backends PRIVATE
  gpu/cuda_driver.cpp
  gpu/emit_gpu.cpp
  gpu/nvrtc.cpp
  gpu/opencl_runtime.cpp
  gpu/simt_check.cpp
)
