# Tests of the schedule-tree transformations and random legal schedule changes (paths relative to tests/).
target_sources(atoll_tests PRIVATE
  unit/polyhedral/transforms/tile_bands_test.cpp
  unit/polyhedral/transforms/permute_band_test.cpp
  unit/src/ops/random_schedules_test.cpp
)
