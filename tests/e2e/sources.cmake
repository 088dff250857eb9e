# End-to-end polyhedral tests linked into atoll_tests (paths relative to tests/).
target_sources(atoll_tests PRIVATE e2e/schedulers_test.cpp)
set_source_files_properties(e2e/schedulers_test.cpp PROPERTIES
  COMPILE_DEFINITIONS "ATOLL_SAMPLES_DIR=\"${PROJECT_SOURCE_DIR}/samples\"")
