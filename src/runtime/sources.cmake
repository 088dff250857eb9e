# runtime sources (paths relative to src/).
target_sources(atoll_lib PRIVATE
  runtime/version.cpp
  runtime/init_data.cpp
  runtime/npy.cpp
  runtime/files.cpp
)
