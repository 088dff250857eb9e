// Test helpers for the simplification passes: building nodes, running a
// concrete graph node by node through the registry definitions, comparing.
#pragma once

#include "graph/ir/graph.h"
#include <atoll/tensor.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace atl::test {

Node make_node(std::string op, std::vector<std::string> in, std::vector<std::string> out, std::string name = {},
               nlohmann::json attrs = nlohmann::json::object());

/// n values in [-1, 1) from a fixed seed.
std::vector<double> random_values(std::size_t n, std::uint64_t seed);

/// Values of every graph input and every weight without inline data, drawn
/// from a seed made of `seed` and the tensor's name (so two graphs with the
/// same declarations get the same values).
std::map<std::string, Tensor> random_feeds(const Graph &g, std::uint64_t seed = 1);

/// The graph outputs' values: every node evaluated in topological order with
/// evaluate_node (registry definitions); constants from inline data.
std::map<std::string, Tensor> run_graph(const Graph &g, const std::map<std::string, Tensor> &feeds);

/// Largest |a - b| over the outputs of both graphs on the same random feeds
/// (taken from `before`); +infinity when an output's shape differs or is missing.
double max_output_difference(const Graph &before, const Graph &after, std::uint64_t seed = 1);

/// Operator names in topological order.
std::vector<std::string> ops_in_order(const Graph &g);

}  // namespace atl::test
