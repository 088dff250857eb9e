// Dependences (flow between statements, prefix sums, reductions) and the
// schedulers: isl legality, forced fallbacks, Feautrier, given trees.
#include "poly_test_util.h"

#include "polyhedral/deps/dependences.h"
#include "polyhedral/isl/isl_context.h"
#include "polyhedral/schedule/schedule.h"
#include "polyhedral/scop/scop.h"

#include <chrono>

using namespace polytest;
using namespace atl::poly;

namespace {

atl::Graph prefix_sum() {
  return one_node("Compute", {{"A", {8}}}, {{"expr", "y0(i) = A(i)\ny0(i) += y0(i - 1) where i in 1:8"}});
}

}  // namespace

TEST_SUITE("polyhedral") {

TEST_CASE("prefix sum: flow from each element to the next, no relaxed reduction") {
  auto g = prefix_sum();
  IslContext ctx;
  Scop s = build_scop(ctx, g, g.order());
  Dependences d = compute_dependences(s);
  isl::union_map self = d.flow.intersect_domain(isl::union_set(s.statements[1].domain))
                            .intersect_range(isl::union_set(s.statements[1].domain));
  CHECK(self.is_equal(isl::union_map(ctx, "{ n0_1[i] -> n0_1[i + 1] : 1 <= i < 7 }")));
  CHECK(d.reductions.empty());  // the right-hand side reads B: not a reduction
  CHECK_FALSE(d.relaxed);
}

TEST_CASE("softmax: flow dependences between its statements") {
  auto g = one_node("Softmax", {{"x", {2, 5}}}, {{"axis", 1}});
  IslContext ctx;
  Scop s = build_scop(ctx, g, g.order());
  Dependences d = compute_dependences(s);
  std::set<std::pair<std::string, std::string>> pairs;
  d.flow.foreach_map([&](isl::map m) { pairs.insert({m.domain_tuple_id().name(), m.range_tuple_id().name()}); });
  bool between = false;
  for (const auto &[a, b] : pairs) between |= a != b;
  CHECK(between);
  CHECK_FALSE(d.flow.is_empty());
  std::ostringstream os;
  print_dependences(os, d);
  CHECK(os.str().find("flow: ") != std::string::npos);
  CHECK(os.str().find("anti: ") != std::string::npos);
}

TEST_CASE("matmul: the += statement is a detected reduction; relaxed only with re-association") {
  auto g = one_node("MatMul", {{"A", {3, 5}}, {"B", {5, 7}}});
  IslContext ctx;
  Scop s = build_scop(ctx, g, g.order());
  Dependences d = compute_dependences(s);
  REQUIRE(d.reductions.size() == 1);
  CHECK(d.reductions[0].statement == "n0_0");
  CHECK(d.reductions[0].array == "y0");
  CHECK(d.relaxed);
  CHECK_FALSE(d.reductions[0].self.is_empty());
  CHECK(d.reductions[0].self.is_subset(isl::union_map(ctx, "{ n0_0[i, j, k] -> n0_0[i, j, k2] : k2 > k }")));
  Dependences strict = compute_dependences(s, DepOptions{false});
  CHECK_FALSE(strict.relaxed);
  CHECK(strict.validity().is_equal(strict.all()));
}

TEST_CASE("isl scheduler: the computed schedule respects every dependence") {
  for (const auto &g : {prefix_sum(), one_node("Softmax", {{"x", {3, 4}}}, {{"axis", 1}}),
                        one_node("MatMul", {{"A", {3, 5}}, {"B", {5, 7}}})}) {
    IslContext ctx;
    Scop s = build_scop(ctx, g, g.order());
    Dependences d = compute_dependences(s);
    ScheduleResult r = schedule_isl(s, d);
    CHECK(r.algorithm == "isl");
    CHECK(r.fallbacks.empty());
    CHECK_FALSE(check_legality(s, d, r.schedule).has_value());
    // And against the strict dependences (no relaxation) when it kept them.
    CHECK(r.schedule.get_map().intersect_domain(r.schedule.get_domain()).domain().is_equal(s.domain()));
  }
}

TEST_CASE("fallback ladder: a quota of 1 operation is recorded and a later rung schedules") {
  auto g = one_node("MatMul", {{"A", {3, 5}}, {"B", {5, 7}}});
  IslContext ctx;
  Scop s = build_scop(ctx, g, g.order());
  Dependences d = compute_dependences(s);
  ScheduleOptions o;
  o.force_fallback = "quota";
  ScheduleResult r = schedule_isl(s, d, o);
  REQUIRE(r.fallbacks.size() == 1);
  CHECK(r.fallbacks[0].find("quota") != std::string::npos);
  CHECK(r.algorithm == "isl-serialize-sccs");
  o.force_fallback = "all";
  ScheduleResult all = schedule_isl(s, d, o);
  CHECK(all.fallbacks.size() == 2);
  CHECK(all.algorithm == "original");
  CHECK_FALSE(check_legality(s, d, all.schedule).has_value());
  // The context is usable after the quota error.
  CHECK(schedule_isl(s, d).algorithm == "isl");
}

TEST_CASE("isl scheduler: a time limit stops an attempt that the operation quota does not bound") {
  // One InstanceNormalization over 1 x 4 x 16 x 16: isl's first attempt
  // pivots on ever larger numbers for more than 300 s within the quota.
  auto g = one_node("InstanceNormalization", {{"x", {1, 4, 16, 16}}, {"s", {4}}, {"b", {4}}}, {{"epsilon", 1e-5}});
  IslContext ctx;
  Scop s = build_scop(ctx, g, g.order());
  Dependences d = compute_dependences(s);
  ScheduleOptions o;
  o.seconds = 0.5;
  auto start = std::chrono::steady_clock::now();
  ScheduleResult r = schedule_isl(s, d, o);
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(took < 30);
  REQUIRE_FALSE(r.fallbacks.empty());
  CHECK_MESSAGE(r.fallbacks[0].find("time limit of 0.5 s reached") != std::string::npos, r.fallbacks[0]);
  CHECK(r.algorithm != "isl");
  CHECK_FALSE(check_legality(s, d, r.schedule).has_value());
  // The context is usable after the abort, and a quick attempt is not cut short.
  auto mm = one_node("MatMul", {{"A", {3, 5}}, {"B", {5, 7}}});
  Scop sm = build_scop(ctx, mm, mm.order());
  ScheduleResult ok = schedule_isl(sm, compute_dependences(sm), o);
  CHECK(ok.algorithm == "isl");
  CHECK(ok.fallbacks.empty());
}

TEST_CASE("feautrier: legal schedule through isl's option") {
  auto g = prefix_sum();
  IslContext ctx;
  Scop s = build_scop(ctx, g, g.order());
  Dependences d = compute_dependences(s);
  ScheduleResult r = schedule_feautrier(s, d);
  CHECK(r.algorithm == "feautrier");
  CHECK_FALSE(check_legality(s, d, r.schedule).has_value());
}

TEST_CASE("given tree: the original order is accepted") {
  auto g = prefix_sum();
  IslContext ctx;
  Scop s = build_scop(ctx, g, g.order());
  Dependences d = compute_dependences(s);
  std::string yaml = schedule_to_yaml(s.original_schedule());
  ScheduleResult r = schedule_given(s, d, yaml);
  CHECK(r.algorithm == "given");
  CHECK(r.schedule.get_map().is_equal(s.original_schedule().get_map()));
}

TEST_CASE("given tree: a reversed prefix sum is rejected naming the dependence and dimension") {
  auto g = prefix_sum();
  IslContext ctx;
  Scop s = build_scop(ctx, g, g.order());
  Dependences d = compute_dependences(s);
  std::string tree = "{ domain: \"{ n0_0[i] : 0 <= i < 8; n0_1[i] : 1 <= i < 8 }\", child: { sequence: [ "
                     "{ filter: \"{ n0_0[i] }\", child: { schedule: \"[{ n0_0[i] -> [(i)] }]\" } }, "
                     "{ filter: \"{ n0_1[i] }\", child: { schedule: \"[{ n0_1[i] -> [(-i)] }]\" } } ] } }";
  try {
    schedule_given(s, d, tree);
    FAIL("the illegal schedule was accepted");
  } catch (const IllegalSchedule &e) {
    const Violation &v = e.violation();
    CHECK(v.kind == "flow");
    CHECK(v.source == "n0_1");
    CHECK(v.target == "n0_1");
    CHECK(v.dimension == 1);
    CHECK(v.relation.find("n0_1[i] -> n0_1[") != std::string::npos);
    std::string msg = e.what();
    CHECK(msg.find("flow dependence from statement n0_1 to statement n0_1") != std::string::npos);
    CHECK(msg.find("schedule dimension 1") != std::string::npos);
  }
}

TEST_CASE("given tree: unreadable text and a tree missing a statement are user errors") {
  auto g = prefix_sum();
  IslContext ctx;
  Scop s = build_scop(ctx, g, g.order());
  Dependences d = compute_dependences(s);
  CHECK_THROWS_WITH_AS(schedule_given(s, d, "{ domain: "), doctest::Contains("cannot read the schedule tree"),
                       atl::UserError);
  CHECK_THROWS_WITH_AS(schedule_given(s, d, "{ domain: \"{ n0_0[i] : 0 <= i < 8 }\" }"),
                       doctest::Contains("n0_1"), atl::UserError);
}

}
