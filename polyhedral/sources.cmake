# SCoP, dependences, schedulers, transformations, AST build (paths relative to polyhedral/).
target_sources(atoll_poly PRIVATE
  isl/isl_context.cpp
  scop/build_scop.cpp
  scop/collect_reads.cpp
  scop/print_scop.cpp
  deps/compute_dependences.cpp
  schedule/check_legality.cpp
  schedule/schedule_isl.cpp
  schedule/schedule_feautrier.cpp
  schedule/schedule_given.cpp
  ast/build_ast.cpp
  ast/gpu_launches.cpp
  compile_cluster.cpp
)

include(schedule/pluto_sources.cmake)
include(scop/text_sources.cmake)
include(transforms/scop/sources.cmake)
include(transforms/schedule/sources.cmake)
include(transforms/ast/sources.cmake)
include(transforms/npu/sources.cmake)
include(target/sources.cmake)
include(pipeline/sources.cmake)
include(jscop/sources.cmake)
