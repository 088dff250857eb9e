// Tests of the hand-written vector and convolution kernels: img2col convolution, softmax, layer norm, 2-core chain.
#include <doctest/doctest.h>

#include <cmath>

#include "kernels.h"
#include "npu_test_util.h"

using namespace npu_test;

TEST_SUITE("npu") {

TEST_CASE("convolution through img2col matches a direct convolution") {
  conv_params p{2, 8, 8, 3, 3, 1, 1, 1, 1, 16};  // C = 32 (two C1 slices), 8x8, 3x3, pad 1, 16 outputs
  uint32_t C = p.C1 * 16, OH = 8, OW = 8, K = p.C1 * 9 * 16;
  std::vector<double> in = random_values(size_t(p.C1) * p.H * p.W * 16, 21, -1, 1, NPU_F16);  // NC1HWC0
  std::vector<double> w = random_values(size_t(K) * p.cout, 22, -1, 1, NPU_F16);           // rows (c1, ky, kx, c0)
  std::vector<HostBuffer> args(4);
  args[0].bytes = encode(in, NPU_F16);
  args[1].bytes = encode(w, NPU_F16);
  args[2] = HostBuffer(size_t(OH) * OW * p.cout * 4);
  args[3] = HostBuffer::of(std::vector<conv_params>{p});
  RunResult r = run_kernel(builtin_target("ascend-like"), k_conv, std::move(args), Mode::Timed);
  REQUIRE_MESSAGE(r.ok, r.error);
  std::vector<double> out = decode(r.args[2].bytes, NPU_F32);
  double worst = 0;
  for (uint32_t oh = 0; oh < OH; ++oh)
    for (uint32_t ow = 0; ow < OW; ++ow)
      for (uint32_t co = 0; co < p.cout; ++co) {
        double ref = 0, mag = 0;
        for (uint32_t c = 0; c < C; ++c)
          for (uint32_t ky = 0; ky < 3; ++ky)
            for (uint32_t kx = 0; kx < 3; ++kx) {
              int ih = int(oh) - 1 + int(ky), iw = int(ow) - 1 + int(kx);
              if (ih < 0 || iw < 0 || ih >= 8 || iw >= 8) continue;
              double x = in[((size_t(c / 16) * 8 + ih) * 8 + iw) * 16 + c % 16];
              double y = w[(((size_t(c / 16) * 3 + ky) * 3 + kx) * 16 + c % 16) * p.cout + co];
              ref += x * y;
              mag += std::fabs(x * y);
            }
        double got = out[(size_t(oh) * OW + ow) * p.cout + co];
        worst = std::max(worst, std::fabs(got - ref) / (K * std::ldexp(1.0, -23) * mag + 1e-30));
      }
  CHECK(worst <= 1.0);
  CHECK(r.timing->macs == uint64_t(64) * 16 * K);
}

TEST_CASE("row softmax on the vector unit") {
  softmax_params p{16};
  std::vector<double> x = random_values(size_t(p.R) * 64, 31, -4, 4, NPU_F32);
  std::vector<HostBuffer> args = {HostBuffer::of(std::vector<float>(x.begin(), x.end())),
                                  HostBuffer(size_t(p.R) * 64 * 4), HostBuffer::of(std::vector<softmax_params>{p})};
  RunResult r = run_kernel(builtin_target("ascend-like"), k_softmax, std::move(args), Mode::Functional);
  REQUIRE_MESSAGE(r.ok, r.error);
  std::vector<float> y = r.args[1].as<float>();
  for (uint32_t row = 0; row < p.R; ++row) {
    double m = -1e30, s = 0;
    for (int j = 0; j < 64; ++j) m = std::max(m, x[row * 64 + j]);
    for (int j = 0; j < 64; ++j) s += std::exp(x[row * 64 + j] - m);
    for (int j = 0; j < 64; ++j) CHECK(y[row * 64 + j] == doctest::Approx(std::exp(x[row * 64 + j] - m) / s).epsilon(1e-5));
  }
}

TEST_CASE("layer norm on the vector unit") {
  layernorm_params p{8, 1e-5f};
  std::vector<double> x = random_values(size_t(p.R) * 64, 41, -3, 5, NPU_F32);
  std::vector<double> g = random_values(64, 42, 0.5, 1.5, NPU_F32), b = random_values(64, 43, -1, 1, NPU_F32);
  std::vector<HostBuffer> args = {HostBuffer::of(std::vector<float>(x.begin(), x.end())),
                                  HostBuffer::of(std::vector<float>(g.begin(), g.end())),
                                  HostBuffer::of(std::vector<float>(b.begin(), b.end())),
                                  HostBuffer(size_t(p.R) * 64 * 4), HostBuffer::of(std::vector<layernorm_params>{p})};
  RunResult r = run_kernel(builtin_target("lite"), k_layernorm, std::move(args), Mode::Timed);
  REQUIRE_MESSAGE(r.ok, r.error);
  std::vector<float> y = r.args[3].as<float>();
  for (uint32_t row = 0; row < p.R; ++row) {
    double mean = 0, var = 0;
    for (int j = 0; j < 64; ++j) mean += x[row * 64 + j] / 64;
    for (int j = 0; j < 64; ++j) var += (x[row * 64 + j] - mean) * (x[row * 64 + j] - mean) / 64;
    for (int j = 0; j < 64; ++j) {
      double ref = (x[row * 64 + j] - mean) / std::sqrt(var + p.eps) * g[j] + b[j];
      CHECK(y[row * 64 + j] == doctest::Approx(ref).epsilon(1e-4));
    }
  }
}

namespace {
RunResult run_eltwise(uint32_t use_sync, std::vector<double> &a, std::vector<double> &b, std::vector<double> &c) {
  eltwise_params p{1024, use_sync};
  a = random_values(p.n, 51, -2, 2, NPU_F16);
  b = random_values(p.n, 52, -2, 2, NPU_F16);
  c = random_values(p.n, 53, -2, 2, NPU_F16);
  std::vector<HostBuffer> args(6);
  args[0].bytes = encode(a, NPU_F16);
  args[1].bytes = encode(b, NPU_F16);
  args[2].bytes = encode(c, NPU_F16);
  args[3] = HostBuffer(p.n * 2);
  args[4] = HostBuffer(p.n * 2);
  args[5] = HostBuffer::of(std::vector<eltwise_params>{p});
  return run_kernel(builtin_target("tiny"), k_eltwise2, std::move(args), Mode::Timed);
}
}  // namespace

TEST_CASE("elementwise chain split across 2 cores, exchanging halves through GM after npu_sync_all") {
  std::vector<double> a, b, c;
  RunResult r = run_eltwise(1, a, b, c);
  REQUIRE_MESSAGE(r.ok, r.error);
  std::vector<double> y = decode(r.args[3].bytes, NPU_F16), z = decode(r.args[4].bytes, NPU_F16);
  using atl::DType;
  for (size_t i = 0; i < a.size(); ++i) {
    double t = atl::round_to(DType::F16, atl::round_to(DType::F16, a[i] * b[i]) + c[i]);
    double ref = atl::round_to(DType::F16, (t > 0 ? t : 0) * 0.5);
    CHECK(y[i] == ref);
  }
  for (size_t i = 0; i < a.size(); ++i) CHECK(z[i] == atl::round_to(DType::F16, y[(i + 512) % 1024] + 1));
  CHECK(count_kind(r, 0, SyncKind::SyncAll) == 1);
  CHECK(r.stats["busy_cycles"]["per_core"][1]["VEC"].get<uint64_t>() > 0);
}

TEST_CASE("without npu_sync_all the cross-core GM exchange is reported as a race") {
  std::vector<double> a, b, c;
  RunResult r = run_eltwise(0, a, b, c);
  CHECK(!r.ok);
  INFO(r.error);
  CHECK(r.error.find("race on GM bytes") != std::string::npos);
  CHECK(r.error.find("core 0") != std::string::npos);
  CHECK(r.error.find("core 1") != std::string::npos);
}

}  // TEST_SUITE
