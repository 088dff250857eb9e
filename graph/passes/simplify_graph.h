// Runs the simplification passes to a fixed point and summarises what they did.
#pragma once

#include "graph/core/pass_table.h"
#include "graph/ir/graph.h"

#include "graph/passes/batchnorm_scale_shift.h"
#include "graph/passes/band_depthwise_chain.h"
#include "graph/passes/block_conv_layout.h"
#include "graph/passes/pass_stats.h"
#include "graph/passes/split_compute_node.h"
#include "graph/passes/transpose_contraction_operand.h"

#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace atl {

/// Which passes simplify_graph runs, and their limits.
struct SimplifyOptions {
  /// name_inputs (off by default for API compatibility; compile_graph turns it on).
  bool name_inputs = false;
  bool fold_constants = true;
  bool fold_pad = false;  ///< off by default for API compatibility; compile_graph turns it on
  bool fold_batchnorm = true;
  bool block_conv_layout = false;  ///< off by default for API compatibility; compile_graph turns it on
  BlockConvOptions block_conv;     ///< block_conv_layout's block size and cost-model limits
  /// band_depthwise_chain (off by default for API compatibility; compile_graph
  /// turns it on unless the graph's `fuse` hint is "none") and its limits.
  bool band_depthwise_chain = false;
  BandChainOptions band_chain;
  bool batchnorm_scale_shift = false;  ///< off by default for API compatibility; compile_graph turns it on
  /// split_compute_node (off by default for API compatibility; compile_graph turns it on).
  bool split_compute_node = false;
  /// transpose_contraction_operand (off by default for API compatibility; compile_graph turns it on).
  bool transpose_contraction_operand = false;
  /// pack_gemm_weights' panel width (0: off, the default for API compatibility;
  /// compile_graph passes the CPU register tile's width).
  int gemm_weight_panel = 0;
  bool cancel_transposes = true;
  bool eliminate_common_subexpr = true;
  bool eliminate_dead_nodes = true;
  std::int64_t max_folded_elements = 1 << 20;  ///< fold_constants' limit per result
  int max_rounds = 10;                          ///< rounds before giving up on a fixed point
};

/// What simplify_graph did: per pass, counts summed over all rounds.
struct SimplifySummary {
  std::vector<std::pair<std::string, PassStats>> passes;  ///< in running order
  int rounds = 0;                                         ///< rounds run (the last one changed nothing)
  bool converged = true;                                  ///< false: stopped at max_rounds
  std::size_t nodes_before = 0, nodes_after = 0;
};

/// What the graph passes work on: the graph, the options, and the counts of
/// the pass that runs.
struct SimplifyState {
  const SimplifyOptions &options;
  Graph graph;
  PassStats stats;
};

/// The graph passes, in running order (explain --list-stages); each row is
/// enabled by its SimplifyOptions flag.
const PassTable<SimplifyState> &simplify_passes();

/// Text of a summary: one line per pass with its counts, then the totals.
void print_simplify_summary(std::ostream &os, const SimplifySummary &summary);

/// Runs the enabled rows of simplify_passes(), in table order, again and
/// again until a round changes nothing (or max_rounds).
///
///   before:  t = Transpose(x); u = Transpose(t); a = Relu(u); b = Relu(u); y = Add(a, b)
///   after:   a = Relu(x); y = Add(a, a)
Graph simplify_graph(const Graph &graph, const SimplifyOptions &options = {}, SimplifySummary *summary = nullptr);

}  // namespace atl
