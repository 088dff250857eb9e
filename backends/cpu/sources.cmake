# CPU backend sources (paths relative to backends/).
target_sources(atoll_backends PRIVATE
  cpu/c_build.cpp
  cpu/cpu_backend.cpp
  cpu/emit_c.cpp
  cpu/forward_inits.cpp
  cpu/hoist_epilogues.cpp
  cpu/jit.cpp
  cpu/kernel_info.cpp
  cpu/lower_calls.cpp
  cpu/lower_elements.cpp
  cpu/lower_reduction.cpp
  cpu/lower_shuffles.cpp
  cpu/lower_parallel.cpp
  cpu/lower_to_llvm.cpp
  cpu/transpose_form.cpp
  cpu/vector_analysis.cpp
  cpu/object_writer.cpp
  cpu/optimize_module.cpp
  cpu/runtime/thread_pool.cpp
)
include(cpu/vmath_sources.cmake)
