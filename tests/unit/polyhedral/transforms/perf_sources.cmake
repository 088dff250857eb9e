# Unit tests of the performance transformations (paths relative to tests/).
target_sources(atoll_tests PRIVATE
)
