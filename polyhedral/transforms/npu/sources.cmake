# NPU kernel planning: classification and tile sizes (paths relative to polyhedral/).
target_sources(atoll_poly PRIVATE
  transforms/npu/classify_npu_kernel.cpp
  transforms/npu/tile_for_npu.cpp
)
