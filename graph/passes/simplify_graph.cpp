// The simplification driver: every enabled pass in turn, to a fixed point.
#include "graph/passes/simplify_graph.h"

#include "graph/passes/block_conv_layout.h"
#include "graph/passes/cancel_transposes.h"
#include "graph/passes/eliminate_common_subexpr.h"
#include "graph/passes/eliminate_dead_nodes.h"
#include "graph/passes/fold_batchnorm.h"
#include "graph/passes/fold_constants.h"
#include "graph/passes/fold_pad.h"
#include "graph/passes/pack_gemm_weights.h"

#include <functional>

namespace atl {

void print_simplify_summary(std::ostream &os, const SimplifySummary &s) {
  for (const auto &[name, stats] : s.passes) os << name << ": " << stats << "\n";
  os << "nodes: " << s.nodes_before << " -> " << s.nodes_after << " in " << s.rounds << " round"
     << (s.rounds == 1 ? "" : "s") << (s.converged ? "" : " (stopped before a fixed point)") << "\n";
}

Graph simplify_graph(const Graph &graph, const SimplifyOptions &options, SimplifySummary *summary) {
  using Pass = std::function<Graph(const Graph &, PassStats *)>;
  std::vector<std::pair<std::string, Pass>> passes;
  if (options.fold_constants)
    passes.emplace_back("fold_constants", [&](const Graph &g, PassStats *st) {
      return fold_constants(g, st, options.max_folded_elements);
    });
  if (options.split_compute_node) passes.emplace_back("split_compute_node", split_compute_node);
  if (options.transpose_contraction_operand)
    passes.emplace_back("transpose_contraction_operand", transpose_contraction_operand);
  if (options.fold_pad) passes.emplace_back("fold_pad", fold_pad);
  if (options.fold_batchnorm) passes.emplace_back("fold_batchnorm", fold_batchnorm);
  if (options.block_conv_layout)
    passes.emplace_back("block_conv_layout", [&](const Graph &g, PassStats *st) {
      return block_conv_layout(g, st, options.block_conv);
    });
  if (options.band_depthwise_chain)
    passes.emplace_back("band_depthwise_chain", [&](const Graph &g, PassStats *st) {
      return band_depthwise_chain(g, st, options.band_chain);
    });
  if (options.batchnorm_scale_shift) passes.emplace_back("batchnorm_scale_shift", batchnorm_scale_shift);
  if (options.gemm_weight_panel > 0)
    passes.emplace_back("pack_gemm_weights", [&](const Graph &g, PassStats *st) {
      return pack_gemm_weights(g, st, options.gemm_weight_panel);
    });
  if (options.cancel_transposes) passes.emplace_back("cancel_transposes", cancel_transposes);
  if (options.eliminate_common_subexpr) passes.emplace_back("eliminate_common_subexpr", eliminate_common_subexpr);
  if (options.eliminate_dead_nodes) passes.emplace_back("eliminate_dead_nodes", eliminate_dead_nodes);

  SimplifySummary local;
  local.nodes_before = graph.num_nodes();
  for (const auto &p : passes) local.passes.emplace_back(p.first, PassStats{});
  Graph current = graph;
  local.converged = false;
  for (int round = 0; round < options.max_rounds; ++round) {
    ++local.rounds;
    std::int64_t changes = 0;
    for (std::size_t k = 0; k < passes.size(); ++k) {
      PassStats st;
      current = passes[k].second(current, &st);
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
  local.nodes_after = current.num_nodes();
  if (summary) *summary = std::move(local);
  return current;
}

}  // namespace atl
