// Pad folding: a Conv's own zero padding replaces a zero Pad in front of it.
#include "graph/passes/fold_pad.h"

#include "graph/passes/rebuild_graph.h"

#include <map>

namespace atl {

namespace {

/// Begin and end pads of every axis of a Pad node over a rank-`rank` input,
/// or false when the Pad is not a zero constant pad.
bool zero_pads(const Node &pad, int rank, std::vector<std::int64_t> &begin, std::vector<std::int64_t> &end) {
  const nlohmann::json &a = pad.attrs;
  if (a.contains("mode") && a["mode"] != "constant") return false;
  if (a.contains("constant_value") && (!a["constant_value"].is_number() || a["constant_value"].get<double>() != 0.0))
    return false;
  if (!a.contains("pads") || !a["pads"].is_array()) return false;
  std::vector<std::int64_t> axes;
  if (a.contains("axes")) {
    if (!a["axes"].is_array()) return false;
    for (const auto &x : a["axes"]) axes.push_back(x.get<std::int64_t>() < 0 ? x.get<std::int64_t>() + rank : x.get<std::int64_t>());
  } else {
    for (int i = 0; i < rank; ++i) axes.push_back(i);
  }
  const nlohmann::json &pads = a["pads"];
  if (pads.size() != 2 * axes.size()) return false;
  begin.assign(rank, 0);
  end.assign(rank, 0);
  for (std::size_t i = 0; i < axes.size(); ++i) {
    if (axes[i] < 0 || axes[i] >= rank) return false;
    begin[axes[i]] += pads[i].get<std::int64_t>();
    end[axes[i]] += pads[axes.size() + i].get<std::int64_t>();
  }
  return true;
}

}  // namespace

Graph fold_pad(const Graph &graph, PassStats *stats) {
  PassStats local;
  std::vector<Node> nodes = nodes_in_order(graph);
  std::map<std::string, int> uses = count_uses(graph);
  std::map<std::string, std::size_t> producer;
  for (std::size_t i = 0; i < nodes.size(); ++i)
    for (const std::string &o : nodes[i].outputs) producer[o] = i;
  std::vector<bool> drop(nodes.size(), false);
  for (Node &conv : nodes) {
    if (conv.op != "Conv" || conv.inputs.empty()) continue;
    auto it = producer.find(conv.inputs[0]);
    if (it == producer.end() || nodes[it->second].op != "Pad" || drop[it->second]) continue;
    const Node &pad = nodes[it->second];
    const std::string &padded = pad.outputs[0];
    int rank = graph.tensor(pad.inputs[0]).type.rank();
    std::vector<std::int64_t> begin, end;
    if (!zero_pads(pad, rank, begin, end)) {
      local.count("not folded: not a zero constant pad", 1, false);
      continue;
    }
    bool spatial = rank >= 3 && begin[0] == 0 && end[0] == 0 && begin[1] == 0 && end[1] == 0;
    for (int d = 0; d < rank; ++d) spatial = spatial && begin[d] >= 0 && end[d] >= 0;
    if (!spatial) {
      local.count("not folded: pads batch or channel axes, or crops", 1, false);
      continue;
    }
    if (uses[padded] != 1) {
      local.count("not folded: padded tensor has other uses", 1, false);
      continue;
    }
    std::string auto_pad = conv.attrs.contains("auto_pad") && conv.attrs["auto_pad"].is_string()
                               ? conv.attrs["auto_pad"].get<std::string>() : "NOTSET";
    if (auto_pad != "NOTSET") {
      local.count("not folded: Conv uses auto_pad", 1, false);
      continue;
    }
    std::size_t k = static_cast<std::size_t>(rank - 2);
    std::vector<std::int64_t> cp(2 * k, 0);
    if (conv.attrs.contains("pads")) cp = conv.attrs["pads"].get<std::vector<std::int64_t>>();
    if (cp.size() != 2 * k) continue;
    for (std::size_t d = 0; d < k; ++d) {
      cp[d] += begin[d + 2];
      cp[k + d] += end[d + 2];
    }
    conv.attrs["pads"] = cp;
    conv.inputs[0] = pad.inputs[0];
    drop[it->second] = true;
    local.count("pads folded into Conv");
  }
  if (stats) stats->merge(local);
  if (local.changes == 0) return graph;
  std::vector<Node> kept;
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (!drop[i]) kept.push_back(std::move(nodes[i]));
  return rebuild_graph(graph, kept);
}

}  // namespace atl
