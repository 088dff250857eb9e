// The pass runner: legality checks with rollback and the violated
// dependence logged, retries, skipped and unchanged passes, statistics,
// the IR kept after passes; the CPU table's shape; compile_cluster's log.
#include "polyhedral/compile_cluster.h"
#include "polyhedral/isl/isl_context.h"
#include "polyhedral/pipeline/cluster_state.h"
#include "polyhedral/pipeline/cpu_pipeline.h"
#include "polyhedral/pipeline/passes.h"
#include "polyhedral/pipeline/run_passes.h"
#include "tests/unit/polyhedral/poly_test_util.h"

#include <doctest/doctest.h>

#include <set>
#include <sstream>
#include <string>

using namespace atl;
using namespace atl::poly;

namespace {

/// x[16] -> Relu -> Neg -> y: the Neg's statement reads what the Relu's writes.
Graph chain() {
  return polytest::graph_json(
      R"([{"op": "Relu", "name": "r", "inputs": ["x"], "outputs": ["t"]},
          {"op": "Neg", "name": "ng", "inputs": ["t"], "outputs": ["y"]}])",
      R"("inputs": [{"name": "x", "shape": [16]}], "outputs": ["y"])");
}

std::string domain_text(const ClusterState &s) {
  std::ostringstream os;
  os << s.scop.domain();
  return os.str();
}

/// The chain's two statements in reverse order: the read before the write.
isl::schedule reversed(const ClusterState &s) {
  REQUIRE(s.scop.statements.size() == 2);
  const std::string first = s.scop.statements[0].name, second = s.scop.statements[1].name;
  std::string yaml = "domain: \"" + domain_text(s) + "\"\nchild:\n  sequence:\n  - filter: \"{ " + second +
                     "[i0] }\"\n  - filter: \"{ " + first + "[i0] }\"\n";
  return isl::schedule(s.ctx, yaml);
}

/// The chain's two statements in one loop, each i: legal (the Neg reads t[i]).
isl::schedule fused(const ClusterState &s) {
  const std::string first = s.scop.statements[0].name, second = s.scop.statements[1].name;
  std::string yaml = "domain: \"" + domain_text(s) + "\"\nchild:\n  schedule: \"[{ " + first +
                     "[i0] -> [(i0)]; " + second + "[i0] -> [(i0)] }]\"\n  child:\n    sequence:\n    - filter: \"{ " +
                     first + "[i0] }\"\n    - filter: \"{ " + second + "[i0] }\"\n";
  return isl::schedule(s.ctx, yaml);
}

bool always(const ClusterState &) { return true; }
bool never(const ClusterState &) { return false; }

const Pass illegal = {"reverse", Level::Schedule, "runs the reader first", always,
                      [](ClusterState &s, int) {
                        s.schedule = reversed(s);
                        return PassOutcome{true, {{"reversed", 1}}, false, {}};
                      },
                      true, nullptr, "reversals_rejected"};

// Attempt 0 breaks the dependence and offers a retry; attempt 1 is legal.
const Pass retrying = {"fuse_or_reverse", Level::Schedule, "illegal first, legal on retry", always,
                       [](ClusterState &s, int attempt) {
                         s.schedule = attempt == 0 ? reversed(s) : fused(s);
                         return PassOutcome{true, {{"fused", 1}}, attempt == 0, {}};
                       },
                       true, "retries", "never_counted"};

const Pass nothing = {"nothing", Level::Schedule, "changes nothing", always,
                      [](ClusterState &, int) { return PassOutcome{false, {}, false, "nothing to do"}; }};

const Pass off = {"off", Level::Ast, "never enabled", never,
                  [](ClusterState &, int) -> PassOutcome { throw std::logic_error("a disabled pass ran"); }};

struct Run {
  Graph graph = chain();
  IslContext ctx;
  ClusterState state;
  std::vector<PrintedPass> printed;
  explicit Run(const PassTable &extra, std::set<std::string> print_after = {}) {
    state.ctx = ctx.get();
    state.graph = &graph;
    state.cluster = graph.order();
    state.options.print_after = std::move(print_after);
    PassTable table = {passes::build_scop, passes::dependences, passes::scheduler};
    table.insert(table.end(), extra.begin(), extra.end());
    run_passes(table, state, printed);
  }
};

}  // namespace

TEST_SUITE("polyhedral") {

TEST_CASE("run_passes: a schedule pass that breaks a dependence is rolled back, the dependence logged") {
  Run before({});
  Run r({illegal});
  const PassRecord *rec = r.state.record("reverse");
  REQUIRE(rec);
  CHECK(rec->result == PassRecord::Result::Rejected);
  REQUIRE(rec->rejections.size() == 1);
  CAPTURE(rec->rejections[0]);
  CHECK(rec->rejections[0].find("flow") != std::string::npos);
  CHECK(rec->rejections[0].find(r.state.scop.statements[1].name) != std::string::npos);
  // The tree is the scheduler's again; the pass's statistics are dropped.
  CHECK(schedule_to_yaml(r.state.schedule) == schedule_to_yaml(before.state.schedule));
  CHECK(rec->stats.count("reversed") == 0);
  CHECK(rec->stats.at("reversals_rejected") == 1);
  CHECK(r.state.stats.at("reversals_rejected") == 1);
  CHECK(r.state.applied("reverse"));  // an alternative to it would not run
}

TEST_CASE("run_passes: a rejected attempt with a retry left runs again, and the legal retry is kept") {
  Run r({retrying});
  const PassRecord *rec = r.state.record("fuse_or_reverse");
  REQUIRE(rec);
  CHECK(rec->result == PassRecord::Result::Changed);
  CHECK(rec->rejections.size() == 1);
  CHECK(rec->stats.at("retries") == 1);
  CHECK(rec->stats.at("fused") == 1);
  CHECK(rec->stats.count("never_counted") == 0);
  CHECK(schedule_to_yaml(r.state.schedule) == schedule_to_yaml(fused(r.state)));
}

TEST_CASE("run_passes: skipped and unchanged passes, the log in table order, the IR after every pass") {
  Run r({nothing, off}, {"all"});
  std::vector<std::string> names;
  for (const PassRecord &p : r.state.log) names.push_back(p.name);
  CHECK(names == std::vector<std::string>{"build_scop", "dependences", "scheduler", "nothing", "off"});
  CHECK(r.state.record("nothing")->result == PassRecord::Result::Unchanged);
  CHECK(r.state.record("nothing")->note == "nothing to do");
  CHECK(r.state.record("off")->result == PassRecord::Result::Skipped);
  REQUIRE(r.printed.size() == 5);
  CHECK(r.printed[0].text.rfind("scop ", 0) == 0);
  CHECK(!r.printed[0].unchanged);
  CHECK(r.printed[1].text.find("flow:") != std::string::npos);
  CHECK(r.printed[2].text.rfind("// scheduler: ", 0) == 0);
  CHECK(r.printed[3].unchanged);
  CHECK(r.printed[3].text == r.printed[2].text);
  CHECK(r.printed[4].text == "(no loop AST yet)\n");
}

TEST_CASE("run_passes: only the named passes keep their IR") {
  Run r({nothing}, {"scheduler"});
  REQUIRE(r.printed.size() == 1);
  CHECK(r.printed[0].pass == "scheduler");
  CHECK(r.printed[0].level == Level::Schedule);
}

TEST_CASE("cpu_pipeline: unique names, levels in order, has_pass") {
  const PassTable &t = cpu_pipeline();
  std::set<std::string> names;
  for (std::size_t i = 0; i < t.size(); ++i) {
    CHECK(names.insert(t[i].name).second);
    CHECK(std::string(t[i].description).size() > 10);
    if (i > 0) CHECK(static_cast<int>(t[i - 1].level) <= static_cast<int>(t[i].level));
  }
  for (const char *n : {"build_scop", "dependences", "scheduler", "tile_for_cpu", "pack_tiles", "build_ast",
                        "reuse_temporaries"})
    CHECK(has_pass(t, n));
  CHECK_FALSE(has_pass(t, "schedule"));  // an alias of explain, not a pass
}

TEST_CASE("compile_cluster: every pass of the table logged in order, timings by level") {
  Graph g = chain();
  ClusterResult r = compile_cluster(g, g.order(), PolyOptions{});
  const PassTable &t = cpu_pipeline();
  REQUIRE(r.passes.size() == t.size());
  for (std::size_t i = 0; i < t.size(); ++i) CHECK(r.passes[i].name == t[i].name);
  std::vector<std::string> levels;
  for (const auto &[level, ms] : r.timings_ms) {
    levels.push_back(level);
    CHECK(ms >= 0);
  }
  CHECK(levels == std::vector<std::string>{"scop", "deps", "schedule", "ast"});
  CHECK(r.printed.empty());
}

}  // TEST_SUITE
