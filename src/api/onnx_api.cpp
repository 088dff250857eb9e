// The public ONNX import and batch writing (include/atoll/onnx.h), over the
// front end's reader and writer.
#include <atoll/onnx.h>

#include "src/api/graph_builder.h"
#include "src/frontend/batch_writer.h"
#include "src/frontend/onnx_reader.h"

namespace atl {

GraphBuilder import_onnx(const std::string &path, const OnnxImportOptions &options) {
  OnnxReadOptions o;
  o.graph_name = options.graph_name;
  try {
    return builder_from_graph(read_onnx_file(path, o));
  } catch (const UserError &e) {
    throw UserError(path + ": " + e.reason(), {});
  }
}

std::vector<std::string> write_batch(const std::vector<GraphBuilder> &graphs, const std::string &path,
                                     const std::string &batch_name, std::int64_t inline_limit) {
  std::vector<const Graph *> list;
  for (const GraphBuilder &g : graphs) {
    if (!g.finalized()) throw UserError("write_batch: graph '" + g.name() + "' is not finalized");
    list.push_back(&graph_builder_impl(g).graph);
  }
  BatchWriteOptions o;
  o.inline_limit = inline_limit;
  return write_batch_file(batch_name, list, path, o);
}

}  // namespace atl
