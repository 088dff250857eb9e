# Pipeline tests of fused clusters (paths relative to tests/).
target_sources(atoll_tests PRIVATE
)
