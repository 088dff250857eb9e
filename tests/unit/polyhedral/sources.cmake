# Unit tests of libatoll_poly (paths relative to tests/).
target_sources(atoll_tests PRIVATE
  unit/polyhedral/isl/isl_info_test.cpp
)
