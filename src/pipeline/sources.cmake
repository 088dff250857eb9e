# Pipeline sources: the batch driver, the definition evaluator, verification, the report (paths relative to src/).
target_sources(atoll_lib PRIVATE
  pipeline/run_reference.cpp
  pipeline/run_definitions.cpp
  pipeline/verify.cpp
  pipeline/run_pipeline.cpp
  pipeline/report.cpp
  pipeline/compile_graph.cpp
  pipeline/compile_clusters.cpp
  pipeline/npu_codegen.cpp
  pipeline/cluster_layout.cpp
  pipeline/same_clusters.cpp
  pipeline/split_clusters.cpp
  pipeline/cluster_options.cpp
  pipeline/run_compiled.cpp
  pipeline/weight_kernels.cpp
  pipeline/driver.cpp
  pipeline/explain.cpp
  pipeline/jscop_driver.cpp
)
