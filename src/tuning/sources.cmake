# The tuner (include/atoll/tune.h, docs/tuning.md): the search and its child
# process, the records (paths relative to src/).
target_sources(atoll_lib PRIVATE
  tuning/records.cpp
  tuning/tuner.cpp
  tuning/worker.cpp
)
