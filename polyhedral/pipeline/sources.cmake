# Pass pipelines: the cluster state, the pass rows by IR level, the runner
# and the target tables (paths relative to polyhedral/).
target_sources(atoll_poly PRIVATE
  pipeline/cluster_state.cpp
  pipeline/run_passes.cpp
  pipeline/scop_passes.cpp
  pipeline/schedule_passes.cpp
  pipeline/ast_passes.cpp
  pipeline/cpu_pipeline.cpp
  pipeline/knobs.cpp
  pipeline/gpu_pipeline.cpp
  pipeline/npu_pipeline.cpp
)
