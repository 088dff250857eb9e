// Tests of the sample tiled GEMM on the simulator: f32, f16 (ND and pre-packed NZ), int8, and mode equivalence.
#include <doctest/doctest.h>

#include <cmath>

#include "npu_test_util.h"

using namespace npu_test;

namespace {

/// Max over elements of |c - ref| / bound, where bound = rel * sum|a||b| + 1e-30: <= 1 passes.
double worst_error(const std::vector<double> &c, const std::vector<double> &ref, const std::vector<double> &absref,
                   double rel) {
  double worst = 0;
  for (size_t i = 0; i < c.size(); ++i) worst = std::max(worst, std::fabs(c[i] - ref[i]) / (rel * absref[i] + 1e-30));
  return worst;
}

/// f16 inputs, f32 accumulation, f16 output: the documented bound is (2^-11 + k * 2^-24) * sum_k |a b|
/// (one f16 rounding of the result plus k f32 roundings of the running sum).
double f16_rel(uint32_t k) { return std::ldexp(1.0, -11) + k * std::ldexp(1.0, -24); }

}  // namespace

TEST_SUITE("npu") {

TEST_CASE("f32 GEMM on tiny (2 cores, double buffered) matches the host reference tightly") {
  npu_gemm_params p;
  npu_gemm_default(&p, 64, 64, 96, 32, 32, 32, 16, NPU_F32, NPU_F32, NPU_F32, 1);
  GemmData d = gemm_data(p, 1);
  RunResult r = run_gemm(builtin_target("tiny"), p, d, Mode::Functional);
  REQUIRE_MESSAGE(r.ok, r.error);
  std::vector<double> ref, absref;
  gemm_reference(p, d, ref, absref);
  std::vector<double> c = decode(r.args[2].bytes, NPU_F32);
  CHECK(worst_error(c, ref, absref, 2 * p.K * std::ldexp(1.0, -24)) <= 1.0);
  CHECK(count_kind(r, 1, SyncKind::Wait) > 0);  // both cores worked
}

TEST_CASE("f16 GEMM is within the documented tolerance that grows with k") {
  for (uint32_t K : {32u, 256u, 1024u}) {
    CAPTURE(K);
    npu_gemm_params p;
    npu_gemm_default(&p, 64, 32, K, 32, 32, K / 2, 16, NPU_F16, NPU_F32, NPU_F16, 1);
    GemmData d = gemm_data(p, K);
    RunResult r = run_gemm(builtin_target("ascend-like"), p, d, Mode::Functional);
    REQUIRE_MESSAGE(r.ok, r.error);
    std::vector<double> ref, absref;
    gemm_reference(p, d, ref, absref);
    CHECK(worst_error(decode(r.args[2].bytes, NPU_F16), ref, absref, f16_rel(K)) <= 1.0);
    // The bound is not vacuous: f16 results differ from the exact sums.
    CHECK(worst_error(decode(r.args[2].bytes, NPU_F16), ref, absref, 1e-9) > 1.0);
  }
}

TEST_CASE("f16 GEMM with operands pre-packed in NZ order in GM gives the same result as row-major") {
  npu_gemm_params p;
  npu_gemm_default(&p, 128, 64, 128, 64, 32, 64, 32, NPU_F16, NPU_F32, NPU_F16, 1);
  GemmData d = gemm_data(p, 7);
  Target t = builtin_target("ascend-like");
  RunResult nd = run_gemm(t, p, d, Mode::Functional);
  p.nz_gm = 1;
  RunResult nz = run_gemm(t, p, d, Mode::Functional);
  REQUIRE_MESSAGE(nd.ok, nd.error);
  REQUIRE_MESSAGE(nz.ok, nz.error);
  CHECK(nd.args[2].bytes == nz.args[2].bytes);
  std::vector<double> ref, absref;
  gemm_reference(p, d, ref, absref);
  CHECK(worst_error(decode(nz.args[2].bytes, NPU_F16), ref, absref, f16_rel(p.K)) <= 1.0);
}

TEST_CASE("int8 GEMM accumulates in int32 bit-exactly") {
  npu_gemm_params p;
  npu_gemm_default(&p, 64, 32, 64, 32, 32, 32, 32, NPU_I8, NPU_I32, NPU_I32, 1);  // k0 = 32: i8 L0B blocks stay 512-aligned
  GemmData d = gemm_data(p, 3);
  RunResult r = run_gemm(builtin_target("tiny"), p, d, Mode::Functional);
  REQUIRE_MESSAGE(r.ok, r.error);
  std::vector<double> ref, absref;
  gemm_reference(p, d, ref, absref);
  CHECK(decode(r.args[2].bytes, NPU_I32) == ref);
}

TEST_CASE("single-buffered GEMM is also correct and race free") {
  npu_gemm_params p;
  npu_gemm_default(&p, 64, 64, 64, 32, 32, 32, 16, NPU_F32, NPU_F32, NPU_F32, 0);
  GemmData d = gemm_data(p, 5);
  RunResult r = run_gemm(builtin_target("tiny"), p, d, Mode::Functional);
  REQUIRE_MESSAGE(r.ok, r.error);
  std::vector<double> ref, absref;
  gemm_reference(p, d, ref, absref);
  CHECK(worst_error(decode(r.args[2].bytes, NPU_F32), ref, absref, 2 * p.K * std::ldexp(1.0, -24)) <= 1.0);
}

TEST_CASE("timed and functional modes give identical outputs") {
  npu_gemm_params p;
  npu_gemm_default(&p, 64, 64, 64, 32, 32, 32, 16, NPU_F16, NPU_F32, NPU_F16, 1);
  GemmData d = gemm_data(p, 11);
  Target t = builtin_target("tiny");
  RunResult f = run_gemm(t, p, d, Mode::Functional);
  RunResult tm = run_gemm(t, p, d, Mode::Timed);
  REQUIRE(f.ok);
  REQUIRE(tm.ok);
  CHECK(!f.timing.has_value());
  REQUIRE(tm.timing.has_value());
  CHECK(tm.timing->cycles > 0);
  CHECK(f.args[2].bytes == tm.args[2].bytes);
  CHECK(f.traces.size() == tm.traces.size());
  CHECK(f.traces[0].instrs.size() == tm.traces[0].instrs.size());
}

}  // TEST_SUITE
