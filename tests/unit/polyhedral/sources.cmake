# Unit tests of libatoll_poly (paths relative to tests/).
target_sources(atoll_tests PRIVATE
  unit/polyhedral/isl/isl_info_test.cpp
  unit/polyhedral/loop_ast_interpreter.cpp
  unit/polyhedral/scop_test.cpp
  unit/polyhedral/deps_schedule_test.cpp
  unit/polyhedral/ast_test.cpp
  unit/polyhedral/pipeline/run_passes_test.cpp
  unit/polyhedral/pipeline/knobs_test.cpp
)
include(unit/polyhedral/schedule/pluto_sources.cmake)
include(unit/polyhedral/transforms/sources.cmake)
include(unit/polyhedral/transforms/perf_sources.cmake)
