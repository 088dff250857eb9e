// Shared helpers of the simplification passes: rebuilding a finalized graph
// from an edited node list, and renaming the tensors that nodes read.
#pragma once

#include "graph/ir/graph.h"

#include "graph/passes/pass_stats.h"

#include <functional>
#include <memory>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace atl {

namespace compute {
struct Program;
}

/// A new finalized graph with `src`'s name, pointer, params, schedule, inputs
/// and outputs, its weights minus `drop_weights` plus `new_weights` (role
/// Weight), and `nodes` (kept in the given order; their names are already set).
Graph rebuild_graph(const Graph &src, const std::vector<Node> &nodes, const std::vector<TensorDecl> &new_weights = {},
                    const std::set<std::string> &drop_weights = {});

/// `src`'s nodes in topological order (copies).
std::vector<Node> nodes_in_order(const Graph &src);

/// A node's numeric attribute `name`, or `fallback` when it is absent or not a number.
double number_attr(const Node &n, const char *name, double fallback);

/// The program of a Compute node (its `expr` attribute parsed), or null for
/// another operator or an `expr` that does not parse.
std::shared_ptr<const compute::Program> compute_program(const Node &n);

/// Each node of `src`, in topological order, replaced by the nodes
/// `rewrite` returns for it (itself when it stays); `src` unchanged when
/// `stats` counted no change.
Graph rewrite_each_node(const Graph &src, const PassStats &stats,
                        const std::function<std::vector<Node>(const Node &)> &rewrite);

/// Replaces every input t of `nodes` by rename[t], following chains (a -> b -> c).
void rename_inputs(std::vector<Node> &nodes, const std::map<std::string, std::string> &rename);

/// Tensor name -> number of node inputs reading it, plus one per graph output.
std::map<std::string, int> count_uses(const Graph &g);

/// A tensor name not yet declared in `g` nor in `taken`, made from `base`
/// ("base", "base_1", ...); the result is added to `taken`.
std::string fresh_tensor_name(const Graph &g, const std::string &base, std::set<std::string> &taken);

/// A node name not in `names`, made from `base` ("base", "base_1", ...); the
/// result is added to `names`.
std::string fresh_node_name(const std::string &base, std::set<std::string> &names);

/// Whether `name` can stand for a tensor in the Compute text the passes
/// generate: an identifier that is no Compute function and does not end in
/// '_' (the passes' index names do: n_, c_, ...).
bool compute_identifier(const std::string &name);

}  // namespace atl
