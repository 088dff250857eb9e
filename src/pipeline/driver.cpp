// The public batch driver (include/atoll/driver.h): reads a batch, runs
// run_pipeline, and gives the result with report.json's and manifest.json's
// text.
#include <atoll/driver.h>

#include "src/api/graph_builder.h"
#include "src/frontend/onnx_reader.h"
#include "src/pipeline/pipeline.h"

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

namespace atl {

namespace {

/// JSON text of a report or manifest; bytes that are not UTF-8 (from names in
/// the batch) become U+FFFD rather than an exception.
std::string json_text(const nlohmann::json &j) {
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

/// A parameter in `params` that no graph of the batch declares (a misspelt
/// name would otherwise be ignored without a word); nothing when every name
/// is declared or when a graph could not be read (it may be the one that
/// declares it).
void check_params_declared(const Batch &batch, const std::map<std::string, std::int64_t> &params) {
  std::set<std::string> declared;
  for (const BatchGraph &g : batch.graphs) {
    if (!g.graph) return;
    for (const auto &[name, range] : g.graph->params) declared.insert(name);
  }
  for (const auto &[name, value] : params) {
    if (declared.count(name)) continue;
    std::string list;
    for (const std::string &d : declared) list += (list.empty() ? "" : ", ") + d;
    throw OptionError("--param " + name + ": no graph of the batch declares a parameter '" + name + "' (" +
                      (list.empty() ? std::string("it has no parameters") : "declared: " + list) + ")");
  }
}

BatchResult to_public(const BatchRun &run, PipelineOptions::Mode mode) {
  BatchResult r;
  r.batch = run.batch;
  r.target = run.target;
  r.error = run.error;
  r.verify = run.verify;
  r.bench = run.bench;
  r.stats = run.stats;
  for (const GraphRun &g : run.graphs) r.graphs.push_back(g);
  r.report_json = json_text(report_json(run));
  if (mode == PipelineOptions::Mode::Compile && !run.error) {
    r.manifest_json = json_text(manifest_json(run));
    r.out_dir = run.out_dir;
  }
  return r;
}

/// Runs a read batch; a UserError that stops the whole batch becomes its error.
BatchResult run_read_batch(const Batch &batch, const PipelineOptions &options) {
  check_params_declared(batch, options.params);
  if (options.shards < 1 || options.shard < 0 || options.shard >= options.shards)
    throw OptionError("--shard I/N needs 0 <= I < N");
  BatchRun run;
  try {
    run = run_pipeline(batch, options);
  } catch (const OptionError &) {
    throw;
  } catch (const UserError &e) {
    run = start_run(batch.name, options);
    run.error = e.what();
  }
  return to_public(run, options.mode);
}

BatchResult unreadable(const std::string &why, const PipelineOptions &options) {
  BatchRun run = start_run("", options);
  run.error = why;
  return to_public(run, options.mode);
}

}  // namespace

std::size_t merge_shard_reports(const std::string &dir) {
  namespace fs = std::filesystem;
  // report-I-of-N.json and manifest-I-of-N.json, by I.
  std::map<int, fs::path> reports, manifests;
  int count = 0;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw UserError("merge: '" + dir + "' is not a directory");
  static const std::regex name(R"((report|manifest)-([0-9]{1,4})-of-([0-9]{1,4})\.json)");
  for (const auto &e : fs::directory_iterator(dir)) {
    std::smatch m;
    const std::string f = e.path().filename().string();
    if (!std::regex_match(f, m, name)) continue;
    const int i = std::stoi(m[2].str()), n = std::stoi(m[3].str());
    if (count && n != count) throw UserError("merge: '" + dir + "' holds shards of " + std::to_string(count) + " and of " + std::to_string(n));
    count = n;
    (m[1].str() == "report" ? reports : manifests)[i] = e.path();
  }
  if (!count) throw UserError("merge: no report-I-of-N.json in '" + dir + "' (atoll compile --shard I/N -o DIR writes them)");
  auto read = [](const fs::path &p) {
    std::ifstream in(p);
    try {
      return nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception &e) {
      throw UserError("merge: '" + p.string() + "' is not JSON: " + e.what());
    }
  };
  auto merge = [&](const std::map<int, fs::path> &files, const char *what) {
    std::vector<nlohmann::json> parts;
    for (int i = 0; i < count; ++i) {
      auto it = files.find(i);
      if (it == files.end())
        throw UserError(std::string("merge: ") + what + "-" + std::to_string(i) + "-of-" + std::to_string(count) +
                        ".json is missing in '" + dir + "'");
      parts.push_back(read(it->second));
      if (!parts.back().is_object() || !parts.back()["graphs"].is_array())
        throw UserError("merge: '" + it->second.string() + "' has no graphs");
      if (parts.back().value("batch", std::string()) != parts.front().value("batch", std::string()))
        throw UserError("merge: '" + it->second.string() + "' is of another batch");
    }
    // Graph j of the batch is graph j / N of shard j mod N.
    std::size_t total = 0;
    for (const auto &p : parts) total += p["graphs"].size();
    nlohmann::json out = parts.front();
    out["graphs"] = nlohmann::json::array();
    for (std::size_t j = 0; j < total; ++j) {
      const auto &g = parts[j % static_cast<std::size_t>(count)]["graphs"];
      if (j / static_cast<std::size_t>(count) >= g.size())
        throw UserError(std::string("merge: the shards' ") + what + "s do not split one batch of " +
                        std::to_string(total) + " graphs");
      out["graphs"].push_back(g[j / static_cast<std::size_t>(count)]);
    }
    for (const auto &p : parts)
      if (p.contains("error") && !p["error"].is_null()) out["error"] = p["error"];
    const fs::path dest = fs::path(dir) / (std::string(what) + ".json"), tmp = dest.string() + ".tmp";
    {
      std::ofstream o(tmp);
      o << json_text(out);
      if (!o) throw UserError("merge: cannot write '" + tmp.string() + "'");
    }
    fs::rename(tmp, dest);
    return total;
  };
  std::size_t graphs = merge(reports, "report");
  if (!manifests.empty()) merge(manifests, "manifest");
  return graphs;
}

int BatchResult::exit_status() const { return exit_status_of(error, graphs); }

BatchResult run_batch(std::string_view json_text, const PipelineOptions &options) {
  check_target(options.target);
  Batch batch;
  try {
    batch = read_batch(json_text);
  } catch (const UserError &e) {
    return unreadable(e.what(), options);
  }
  return run_read_batch(batch, options);
}

BatchResult run_batch_file(const std::string &path, const PipelineOptions &options) {
  check_target(options.target);
  Batch batch;
  try {
    batch = read_input_file(path);  // a batch file, or an ONNX model as a batch of one graph
  } catch (const UserError &e) {
    return unreadable(e.what(), options);
  }
  return run_read_batch(batch, options);
}

BatchResult run_graphs(const std::string &batch_name, const std::vector<GraphBuilder> &graphs,
                       const PipelineOptions &options) {
  check_target(options.target);
  Batch batch;
  batch.name = batch_name;
  std::set<std::string> names;
  for (const GraphBuilder &g : graphs) {
    if (!g.finalized())
      throw UserError("run_graphs: graph '" + g.name() + "' is not finalized (call GraphBuilder::finalize() first)");
    if (!names.insert(g.name()).second) throw UserError("run_graphs: duplicate graph name '" + g.name() + "'");
    BatchGraph entry;
    entry.name = g.name();
    entry.pointer = "/graphs/" + std::to_string(batch.graphs.size());
    entry.graph = graph_builder_impl(g).graph;
    batch.graphs.push_back(std::move(entry));
  }
  return run_read_batch(batch, options);
}

}  // namespace atl
