# Front end sources (paths relative to src/).
target_sources(atoll_lib PRIVATE
  frontend/json_text.cpp
  frontend/batch_reader.cpp
  frontend/schedule_hints.cpp
  frontend/jscop_reader.cpp
  frontend/batch_writer.cpp
  frontend/onnx_tensor.cpp
  frontend/onnx_ops.cpp
  frontend/onnx_expand.cpp
  frontend/onnx_reader.cpp
)
