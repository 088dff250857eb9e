// The tuning knobs (polyhedral/pipeline/knobs.h): canonical keys, the space a
// default compile exposes, points applied by apply_tuning, and their errors.
#include "polyhedral/compile_cluster.h"
#include "polyhedral/pipeline/knobs.h"
#include "tests/unit/polyhedral/poly_test_util.h"

#include <atoll/diagnostics.h>

#include <doctest/doctest.h>

#include <algorithm>
#include <memory>
#include <string>

using namespace atl;
using namespace atl::poly;

namespace {

/// A MatMul and its Relu, names given by `p` (the same computation whatever
/// the names), of M x K times K x N.
Graph gemm(const std::string &p, long m, long k, long n) {
  const std::string M = std::to_string(m), K = std::to_string(k), N = std::to_string(n);
  return polytest::graph_json(
      R"([{"op": "MatMul", "name": ")" + p + R"(mm", "inputs": [")" + p + R"(a", ")" + p + R"(b"], "outputs": [")" +
          p + R"(c"]}, {"op": "Relu", "name": ")" + p + R"(r", "inputs": [")" + p + R"(c"], "outputs": [")" + p +
          R"(y"]}])",
      R"("inputs": [{"name": ")" + p + R"(a", "shape": [)" + M + ", " + K + R"(]}, {"name": ")" + p +
          R"(b", "shape": [)" + K + ", " + N + R"(]}], "outputs": [")" + p + R"(y"])");
}

const KnobDomain *knob(const KnobSpace &s, const std::string &name) {
  auto it = std::find_if(s.knobs.begin(), s.knobs.end(), [&](const KnobDomain &k) { return k.name == name; });
  return it == s.knobs.end() ? nullptr : &*it;
}

/// Options that describe the cluster (its space and features).
PolyOptions described() {
  PolyOptions o;
  o.describe = true;
  return o;
}

PolyOptions with_point(const std::string &key, const KnobValues &point) {
  PolyOptions o = described();
  auto t = std::make_shared<TuningTable>();
  t->exact[key] = point;
  o.tuning = t;
  return o;
}

}  // namespace

TEST_SUITE("knobs") {

TEST_CASE("scop_identity: the same computation under other names has one key; another shape another") {
  Graph a = gemm("x_", 64, 96, 80), b = gemm("other_", 64, 96, 80), c = gemm("x_", 64, 96, 81);
  ClusterResult ra = compile_cluster(a, a.order(), described());
  ClusterResult rb = compile_cluster(b, b.order(), described());
  ClusterResult rc = compile_cluster(c, c.order(), described());
  CHECK(ra.space.key.size() == 16);
  CHECK(ra.space.key == rb.space.key);
  CHECK(ra.space.key != rc.space.key);
}

TEST_CASE("knob_space: a GEMM's cache tiles, register rows and packing, with the cost model's choices") {
  Graph g = gemm("", 96, 200, 128);
  ClusterResult r = compile_cluster(g, g.order(), described());
  const KnobSpace &s = r.space;
  REQUIRE(knob(s, "band0/unroll"));
  REQUIRE(knob(s, "pack"));
  REQUIRE(knob(s, "scheduler"));
  CHECK(knob(s, "scheduler")->default_value == "isl");
  for (const char *name : {"band0/cache_tile[0]", "band0/cache_tile[1]", "band0/cache_tile[2]"}) {
    const KnobDomain *k = knob(s, name);
    REQUIRE_MESSAGE(k, name);
    CHECK(k->type == "int");
    CHECK(std::find(k->values.begin(), k->values.end(), k->default_value) != k->values.end());
  }
  CHECK(s.check(s.defaults()).empty());
  KnobValues bad = s.defaults();
  bad["pack"] = "maybe";
  CHECK(s.check(bad).find("true or false") != std::string::npos);
  bad = s.defaults();
  bad["nope"] = "1";
  CHECK(s.check(bad).find("not in the cluster's space") != std::string::npos);
}

TEST_CASE("apply_tuning: the default point gives the default code; another point changes the tiles") {
  Graph g = gemm("", 96, 200, 128);
  ClusterResult def = compile_cluster(g, g.order(), described());
  ClusterResult same = compile_cluster(g, g.order(), with_point(def.space.key, def.space.defaults()));
  CHECK(same.tuned == def.space.defaults());
  CHECK(same.ast_text == def.ast_text);
  CHECK(same.schedule_yaml == def.schedule_yaml);

  KnobValues p = def.space.defaults();
  p["band0/unroll"] = p["band0/unroll"] == "2" ? "3" : "2";
  p["pack"] = "false";
  ClusterResult other = compile_cluster(g, g.order(), with_point(def.space.key, p));
  CHECK(other.tuned == p);
  CHECK(knob(other.space, "band0/unroll")->default_value == p["band0/unroll"]);
  CHECK(other.ast_text != def.ast_text);
  // apply_tuning is logged as a change of options, with its count.
  auto rec = std::find_if(other.passes.begin(), other.passes.end(), [](const PassRecord &x) { return x.name == "apply_tuning"; });
  REQUIRE(rec != other.passes.end());
  CHECK(rec->result == PassRecord::Result::Changed);
  CHECK(rec->stats.at("knobs_applied") == static_cast<long>(p.size()));
}

TEST_CASE("apply_tuning: a key that is not the cluster's leaves it alone") {
  Graph g = gemm("", 32, 48, 64);
  ClusterResult r = compile_cluster(g, g.order(), with_point("0000000000000000", {{"pack", "false"}}));
  CHECK(r.tuned.empty());
  auto rec = std::find_if(r.passes.begin(), r.passes.end(), [](const PassRecord &x) { return x.name == "apply_tuning"; });
  REQUIRE(rec != r.passes.end());
  CHECK(rec->result == PassRecord::Result::Unchanged);
  CHECK(rec->note.find("no tuned point") != std::string::npos);
}

TEST_CASE("scop_family: GEMMs of other sizes are one family; the nearest shape's point applies") {
  Graph small = gemm("", 64, 96, 80), big = gemm("", 512, 96, 80), mid = gemm("", 200, 96, 80);
  ClusterResult rs = compile_cluster(small, small.order(), described());
  ClusterResult rb = compile_cluster(big, big.order(), described());
  ClusterResult rm = compile_cluster(mid, mid.order(), described());
  CHECK(rs.space.family == rb.space.family);
  CHECK(rs.space.family == rm.space.family);
  CHECK(rs.space.key != rb.space.key);
  REQUIRE(rs.space.shape.size() == rm.space.shape.size());
  CHECK(std::find(rm.space.shape.begin(), rm.space.shape.end(), 199) != rm.space.shape.end());  // m <= 199

  auto table = std::make_shared<TuningTable>();
  KnobValues ps = rs.space.defaults(), pb = rb.space.defaults();
  ps["pack"] = "false";
  pb["band0/unroll"] = pb["band0/unroll"] == "2" ? "3" : "2";
  table->add(rs.space.key, rs.space.family, rs.space.shape, ps);
  table->add(rb.space.key, rb.space.family, rb.space.shape, pb);
  std::string from;
  // 200 rows: nearer 512 than 64 on a log scale.
  REQUIRE(table->find(rm.space.key, rm.space.family, rm.space.shape, &from));
  CHECK(from == rb.space.key);
  CHECK(*table->find(rs.space.key, rs.space.family, rs.space.shape, &from) == ps);
  CHECK(from == rs.space.key);
  CHECK(table->find("x", "another family", rm.space.shape) == nullptr);

  PolyOptions o = described();
  o.tuning = table;
  ClusterResult tuned = compile_cluster(mid, mid.order(), o);
  CHECK(tuned.tuned == pb);
  auto rec = std::find_if(tuned.passes.begin(), tuned.passes.end(), [](const PassRecord &x) { return x.name == "apply_tuning"; });
  REQUIRE(rec != tuned.passes.end());
  CHECK(rec->stats.at("points_from_other_shapes") == 1);
}

TEST_CASE("apply_knobs: unknown knobs and bad values are errors naming the knob") {
  PolyOptions o;
  CHECK_THROWS_WITH_AS(apply_knobs({{"band0/vector_width", "8"}}, o), doctest::Contains("band0/vector_width"), UserError);
  CHECK_THROWS_WITH_AS(apply_knobs({{"band0/unroll", "0"}}, o), doctest::Contains("1 to 16"), UserError);
  CHECK_THROWS_WITH_AS(apply_knobs({{"scheduler", "polly"}}, o), doctest::Contains("isl, pluto or feautrier"), UserError);
  CHECK_THROWS_WITH_AS(apply_knobs({{"band0/cache_tile[1]", "-4"}}, o), doctest::Contains("integer >= 0"), UserError);
  apply_knobs({{"band0/cache_tile[1]", "64"}, {"band0/cache_tile[0]", "32"}, {"scheduler", "feautrier"}}, o);
  CHECK(o.tile_sizes == std::vector<long>{32, 64});
  CHECK(o.scheduler == "feautrier");
  CHECK(point_text({{"b", "1"}, {"a", "x"}}) == "a=x,b=1");
}

}  // TEST_SUITE
