// The simplification driver: every enabled pass in turn, to a fixed point.
#include "graph/passes/simplify_graph.h"

#include "graph/passes/block_conv_layout.h"
#include "graph/passes/cancel_transposes.h"
#include "graph/passes/eliminate_common_subexpr.h"
#include "graph/passes/eliminate_dead_nodes.h"
#include "graph/passes/fold_batchnorm.h"
#include "graph/passes/fold_constants.h"
#include "graph/passes/fold_pad.h"
#include "graph/passes/name_inputs.h"
#include "graph/passes/pack_gemm_weights.h"

#include <functional>

namespace atl {

void print_simplify_summary(std::ostream &os, const SimplifySummary &s) {
  for (const auto &[name, stats] : s.passes) os << name << ": " << stats << "\n";
  os << "nodes: " << s.nodes_before << " -> " << s.nodes_after << " in " << s.rounds << " round"
     << (s.rounds == 1 ? "" : "s") << (s.converged ? "" : " (stopped before a fixed point)") << "\n";
}

namespace {

/// A row whose pass takes only the graph and its statistics.
template <Graph (*Pass)(const Graph &, PassStats *)>
bool run_plain(SimplifyState &s) {
  s.graph = Pass(s.graph, &s.stats);
  return s.stats.changes != 0;
}

const PassTable<SimplifyState> kSimplifyPasses = {
    {"name_inputs", "graph", "graph inputs whose names Compute text cannot hold read through a no-op Reshape named so",
     [](const SimplifyState &s) { return s.options.name_inputs; }, run_plain<name_inputs>},
    {"fold_constants", "graph", "nodes whose inputs are all constants evaluated into weights with inline data",
     [](const SimplifyState &s) { return s.options.fold_constants; },
     [](SimplifyState &s) {
       s.graph = fold_constants(s.graph, &s.stats, s.options.max_folded_elements);
       return s.stats.changes != 0;
     }},
    {"split_compute_node", "graph", "a Compute node of several contractions split into one node per contraction",
     [](const SimplifyState &s) { return s.options.split_compute_node; }, run_plain<split_compute_node>},
    {"transpose_contraction_operand", "graph",
     "a contraction operand read across its rows given a transposed copy",
     [](const SimplifyState &s) { return s.options.transpose_contraction_operand; },
     run_plain<transpose_contraction_operand>},
    {"fold_pad", "graph", "a zero Pad of the spatial axes folded into the Conv that reads it",
     [](const SimplifyState &s) { return s.options.fold_pad; }, run_plain<fold_pad>},
    {"fold_batchnorm", "graph", "a constant BatchNormalization folded into the Conv, Gemm or MatMul before it",
     [](const SimplifyState &s) { return s.options.fold_batchnorm; }, run_plain<fold_batchnorm>},
    {"block_conv_layout", "graph", "2-D convolutions computed in a channel-blocked layout (and Winograd) where it pays",
     [](const SimplifyState &s) { return s.options.block_conv_layout; },
     [](SimplifyState &s) {
       s.graph = block_conv_layout(s.graph, &s.stats, s.options.block_conv);
       return s.stats.changes != 0;
     }},
    {"band_depthwise_chain", "graph", "1x1 -> depthwise -> 1x1 Conv chains run in bands of output rows",
     [](const SimplifyState &s) { return s.options.band_depthwise_chain; },
     [](SimplifyState &s) {
       s.graph = band_depthwise_chain(s.graph, &s.stats, s.options.band_chain);
       return s.stats.changes != 0;
     }},
    {"batchnorm_scale_shift", "graph", "a BatchNormalization with run-time parameters as a per-channel scale and shift",
     [](const SimplifyState &s) { return s.options.batchnorm_scale_shift; }, run_plain<batchnorm_scale_shift>},
    {"pack_gemm_weights", "graph", "a MatMul's weight laid out in column panels by a weight-phase kernel",
     [](const SimplifyState &s) { return s.options.gemm_weight_panel > 0; },
     [](SimplifyState &s) {
       s.graph = pack_gemm_weights(s.graph, &s.stats, s.options.gemm_weight_panel);
       return s.stats.changes != 0;
     }},
    {"cancel_transposes", "graph", "Transpose and Reshape pairs cancelled or composed, no-op Reshapes dropped",
     [](const SimplifyState &s) { return s.options.cancel_transposes; }, run_plain<cancel_transposes>},
    {"eliminate_common_subexpr", "graph", "nodes applying the same operator to the same inputs merged",
     [](const SimplifyState &s) { return s.options.eliminate_common_subexpr; }, run_plain<eliminate_common_subexpr>},
    {"eliminate_dead_nodes", "graph", "nodes that reach no output and weights nothing reads removed",
     [](const SimplifyState &s) { return s.options.eliminate_dead_nodes; }, run_plain<eliminate_dead_nodes>},
};

}  // namespace

const PassTable<SimplifyState> &simplify_passes() { return kSimplifyPasses; }

Graph simplify_graph(const Graph &graph, const SimplifyOptions &options, SimplifySummary *summary) {
  std::vector<const PassRow<SimplifyState> *> passes;
  SimplifyState state{options, graph, {}};
  for (const PassRow<SimplifyState> &row : kSimplifyPasses)
    if (row.enabled(state)) passes.push_back(&row);

  SimplifySummary local;
  local.nodes_before = graph.num_nodes();
  for (const auto *p : passes) local.passes.emplace_back(p->name, PassStats{});
  local.converged = false;
  for (int round = 0; round < options.max_rounds; ++round) {
    ++local.rounds;
    std::int64_t changes = 0;
    for (std::size_t k = 0; k < passes.size(); ++k) {
      state.stats = PassStats{};
      passes[k]->run(state);
      const PassStats &st = state.stats;
      // Notes ("not folded: ...") are counted once, from the first round.
      if (round == 0) {
        local.passes[k].second.merge(st);
      } else {
        PassStats rewrites;
        rewrites.changes = st.changes;
        for (const auto &[what, n] : st.counts)
          if (what.rfind("not ", 0) != 0) rewrites.counts[what] = n;
        local.passes[k].second.merge(rewrites);
      }
      changes += st.changes;
    }
    if (changes == 0) {
      local.converged = true;
      break;
    }
  }
  local.nodes_after = state.graph.num_nodes();
  if (summary) *summary = std::move(local);
  return std::move(state.graph);
}

}  // namespace atl
