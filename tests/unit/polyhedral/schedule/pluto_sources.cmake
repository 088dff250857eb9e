# Unit tests of the Pluto-style scheduler (paths relative to tests/).
target_sources(atoll_tests PRIVATE
  unit/polyhedral/schedule/pluto_test.cpp
)
set_source_files_properties(unit/polyhedral/schedule/pluto_test.cpp PROPERTIES
  COMPILE_DEFINITIONS ATOLL_SAMPLES_DIR="${PROJECT_SOURCE_DIR}/samples")
