# The C++ module API (include/atoll/module.h, docs/api.md) and the C API over
# it (include/atoll/atoll.h, docs/c-api.md): paths relative to src/.
target_sources(atoll_lib PRIVATE
  api/module.cpp
  api/c_api.cpp
  api/graph_builder.cpp
  api/scop.cpp
  api/onnx_api.cpp
)
