// Generated NPU GEMMs against the hand-written one (backends/npu/kernels/
// sample_gemm.c), side by side on the timed simulator: cycles, cube
// utilisation and the ratio hand-written cycles / generated cycles.
//
//   atoll_npu_gemm_bench [PROFILE]        (default ascend-like)
//
// The hand-written kernel runs its tested configuration (256 x 128 mmads,
// kc 256, k0 64, every level double-buffered) on row-major operands (ND2NZ
// in the DMA, as the generated kernels read them) and on pre-packed NZ
// operands. Shapes it cannot tile (M % 256, N % 128, K % 256) print "-".
#include "backends/npu/codegen/lower_to_npu.h"
#include "backends/npu/kernels/sample_gemm.h"
#include "backends/npu/launcher.h"
#include "polyhedral/compile_cluster.h"

#include "src/frontend/batch.h"

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

using namespace atl;

struct Result {
  double cycles = 0, util = 0;
};

Result hand_written(const npu::Target &t, std::uint32_t M, std::uint32_t N, std::uint32_t K, npu_dtype dt, bool nz) {
  if (M % 256 || N % 128 || K % 256) return {};
  npu_gemm_params p;
  npu_gemm_default(&p, M, N, K, 256, 128, 256, dt == NPU_F32 ? 32 : 64, dt, NPU_F32, dt, 1);
  if (dt == NPU_F32) p.mc = 128, p.a_slots = K / p.kc + 1;  // f32 L0A holds 128 x 32 twice
  p.nz_gm = nz ? 1 : 0;
  const std::size_t eb = dt == NPU_F32 ? 4 : 2;
  std::vector<npu::HostBuffer> args;
  args.emplace_back(std::size_t(M) * K * eb);
  args.emplace_back(std::size_t(K) * N * eb);
  args.emplace_back(std::size_t(M) * N * eb);
  args.push_back(npu::HostBuffer::of(std::vector<npu_gemm_params>{p}));
  npu::RunOptions ro;
  ro.cube_arithmetic = false;
  npu::RunResult r = npu::run_kernel(t, npu_sample_gemm, std::move(args), npu::Mode::Timed, ro);
  if (!r.ok || !r.timing) {
    std::fprintf(stderr, "hand-written %ux%ux%u: %s\n", M, N, K, r.error.c_str());
    return {};
  }
  return {static_cast<double>(r.timing->cycles), r.timing->cube_utilisation};
}

Result generated(const npu::Target &t, std::uint32_t M, std::uint32_t N, std::uint32_t K, const char *dtype,
                 std::string *tiles) {
  const std::string text = std::string(R"({"atoll": 1, "graphs": [{"name": "g", "inputs": [{"name": "a", "shape": [)") +
                           std::to_string(M) + "," + std::to_string(K) + R"(], "dtype": ")" + dtype +
                           R"("}, {"name": "b", "shape": [)" + std::to_string(K) + "," + std::to_string(N) +
                           R"(], "dtype": ")" + dtype + R"("}], "outputs": ["y"], "nodes": [{"op": "MatMul", "name": "mm",
                           "inputs": ["a", "b"], "outputs": ["y"]}]}]})";
  Batch b = read_batch(text);
  const Graph &g = *b.graphs[0].graph;
  poly::PolyOptions o;
  o.npu = npu::npu_target_info(t);
  poly::ClusterResult c = poly::compile_cluster(g, g.order(), o);
  const npu::NpuProgram prog = npu::lower_to_npu(*c.npu_plan, c.kernel, t);
  const auto &pl = *c.npu_plan;
  *tiles = std::to_string(pl.mc) + "x" + std::to_string(pl.nc) + "x" + std::to_string(pl.kc) + "/" +
           std::to_string(pl.k0) + (pl.a_panel ? " panel" : "");
  std::vector<npu::HostBuffer> args;
  npu::HostBuffer address(sizeof(void *));
  const npu::NpuProgram *pp = &prog;
  std::memcpy(address.bytes.data(), &pp, sizeof pp);
  args.push_back(std::move(address));
  for (const auto &a : c.kernel.arrays) {
    std::size_t n = dtype_size(a.dtype);
    for (const Dim &d : a.shape) n *= static_cast<std::size_t>(d.value);
    args.emplace_back(n);
  }
  args.emplace_back(8);
  npu::RunOptions ro;
  ro.cube_arithmetic = false;
  npu::RunResult r = npu::run_kernel(t, npu::npu_interpret, std::move(args), npu::Mode::Timed, ro);
  if (!r.ok || !r.timing) {
    std::fprintf(stderr, "generated %ux%ux%u: %s\n", M, N, K, r.error.c_str());
    return {};
  }
  return {static_cast<double>(r.timing->cycles), r.timing->cube_utilisation};
}

}  // namespace

int main(int argc, char **argv) {
  const npu::Target t = npu::builtin_target(argc > 1 ? argv[1] : "ascend-like");
  struct Shape {
    std::uint32_t M, N, K;
  };
  const std::vector<Shape> shapes = {{1024, 1024, 1024}, {512, 768, 768}, {512, 3072, 768}, {1000, 1000, 1000},
                                     {128, 768, 3072}};
  std::printf("target %s, %u cores\n", t.name.c_str(), t.cores);
  std::printf("%-6s %-16s %-22s %10s %6s %10s %6s %10s %6s %8s\n", "dtype", "M x N x K", "generated tiles",
              "generated", "util", "hand ND", "util", "hand NZ", "util", "ND/gen");
  for (const char *dtype : {"f16", "f32"}) {
    const npu_dtype dt = std::string(dtype) == "f16" ? NPU_F16 : NPU_F32;
    for (const Shape &s : shapes) {
      std::string tiles;
      Result g = generated(t, s.M, s.N, s.K, dtype, &tiles);
      Result nd = hand_written(t, s.M, s.N, s.K, dt, false), nz = hand_written(t, s.M, s.N, s.K, dt, true);
      char shape[32];
      std::snprintf(shape, sizeof shape, "%ux%ux%u", s.M, s.N, s.K);
      auto num = [](double v) { return v > 0 ? std::to_string(static_cast<long long>(v)) : std::string("-"); };
      auto frac = [](double v, double c) {
        char b[16];
        std::snprintf(b, sizeof b, "%.3f", v);
        return c > 0 ? std::string(b) : std::string("-");
      };
      std::printf("%-6s %-16s %-22s %10s %6s %10s %6s %10s %6s %8s\n", dtype, shape, tiles.c_str(), num(g.cycles).c_str(),
                  frac(g.util, g.cycles).c_str(), num(nd.cycles).c_str(), frac(nd.util, nd.cycles).c_str(),
                  num(nz.cycles).c_str(), frac(nz.util, nz.cycles).c_str(),
                  nd.cycles > 0 && g.cycles > 0 ? frac(nd.cycles / g.cycles, 1).c_str() : "-");
    }
  }
  return 0;
}
