// Structure of the generated code: IR attributes and marks, parallel loops, vector code, C and object output.
#include "tests/unit/backends/cpu/test_kernels.h"

#include "backends/cpu/llvm_host.h"
#include "backends/cpu/runtime/thread_pool.h"

#include <doctest/doctest.h>

#include <fstream>

namespace atl::cpu::test {
namespace {

using namespace poly::build;
using compute::AssignOp;
using compute::BinOp;
using Role = poly::LArray::Role;

/// Z[i] = X[i] * 2 + Y[i] over a parameter N, with the given marks on the loop.
poly::LKernel saxpy(const std::string &name, std::set<std::string> marks) {
  auto body = loop_to("i", var("N"),
                      store("Z", {var("i")}, binary(BinOp::Add, binary(BinOp::Mul, load("X", {var("i")}), real(2)),
                                                    load("Y", {var("i")}))),
                      std::move(marks));
  return kernel(name, {array("X", DType::F32, {Dim::sym("N")}, Role::Input),
                       array("Y", DType::F32, {Dim::sym("N")}, Role::Input),
                       array("Z", DType::F32, {Dim::sym("N")}, Role::Output)},
                {"N"}, body);
}

/// A 2-D kernel with a parallel outer loop and a reduction inner loop: row sums plus a column shift.
poly::LKernel rowsum(const std::string &name, std::set<std::string> outer_marks) {
  auto inner = loop_to("j", var("M"),
                       store("S", {var("i")}, binary(BinOp::Mul, load("X", {var("i"), var("j")}), to_value(var("j"))),
                             AssignOp::Add),
                       {poly::mark::kReduction});
  auto body = loop_to("i", var("N"), block({store("S", {var("i")}, real(1)), inner}), std::move(outer_marks));
  return kernel(name, {array("X", DType::F32, {Dim::sym("N"), Dim::sym("M")}, Role::Input),
                       array("S", DType::F32, {Dim::sym("N")}, Role::Output)},
                {"N", "M"}, body);
}

TEST_SUITE("backends") {

TEST_CASE("cpu: lowered IR has the typed function with noalias arrays and the generic entry") {
  std::string ir = emit_llvm_ir({saxpy("saxpy", {})});
  CHECK(ir.find("define void @saxpy(ptr noalias %X, ptr noalias %Y, ptr noalias %Z, i64 %N)") != std::string::npos);
  CHECK(ir.find("define void @saxpy_entry(ptr %arrays, ptr %params)") != std::string::npos);
  CHECK(ir.find("nounwind") != std::string::npos);
  CHECK(ir.find("fast") == std::string::npos);  // no fast-math by default
  CHECK(ir.find("reassoc") == std::string::npos);
}

TEST_CASE("cpu: vector, unroll and reduction marks reach the IR") {
  auto unrolled = loop_to("i", integer(4), store("Z", {var("i")}, real(1)), {poly::mark::kUnroll});
  auto k = kernel("unr", {array("Z", DType::F32, {4}, Role::Output)}, {}, unrolled);
  std::string ir = emit_llvm_ir({saxpy("vec", {poly::mark::kVector}), k, rowsum("red", {})});
  CHECK(ir.find("llvm.loop.vectorize.enable") != std::string::npos);
  // A short constant trip count is unrolled while lowering: four stores, no loop.
  std::string unr = ir.substr(ir.find("define void @unr("));
  unr = unr.substr(0, unr.find("\n}\n"));
  std::size_t stores = 0;
  for (std::size_t p = unr.find("store float"); p != std::string::npos; p = unr.find("store float", p + 1)) ++stores;
  CHECK(stores == 4);
  CHECK(unr.find("br i1") == std::string::npos);
  CHECK(ir.find("fadd reassoc contract") != std::string::npos);
}

TEST_CASE("cpu: the vector mark yields vector instructions in the optimized IR") {
  CpuOptions opt;
  opt.keep_ir = true;
  auto exe = jit_kernels({saxpy("vec", {poly::mark::kVector})}, opt);
  std::string ir = exe->optimized_ir();
  bool has_vectors = ir.find("<8 x float>") != std::string::npos || ir.find("<16 x float>") != std::string::npos ||
                     ir.find("<4 x float>") != std::string::npos;
  CHECK(has_vectors);
  if (host_info().avx2) CHECK((ir.find("<8 x float>") != std::string::npos || ir.find("<16 x float>") != std::string::npos));
  // And it still computes the right thing on an odd size.
  const std::int64_t n = 37;
  Buffer X(DType::F32, n), Y(DType::F32, n), Z(DType::F32, n);
  for (int i = 0; i < n; ++i) X.set(i, i), Y.set(i, -3 * i + 1);
  void *arrays[] = {X.data(), Y.data(), Z.data()};
  exe->run("vec", arrays, &n);
  for (int i = 0; i < n; ++i) CHECK(Z.get(i) == 2.0 * i - 3 * i + 1);
}

TEST_CASE("cpu: a parallel loop is outlined into a call to atoll_parallel_for") {
  std::string ir = emit_llvm_ir({rowsum("par", {poly::mark::kParallel})});
  CHECK(ir.find("call void @atoll_parallel_for(ptr @par_par0") != std::string::npos);
  CHECK(ir.find("define internal void @par_par0_body(ptr noalias") != std::string::npos);
}

TEST_CASE("cpu: parallel loops give the same result with one and with several threads") {
  auto nested = rowsum("nest", {poly::mark::kParallel});
  // A parallel loop inside a parallel loop runs inline in its worker.
  auto inner_par = loop_to("j", var("M"), store("T", {var("i"), var("j")},
                                                 binary(BinOp::Add, load("X", {var("i"), var("j")}), to_value(var("i")))),
                           {poly::mark::kParallel, poly::mark::kVector});
  auto twice = kernel("twice", {array("X", DType::F32, {Dim::sym("N"), Dim::sym("M")}, Role::Input),
                                array("T", DType::F32, {Dim::sym("N"), Dim::sym("M")}, Role::Output)},
                      {"N", "M"}, loop_to("i", var("N"), inner_par, {poly::mark::kParallel}));
  const std::int64_t N = 203, M = 31;
  Buffer X(DType::F32, N * M);
  for (int i = 0; i < N * M; ++i) X.set(i, (i % 17) * 0.25 - 1);
  std::int64_t params[] = {N, M};
  for (auto &[path, exe] : both_paths({nested, twice})) {
    CAPTURE(path);
    std::vector<double> results[2];
    int t = 0;
    for (int threads : {1, 4}) {
      set_cpu_threads(threads);
      REQUIRE(num_threads() == threads);
      Buffer S(DType::F32, N), T(DType::F32, N * M);
      void *a1[] = {X.data(), S.data()};
      exe->run("nest", a1, params);
      void *a2[] = {X.data(), T.data()};
      exe->run("twice", a2, params);
      for (int i = 0; i < N; ++i) results[t].push_back(S.get(i));
      for (int i = 0; i < N * M; ++i) results[t].push_back(T.get(i));
      ++t;
    }
    set_cpu_threads(0);
    CHECK(results[0] == results[1]);
    double want0 = 1;
    for (int j = 0; j < M; ++j) want0 += X.get(j) * j;
    CHECK(results[0][0] == doctest::Approx(want0));
    CHECK(results[0][N + 5 * M + 3] == X.get(5 * M + 3) + 5);
  }
}

TEST_CASE("cpu: the generated C compiles alone with cc -std=c99 -Wall -Werror") {
  auto pad = loop_to("i", integer(6), store("B", {var("i")},
      binary(BinOp::Add, guarded_load(load("A", {binary(BinOp::Sub, var("i"), integer(1))}), real(0)),
             to_value(binary(BinOp::Mod, var("i"), integer(-4))))), {poly::mark::kParallel});
  auto conv = kernel("mix", {array("A", DType::F16, {6}, Role::Input), array("B", DType::BF16, {6}, Role::Output),
                             array("C", DType::Bool, {2}, Role::Temporary), array("D", DType::I8, {1}, Role::Output)},
                     {}, pad);
  std::string src = emit_c_source({saxpy("vec", {poly::mark::kVector}), rowsum("red", {poly::mark::kParallel}), conv});
  CHECK(src.find("#pragma omp parallel for") != std::string::npos);
  CHECK(src.find("void vec_entry(void **arrays, const int64_t *params)") != std::string::npos);
  CHECK(src.find("#include <stdint.h>") != std::string::npos);
  TempDir dir;
  REQUIRE(!dir.path().empty());
  std::ofstream(dir.path() + "/k.c") << src;
  std::string out;
  int rc = shell("cc -std=c99 -Wall -Wextra -Werror -pedantic -c -o " + dir.path() + "/k.o " + dir.path() + "/k.c", &out);
  CAPTURE(out);
  CHECK(rc == 0);
  rc = shell("cc -std=c99 -Wall -Werror -fopenmp -c -o " + dir.path() + "/k2.o " + dir.path() + "/k.c", &out);
  CHECK(rc == 0);
}

TEST_CASE("cpu: the object file and its header compile, link and run from C") {
  TempDir dir;
  REQUIRE(!dir.path().empty());
  const std::string o = dir.path() + "/kernels.o", h = dir.path() + "/kernels.h";
  write_object({saxpy("saxpy", {poly::mark::kVector}), rowsum("rows", {})}, o, h);
  std::ifstream hin(h);
  std::string header((std::istreambuf_iterator<char>(hin)), std::istreambuf_iterator<char>());
  CHECK(header.find("void saxpy(const float *X, const float *Y, float *Z, int64_t N);") != std::string::npos);
  CHECK(header.find("arg 0: X: f32[N], input") != std::string::npos);
  CHECK(header.find("arg 3: N: int64 parameter") != std::string::npos);
  CHECK(header.find("void rows_entry(void **arrays, const int64_t *params);") != std::string::npos);
  std::ofstream(dir.path() + "/main.c") << "#include \"kernels.h\"\n"
      "#include <stdio.h>\n"
      "int main(void) {\n"
      "  float x[5] = {1, 2, 3, 4, 5}, y[5] = {1, 1, 1, 1, 1}, z[5];\n"
      "  saxpy(x, y, z, 5);\n"
      "  for (int i = 0; i < 5; ++i) if (z[i] != 2 * x[i] + 1) return 1;\n"
      "  float s[1];\n"
      "  int64_t p[2] = {1, 5};\n"
      "  void *a[2] = {x, s};\n"
      "  rows_entry(a, p);\n"
      "  return s[0] == 1 + 0 * 1 + 1 * 2 + 2 * 3 + 3 * 4 + 4 * 5 ? 0 : 2;\n"
      "}\n";
  std::string out;
  int rc = shell("cd " + dir.path() + " && cc -std=c99 -Wall -Werror -c main.c && cc -o main main.o kernels.o -lm && ./main",
                 &out);
  CAPTURE(out);
  CHECK(rc == 0);
  std::ofstream(dir.path() + "/cxx.cpp") << "#include \"kernels.h\"\nint main() { return 0; }\n";
  rc = shell("cd " + dir.path() + " && c++ -Wall -Werror -c cxx.cpp", &out);
  CHECK(rc == 0);
  CHECK_THROWS_AS(write_object({saxpy("s", {})}, dir.path() + "/no/such/dir/k.o", h), UserError);
}

TEST_CASE("cpu: a kernel sharing another's code is an alias in the object file, callable by its own names") {
  TempDir dir;
  REQUIRE(!dir.path().empty());
  const std::string o = dir.path() + "/kernels.o", h = dir.path() + "/kernels.h";
  write_object({saxpy("saxpy", {poly::mark::kVector}), saxpy("again", {poly::mark::kVector})}, o, h, {},
               {{"again", "saxpy"}});
  std::ifstream hin(h);
  std::string header((std::istreambuf_iterator<char>(hin)), std::istreambuf_iterator<char>());
  CHECK(header.find("void again(const float *X, const float *Y, float *Z, int64_t N);") != std::string::npos);
  std::ofstream(dir.path() + "/main.c") << "#include \"kernels.h\"\n"
      "int main(void) {\n"
      "  float x[5] = {1, 2, 3, 4, 5}, y[5] = {1, 1, 1, 1, 1}, z[5], w[5];\n"
      "  again(x, y, z, 5);\n"
      "  int64_t n = 5;\n"
      "  void *a[3] = {x, y, w};\n"
      "  again_entry(a, &n);\n"
      "  for (int i = 0; i < 5; ++i) if (z[i] != 2 * x[i] + 1 || w[i] != z[i]) return 1;\n"
      "  return (void *)again == (void *)saxpy ? 0 : 2;\n"
      "}\n";
  std::string out;
  int rc = shell("cd " + dir.path() + " && cc -std=c99 -Wall -c main.c && cc -o main main.o kernels.o -lm && ./main",
                 &out);
  CAPTURE(out);
  CHECK(rc == 0);
}

}  // TEST_SUITE

}  // namespace
}  // namespace atl::cpu::test
