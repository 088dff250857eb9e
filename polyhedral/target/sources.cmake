# Target description of the host CPU for the cost model (paths relative to polyhedral/).
target_sources(atoll_poly PRIVATE
  target/cpu_target.cpp
  target/gpu_target.cpp
)
