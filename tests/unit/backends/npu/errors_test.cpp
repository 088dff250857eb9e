// Tests of the validity checks and the hazard checker: one rule per kernel, and every deleted wait_flag in the GEMM.
#include <doctest/doctest.h>

#include "kernels.h"
#include "npu_test_util.h"

using namespace npu_test;

namespace {

RunResult run_error_case(int which, const char *profile = "tiny") {
  std::vector<HostBuffer> args = {HostBuffer::of(std::vector<int32_t>{which}), HostBuffer(4096)};
  return run_kernel(builtin_target(profile), k_errors, std::move(args), Mode::Timed);
}

bool has(const std::string &s, const char *text) { return s.find(text) != std::string::npos; }

}  // namespace

TEST_SUITE("npu") {

TEST_CASE("a tile that overflows L0A names the call, its position and the capacity") {
  RunResult r = run_error_case(ERR_OVERFLOW_L0A);
  CHECK(!r.ok);
  CHECK(has(r.error, "npu_load_l0 (core 0, call #1)"));
  CHECK(has(r.error, "exceed the capacity of L0A (4096 bytes)"));
}

TEST_CASE("a GEMM whose L0A tile does not fit the tiny profile is rejected") {
  npu_gemm_params p;
  npu_gemm_default(&p, 64, 32, 64, 64, 32, 64, 64, NPU_F16, NPU_F32, NPU_F16, 0);  // 64x64 f16 = 8 KiB
  RunResult r = run_gemm(builtin_target("tiny"), p, gemm_data(p, 1), Mode::Functional);
  CHECK(!r.ok);
  CHECK(has(r.error, "npu_load_l0"));
  CHECK(has(r.error, "capacity of L0A"));
}

TEST_CASE("a misaligned address gives the alignment rule") {
  RunResult r = run_error_case(ERR_MISALIGNED);
  CHECK(has(r.error, "npu_copy (core 0, call #0)"));
  CHECK(has(r.error, "address L1+16 is not aligned to 32 bytes"));
}

TEST_CASE("an illegal DMA path is named") {
  RunResult r = run_error_case(ERR_ILLEGAL_PATH);
  CHECK(has(r.error, "illegal path GM>L0A: no pipe owns it"));
}

TEST_CASE("a repeat over max_repeat is rejected") {
  RunResult r = run_error_case(ERR_REPEAT);
  CHECK(has(r.error, "npu_vbin (core 0, call #1)"));
  CHECK(has(r.error, "repeat 256 exceeds max_repeat 255"));
}

TEST_CASE("an event out of range, a set on a set flag and a missing cube type row are errors") {
  CHECK(has(run_error_case(ERR_EVENT).error, "event 8 out of range: events_per_pipe_pair is 8"));
  CHECK(has(run_error_case(ERR_SET_TWICE).error, "flag-protocol error: set on flag (MTE2->VEC, event 0), which is already set"));
  CHECK(has(run_error_case(ERR_BAD_CUBE_TYPE).error, "no cube type row (bf16, bf16, f32)"));
}

TEST_CASE("after an error every later call is a no-op and the second core stops too") {
  RunResult r = run_error_case(ERR_MISALIGNED);
  CHECK(r.traces[0].instrs.empty());
  CHECK(r.traces[1].instrs.empty());
}

TEST_CASE("unordered pipes touching the same bytes are a race naming both calls") {
  RunResult r = run_error_case(ERR_RACE);
  CHECK(!r.ok);
  CHECK(has(r.error, "race on UB bytes [0, 256) of core 0"));
  CHECK(has(r.error, "npu_copy (core 0, call #0, MTE2) writes"));
  CHECK(has(r.error, "npu_vbin (core 0, call #1, VEC) reads"));
}

TEST_CASE("barriers order pipes: the same accesses with barriers are clean") {
  RunResult r = run_error_case(ERR_BARRIER_OK, "lite");
  CHECK_MESSAGE(r.ok, r.error);
}

TEST_CASE("reads of never-written bytes and deadlocked flags are reported") {
  CHECK(has(run_error_case(ERR_UNINIT).error, "reads UB bytes [0, 256) that no earlier call wrote"));
  CHECK(has(run_error_case(ERR_DEADLOCK).error, "deadlock"));
}

TEST_CASE("deleting any single wait_flag from the GEMM is reported") {
  npu_gemm_params p;
  npu_gemm_default(&p, 64, 64, 64, 32, 32, 32, 16, NPU_F16, NPU_F32, NPU_F16, 1);
  GemmData d = gemm_data(p, 9);
  Target t = builtin_target("tiny");
  RunResult clean = run_gemm(t, p, d, Mode::Functional);
  REQUIRE_MESSAGE(clean.ok, clean.error);
  size_t waits = count_kind(clean, 0, SyncKind::Wait);
  REQUIRE(waits > 20);
  size_t races = 0;
  for (size_t i = 0; i < waits; ++i) {
    CAPTURE(i);
    p.skip_wait = static_cast<int32_t>(i);
    RunResult r = run_gemm(t, p, d, Mode::Functional);
    CHECK(!r.ok);
    CHECK((has(r.error, "race") || has(r.error, "flag-protocol error")));
    // With the flag protocol unchecked, the race checker alone still catches the deletions
    // that leave an access unordered (first uses of pre-set slots and final drains order nothing).
    RunOptions o;
    o.flag_protocol = false;
    RunResult rr = run_gemm(t, p, d, Mode::Functional, o);
    races += !rr.races.empty();
  }
  MESSAGE(races << " of " << waits << " deletions are races even without the flag-protocol check");
  CHECK(races >= waits / 2);
}

TEST_CASE("a GEMM without any flags races") {
  npu_gemm_params p;
  npu_gemm_default(&p, 64, 64, 64, 32, 32, 32, 16, NPU_F16, NPU_F32, NPU_F16, 1);
  p.no_sync = 1;
  RunResult r = run_gemm(builtin_target("tiny"), p, gemm_data(p, 2), Mode::Functional);
  CHECK(!r.ok);
  CHECK(!r.races.empty());
}

}  // TEST_SUITE
