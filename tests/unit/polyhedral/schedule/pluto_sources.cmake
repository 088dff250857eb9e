# Unit tests of the Pluto-style scheduler (paths relative to tests/).
target_sources(atoll_tests PRIVATE
  unit/polyhedral/schedule/pluto_test.cpp
)
