// GEMM f32 cases: Atoll MatMul vs naive loops, OpenBLAS cblas_sgemm and oneDNN matmul.
#include "bench/cases.h"

#include "bench/naive_kernels.h"
#include "bench/onednn_kernels.h"

#include <cblas.h>

#include <iostream>

namespace atl::bench {

namespace {

struct GemmShape {
  int m, n, k;
  bool quick;
  std::string name() const {
    if (m == n && n == k) return "gemm/" + std::to_string(m);
    return "gemm/" + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
  }
};

const GemmShape kShapes[] = {{256, 256, 256, true},   {512, 512, 512, false},   {1024, 1024, 1024, true},
                             {2048, 2048, 2048, false}, {1000, 1000, 1000, false}, {127, 255, 63, true},
                             {4096, 64, 4096, false},
                             // BERT-base at sequence length 64: q/k/v/attention output, FFN in, FFN out.
                             {64, 768, 768, true},     {64, 3072, 768, false},   {64, 768, 3072, false}};

}  // namespace

std::string openblas_version() {
  return std::string(openblas_get_config()) + " (core " + openblas_get_corename() + ")";
}

std::vector<CaseResult> run_gemm(const Config &config, int threads) {
  std::vector<CaseResult> out;
  for (const GemmShape &s : kShapes) {
    CaseResult c;
    c.group = "gemm";
    c.name = s.name();
    if ((config.quick && !s.quick) || !config.selected(c.name)) continue;
    c.shape = "M=" + std::to_string(s.m) + " N=" + std::to_string(s.n) + " K=" + std::to_string(s.k);
    c.threads = threads;
    c.work = 2.0 * s.m * s.n * s.k;
    c.unit = "GFLOP/s";
    std::size_t mn = static_cast<std::size_t>(s.m) * s.n;
    Buffer a(static_cast<std::size_t>(s.m) * s.k), b(static_cast<std::size_t>(s.k) * s.n);
    fill_uniform(a, 1);
    fill_uniform(b, 2);
    Buffer c_atoll(mn), c_naive(mn), c_blas(mn), c_dnnl(mn);

    std::vector<Impl> impls;
    impls.push_back(atoll_impl(
        "atoll", config,
        [&] {
          Graph g;
          g.name = "gemm";
          g.add_input("A", {DType::F32, {s.m, s.k}});
          g.add_input("B", {DType::F32, {s.k, s.n}});
          g.add_node(make_node("MatMul", {"A", "B"}, {"C"}));
          g.add_output("C");
          return g;
        },
        {{"A", a.data()}, {"B", b.data()}, {"C", c_atoll.data()}}, "C"));
    Impl naive{"naive"};
    naive.run = [&] { naive::gemm(a.data(), b.data(), c_naive.data(), s.m, s.n, s.k, threads); };
    naive.out = c_naive.data();
    naive.kernel = "loops i,k,j (gcc -O3 -march=native)";
    impls.push_back(naive);
    Impl blas{"openblas"};
    blas.run = [&] {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, s.m, s.n, s.k, 1.0f, a.data(), s.k, b.data(), s.n, 0.0f,
                  c_blas.data(), s.n);
    };
    blas.out = c_blas.data();
    blas.kernel = std::string("cblas_sgemm, core ") + openblas_get_corename();
    impls.push_back(blas);
    Impl dnnl{"onednn"};
    try {
      auto prim = std::shared_ptr<dnnl_cases::Run>(dnnl_cases::matmul(a.data(), b.data(), c_dnnl.data(), s.m, s.n, s.k));
      dnnl.run = [prim] { prim->run(); };
      dnnl.kernel = "matmul " + prim->kernel;
    } catch (const std::exception &e) {
      dnnl.error = e.what();
    }
    dnnl.out = c_dnnl.data();
    impls.push_back(dnnl);
    run_impls(config, c, impls, mn);
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace atl::bench
