// Strided vector loads (stride 2..4 along a vector loop) and in-register transposes of blocked -> plain copies.
#include "tests/unit/backends/cpu/test_kernels.h"

#include "backends/cpu/transpose_form.h"
#include "backends/cpu/vector_analysis.h"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <random>

namespace atl::cpu::test {
namespace {

using namespace poly::build;
using compute::BinOp;
using Role = poly::LArray::Role;

const poly::LStmt *first_vector_loop(const poly::LStmt &s) {
  if (s.kind == poly::LStmtKind::For && s.marks.count(poly::mark::kVector)) return &s;
  for (const auto &b : s.body)
    if (const poly::LStmt *f = b ? first_vector_loop(*b) : nullptr) return f;
  return nullptr;
}

/// An input value with NaN and infinities at a few places.
double input_value(std::int64_t i) {
  if (i % 7 == 3) return std::numeric_limits<double>::quiet_NaN();
  if (i % 11 == 5) return (i % 2 ? 1 : -1) * std::numeric_limits<double>::infinity();
  return static_cast<double>(i % 13) - 6.25;
}

bool same(double got, double want) { return (std::isnan(got) && std::isnan(want)) || got == want; }

/// Z[i, j] = X[i, s * j + o] + guard(X[i, s * j + o - 1], 0.5) over i < 3, j < M
/// (j marked vector); X is exactly as wide as the last read needs.
struct StridedCase {
  std::int64_t s, o, m;
  int lanes;
  std::int64_t width() const { return s * (m - 1) + o + 1; }
  poly::LKernel kernel(const std::string &name) const {
    auto col = [&](std::int64_t d) {
      return binary(BinOp::Add, binary(BinOp::Mul, integer(s), var("j")), integer(o + d));
    };
    auto value = binary(BinOp::Add, load("X", {var("i"), col(0)}), guarded_load(load("X", {var("i"), col(-1)}), real(0.5)));
    auto inner = loop_to("j", integer(m), store("Z", {var("i"), var("j")}, value), {poly::mark::kVector});
    auto k = kernel_of(name, inner);
    k.vector_lanes = lanes;
    return k;
  }
  poly::LKernel kernel_of(const std::string &name, poly::LStmtPtr inner) const {
    return test::kernel(name, {array("X", DType::F32, {3, width()}, Role::Input), array("Z", DType::F32, {3, m}, Role::Output)},
                        {}, loop_to("i", integer(3), inner));
  }
};

/// Y[B * cb + l, h, w] = X[cb, h, w, l]: the blocked -> plain copy, for cb < 2, l < B, h < 3, w < W (vector).
poly::LKernel unblock(const std::string &name, std::int64_t b, std::int64_t w, int lanes, bool parallel_cb = false) {
  auto st = store("Y", {binary(BinOp::Add, binary(BinOp::Mul, integer(b), var("cb")), var("l")), var("h"), var("w")},
                  load("X", {var("cb"), var("h"), var("w"), var("l")}));
  auto nest = loop_to("l", integer(b), loop_to("h", integer(3), loop_to("w", integer(w), st, {poly::mark::kVector})));
  std::set<std::string> marks;
  if (parallel_cb) marks.insert(poly::mark::kParallel);
  auto k = kernel(name, {array("X", DType::F32, {2, 3, w, b}, Role::Input), array("Y", DType::F32, {2 * b, 3, w}, Role::Output)},
                  {}, loop_to("cb", integer(2), nest, marks));
  k.vector_lanes = lanes;
  return k;
}

TEST_SUITE("backends") {

TEST_CASE("cpu strided loads: stride 2..4 reads along a vector loop have a vector form, stride 5 does not") {
  for (std::int64_t s : {1, 2, 3, 4}) {
    StridedCase c{s, 1, 37, 16};
    poly::LKernel k = c.kernel("s" + std::to_string(s));
    CHECK_MESSAGE(has_vector_form(k, *first_vector_loop(*k.body)), "stride " << s);
  }
  StridedCase c5{5, 1, 37, 16};
  poly::LKernel k5 = c5.kernel("s5");
  CHECK_FALSE(has_vector_form(k5, *first_vector_loop(*k5.body)));
}

TEST_CASE("cpu strided loads: stride 2 is one masked <32 x float> load and a shuffle per vector") {
  std::string ir = emit_llvm_ir({StridedCase{2, 0, 37, 16}.kernel("s2")});
  CHECK(ir.find("@llvm.masked.load.v32f32") != std::string::npos);
  CHECK(ir.find("shufflevector <32 x float>") != std::string::npos);
  CHECK(ir.find("store <16 x float>") != std::string::npos);
  CHECK(ir.find("gather") == std::string::npos);
}

TEST_CASE("cpu strided loads: random strides, offsets, widths and lanes compute the reference values (JIT and C)") {
  const unsigned seed = 90210;
  std::mt19937 rng(seed);
  std::vector<StridedCase> cases;
  const int lanes[] = {4, 8, 16};
  for (int i = 0; i < 12; ++i)
    cases.push_back({2 + static_cast<std::int64_t>(rng() % 3), static_cast<std::int64_t>(rng() % 2),
                     1 + static_cast<std::int64_t>(rng() % 45), lanes[rng() % 3]});
  std::vector<poly::LKernel> ks;
  for (std::size_t i = 0; i < cases.size(); ++i) ks.push_back(cases[i].kernel("k" + std::to_string(i)));
  for (auto &[path, exe] : both_paths(ks)) {
    for (std::size_t i = 0; i < cases.size(); ++i) {
      const StridedCase &c = cases[i];
      Buffer X(DType::F32, 3 * c.width()), Z(DType::F32, 3 * c.m);
      for (std::int64_t e = 0; e < 3 * c.width(); ++e) X.set(e, input_value(e));
      void *arrays[] = {X.data(), Z.data()};
      exe->run("k" + std::to_string(i), arrays, nullptr);
      for (std::int64_t r = 0; r < 3; ++r)
        for (std::int64_t j = 0; j < c.m; ++j) {
          std::int64_t at = c.s * j + c.o;
          float a = static_cast<float>(X.get(r * c.width() + at));
          float g = at - 1 >= 0 ? static_cast<float>(X.get(r * c.width() + at - 1)) : 0.5f;
          CHECK_MESSAGE(same(Z.get(r * c.m + j), a + g), path << " seed " << seed << " stride " << c.s << " offset " << c.o
                                                               << " width " << c.m << " lanes " << c.lanes << " j " << j);
        }
    }
  }
}

TEST_CASE("cpu strided loads: a vector reduction over a stride-2 read sums what scalar code sums (JIT and C)") {
  // R[i] += X[i, 2 * j + 1] over j < M (re-associable): partial vector sums of every other element.
  std::vector<std::int64_t> widths = {1, 15, 16, 17, 40, 77};
  std::vector<poly::LKernel> ks;
  for (std::size_t t = 0; t < widths.size(); ++t) {
    std::int64_t m = widths[t];
    auto red = loop_to("j", integer(m),
                       store("R", {var("i")}, load("X", {var("i"), binary(BinOp::Add, binary(BinOp::Mul, integer(2), var("j")), integer(1))}),
                             compute::AssignOp::Add),
                       {poly::mark::kReduction});
    auto k = kernel("r" + std::to_string(t), {array("X", DType::F32, {2, 2 * m}, Role::Input), array("R", DType::F32, {2}, Role::Output)},
                    {}, loop_to("i", integer(2), red));
    k.vector_lanes = 16;
    CHECK_FALSE(vector_reductions(k, *loop_named(*k.body, "j")).reductions.empty());
    ks.push_back(k);
  }
  for (auto &[path, exe] : both_paths(ks)) {
    for (std::size_t t = 0; t < widths.size(); ++t) {
      std::int64_t m = widths[t];
      Buffer X(DType::F32, 4 * m), R(DType::F32, 2);
      for (std::int64_t e = 0; e < 4 * m; ++e) X.set(e, e % 2 ? static_cast<double>(e % 9) : 1e30);  // even elements unread
      R.set(0, 0.5);
      R.set(1, -0.5);
      void *arrays[] = {X.data(), R.data()};
      exe->run("r" + std::to_string(t), arrays, nullptr);
      for (std::int64_t r = 0; r < 2; ++r) {
        double want = r ? -0.5 : 0.5;
        for (std::int64_t j = 0; j < m; ++j) want += static_cast<double>((r * 2 * m + 2 * j + 1) % 9);
        CHECK_MESSAGE(R.get(r) == want, path << " width " << m << " row " << r);  // small integers: exact in any order
      }
    }
  }
}

/// Y[i, j] += X[i, 2 * j + k] over k < 3 (unrolled reduction), j < M (vector, a constant trip).
poly::LKernel short_window(const std::string &name, std::int64_t m, int lanes) {
  auto col = binary(BinOp::Add, binary(BinOp::Mul, integer(2), var("j")), var("k"));
  auto inner = loop_to("j", integer(m), store("Y", {var("i"), var("j")}, load("X", {var("i"), col}), compute::AssignOp::Add),
                       {poly::mark::kVector, poly::mark::kUnroll});
  auto red = loop_to("k", integer(3), inner, {poly::mark::kReduction, poly::mark::kUnroll});
  auto k = kernel(name, {array("X", DType::F32, {2, 2 * m + 1}, Role::Input), array("Y", DType::F32, {2, m}, Role::Output)}, {},
                  loop_to("i", integer(2), red));
  k.vector_lanes = lanes;
  return k;
}

TEST_CASE("cpu vectors: constant trips shorter than a vector use narrower vectors (8, then 4 lanes), or a masked one") {
  std::string ir8 = emit_llvm_ir({short_window("w8", 8, 16)});
  CHECK(ir8.find("<8 x float>") != std::string::npos);
  CHECK(ir8.find("<16 x float>") != std::string::npos);  // the stride-2 wide load of 8 lanes
  std::string ir6 = emit_llvm_ir({short_window("w6", 6, 16)});
  CHECK(ir6.find("<4 x float>") != std::string::npos);
  // 9 to 15 elements with 16 lanes: one vector, its last lanes masked off.
  std::string ir12 = emit_llvm_ir({short_window("w12", 12, 16)});
  CHECK(ir12.find("<8 x float>") == std::string::npos);
  CHECK(ir12.find("@llvm.masked.store.v16f32") != std::string::npos);
  std::string ir12x8 = emit_llvm_ir({short_window("v12", 12, 8)});  // AVX2 width: 8 lanes, then 4
  CHECK(ir12x8.find("<4 x float>") != std::string::npos);
  std::string ir3 = emit_llvm_ir({short_window("w3", 3, 16)});
  CHECK(ir3.find("x float>") == std::string::npos);  // below 4 lanes: scalar
  std::vector<std::int64_t> widths = {3, 4, 7, 8, 12, 15, 20, 28};
  std::vector<poly::LKernel> ks;
  for (std::int64_t m : widths) ks.push_back(short_window("m" + std::to_string(m), m, 16));
  for (auto &[path, exe] : both_paths(ks)) {
    for (std::int64_t m : widths) {
      const std::int64_t wx = 2 * m + 1;
      Buffer X(DType::F32, 2 * wx), Y(DType::F32, 2 * m);
      for (std::int64_t e = 0; e < 2 * wx; ++e) X.set(e, e % 5 == 2 ? input_value(e) : static_cast<double>(e % 6));
      for (std::int64_t e = 0; e < 2 * m; ++e) Y.set(e, 0.25);
      void *arrays[] = {X.data(), Y.data()};
      exe->run("m" + std::to_string(m), arrays, nullptr);
      for (std::int64_t r = 0; r < 2; ++r)
        for (std::int64_t j = 0; j < m; ++j) {
          float want = 0.25f;
          for (std::int64_t k = 0; k < 3; ++k) want += static_cast<float>(X.get(r * wx + 2 * j + k));
          CHECK_MESSAGE(same(Y.get(r * m + j), want), path << " width " << m << " at " << r << "," << j);
        }
    }
  }
}

TEST_CASE("cpu transposes: the blocked -> plain copy nest is recognised only in its exact shape") {
  poly::LKernel k = unblock("u", 16, 37, 16);
  auto f = transpose_form(k, *loop_named(*k.body, "l"), 16);
  REQUIRE(f.has_value());
  CHECK(f->trip == 16);
  CHECK(f->middle.size() == 1);
  CHECK(f->inner->iterator == "w");
  CHECK(f->row_stride == 16);
  // Rows of X are 16 floats apart along w: with 8 or 4 lanes, blocks of 8 x 8
  // or 4 x 4 whose rows are 16 apart (two or four blocks per l trip).
  auto f8 = transpose_form(k, *loop_named(*k.body, "l"), 8);
  REQUIRE(f8.has_value());
  CHECK(f8->row_stride == 16);
  CHECK(transpose_form(k, *loop_named(*k.body, "l"), 4).has_value());
  // A plain 2-D transpose (rows 768 apart, as BERT's K^T): recognised.
  auto kt = kernel("kt", {array("K", DType::F32, {64, 768}, Role::Input), array("T", DType::F32, {768, 64}, Role::Output)}, {},
                   loop_to("d", integer(768), loop_to("s", integer(64), store("T", {var("d"), var("s")}, load("K", {var("s"), var("d")})),
                                                         {poly::mark::kVector})));
  kt.vector_lanes = 16;
  auto fk = transpose_form(kt, *kt.body, 16);
  REQUIRE(fk.has_value());
  CHECK(fk->row_stride == 768);
  // Rows closer than the lanes (overlapping blocks): refused.
  auto near = kernel("near", {array("K", DType::F32, {80}, Role::Input), array("T", DType::F32, {16, 16}, Role::Output)}, {},
                     loop_to("d", integer(16), loop_to("s", integer(16),
                                                       store("T", {var("d"), var("s")}, load("K", {binary(BinOp::Add, binary(BinOp::Mul, integer(4), var("s")), var("d"))})),
                                                       {poly::mark::kVector})));
  near.vector_lanes = 16;
  CHECK_FALSE(transpose_form(near, *near.body, 16).has_value());
  // Not from the outer cb loop (two iterations).
  CHECK_FALSE(transpose_form(k, *loop_named(*k.body, "cb"), 16).has_value());
  // Y read by the copy (the source is the destination): refused.
  auto st = store("Y", {var("l"), var("w")}, load("Y", {var("w"), var("l")}));
  auto self = kernel("self", {array("Y", DType::F32, {16, 16}, Role::Output)}, {},
                     loop_to("l", integer(16), loop_to("w", integer(16), st, {poly::mark::kVector})));
  self.vector_lanes = 16;
  CHECK_FALSE(transpose_form(self, *self.body, 16).has_value());
  // Two loops writing the same subscript of Y (not one element per iteration): refused.
  auto st2 = store("Z", {binary(BinOp::Add, var("l"), var("h")), var("w")}, load("X", {var("h"), var("w"), var("l")}));
  auto shared = kernel("shared", {array("X", DType::F32, {2, 16, 16}, Role::Input), array("Z", DType::F32, {17, 16}, Role::Output)},
                       {}, loop_to("l", integer(16), loop_to("h", integer(2), loop_to("w", integer(16), st2, {poly::mark::kVector}))));
  shared.vector_lanes = 16;
  CHECK_FALSE(transpose_form(shared, *shared.body, 16).has_value());
}

TEST_CASE("cpu transposes: the copy is lowered to shuffles, with masked loads and stores for the last columns") {
  std::string ir = emit_llvm_ir({unblock("u", 16, 37, 16)});
  CHECK(ir.find("w.theader") != std::string::npos);
  CHECK(ir.find("w.ttail") != std::string::npos);
  CHECK(ir.find("shufflevector <16 x float>") != std::string::npos);
  CHECK(ir.find("@llvm.masked.store.v16f32") != std::string::npos);
  CHECK(ir.find("gather") == std::string::npos);
}

TEST_CASE("cpu transposes: random widths and lane counts copy exactly, NaN and infinities included (JIT and C)") {
  const unsigned seed = 1717;
  std::mt19937 rng(seed);
  struct Case {
    std::int64_t b, w;
    int lanes;
    bool parallel;
  };
  std::vector<Case> cases = {{16, 37, 16, false}, {16, 16, 16, true}, {16, 5, 16, false}, {4, 9, 4, false}, {8, 8, 8, true}};
  for (int i = 0; i < 6; ++i) {
    int lanes = 4 << (rng() % 3);
    cases.push_back({lanes, 1 + static_cast<std::int64_t>(rng() % 50), lanes, rng() % 2 == 0});
  }
  cases.push_back({16, 21, 8, false});  // rows 16 apart with 8 lanes: 8 x 8 blocks
  cases.push_back({32, 19, 16, false});  // rows 32 apart: two blocks per l trip
  cases.push_back({48, 7, 16, true});
  cases.push_back({24, 13, 8, false});
  std::vector<poly::LKernel> ks;
  for (std::size_t i = 0; i < cases.size(); ++i)
    ks.push_back(unblock("t" + std::to_string(i), cases[i].b, cases[i].w, cases[i].lanes, cases[i].parallel));
  for (auto &[path, exe] : both_paths(ks)) {
    for (std::size_t i = 0; i < cases.size(); ++i) {
      const Case &c = cases[i];
      const std::int64_t n = 2 * 3 * c.w * c.b;
      Buffer X(DType::F32, n), Y(DType::F32, n);
      for (std::int64_t e = 0; e < n; ++e) X.set(e, input_value(e));
      void *arrays[] = {X.data(), Y.data()};
      exe->run("t" + std::to_string(i), arrays, nullptr);
      for (std::int64_t cb = 0; cb < 2; ++cb)
        for (std::int64_t l = 0; l < c.b; ++l)
          for (std::int64_t h = 0; h < 3; ++h)
            for (std::int64_t w = 0; w < c.w; ++w) {
              double want = X.get(((cb * 3 + h) * c.w + w) * c.b + l);
              double got = Y.get(((cb * c.b + l) * 3 + h) * c.w + w);
              CHECK_MESSAGE(same(got, want), path << " seed " << seed << " block " << c.b << " width " << c.w << " lanes "
                                                  << c.lanes << " at " << cb << "," << l << "," << h << "," << w);
            }
    }
  }
}

TEST_CASE("cpu vectors: the pieces of a constant trip (a register tile's accumulators a row) match what is emitted") {
  CHECK(vector_pieces(16, 64) == 4);
  CHECK(vector_pieces(16, 63) == 4);  // 3 vectors and one masked (1023 = 15 x 64 + 63 columns)
  CHECK(vector_pieces(16, 39) == 3);  // 2 and a masked 7 (999)
  CHECK(vector_pieces(16, 24) == 2);  // 16 and 8 lanes
  CHECK(vector_pieces(16, 20) == 2);  // 16 and 4 lanes
  CHECK(vector_pieces(16, 18) == 3);  // 16 and two scalars
  CHECK(vector_pieces(16, 3) == 3);
  CHECK(vector_pieces(8, 15) == 5);   // AVX2: 8, 4 and three scalars
  CHECK(vector_pieces(8, 12) == 2);
  for (std::int64_t t : {5, 6, 7, 9, 12, 15}) CHECK(masked_vector_trip(16, t, true));
  for (std::int64_t t : {3, 4, 8, 16}) CHECK_FALSE(masked_vector_trip(16, t, true));
  for (std::int64_t t : {9, 12, 15}) CHECK(masked_vector_trip(16, t));
  for (std::int64_t t : {5, 6, 7, 8, 16}) CHECK_FALSE(masked_vector_trip(16, t));  // accumulating in memory: narrower vectors
  CHECK_FALSE(masked_vector_trip(8, 6, true));
  CHECK(vector_pieces(16, 39, false) == 6);  // outside a long promoted loop: 2, then 4 lanes and three scalars
}
}

}  // namespace
}  // namespace atl::cpu::test
