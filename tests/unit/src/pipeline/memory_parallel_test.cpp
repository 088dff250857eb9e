// run_pipeline: graphs compile in parallel, results keep the batch order, one
// failing graph does not stop the others; report.json's memory fields.
#include "src/frontend/batch.h"
#include "src/pipeline/pipeline.h"

#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

using namespace atl;

namespace {

/// A graph of `ops` unary operators on x[rows, 16], one kernel each; a bad `tree` hint makes it fail.
std::string chain_graph(const std::string &name, int rows, int ops, bool fail = false) {
  std::string nodes;
  std::string x = "x";
  const char *kinds[] = {"Relu", "Neg", "Exp", "Tanh"};
  for (int i = 0; i < ops; ++i) {
    std::string out = i + 1 == ops ? "y" : "t" + std::to_string(i);
    nodes += std::string(i ? "," : "") + R"({"op": ")" + kinds[i % 4] + R"(", "inputs": [")" + x + R"("], "outputs": [")" + out + R"("]})";
    x = out;
  }
  // No fusion (one kernel per node); a `tree` hint for a cluster that does not exist fails.
  std::string schedule = fail ? R"(, "schedule": {"fuse": "none", "tree": {"no_such_cluster": "domain: \"{}\""}})"
                              : R"(, "schedule": {"fuse": "none"})";
  return R"({"name": ")" + name + R"(", "inputs": [{"name": "x", "shape": [)" + std::to_string(rows) +
         R"(, 16]}], "nodes": [)" + nodes + R"(], "outputs": ["y"])" + schedule + "}";
}

/// Sets ATOLL_COMPILE_THREADS for the scope.
struct CompileThreads {
  explicit CompileThreads(const char *n) { setenv("ATOLL_COMPILE_THREADS", n, 1); }
  ~CompileThreads() { unsetenv("ATOLL_COMPILE_THREADS"); }
};

}  // namespace

TEST_SUITE("src") {
TEST_CASE("parallel batch compile: results in batch order, a failing graph among good ones") {
  CompileThreads threads("4");
  std::string text = R"({"atoll": 1, "name": "par", "graphs": [)";
  const int n = 7;
  for (int i = 0; i < n; ++i) text += (i ? "," : "") + chain_graph("g" + std::to_string(i), 8 + i, 1 + i % 4, i == 3);
  text += "]}";
  Batch batch = read_batch(text);
  PipelineOptions o;
  o.verify = true;
  BatchRun r = run_pipeline(batch, o);
  REQUIRE(r.graphs.size() == n);
  for (int i = 0; i < n; ++i) {
    CAPTURE(i);
    CHECK(r.graphs[i].name == "g" + std::to_string(i));
    if (i == 3) {
      CHECK(!r.graphs[i].ok);
      CHECK(r.graphs[i].error.find("no cluster named 'no_such_cluster'") != std::string::npos);
      CHECK(!r.graphs[i].verify);
      continue;
    }
    CHECK(r.graphs[i].ok);
    REQUIRE(r.graphs[i].kernels);
    CHECK(*r.graphs[i].kernels == 1 + i % 4);
    REQUIRE(r.graphs[i].verify);
    CHECK(r.graphs[i].verify->passed);
    REQUIRE(r.graphs[i].memory);
  }
  CHECK(r.exit_status() == 1);
}

TEST_CASE("parallel batch compile gives the same results as sequential compile") {
  std::string text = R"({"atoll": 1, "graphs": [)" + chain_graph("a", 5, 4) + "," + chain_graph("b", 9, 3) + "," +
                     chain_graph("c", 2, 2) + "]}";
  Batch batch = read_batch(text);
  PipelineOptions o;
  o.verify = true;
  BatchRun seq, par;
  {
    CompileThreads threads("1");
    seq = run_pipeline(batch, o);
  }
  {
    CompileThreads threads("3");
    par = run_pipeline(batch, o);
  }
  REQUIRE(seq.graphs.size() == par.graphs.size());
  for (std::size_t i = 0; i < seq.graphs.size(); ++i) {
    CHECK(seq.graphs[i].name == par.graphs[i].name);
    CHECK(seq.graphs[i].ok);
    CHECK(par.graphs[i].ok);
    CHECK(seq.graphs[i].verify->max_abs_err == par.graphs[i].verify->max_abs_err);
    CHECK(seq.graphs[i].memory->peak_bytes == par.graphs[i].memory->peak_bytes);
  }
  CHECK(par.exit_status() == 0);
}

TEST_CASE("report.json: kernels and memory (peak, intermediates, bytes moved) per graph") {
  // x[8, 16] -> relu -> neg -> exp -> tanh -> y: three f32 intermediates of 512
  // bytes, at most two live at once.
  Batch batch = read_batch(R"({"atoll": 1, "graphs": [)" + chain_graph("g", 8, 4) + "]}");
  BatchRun r = run_pipeline(batch, PipelineOptions{});
  nlohmann::json j = report_json(r);
  const nlohmann::json &g = j["graphs"][0];
  CHECK(g["kernels"] == 4);
  REQUIRE(g.contains("memory"));
  CHECK(g["memory"]["intermediates_bytes"] == 3 * 512);
  CHECK(g["memory"]["peak_bytes"] == 2 * 512);
  CHECK(g["memory"]["bytes_moved"] == 4 * 2 * 512);
  CHECK(g["memory"]["buffers"] == 3);
  CHECK(g["memory"]["heuristic"].is_string());
}

TEST_CASE("report.json: no memory field for a graph that did not compile") {
  Batch batch = read_batch(R"({"atoll": 1, "graphs": [)" + chain_graph("bad", 8, 2, true) + "]}");
  nlohmann::json j = report_json(run_pipeline(batch, PipelineOptions{}));
  CHECK(j["graphs"][0]["status"] == "error");
  CHECK(!j["graphs"][0].contains("memory"));
}
}
