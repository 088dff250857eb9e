// NPU code generation (backends/npu/codegen) on the simulator: generated
// kernels against plain loops, every generated wait needed (the hazard
// checker reports each one deleted), the emitted C compiles as C99 and
// runs the same instruction trace as the interpreter.
#include "../../polyhedral/poly_test_util.h"

#include "backends/npu/codegen/lower_to_npu.h"
#include "backends/npu/codegen/npu_program.h"
#include "backends/npu/launcher.h"
#include "polyhedral/transforms/npu/tile_for_npu.h"

#include <atoll/diagnostics.h>

#include <doctest/doctest.h>

#include <dlfcn.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

namespace {

using namespace atl;

struct Kernel {
  poly::ClusterResult cluster;
  npu::Target target;
  npu::NpuProgram program;
};

Kernel generate(const Graph &g, const std::string &profile, const std::vector<long> &tile = {}) {
  Kernel k{{}, npu::builtin_target(profile), {}};
  poly::PolyOptions o;
  o.npu = npu::npu_target_info(k.target);
  if (!tile.empty()) {
    o.tile_sizes = tile;
    o.tile_hint = true;
  }
  k.cluster = polytest::compile(g, o);
  REQUIRE(k.cluster.npu_plan.has_value());
  k.program = npu::lower_to_npu(*k.cluster.npu_plan, k.cluster.kernel, k.target);
  return k;
}

/// The kernel's arrays: inputs random in [-1, 1], the rest zero.
std::vector<std::vector<float>> arrays_of(const Kernel &k, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<std::vector<float>> out;
  for (const auto &a : k.cluster.kernel.arrays) {
    std::size_t n = 1;
    for (const Dim &d : a.shape) n *= static_cast<std::size_t>(d.value);
    std::vector<float> v(n, 0.0f);
    if (a.role == poly::LArray::Role::Input)
      for (float &x : v) x = u(rng);
    out.push_back(std::move(v));
  }
  return out;
}

/// Runs `fn` with the arrays (and, for the interpreter, the program's address first).
npu::RunResult run(const Kernel &k, const npu::NpuProgram &p, const std::vector<std::vector<float>> &arrays,
                   npu_kernel_fn fn = npu::npu_interpret) {
  std::vector<npu::HostBuffer> args;
  if (fn == npu::npu_interpret) {
    npu::HostBuffer address(sizeof(void *));
    const npu::NpuProgram *pp = &p;
    std::memcpy(address.bytes.data(), &pp, sizeof pp);
    args.push_back(std::move(address));
  }
  for (const auto &a : arrays) args.push_back(npu::HostBuffer::of(a));
  args.emplace_back(8);  // no parameters
  return npu::run_kernel(k.target, fn, std::move(args), npu::Mode::Functional);
}

std::vector<float> output(const npu::RunResult &r, std::size_t array, bool interpreted = true) {
  return r.args[array + (interpreted ? 1 : 0)].as<float>();
}

Graph matmul_bias_relu(int m, int k, int n) {
  return polytest::graph_json(
      R"([{"op": "MatMul", "name": "mm", "inputs": ["x", "w"], "outputs": ["t"]},
          {"op": "Add", "name": "add", "inputs": ["t", "b"], "outputs": ["u"]},
          {"op": "Relu", "name": "relu", "inputs": ["u"], "outputs": ["y"]}])",
      R"("inputs": [{"name": "x", "shape": [)" + std::to_string(m) + "," + std::to_string(k) +
          R"(]}, {"name": "w", "shape": [)" + std::to_string(k) + "," + std::to_string(n) +
          R"(]}, {"name": "b", "shape": [)" + std::to_string(n) + R"(]}], "outputs": ["y"])");
}

Graph softmax(int rows, int cols) {
  return polytest::graph_json(R"([{"op": "Softmax", "name": "sm", "inputs": ["x"], "outputs": ["y"]}])",
                              R"("inputs": [{"name": "x", "shape": [)" + std::to_string(rows) + "," +
                                  std::to_string(cols) + R"(]}], "outputs": ["y"])");
}

Graph layernorm(int rows, int cols) {
  const std::string c = std::to_string(cols);
  return polytest::graph_json(
      R"([{"op": "LayerNormalization", "name": "ln", "inputs": ["x", "g", "b"], "outputs": ["y"]}])",
      R"("inputs": [{"name": "x", "shape": [)" + std::to_string(rows) + "," + c + R"(]}, {"name": "g", "shape": [)" +
          c + R"(]}, {"name": "b", "shape": [)" + c + R"(]}], "outputs": ["y"])");
}

std::size_t index_of(const Kernel &k, const std::string &tensor) {
  const std::string array = k.cluster.array_of_tensor.at(tensor);
  for (std::size_t i = 0; i < k.cluster.kernel.arrays.size(); ++i)
    if (k.cluster.kernel.arrays[i].name == array) return i;
  FAIL("no array for " << tensor);
  return 0;
}

}  // namespace

TEST_SUITE("npu") {

TEST_CASE("npu codegen: a MatMul with bias and ReLU matches a plain loop with partial tiles in every dim") {
  for (const char *profile : {"tiny", "lite", "ascend-like"}) {
    CAPTURE(profile);
    const int M = 37, K = 29, N = 53;
    Kernel k = generate(matmul_bias_relu(M, K, N), profile);
    CHECK(k.cluster.npu_plan->kind == poly::NpuKernelPlan::Kind::Cube);
    auto arrays = arrays_of(k, 7);
    npu::RunResult r = run(k, k.program, arrays);
    REQUIRE_MESSAGE(r.ok, r.error);
    CHECK(r.races.empty());
    CHECK(r.uninit.empty());
    const auto &x = arrays[index_of(k, "x")], &w = arrays[index_of(k, "w")], &b = arrays[index_of(k, "b")];
    std::vector<float> y = output(r, index_of(k, "y"));
    double worst = 0;
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        double s = 0;
        for (int q = 0; q < K; ++q) s += double(x[i * K + q]) * w[q * N + j];
        worst = std::max(worst, std::abs(std::max(s + b[j], 0.0) - y[i * N + j]));
      }
    CHECK(worst < 1e-4);
  }
}

TEST_CASE("npu codegen: tile hints are checked against the capacities") {
  CHECK_THROWS_WITH_AS(generate(matmul_bias_relu(64, 64, 64), "tiny", {256, 256, 256}),
                       doctest::Contains("L1 needs"), UserError);
  Kernel k = generate(matmul_bias_relu(64, 64, 64), "tiny", {16, 32, 32, 16});
  CHECK(k.cluster.npu_plan->mc == 16);
  CHECK(k.cluster.npu_plan->tiles_from == "tile hint");
  npu::RunResult r = run(k, k.program, arrays_of(k, 3));
  CHECK_MESSAGE(r.ok, r.error);
}

TEST_CASE("npu codegen: deleting any one generated wait is reported") {
  // Tiles small enough that every ring turns over (tiny's buffers).
  std::vector<Kernel> kernels;
  kernels.push_back(generate(matmul_bias_relu(40, 48, 40), "tiny", {16, 16, 32, 16}));
  kernels.push_back(generate(softmax(40, 24), "tiny", {16, 32}));
  kernels.push_back(generate(layernorm(33, 20), "ascend-like", {16, 32}));
  for (const Kernel &k : kernels) {
    CAPTURE(k.cluster.name);
    auto arrays = arrays_of(k, 11);
    npu::RunResult good = run(k, k.program, arrays);
    REQUIRE_MESSAGE(good.ok, good.error);
    const int waits = k.program.waits();
    CHECK(waits >= 8);
    for (int w = 0; w < waits; ++w) {
      CAPTURE(w);
      npu::RunResult bad = run(k, npu::without_wait(k.program, w), arrays);
      CHECK_FALSE(bad.ok);
    }
  }
}

TEST_CASE("npu codegen: the emitted C compiles as C99 and runs the interpreter's trace") {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("atoll_npu_c_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::vector<Kernel> kernels;
  kernels.push_back(generate(matmul_bias_relu(37, 29, 53), "tiny"));
  kernels.push_back(generate(layernorm(9, 70), "lite"));
  int n = 0;
  for (Kernel &k : kernels) {
    CAPTURE(k.cluster.name);
    k.program.name = "kernel_" + std::to_string(n);
    const std::string base = (dir / k.program.name).string();
    {
      std::ofstream c(base + ".c");
      npu::emit_npu_c_preamble(c);
      npu::emit_npu_c(c, k.program);
    }
    const std::string include = std::string(ATOLL_NPU_INCLUDE_DIR);
    const std::string cmd = "cc -std=c99 -Wall -Wextra -Werror -pedantic -Wno-unused-function -fPIC -shared -I" +
                            include + " " + base + ".c -o " + base + ".so 2>&1";
    REQUIRE_MESSAGE(std::system(cmd.c_str()) == 0, cmd);
    void *so = dlopen((base + ".so").c_str(), RTLD_NOW | RTLD_LOCAL);
    REQUIRE_MESSAGE(so, dlerror());
    auto fn = reinterpret_cast<npu_kernel_fn>(dlsym(so, k.program.name.c_str()));
    REQUIRE(reinterpret_cast<void *>(fn) != nullptr);
    auto arrays = arrays_of(k, 5);
    npu::RunResult a = run(k, k.program, arrays), c = run(k, k.program, arrays, fn);
    REQUIRE_MESSAGE(a.ok, a.error);
    REQUIRE_MESSAGE(c.ok, c.error);
    REQUIRE(a.traces.size() == c.traces.size());
    for (std::size_t core = 0; core < a.traces.size(); ++core) {
      const auto &x = a.traces[core].instrs, &y = c.traces[core].instrs;
      REQUIRE(x.size() == y.size());
      for (std::size_t i = 0; i < x.size(); ++i) {
        CAPTURE(i);
        CHECK(std::string(x[i].call) == y[i].call);
        CHECK(x[i].kind == y[i].kind);
        CHECK(x[i].bytes == y[i].bytes);
        CHECK(x[i].n_burst == y[i].n_burst);
        CHECK(x[i].repeat == y[i].repeat);
        CHECK(x[i].steps == y[i].steps);
        CHECK(x[i].event == y[i].event);
      }
    }
    for (std::size_t i = 0; i < arrays.size(); ++i) CHECK(output(a, i) == output(c, i, false));
    dlclose(so);
    ++n;
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("npu codegen: what the NPU cannot run is an error naming the node") {
  Graph conv = polytest::one_node("Conv", {{"x", {1, 16, 8, 8}}, {"w", {16, 16, 3, 3}}},
                                  polytest::json{{"pads", {1, 1, 1, 1}}});
  CHECK_THROWS_WITH_AS(generate(conv, "tiny"), doctest::Contains("reduces over several indices"), UserError);
  Graph i64 = polytest::one_node("Relu", {{"x", {4, 4}, DType::I64}});
  CHECK_THROWS_WITH_AS(generate(i64, "tiny"), doctest::Contains("handles f32 and f16 tensors"), UserError);
  CHECK_THROWS_WITH_AS(generate(layernorm(4, 4096), "tiny"), doctest::Contains("UB needs"), UserError);
}

}  // TEST_SUITE

namespace {

double timed_cycles(const Kernel &k, const npu::NpuProgram &p) {
  std::vector<npu::HostBuffer> args;
  npu::HostBuffer address(sizeof(void *));
  const npu::NpuProgram *pp = &p;
  std::memcpy(address.bytes.data(), &pp, sizeof pp);
  args.push_back(std::move(address));
  for (const auto &a : arrays_of(k, 1)) args.push_back(npu::HostBuffer::of(a));
  args.emplace_back(8);
  npu::RunOptions ro;
  ro.cube_arithmetic = false;
  npu::RunResult r = npu::run_kernel(k.target, npu::npu_interpret, std::move(args), npu::Mode::Timed, ro);
  REQUIRE_MESSAGE(r.ok, r.error);
  REQUIRE(r.timing.has_value());
  return static_cast<double>(r.timing->cycles);
}

Graph matmul(int m, int k, int n, const char *dtype) {
  return polytest::graph_json(R"([{"op": "MatMul", "name": "mm", "inputs": ["a", "b"], "outputs": ["y"]}])",
                              R"("inputs": [{"name": "a", "shape": [)" + std::to_string(m) + "," + std::to_string(k) +
                                  R"(], "dtype": ")" + dtype + R"("}, {"name": "b", "shape": [)" + std::to_string(k) +
                                  "," + std::to_string(n) + R"(], "dtype": ")" + dtype + R"("}], "outputs": ["y"])");
}

}  // namespace

TEST_SUITE("npu") {

// Simulated cycles are exact and the same on every host: these compare
// schedules, not wall-clock times.
TEST_CASE("npu codegen: double-buffered vector tiles take fewer simulated cycles than one slot") {
  for (const Graph &g : {softmax(256, 96), layernorm(256, 64)}) {
    Kernel two = generate(g, "ascend-like", {32, 96});
    REQUIRE(two.cluster.npu_plan->ub_slots == 2);
    poly::NpuKernelPlan one_slot = *two.cluster.npu_plan;
    one_slot.ub_slots = 1;
    const npu::NpuProgram one = npu::lower_to_npu(one_slot, two.cluster.kernel, two.target);
    const double c2 = timed_cycles(two, two.program), c1 = timed_cycles(two, one);
    CAPTURE(c1);
    CAPTURE(c2);
    CHECK(c2 < c1);
  }
}

TEST_CASE("npu codegen: the analytical tile choice is within 10% of the best timed candidate") {
  struct Case {
    int m, k, n;
    const char *dtype;
  };
  for (const Case &c : {Case{512, 512, 512, "f16"}, Case{256, 384, 640, "f16"}, Case{300, 200, 260, "f32"}}) {
    CAPTURE(c.m);
    Kernel chosen = generate(matmul(c.m, c.k, c.n, c.dtype), "ascend-like");
    const double mine = timed_cycles(chosen, chosen.program);
    double best = mine;
    for (std::vector<long> t : std::vector<std::vector<long>>{{64, 64, 128, 32}, {128, 128, 256, 64},
                                                              {128, 64, 256, 64}, {256, 64, 128, 64},
                                                              {64, 128, 512, 32}, {256, 128, 128, 32}}) {
      Kernel k;
      try {
        k = generate(matmul(c.m, c.k, c.n, c.dtype), "ascend-like", t);
      } catch (const UserError &) {
        continue;  // does not fit this dtype's buffers
      }
      best = std::min(best, timed_cycles(k, k.program));
    }
    CAPTURE(mine);
    CAPTURE(best);
    CHECK(mine <= 1.10 * best);
  }
}

}  // TEST_SUITE
