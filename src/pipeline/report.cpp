// Builds report.json (cli.md) from a batch result.
#include "src/pipeline/pipeline.h"

#include <cmath>

namespace atl {

namespace {

nlohmann::json number_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

/// Per kernel, its cluster as the polyhedral layer laid it out: operators,
/// outermost loop nests, the operators grouped by shared nests, and `split`
/// (a fused cluster whose operators share no loop), and `split_from` (the
/// cluster a kernel was cut from, split_cluster), and `same_as` (the kernel
/// whose compiled code it reuses, same_clusters.cpp). The compile phase puts
/// these fields in every kernel entry of manifest_kernels.
nlohmann::json clusters_json(const GraphRun &g) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto &k : g.manifest_kernels)
    if (k.contains("cluster") && k.contains("split")) {
      out.push_back({{"name", k["cluster"]}, {"nodes", k["nodes"]}, {"loop_nests", k["loop_nests"]},
                     {"parts", k["parts"]}, {"split", k["split"]}});
      if (k.contains("split_from")) out.back()["split_from"] = k["split_from"];
      if (k.contains("same_as")) out.back()["same_as"] = k["same_as"];
    }
  return out;
}

}  // namespace

nlohmann::json report_json(const BatchRun &r) {
  using nlohmann::json;
  json out = json::object();
  out["atoll"] = 1;
  out["batch"] = r.batch.empty() ? json(nullptr) : json(r.batch);
  out["target"] = r.target;
  out["error"] = r.error ? json(*r.error) : json(nullptr);
  out["graphs"] = json::array();
  for (const GraphRun &g : r.graphs) {
    json j = json::object();
    j["name"] = g.name;
    j["status"] = g.ok ? "ok" : "error";
    j["error"] = g.ok ? json(nullptr) : json(g.error);
    json params = json::object();
    for (const auto &[name, values] : g.params) params[name] = json(values);
    j["params"] = params;
    j["kernels"] = g.kernels ? json(*g.kernels) : json(nullptr);
    j["clusters"] = g.kernels ? clusters_json(g) : json(nullptr);
    j["flops"] = g.flops ? json(*g.flops) : json(nullptr);
    j["compile_ms"] = g.compile_ms ? json(*g.compile_ms) : json(nullptr);
    json stages = json::object();
    for (const auto &[stage, ms] : g.stage_ms) stages[stage] = ms;
    j["stage_ms"] = stages;
    j["fallbacks"] = g.fallbacks;
    j["passes"] = g.passes;
    j["rejected_passes"] = g.rejected_passes;
    if (g.verify) {
      json v = json::object();
      v["passed"] = g.verify->passed;
      v["oracle"] = g.verify->oracle;
      v["max_abs_err"] = number_or_null(g.verify->max_abs_err);
      v["max_rel_err"] = number_or_null(g.verify->max_rel_err);
      if (!g.verify->detail.empty()) v["detail"] = g.verify->detail;
      j["verify"] = v;
    } else if (r.verify) {
      j["verify"] = nullptr;
    }
    if (g.bench) {
      j["bench"] = {{"median_ms", g.bench->median_ms}, {"runs", g.bench->runs}, {"threads", g.bench->threads},
                    {"gflops", g.bench->gflops}, {"weight_ms", g.bench->weight_ms}};
      json kernels = json::array();
      for (const BenchResult::Kernel &k : g.bench->kernels)
        kernels.push_back({{"name", k.name}, {"median_ms", k.median_ms}, {"max_ms", k.max_ms}, {"phase", k.phase}});
      j["bench"]["kernels"] = kernels;
    } else if (r.bench) {
      j["bench"] = nullptr;
    }
    if (g.gpu) j["gpu"] = *g.gpu;
    if (g.npu) j["npu"] = *g.npu;
    if (g.stats) j["stats"] = *g.stats;
    else if (r.stats) j["stats"] = nullptr;
    if (g.memory)
      j["memory"] = {{"peak_bytes", g.memory->peak_bytes}, {"intermediates_bytes", g.memory->intermediates_bytes},
                     {"bytes_moved", g.memory->bytes_moved}, {"buffers", g.memory->buffers},
                     {"heuristic", g.memory->heuristic}};
    out["graphs"].push_back(j);
  }
  return out;
}

nlohmann::json manifest_json(const BatchRun &r) {
  nlohmann::json manifest = {{"atoll", 1},
                             {"batch", r.batch.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.batch)},
                             {"target", r.target},
                             {"graphs", nlohmann::json::array()}};
  for (const GraphRun &g : r.graphs)
    manifest["graphs"].push_back({{"name", g.name}, {"status", g.ok ? "ok" : "error"}, {"kernels", g.manifest_kernels}});
  return manifest;
}

}  // namespace atl
