# Pipeline tests of memory planning and parallel batch compilation (paths relative to tests/).
target_sources(atoll_tests PRIVATE
)
