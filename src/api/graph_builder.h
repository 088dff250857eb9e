// Inside the library: the graph IR that a public GraphBuilder holds, and
// reading one graph object of the batch format into it.
#pragma once

#include <atoll/graph.h>

#include "graph/ir/graph.h"

#include <memory>
#include <string>

namespace atl {

struct GraphBuilder::Impl {
  Graph graph;
  bool finalized = false;
};

/// A builder that holds `impl` (not null).
GraphBuilder make_graph_builder(std::unique_ptr<GraphBuilder::Impl> impl);

/// The builder's graph (finalized or not).
const GraphBuilder::Impl &graph_builder_impl(const GraphBuilder &builder);

/// A finalized builder that holds `graph` (finalized): for the library's own
/// callers and tests that have a graph IR already.
GraphBuilder builder_from_graph(Graph graph);

/// An error located inside graph 0 of a batch, located relative to the
/// graph object instead ("/graphs/0/nodes/1" becomes "/nodes/1").
UserError relative_to_graph(const UserError &e);

/// One graph object of the batch format, read and checked as graph 0 of a
/// batch; errors are located relative to the object.
Graph read_graph_object(const std::string &graph_json);

}  // namespace atl
