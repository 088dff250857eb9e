// The GPU path without a GPU: the mapping of the schedule tree (marks,
// block and grid sizes), the launches, the CUDA and OpenCL text, NVRTC's
// compile and ptxas report, and OpenCL runs on PoCL against a plain loop.
#include "../../polyhedral/poly_test_util.h"

#include "backends/gpu/emit_gpu.h"
#include "backends/gpu/nvrtc.h"
#include "backends/gpu/opencl_runtime.h"
#include "backends/gpu/simt_check.h"
#include "polyhedral/isl/isl_context.h"
#include "polyhedral/target/gpu_target.h"
#include "polyhedral/transforms/schedule/map_to_gpu.h"

#include <atoll/diagnostics.h>

#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <set>

namespace {

using namespace atl;
using polytest::In;

poly::ClusterResult compile_gpu(const Graph &g, const std::string &target = "cuda") {
  poly::PolyOptions o;
  o.gpu = poly::gpu_target(target);
  return polytest::compile(g, o);
}

void marks_of(const poly::LStmt &s, std::set<std::string> &out) {
  if (auto m = poly::gpu_mark_of(s)) out.insert(poly::gpu_mark_name(*m));
  for (const auto &b : s.body)
    if (b) marks_of(*b, out);
  if (s.then_body) marks_of(*s.then_body, out);
  if (s.else_body) marks_of(*s.else_body, out);
}

Graph matmul(Dim m, Dim k, Dim n, std::map<std::string, ParamRange> params = {}) {
  return polytest::one_node("MatMul", {{"A", {m, k}}, {"B", {k, n}}}, polytest::json::object(), 1, std::move(params));
}

}  // namespace

TEST_CASE("gpu marks: names round-trip, other marks are not GPU marks") {
  poly::GpuMark m{true, 1, 7};
  CHECK(poly::gpu_mark_name(m) == "thread_y_7");
  auto back = poly::parse_gpu_mark("thread_y_7");
  REQUIRE(back);
  CHECK(back->thread);
  CHECK(back->dim == 1);
  CHECK(back->kernel == 7);
  CHECK_FALSE(poly::parse_gpu_mark("unroll"));
  CHECK_FALSE(poly::parse_gpu_mark("block_w_0"));
  CHECK_THROWS_AS(poly::gpu_target("cuda:sm_70"), UserError);
  CHECK_THROWS_AS(poly::gpu_target("vulkan"), UserError);
  CHECK(poly::gpu_target("opencl").dialect == poly::GpuDialect::OpenCL);
  CHECK(poly::gpu_target("cuda:sm_80").sm == 80);
}

TEST_CASE("map_to_gpu: a MatMul's rows and columns on blocks and threads, k in each thread") {
  poly::ClusterResult r = compile_gpu(matmul(Dim(64), Dim(48), Dim(40)));
  REQUIRE(r.has_gpu);
  REQUIRE(r.gpu.launches.size() == 1);
  const poly::GpuLaunch &l = r.gpu.launches[0];
  CHECK(l.mapped);
  // x: the columns (stride 1 in C and B), 40 -> 64 threads; y: 256 / 64 rows.
  CHECK(l.block == std::array<int, 3>{64, 4, 1});
  // One tile of columns: isl makes no loop for it, so one block along x.
  REQUIRE(l.grid[0]);
  CHECK(l.grid[0]->kind == poly::LExprKind::Int);
  CHECK(l.grid[0]->ival == 1);
  // 4 rows a thread (a register tile: k runs inside each thread): 64 / (4 x 4).
  CHECK(l.grid[1]->ival == 4);
  std::set<std::string> marks;
  marks_of(*l.body, marks);
  CHECK(marks == std::set<std::string>{"block_y_0", "thread_x_0", "thread_y_0"});
  CHECK(r.stats["bands_mapped_to_gpu"] == 1);
}

TEST_CASE("map_to_gpu: symbolic rows give a grid expression of the parameter") {
  poly::ClusterResult r = compile_gpu(matmul(Dim::sym("N"), Dim(16), Dim(32), {{"N", {1, 4096}}}));
  REQUIRE(r.gpu.launches.size() == 1);
  const poly::GpuLaunch &l = r.gpu.launches[0];
  REQUIRE(l.grid[1]);
  const std::string text = poly::print_loop_expr(*l.grid[1]);
  CHECK(text.find('N') != std::string::npos);
  const std::int64_t n100 = 100;
  // 32 columns on x, 8 threads of 4 rows a block: 100 rows need 4 blocks.
  CHECK(l.block == std::array<int, 3>{32, 8, 1});
  CHECK(gpu::eval_index(*l.grid[1], r.kernel, &n100) == 4);
}

TEST_CASE("map_to_gpu: a sum to a scalar has no parallel member and runs on one thread") {
  Graph g = polytest::one_node("ReduceSum", {{"x", {Dim(7), Dim(9)}}}, {{"keepdims", 0}});
  poly::ClusterResult r = compile_gpu(g);
  REQUIRE(r.gpu.launches.size() == 1);
  CHECK_FALSE(r.gpu.launches[0].mapped);
  CHECK(r.gpu.launches[0].block == std::array<int, 3>{1, 1, 1});
  std::set<std::string> marks;
  marks_of(*r.gpu.launches[0].body, marks);
  CHECK(marks.empty());
}

TEST_CASE("emit_gpu: one printer, CUDA and OpenCL spellings") {
  poly::ClusterResult r = compile_gpu(matmul(Dim(64), Dim(48), Dim(40)));
  std::vector<gpu::GpuKernelSource> src = {{&r.kernel, &r.gpu}};
  const std::string cuda = gpu::emit_gpu(src, poly::GpuDialect::Cuda);
  CHECK(cuda.find("#include <") == std::string::npos);
  CHECK(cuda.find("extern \"C\" __global__ void __launch_bounds__(256, 1) n0_k0(") != std::string::npos);
  CHECK(cuda.find("const float *__restrict__ A") != std::string::npos);
  CHECK(cuda.find("threadIdx.x") != std::string::npos);
  CHECK(cuda.find("blockIdx.y") != std::string::npos);
  CHECK(cuda.find("gridDim.y") != std::string::npos);
  const std::string cl = gpu::emit_gpu(src, poly::GpuDialect::OpenCL);
  CHECK(cl.find("__kernel __attribute__((reqd_work_group_size(64, 4, 1))) void n0_k0(") != std::string::npos);
  CHECK(cl.find("__global const float *restrict A") != std::string::npos);
  CHECK(cl.find("get_local_id(0)") != std::string::npos);
  CHECK(cl.find("get_num_groups(1)") != std::string::npos);
  CHECK(cl.find("threadIdx") == std::string::npos);
}

TEST_CASE("parse_ptxas_log: registers, shared memory, stack and spills per kernel") {
  const std::string log =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function 'k0' for 'sm_90'\n"
      "ptxas info    : Function properties for k0\n"
      "    352 bytes stack frame, 112 bytes spill stores, 124 bytes spill loads\n"
      "ptxas info    : Used 32 registers, used 1 barriers, 8320 bytes smem\n"
      "ptxas info    : Compiling entry function 'k1' for 'sm_90'\n"
      "ptxas info    : Function properties for k1\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 12 registers\n";
  auto k = gpu::parse_ptxas_log(log);
  REQUIRE(k.size() == 2);
  CHECK(k["k0"].registers == 32);
  CHECK(k["k0"].barriers == 1);
  CHECK(k["k0"].shared_bytes == 8320);
  CHECK(k["k0"].stack_bytes == 352);
  CHECK(k["k0"].spill_store_bytes == 112);
  CHECK(k["k0"].spill_load_bytes == 124);
  CHECK(k["k1"].registers == 12);
  CHECK(k["k1"].stack_bytes == 0);
}

TEST_CASE("NVRTC compiles the CUDA text for sm_80 and sm_90 without spills") {
  if (!gpu::nvrtc_available()) {
    MESSAGE("NVRTC not found: not checked");
    return;
  }
  poly::ClusterResult r = compile_gpu(matmul(Dim(64), Dim(48), Dim(40)));
  const std::string cuda = gpu::emit_gpu({{&r.kernel, &r.gpu}}, poly::GpuDialect::Cuda);
  for (int sm : {80, 90}) {
    gpu::NvrtcResult c = gpu::compile_cuda(cuda, "matmul.cu", sm);
    CHECK(c.ptx.find(".target sm_" + std::to_string(sm)) != std::string::npos);
    CHECK_FALSE(c.cubin.empty());
    REQUIRE(c.kernels.count("n0_k0"));
    CHECK(c.kernels["n0_k0"].registers > 0);
    CHECK(c.kernels["n0_k0"].stack_bytes == 0);
    CHECK(c.kernels["n0_k0"].spill_store_bytes == 0);
  }
  CHECK_THROWS_WITH_AS(gpu::compile_cuda("this is not CUDA", "bad.cu", 90), doctest::Contains("bad.cu: NVRTC failed"),
                       UserError);
}

TEST_CASE("OpenCL: the launches of a MatMul with partial tiles match a plain loop") {
  if (!gpu::opencl_available()) {
    MESSAGE("no OpenCL device: not checked (" << gpu::opencl_device() << ")");
    return;
  }
  const int m = 37, k = 19, n = 70;  // partial tiles on both mapped dimensions
  poly::ClusterResult r = compile_gpu(matmul(Dim(m), Dim(k), Dim(n)), "opencl");
  gpu::OpenClProgram program(gpu::emit_gpu({{&r.kernel, &r.gpu}}, poly::GpuDialect::OpenCL));
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> a(m * k), b(k * n), c(m * n, 0), want(m * n, 0);
  for (float &v : a) v = u(rng);
  for (float &v : b) v = u(rng);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j)
      for (int q = 0; q < k; ++q) want[i * n + j] += a[i * k + q] * b[q * n + j];
  std::map<std::string, void *> by_name = {{"A", a.data()}, {"B", b.data()}};
  std::vector<void *> arrays;
  for (const poly::LArray &arr : r.kernel.arrays) arrays.push_back(by_name.count(arr.name) ? by_name[arr.name] : c.data());
  program.run(r.kernel, r.gpu, arrays.data(), nullptr);
  double err = 0;
  for (int i = 0; i < m * n; ++i) err = std::max(err, static_cast<double>(std::fabs(c[i] - want[i])));
  CHECK(err < 1e-4);
}

TEST_CASE("SIMT check: the mapped MatMul is race-free; a loop that loses its thread mark races") {
  poly::ClusterResult r = compile_gpu(matmul(Dim(37), Dim(5), Dim(70)));
  gpu::SimtReport ok = gpu::simt_check(r.kernel, r.gpu, nullptr);
  CHECK(ok.clean());
  CHECK_FALSE(ok.truncated);
  CHECK(ok.threads * 4 >= 37 * 70);  // 4 rows a thread
  CHECK(ok.accesses > 0);
  // Mutation: the columns' loop no longer spread over threads x, so every
  // thread x of a block writes every column.
  poly::GpuProgram bad = r.gpu;
  bad.launches[0].body = poly::copy_loop_ast(bad.launches[0].body, nullptr, [](const poly::LStmt &, poly::LStmt &c) {
    c.marks.erase("thread_x_0");
  });
  gpu::SimtReport race = gpu::simt_check(r.kernel, bad, nullptr);
  CHECK(race.races > 0);
  REQUIRE_FALSE(race.problems.empty());
  CHECK(race.problems[0].find("race on") != std::string::npos);
  CHECK(race.problems[0].find("launch n0_k0") != std::string::npos);
}

TEST_CASE("SIMT check: an array shorter than its accesses is an out-of-bounds report") {
  poly::ClusterResult r = compile_gpu(matmul(Dim(8), Dim(4), Dim(8)));
  poly::LKernel shrunk = r.kernel;
  for (poly::LArray &a : shrunk.arrays)
    if (a.role == poly::LArray::Role::Output) a.shape.front() = Dim(6);  // rows 6 and 7 fall outside
  gpu::SimtReport rep = gpu::simt_check(shrunk, r.gpu, nullptr);
  CHECK(rep.out_of_bounds > 0);
  CHECK(rep.races == 0);
  CHECK(rep.problems[0].find("out-of-bounds") != std::string::npos);
  CHECK(rep.problems[0].find(" of y0") != std::string::npos);
}

TEST_CASE("SIMT check: a budget bounds the work and says so") {
  poly::ClusterResult r = compile_gpu(matmul(Dim(64), Dim(64), Dim(64)));
  gpu::SimtReport rep = gpu::simt_check(r.kernel, r.gpu, nullptr, 1000);
  CHECK(rep.truncated);
  CHECK(rep.accesses <= 1001);
  CHECK(rep.clean());
}

TEST_CASE("map_to_gpu: the tile hint sets the threads along each band member") {
  poly::PolyOptions o;
  o.gpu = poly::gpu_target("cuda");
  o.tile_hint = true;
  o.tile_sizes = {8, 32};  // rows, columns (k: the last entry repeats, but k is not mapped)
  poly::ClusterResult r = polytest::compile(matmul(Dim(64), Dim(48), Dim(40)), o);
  REQUIRE(r.gpu.launches.size() == 1);
  CHECK(r.gpu.launches[0].block == std::array<int, 3>{32, 8, 1});
  CHECK(r.gpu.launches[0].grid[0]->ival == 2);  // 40 columns in tiles of 32
  CHECK(r.gpu.launches[0].grid[1]->ival == 2);  // 64 rows, 8 threads of 4 rows
  gpu::SimtReport rep = gpu::simt_check(r.kernel, r.gpu, nullptr);
  CHECK(rep.clean());
  o.tile_sizes = {64, 64};
  CHECK_THROWS_WITH_AS(polytest::compile(matmul(Dim(64), Dim(48), Dim(40)), o),
                       doctest::Contains("a block of 64 x 64 x 1 threads exceeds the target's 1024 threads per block"), UserError);
}

TEST_CASE("map_to_gpu: a contraction's register tile puts 4 rows a thread inside the reduction") {
  poly::ClusterResult r = compile_gpu(matmul(Dim(37), Dim(5), Dim(70)));
  REQUIRE(r.gpu.launches.size() == 1);
  // thread_y -> k -> the rows' loop, marked unroll, innermost around the statements.
  const poly::LStmt *s = r.gpu.launches[0].body.get();
  std::vector<std::string> nest;
  while (s) {
    if (s->kind == poly::LStmtKind::For) {
      auto g = poly::gpu_mark_of(*s);
      nest.push_back(g ? poly::gpu_mark_name(*g) : s->marks.count(poly::mark::kUnroll) ? "unroll" : "loop");
    }
    const poly::LStmt *next = nullptr;
    for (const auto &b : s->kind == poly::LStmtKind::If ? std::vector<poly::LStmtPtr>{s->then_body} : s->body)
      if (b && (b->kind == poly::LStmtKind::For || b->kind == poly::LStmtKind::Block || b->kind == poly::LStmtKind::If)) {
        next = b.get();
        break;
      }
    s = next;
  }
  CHECK(nest == std::vector<std::string>{"block_y_0", "thread_y_0", "thread_x_0", "loop", "unroll"});
  CHECK(gpu::simt_check(r.kernel, r.gpu, nullptr).clean());
  const std::string cuda = gpu::emit_gpu({{&r.kernel, &r.gpu}}, poly::GpuDialect::Cuda);
  CHECK(cuda.find("#pragma unroll") != std::string::npos);
}

TEST_CASE("map_to_gpu: x goes to the member along which the writes are consecutive") {
  poly::IslContext ic;
  isl::ctx ctx = ic.get();
  // Y[j, i] = ...: the writes are stride-1 along i, the band's outer member.
  isl::schedule tree = isl::schedule::from_domain(isl::union_set(ctx, "{ S[i, j] : 0 <= i < 64 and 0 <= j < 8 }"));
  tree = tree.root().child(0).insert_partial_schedule(isl::multi_union_pw_aff(ctx, "[{ S[i, j] -> [(i)] }, { S[i, j] -> [(j)] }]")).schedule();
  const poly::GpuTarget cuda = poly::gpu_target("cuda");
  const isl::union_map none(ctx, "{ }");
  poly::GpuMapResult coalesced = poly::map_to_gpu(tree, none, cuda, {}, isl::union_map(ctx, "{ S[i, j] -> Y[j, i] }"));
  REQUIRE(coalesced.kernels.size() == 1);
  CHECK(coalesced.kernels[0].extent[0] == 64);  // x: i
  CHECK(coalesced.kernels[0].block == std::array<int, 3>{64, 4, 1});
  // Writes Y[i, j] (stride-1 along j), or none given: x is the innermost member.
  poly::GpuMapResult inner = poly::map_to_gpu(tree, none, cuda, {}, isl::union_map(ctx, "{ S[i, j] -> Y[i, j] }"));
  CHECK(inner.kernels[0].extent[0] == 8);
  CHECK(inner.kernels[0].block == std::array<int, 3>{8, 32, 1});
  CHECK(poly::map_to_gpu(tree, none, cuda).kernels[0].extent[0] == 8);
}
