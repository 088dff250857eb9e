# The C API (include/atoll/atoll.h, docs/c-api.md): paths relative to src/.
target_sources(atoll_lib PRIVATE
  api/c_api.cpp
)
