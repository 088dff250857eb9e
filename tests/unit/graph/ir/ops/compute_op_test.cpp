// The Compute custom operator: inference through the Compute language,
// symbolic shapes by instantiation, FLOPs counted from the statements.
#include "tests/unit/graph/ir/ops/op_test_util.h"

using namespace optest;
using atl::UserError;

TEST_SUITE("graph") {

TEST_CASE("compute op: output shapes from the statements") {
  Op mm("Compute", {T({4, 3}), T({3, 5})}, {{"expr", "out0(i, j) +=! in0(i, k) * in1(k, j)"}});
  CHECK(mm.type() == "f32[4, 5]");
  CHECK(mm.flops() == 2 * 4 * 5 * 3);
  CHECK(mm.pattern() == atl::PatternKind::OutFusable);
  atl::OpDefinition d = mm.define();
  CHECK(d.text == "out0(i, j) +=! in0(i, k) * in1(k, j)");
  CHECK(d.inputs == std::vector<std::string>{"in0", "in1"});
  CHECK(d.outputs == std::vector<std::string>{"out0"});
}

TEST_CASE("compute op: a contraction with its bias added in place takes epilogues; other second statements do not") {
  auto pattern = [](const std::string &expr) {
    return Op("Compute", {T({4, 3}), T({3, 5}), T({5})}, {{"expr", expr}}).pattern();
  };
  const std::string mm = "out0(i, j) +=! in0(i, k) * in1(k, j)\n";
  CHECK(pattern(mm + "out0(i, j) += in2(j)") == atl::PatternKind::OutFusable);
  CHECK(pattern(mm + "out0(i, j) += in2(j) * 2") == atl::PatternKind::OutFusable);
  // Not a bias: it reads the output, has an index of its own, or writes another order.
  CHECK(pattern(mm + "out0(i, j) += out0(i, j)") == atl::PatternKind::Opaque);
  CHECK(pattern(mm + "out0(i, j) += in0(i, k) where k in 0:3") == atl::PatternKind::Opaque);
  CHECK(pattern("out0(i, j) +=! in0(i, k) * in1(k, j)\nout0(i, j) = in2(j)") == atl::PatternKind::Opaque);
}

TEST_CASE("compute op: attrs.shape for one and several outputs") {
  CHECK(Op("Compute", {T({4})}, {{"expr", "out0(i) = in0(i)"}, {"shape", {6}}}).type() == "f32[6]");
  auto t = Op("Compute", {T({4})}, {{"expr", "out0(i) = in0(i)\nout1(i + 1) = in0(i)"}, {"shape", {{4}, {5}}}}, 2).infer();
  CHECK(t[1].str() == "f32[5]");
  CHECK_THROWS_WITH_AS(Op("Compute", {T({4})}, {{"expr", "out0(i) = in0(i)"}, {"shape", {{4}, {5}}}}).infer(),
                       doctest::Contains("has 2 shapes for 1 outputs"), UserError);
}

TEST_CASE("compute op: symbolic dims are reconstructed from instantiations") {
  Op op("Compute", {T({S("N"), 8})}, {{"expr", "out0(n, j) max=! in0(n, k) * 2 where j in 0:3"}});
  op.param("N", 1, 64);
  CHECK(op.type() == "f32[N, 3]");
  Op bad("Compute", {T({S("N")})}, {{"expr", "out0(i + 1) = in0(i)"}});
  bad.param("N", 1, 64);
  CHECK_THROWS_WITH_AS(bad.infer(), doctest::Contains("must be one of the symbols itself"), UserError);
}

TEST_CASE("compute op: language errors keep line and column") {
  try {
    Op("Compute", {T({4})}, {{"expr", "out0(i) = in0(i)\nout0(i) = in0(i * i)"}}).infer();
    FAIL("no error");
  } catch (const UserError &e) {
    CHECK(e.where().line == 2);
    CHECK(e.where().column > 1);
    CHECK(e.reason().find("non-affine") != std::string::npos);
  }
  CHECK_THROWS_WITH_AS(Op("Compute", {T({4})}).infer(), doctest::Contains("'expr'"), UserError);
}

}  // TEST_SUITE
