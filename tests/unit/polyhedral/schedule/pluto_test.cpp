// The Pluto-style scheduler: hand-built dependence problems (skewed stencil,
// prefix sum, matmul, fused producer/consumer), legality of every schedule,
// coincidence marks, and the fallback when no ILP solve is allowed.
#include "polyhedral/isl/isl_context.h"
#include "polyhedral/schedule/schedule_pluto.h"

#include <doctest/doctest.h>
#include <isl/cpp.h>

#include <sstream>
#include <string>
#include <vector>

namespace {

using atl::poly::IslContext;
using atl::poly::PlutoOptions;
using atl::poly::PlutoProblem;
using atl::poly::ScheduleResult;

PlutoProblem problem(isl::ctx ctx, const std::vector<std::string> &domains, const std::string &validity,
                     const std::string &coincidence = "") {
  PlutoProblem p;
  for (const auto &d : domains) p.statements.emplace_back(ctx, d);
  p.validity = isl::union_map(ctx, validity);
  p.coincidence = coincidence.empty() ? p.validity : p.validity.unite(isl::union_map(ctx, coincidence));
  return p;
}

// Every dependence goes lexicographically forward in the schedule.
bool legal(const isl::schedule &schedule, const isl::union_map &deps) {
  isl::union_map s = schedule.get_map();
  isl::union_set deltas = deps.apply_domain(s).apply_range(s).deltas();
  bool ok = true;
  deltas.foreach_set([&](isl::set d) {
    unsigned n = d.tuple_dim();
    std::string lexpos = "{ [";
    for (unsigned k = 0; k < n; ++k) lexpos += (k ? ", d" : "d") + std::to_string(k);
    lexpos += "] : ";
    for (unsigned k = 0; k < n; ++k) {
      lexpos += k ? " or (" : "(";
      for (unsigned j = 0; j < k; ++j) lexpos += "d" + std::to_string(j) + " = 0 and ";
      lexpos += "d" + std::to_string(k) + " > 0)";
    }
    lexpos += " }";
    if (n == 0 || !d.is_subset(isl::set(d.ctx(), lexpos))) ok = false;
  });
  return ok;
}

isl::schedule_node_band first_band(const isl::schedule &s) {
  isl::schedule_node n = s.root();
  while (!n.isa<isl::schedule_node_band>()) n = n.child(0);
  return n.as<isl::schedule_node_band>();
}

bool same_map(const isl::schedule &s, const std::string &expected) {
  bool same = s.get_map().intersect_domain(s.get_domain()).is_equal(isl::union_map(s.ctx(), expected).intersect_domain(s.get_domain()));
  if (!same) { std::ostringstream os; os << s.get_map(); MESSAGE("schedule map: " << os.str()); }
  return same;
}

}  // namespace

TEST_SUITE("polyhedral") {
TEST_CASE("pluto: a Jacobi stencil with a time loop is skewed into a permutable band") {
  IslContext ctx;
  PlutoProblem p = problem(ctx, {"[T, N] -> { S[t, i] : 0 <= t < T and 1 <= i < N - 1 }"},
                           "[T, N] -> { S[t, i] -> S[t + 1, i2] : 0 <= t < T - 1 and 1 <= i < N - 1 and "
                           "1 <= i2 < N - 1 and i - 1 <= i2 <= i + 1 }");
  ScheduleResult r = atl::poly::schedule_pluto_problem(p);
  CHECK(r.algorithm == "pluto");
  CHECK(r.fallbacks.empty());
  CHECK(legal(r.schedule, p.validity));
  isl::schedule_node_band band = first_band(r.schedule);
  CHECK(band.n_member() == 2);
  CHECK(band.permutable());
  CHECK(same_map(r.schedule, "[T, N] -> { S[t, i] -> [t, t + i] }"));
}

TEST_CASE("pluto: a prefix sum keeps its carried loop, not coincident") {
  IslContext ctx;
  PlutoProblem p = problem(ctx, {"[N] -> { S[i] : 1 <= i < N }"}, "[N] -> { S[i] -> S[i + 1] : 1 <= i < N - 1 }");
  ScheduleResult r = atl::poly::schedule_pluto_problem(p);
  CHECK(r.fallbacks.empty());
  CHECK(legal(r.schedule, p.validity));
  CHECK(same_map(r.schedule, "[N] -> { S[i] -> [i] }"));
  CHECK(!first_band(r.schedule).member_get_coincident(0));
}

TEST_CASE("pluto: matmul gets parallel i, j outside and the reduction k inside") {
  IslContext ctx;
  // C[i][j] = 0 (I) then C[i][j] += A[i][k] * B[k][j] (S); the reduction's
  // own order is relaxed (validity) but stays in the coincidence relation.
  PlutoProblem p = problem(ctx, {"{ I[i, j] : 0 <= i < 8 and 0 <= j < 9 }",
                                 "{ S[i, j, k] : 0 <= i < 8 and 0 <= j < 9 and 0 <= k < 10 }"},
                           "{ I[i, j] -> S[i, j, k] : 0 <= i < 8 and 0 <= j < 9 and 0 <= k < 10 }",
                           "{ S[i, j, k] -> S[i, j, k + 1] : 0 <= i < 8 and 0 <= j < 9 and 0 <= k < 9 }");
  ScheduleResult r = atl::poly::schedule_pluto_problem(p);
  CHECK(r.fallbacks.empty());
  CHECK(legal(r.schedule, p.validity));
  isl::schedule_node_band outer = first_band(r.schedule);
  REQUIRE(outer.n_member() == 2);
  CHECK(outer.member_get_coincident(0));
  CHECK(outer.member_get_coincident(1));
  CHECK(same_map(r.schedule, "{ I[i, j] -> [i, j, 0, 0]; S[i, j, k] -> [i, j, 1, k] }"));
  // Below: a sequence {I; S with band(k)}, k not coincident.
  isl::schedule_node seq = outer.child(0);
  REQUIRE(seq.isa<isl::schedule_node_sequence>());
  isl::schedule_node inner = seq.child(1).child(0);
  REQUIRE(inner.isa<isl::schedule_node_band>());
  CHECK(!inner.as<isl::schedule_node_band>().member_get_coincident(0));
}

TEST_CASE("pluto: a producer and its consumer are fused, then ordered") {
  IslContext ctx;
  PlutoProblem p = problem(ctx, {"[N] -> { P[i] : 0 <= i < N }", "[N] -> { C[i] : 0 <= i < N }"},
                           "[N] -> { P[i] -> C[i] : 0 <= i < N }");
  ScheduleResult r = atl::poly::schedule_pluto_problem(p);
  CHECK(r.fallbacks.empty());
  CHECK(legal(r.schedule, p.validity));
  isl::schedule_node_band band = first_band(r.schedule);
  CHECK(band.child(0).isa<isl::schedule_node_sequence>());  // fused: one loop, then P before C
  CHECK(band.member_get_coincident(0));
  CHECK(same_map(r.schedule, "[N] -> { P[i] -> [i, 0]; C[i] -> [i, 1] }"));
}

TEST_CASE("pluto: a consumer of a neighbour is fused with a shift") {
  IslContext ctx;
  PlutoProblem p = problem(ctx, {"[N] -> { P[i] : 0 <= i < N }", "[N] -> { C[i] : 0 <= i < N - 1 }"},
                           "[N] -> { P[i] -> C[i] : 0 <= i < N - 1; P[i2] -> C[i] : i2 = i + 1 and 0 <= i < N - 1 }");
  ScheduleResult r = atl::poly::schedule_pluto_problem(p);
  CHECK(r.fallbacks.empty());
  CHECK(legal(r.schedule, p.validity));
  CHECK(first_band(r.schedule).n_member() == 1);
  CHECK(same_map(r.schedule, "[N] -> { P[i] -> [i, 0]; C[i] -> [i + 1, 1] }"));
}

TEST_CASE("pluto: a reversed dependence is cut into a sequence of components") {
  IslContext ctx;
  // C reads P at N - 1 - i: no non-negative hyperplane fuses them.
  PlutoProblem p = problem(ctx, {"[N] -> { P[i] : 0 <= i < N }", "[N] -> { C[i] : 0 <= i < N }"},
                           "[N] -> { P[i] -> C[N - 1 - i] : 0 <= i < N }");
  ScheduleResult r = atl::poly::schedule_pluto_problem(p);
  CHECK(r.fallbacks.empty());
  CHECK(legal(r.schedule, p.validity));
  CHECK(r.schedule.root().child(0).isa<isl::schedule_node_sequence>());
}

TEST_CASE("pluto: with no ILP solve allowed it falls back to the original order") {
  IslContext ctx;
  PlutoProblem p = problem(ctx, {"[N] -> { S[i] : 1 <= i < N }"}, "[N] -> { S[i] -> S[i + 1] : 1 <= i < N - 1 }");
  PlutoOptions options;
  options.max_solves = 0;
  ScheduleResult r = atl::poly::schedule_pluto_problem(p, options);
  CHECK(r.algorithm == "original");
  REQUIRE(r.fallbacks.size() == 1);
  CHECK(r.fallbacks[0].find("cap") != std::string::npos);
  CHECK(legal(r.schedule, p.validity));
}

TEST_CASE("pluto: an exhausted isl quota falls back to the original order") {
  IslContext ctx;
  PlutoProblem p = problem(ctx, {"[N] -> { S[i] : 1 <= i < N }"}, "[N] -> { S[i] -> S[i + 1] : 1 <= i < N - 1 }");
  PlutoOptions options;
  options.quota = 1;
  ScheduleResult r = atl::poly::schedule_pluto_problem(p, options);
  CHECK(r.algorithm == "original");
  REQUIRE(r.fallbacks.size() == 1);
  CHECK(r.fallbacks[0].find("isl") != std::string::npos);
  CHECK(legal(r.schedule, p.validity));
}
}

// ---- every node of every sample, each its own cluster ----

#include "polyhedral/deps/dependences.h"
#include "polyhedral/schedule/schedule.h"
#include "polyhedral/scop/scop.h"

#include "src/frontend/batch.h"

#include <algorithm>
#include <chrono>
#include <filesystem>

TEST_SUITE("polyhedral") {
TEST_CASE("pluto: every sample node is scheduled legally without fallback") {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (const auto &entry : fs::directory_iterator(ATOLL_SAMPLES_DIR))
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  REQUIRE(!files.empty());
  int scheduled = 0;
  for (const fs::path &file : files) {
    atl::Batch batch = atl::read_batch_file(file.string());
    for (const atl::BatchGraph &bg : batch.graphs) {
      if (!bg.graph) continue;
      const atl::Graph &g = *bg.graph;
      for (atl::NodeId v : g.order()) {
        std::string where = file.filename().string() + " " + bg.name + " " + g.node(v).name + " (" + g.node(v).op + ")";
        CAPTURE(where);
        IslContext ctx;
        atl::poly::Scop scop = atl::poly::build_scop(ctx, g, {v});
        atl::poly::Dependences deps = atl::poly::compute_dependences(scop);
        auto start = std::chrono::steady_clock::now();
        ScheduleResult r = atl::poly::schedule_pluto(scop, deps);
        double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        MESSAGE(where << ": " << scop.statements.size() << " statements, " << ms << " ms");
        CHECK(r.algorithm == "pluto");
        CHECK(r.fallbacks.empty());
        for (const auto &f : r.fallbacks) MESSAGE(f);
        auto violation = atl::poly::check_legality(scop, deps, r.schedule);
        CHECK(!violation.has_value());
        if (violation) MESSAGE(violation->message());
        ++scheduled;
      }
    }
  }
  CHECK(scheduled > 20);
}

TEST_CASE("pluto: Concat and Gather nodes are scheduled legally without fallback") {
  std::string batch_text = R"({"atoll": 1, "graphs": [{"name": "g",
    "inputs": [{"name": "A", "shape": [4, 5]}, {"name": "B", "shape": [3, 5]}],
    "weights": [{"name": "idx", "shape": [3], "dtype": "i64", "data": [2, 0, 6]}], "outputs": ["G"],
    "nodes": [{"op": "Concat", "name": "cat", "inputs": ["A", "B"], "outputs": ["C"], "attrs": {"axis": 0}},
              {"op": "Gather", "name": "gat", "inputs": ["C", "idx"], "outputs": ["G"], "attrs": {"axis": 0}}]}]})";
  atl::Batch batch = atl::read_batch(batch_text);
  REQUIRE(batch.graphs.size() == 1);
  if (batch.graphs[0].error) MESSAGE(batch.graphs[0].error->what());
  REQUIRE(batch.graphs[0].graph);
  const atl::Graph &g = *batch.graphs[0].graph;
  for (atl::NodeId v : g.order()) {
    CAPTURE(g.node(v).op);
    IslContext ctx;
    atl::poly::Scop scop = atl::poly::build_scop(ctx, g, {v});
    atl::poly::Dependences deps = atl::poly::compute_dependences(scop);
    ScheduleResult r = atl::poly::schedule_pluto(scop, deps);
    CHECK(r.algorithm == "pluto");
    CHECK(!atl::poly::check_legality(scop, deps, r.schedule).has_value());
  }
}

TEST_CASE("pluto: a forced fallback on a SCoP gives the original order, recorded") {
  std::string batch_text = R"({"atoll": 1, "graphs": [{"name": "g",
    "inputs": [{"name": "A", "shape": [4, 5]}, {"name": "B", "shape": [5, 3]}], "outputs": ["C"],
    "nodes": [{"op": "MatMul", "name": "mm", "inputs": ["A", "B"], "outputs": ["C"]}]}]})";
  atl::Batch batch = atl::read_batch(batch_text);
  REQUIRE(batch.graphs.size() == 1);
  REQUIRE(batch.graphs[0].graph);
  const atl::Graph &g = *batch.graphs[0].graph;
  IslContext ctx;
  atl::poly::Scop scop = atl::poly::build_scop(ctx, g, g.order());
  atl::poly::Dependences deps = atl::poly::compute_dependences(scop);
  atl::poly::ScheduleOptions options;
  options.force_fallback = "all";
  ScheduleResult r = atl::poly::schedule_pluto(scop, deps, options);
  CHECK(r.algorithm == "original");
  CHECK(r.fallbacks.size() == 1);
  CHECK(!atl::poly::check_legality(scop, deps, r.schedule).has_value());
  ScheduleResult p = atl::poly::schedule_pluto(scop, deps);
  CHECK(p.algorithm == "pluto");
  CHECK(!atl::poly::check_legality(scop, deps, p.schedule).has_value());
}
}

// ---- the time limit: PPL's and isl's work under one deadline ----

#include "polyhedral/isl/ppl_deadline.h"
#include "polyhedral/isl/ppl_init.h"

#include <ppl.hh>

namespace {

// Jeroslow's problem: maximise x0 with 2 x0 + ... + 2 x(n-1) = n, n odd,
// x binary. It has no integer solution, and branch and bound must visit
// exponentially many nodes to prove it (n = 21: far more than a second).
Parma_Polyhedra_Library::MIP_Problem_Status solve_jeroslow(int n) {
  namespace PPL = Parma_Polyhedra_Library;
  PPL::Constraint_System cs;
  PPL::Linear_Expression sum;
  PPL::Variables_Set integers;
  for (int i = 0; i < n; ++i) {
    PPL::Variable x(static_cast<PPL::dimension_type>(i));
    cs.insert(x >= 0);
    cs.insert(x <= 1);
    sum += 2 * x;
    integers.insert(x);
  }
  cs.insert(sum == n);
  PPL::MIP_Problem mip(static_cast<PPL::dimension_type>(n), cs, PPL::Linear_Expression(PPL::Variable(0)),
                       PPL::MAXIMIZATION);
  mip.add_to_integer_space_dimensions(integers);
  return mip.solve();
}

}  // namespace

TEST_SUITE("polyhedral") {
TEST_CASE("PplDeadline: a branch and bound past its time throws, and PPL runs normally after") {
  atl::poly::ensure_ppl_initialized();
  auto start = std::chrono::steady_clock::now();
  std::string what;
  bool expired = false;
  {
    atl::poly::PplDeadline deadline(0.05);
    try {
      solve_jeroslow(21);
    } catch (const atl::poly::PplTimeout &e) {
      what = e.what();
    }
    expired = deadline.expired();
  }
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(expired);
  CHECK(what == "time limit of 0.05 s reached");
  CHECK(took < 30);
  // The hook is cleared: an unbounded solve of a small instance finishes.
  CHECK(solve_jeroslow(5) == Parma_Polyhedra_Library::UNFEASIBLE_MIP_PROBLEM);
  // A deadline that does not run out changes nothing.
  {
    atl::poly::PplDeadline deadline(60);
    CHECK(solve_jeroslow(7) == Parma_Polyhedra_Library::UNFEASIBLE_MIP_PROBLEM);
    CHECK_FALSE(deadline.expired());
  }
}

TEST_CASE("pluto: a search past its time limit falls back to the original order, recorded") {
  // A chain of 16 stencils, each reading its predecessor's neighbours: its
  // ILPs take seconds.
  IslContext ctx;
  std::vector<std::string> domains;
  std::string deps = "[N] -> { ";
  for (int s = 0; s < 16; ++s) {
    std::string me = "S" + std::to_string(s), next = "S" + std::to_string(s + 1);
    domains.push_back("[N] -> { " + me + "[i, j] : 1 <= i, j < N - 1 }");
    if (s < 15)
      deps += std::string(s ? "; " : "") + me + "[i, j] -> " + next +
              "[i2, j2] : -1 <= i2 - i <= 1 and -1 <= j2 - j <= 1 and 1 <= i, j, i2, j2 < N - 1";
  }
  PlutoProblem p = problem(ctx, domains, deps + " }");
  PlutoOptions options;
  options.seconds = 0.01;
  ScheduleResult r = atl::poly::schedule_pluto_problem(p, options);
  CHECK(r.algorithm == "original");
  REQUIRE(r.fallbacks.size() == 1);
  CHECK_MESSAGE(r.fallbacks[0].find("time limit of 0.01 s reached") != std::string::npos, r.fallbacks[0]);
  CHECK(legal(r.schedule, p.validity));
  // With time enough, the same problem is skewed by the search.
  options.seconds = 60;
  ScheduleResult ok = atl::poly::schedule_pluto_problem(p, options);
  CHECK(ok.algorithm == "pluto");
  CHECK(ok.fallbacks.empty());
  CHECK(legal(ok.schedule, p.validity));
}
}
