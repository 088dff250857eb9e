# Pipeline tests of fused clusters (paths relative to tests/).
target_sources(atoll_tests PRIVATE
  unit/src/pipeline/fusion_hint_test.cpp
  unit/src/pipeline/fusion_random_groups_test.cpp
  unit/src/pipeline/fusion_samples_test.cpp
)
set_source_files_properties(unit/src/pipeline/fusion_samples_test.cpp unit/src/pipeline/fusion_random_groups_test.cpp
  PROPERTIES COMPILE_DEFINITIONS "ATOLL_SAMPLES_DIR=\"${PROJECT_SOURCE_DIR}/samples\"")
