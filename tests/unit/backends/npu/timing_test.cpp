// Tests of the timed model and its outputs: relations between configurations, cube utilisation, files, the analytical model.
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "backends/npu/timing.h"
#include "npu_test_util.h"

using namespace npu_test;

namespace {

uint64_t timed_cycles(const Target &t, const npu_gemm_params &p, RunResult *out = nullptr) {
  RunResult r = run_gemm(t, p, gemm_data(p, 4), Mode::Timed);
  REQUIRE_MESSAGE(r.ok, r.error);
  uint64_t c = r.timing->cycles;
  if (out) *out = std::move(r);
  return c;
}

std::string slurp(const std::string &path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_SUITE("npu") {

TEST_CASE("the cost table: a lone DMA costs startup + per_burst * n_burst + bytes / rate") {
  Target t = builtin_target("ascend-like");
  Instr i;
  i.pipe = NPU_MTE2;
  i.bytes = 4096;
  i.n_burst = 4;
  CHECK(instr_cost(t, i) == 100 + 2 * 4 + 64);
  Instr m;
  m.pipe = NPU_CUBE;
  m.steps = 8;
  m.cycles_per_step = 4;
  CHECK(instr_cost(t, m) == 32 + 32);
  Instr v;
  v.pipe = NPU_VEC;
  v.repeat = 10;
  v.slow = true;
  CHECK(instr_cost(t, v) == 8 + 10 + 40);
}

TEST_CASE("double buffering takes fewer cycles than single buffering") {
  for (const char *profile : {"tiny", "ascend-like"}) {
    CAPTURE(profile);
    Target t = builtin_target(profile);
    npu_gemm_params sb, db;
    npu_gemm_default(&sb, 128, 128, 128, 32, 32, 64, 16, NPU_F16, NPU_F32, NPU_F16, 0);
    npu_gemm_default(&db, 128, 128, 128, 32, 32, 64, 16, NPU_F16, NPU_F32, NPU_F16, 1);
    RunResult rs, rd;
    uint64_t s = timed_cycles(t, sb, &rs), d = timed_cycles(t, db, &rd);
    CHECK(d < s);
    CHECK(rd.analytical.double_buffered);
    CHECK(!rs.analytical.double_buffered);
    CHECK(rd.analytical.cycles < rs.analytical.cycles);
  }
}

TEST_CASE("a larger L0 never predicts more cycles") {
  // The best configuration that fits can only improve when L0A/L0B grow (timed and analytical).
  struct Tile { uint32_t mc, n0, kc, k0; };
  const Tile tiles[] = {{16, 16, 32, 16}, {32, 32, 32, 16}, {32, 32, 64, 32}, {64, 32, 64, 32}, {64, 64, 64, 64}};
  uint64_t prev_timed = UINT64_MAX, prev_an = UINT64_MAX;
  for (uint64_t l0 : {2048u, 4096u, 8192u, 16384u, 32768u}) {
    nlohmann::json j = builtin_target("tiny").to_json();
    j["memories"]["L0A"]["bytes"] = l0;
    j["memories"]["L0B"]["bytes"] = l0;
    j["memories"]["L0C"]["bytes"] = 32768;
    j["memories"]["L1"]["bytes"] = 131072;
    Target t = parse_target(j);
    uint64_t best_timed = UINT64_MAX, best_an = UINT64_MAX;
    for (const Tile &tl : tiles) {
      npu_gemm_params p;
      npu_gemm_default(&p, 128, 128, 128, tl.mc, tl.n0, tl.kc, tl.k0, NPU_F16, NPU_F32, NPU_F16, 1);
      RunOptions o;
      o.cube_arithmetic = false;
      RunResult r = run_gemm(t, p, gemm_data(p, 1), Mode::Timed, o);
      if (!r.ok) {
        CHECK(r.error.find("capacity") != std::string::npos);
        continue;
      }
      best_timed = std::min(best_timed, r.timing->cycles);
      best_an = std::min(best_an, r.analytical.cycles);
    }
    CAPTURE(l0);
    REQUIRE(best_timed != UINT64_MAX);
    CHECK(best_timed <= prev_timed);
    CHECK(best_an <= prev_an);
    prev_timed = best_timed;
    prev_an = best_an;
  }
}

TEST_CASE("the 1024^3 f16 GEMM reaches at least 85% cube utilisation on ascend-like") {
  // Pre-packed (NZ) operands, a 256-row A panel resident over K in a ring of 128 KiB chunks,
  // the next panel prefetched, B streamed in 256 x 128 chunks, 256x128x64 mmads, everything double buffered.
  npu_gemm_params p;
  npu_gemm_default(&p, 1024, 1024, 1024, 256, 128, 256, 64, NPU_F16, NPU_F32, NPU_F16, 1);
  p.a_slots = 6;
  p.nz_gm = 1;
  auto t0 = std::chrono::steady_clock::now();
  GemmData d = gemm_data(p, 8);
  RunResult r = run_gemm(builtin_target("ascend-like"), p, d, Mode::Timed);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  REQUIRE_MESSAGE(r.ok, r.error);
  MESSAGE("cycles " << r.timing->cycles << ", cube utilisation " << r.timing->cube_utilisation << ", analytical "
                    << r.analytical.cycles << ", simulated in " << secs << " s");
  CHECK(r.timing->cube_utilisation >= 0.85);
  CHECK(r.timing->macs == uint64_t(1) << 30);
  // Spot-check results against the reference on a few elements.
  std::vector<double> c = decode(r.args[2].bytes, NPU_F16);
  for (size_t e : {size_t(0), size_t(1023), size_t(512 * 1024 + 77), size_t(1024 * 1024 - 1)}) {
    size_t i = e / 1024, j = e % 1024;
    double ref = 0, mag = 0;
    for (size_t k = 0; k < 1024; ++k) {
      ref += d.A[i * 1024 + k] * d.B[k * 1024 + j];
      mag += std::fabs(d.A[i * 1024 + k] * d.B[k * 1024 + j]);
    }
    CHECK(std::fabs(c[e] - ref) <= (std::ldexp(1.0, -11) + 1024 * std::ldexp(1.0, -24)) * mag);
  }
}

TEST_CASE("stats.json, the Chrome trace and the SVG timeline are written and well formed") {
  npu_gemm_params p;
  npu_gemm_default(&p, 64, 64, 64, 32, 32, 32, 16, NPU_F16, NPU_F32, NPU_F16, 1);
  RunOptions o;
  o.out_dir = (std::filesystem::temp_directory_path() / "atoll_npu_outputs_test").string();
  std::filesystem::remove_all(o.out_dir);
  RunResult r = run_gemm(builtin_target("tiny"), p, gemm_data(p, 1), Mode::Timed, o);
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.files.size() == 3);
  nlohmann::json stats = nlohmann::json::parse(slurp(o.out_dir + "/stats.json"));
  CHECK(stats["cycles"].get<uint64_t>() == r.timing->cycles);
  CHECK(stats["macs"].get<uint64_t>() == uint64_t(64) * 64 * 64);
  CHECK(stats["busy_cycles"]["total"]["CUBE"].get<uint64_t>() > 0);
  CHECK(stats["bytes_per_path"]["GM>L1"].get<uint64_t>() > 0);
  CHECK(stats["bytes_per_path"]["L0C>GM"].get<uint64_t>() == 64 * 64 * 2);
  CHECK(stats["cube_utilisation"].get<double>() > 0);
  CHECK(stats["cube_utilisation"].get<double>() <= 1);
  CHECK(stats["target_hash"] == builtin_target("tiny").hash());
  nlohmann::json trace = nlohmann::json::parse(slurp(o.out_dir + "/trace.json"));
  size_t spans = 0;
  for (auto &e : trace["traceEvents"]) spans += e["ph"] == "X";
  CHECK(spans > 10);
  std::string svg = slurp(o.out_dir + "/timeline.svg");
  CHECK(svg.rfind("<?xml", 0) == 0);
  CHECK(svg.find("<svg") != std::string::npos);
  CHECK(svg.find("</svg>") != std::string::npos);
  CHECK(svg.find("core 1 CUBE") != std::string::npos);
  CHECK(svg.find("mmad f16") != std::string::npos);     // legend
  CHECK(svg.find(">cycles</text>") != std::string::npos);  // axis
  // Tags balance: every <rect ...> is self-closed or closed.
  size_t open = 0, close = 0;
  for (size_t pos = 0; (pos = svg.find("<rect", pos)) != std::string::npos; ++pos) ++open;
  for (size_t pos = 0; (pos = svg.find("</rect>", pos)) != std::string::npos; ++pos) ++close;
  size_t selfclosed = 0;
  for (size_t pos = 0; (pos = svg.find("\"/>", pos)) != std::string::npos; ++pos) ++selfclosed;
  CHECK(open <= close + selfclosed);
  std::filesystem::remove_all(o.out_dir);
}

TEST_CASE("two cores share GM bandwidth: the same transfers take longer on 2 cores than on 1") {
  nlohmann::json j = builtin_target("ascend-like").to_json();
  j["gm_bytes_per_cycle"] = 64;  // one MTE2 alone saturates GM
  Target two = parse_target(j);
  j["cores"] = 1;
  Target one = parse_target(j);
  npu_gemm_params p;
  npu_gemm_default(&p, 256, 128, 128, 128, 128, 128, 32, NPU_F16, NPU_F32, NPU_F16, 1);
  npu_gemm_params half = p;
  half.M = 128;  // one core's share
  uint64_t c2 = timed_cycles(two, p), c1 = timed_cycles(one, half);
  CHECK(c2 > c1);
}

TEST_CASE("the analytical model ranks configurations like timed simulation") {
  nlohmann::json rep = analytical_rank_report(builtin_target("tiny"));
  MESSAGE(rep.dump());
  size_t used = 0;
  for (auto &s : rep["samples"]) used += s.contains("timed");
  CHECK(used >= 8);
  CHECK(rep["spearman"].get<double>() >= 0.8);
  CHECK(spearman({1, 2, 3, 4}, {10, 20, 30, 40}) == doctest::Approx(1));
  CHECK(spearman({1, 2, 3, 4}, {4, 3, 2, 1}) == doctest::Approx(-1));
}

}  // TEST_SUITE
