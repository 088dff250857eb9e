# NPU code generation: programs from the polyhedral layer's NPU plans, their C and their interpreter (paths relative to backends/).
target_sources(atoll_backends PRIVATE
  npu/codegen/npu_program.cpp
  npu/codegen/lower_to_npu.cpp
  npu/codegen/select_vector_ops.cpp
  npu/codegen/lower_vector.cpp
  npu/codegen/lower_cube.cpp
)
