# Unit tests of the performance transformations (paths relative to tests/).
target_sources(atoll_tests PRIVATE
  unit/polyhedral/transforms/perf_tile_companions_test.cpp
  unit/polyhedral/transforms/perf_tile_for_cpu_test.cpp
  unit/polyhedral/transforms/perf_tile_window_for_cpu_test.cpp
  unit/polyhedral/transforms/perf_interleave_rows_test.cpp
  unit/polyhedral/transforms/perf_coalesce_dims_test.cpp
  unit/polyhedral/transforms/perf_version_guards_test.cpp
  unit/polyhedral/transforms/perf_tile_transpose_test.cpp
  unit/polyhedral/transforms/perf_inline_producers_test.cpp
  unit/polyhedral/transforms/perf_factor_reduction_scale_test.cpp
  unit/polyhedral/transforms/perf_bound_shifted_exps_test.cpp
  unit/polyhedral/transforms/perf_specialize_remainders_test.cpp
)
