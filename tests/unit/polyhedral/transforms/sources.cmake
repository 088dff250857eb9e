# Tests of the schedule-tree transformations, the isl wrappers and random legal schedule changes (paths relative to tests/).
target_sources(atoll_tests PRIVATE
  unit/polyhedral/transforms/tile_bands_test.cpp
  unit/polyhedral/transforms/permute_band_test.cpp
  unit/polyhedral/isl/isl_context_test.cpp
  unit/polyhedral/transforms/contract_fuse_test.cpp
  unit/polyhedral/transforms/reuse_temporaries_test.cpp
  unit/polyhedral/transforms/pack_tiles_test.cpp
  unit/src/ops/random_schedules_test.cpp
)
set_source_files_properties(unit/src/ops/random_schedules_test.cpp PROPERTIES
  COMPILE_DEFINITIONS ATOLL_SAMPLES_DIR="${PROJECT_SOURCE_DIR}/samples")
