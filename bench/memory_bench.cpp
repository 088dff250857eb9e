// Memory-bound cases over [rows, 1024] f32 tensors of 4-64 MB: Add->Relu->Mul,
// Softmax and LayerNormalization, against a STREAM triad of the same array size.
// Rates count compulsory bytes only: each input read once, each output written once.
#include "bench/cases.h"

#include "bench/naive_kernels.h"
#include "bench/onednn_kernels.h"

namespace atl::bench {

namespace {

constexpr long kCols = 1024;
constexpr float kEps = 1e-5f;

/// Wraps a oneDNN factory into an Impl (setup errors become Impl::error).
template <class Make> Impl dnnl_impl(float *out, Make make) {
  Impl d{"onednn"};
  try {
    auto prim = std::shared_ptr<dnnl_cases::Run>(make());
    d.run = [prim] { prim->run(); };
    d.kernel = prim->kernel;
  } catch (const std::exception &e) {
    d.error = e.what();
  }
  d.out = out;
  return d;
}

CaseResult new_case(const std::string &name, long rows, int threads, double bytes) {
  CaseResult c;
  c.group = "memory";
  c.name = name;
  c.shape = "[" + std::to_string(rows) + ", " + std::to_string(kCols) + "] f32";
  c.threads = threads;
  c.work = bytes;
  c.unit = "GB/s";
  return c;
}

}  // namespace

std::vector<CaseResult> run_memory(const Config &config, int threads) {
  std::vector<CaseResult> out;
  std::vector<int> sizes_mb = config.quick ? std::vector<int>{16} : std::vector<int>{4, 16, 64};
  for (int mb : sizes_mb) {
    const std::string tag = "-" + std::to_string(mb) + "MB";
    const std::string chain = "mem/add-relu-mul" + tag, soft = "mem/softmax" + tag, ln = "mem/layernorm" + tag;
    if (!config.selected(chain) && !config.selected(soft) && !config.selected(ln) &&
        !config.selected("mem/triad" + tag))
      continue;
    const long rows = static_cast<long>(mb) * 1024 * 1024 / 4 / kCols;
    const std::size_t n = static_cast<std::size_t>(rows * kCols);
    const double fb = 4.0 * static_cast<double>(n);  // bytes of one tensor

    // The bandwidth reference at this array size.
    CaseResult triad = new_case("mem/triad" + tag, rows, threads, 3 * fb);
    {
      Buffer ta(n), tb(n), tc(n);
      fill_uniform(tb, 5);
      fill_uniform(tc, 6);
      Impl t{"triad"};
      t.run = [&] { naive::triad(ta.data(), tb.data(), tc.data(), 3.0f, static_cast<std::int64_t>(n), threads); };
      t.kernel = "a[i] = b[i] + s*c[i], 3 arrays of " + std::to_string(mb) + " MB (gcc -O3 -march=native)";
      std::vector<Impl> impls{t};
      triad.reference = "none";
      run_impls(config, triad, impls, 0);
    }
    const LibResult triad_lib = triad.libs.front();
    out.push_back(triad);

    Buffer a(n), b(n), cc(n), y_atoll(n), y_naive(n), y_dnnl(n), scale(kCols), bias(kCols);
    fill_uniform(a, 7);
    fill_uniform(b, 8);
    fill_uniform(cc, 9);
    fill_uniform(scale, 10, 0.5f, 1.5f);
    fill_uniform(bias, 11);
    auto two_d = [&](Graph &g, const std::string &t) { g.add_input(t, {DType::F32, {rows, kCols}}); };

    if (config.selected(chain)) {
      CaseResult c = new_case(chain, rows, threads, 4 * fb);
      std::vector<Impl> impls;
      impls.push_back(atoll_impl(
          "atoll", config,
          [&] {
            Graph g;
            g.name = "add_relu_mul";
            two_d(g, "a");
            two_d(g, "b");
            two_d(g, "c");
            g.add_node(make_node("Add", {"a", "b"}, {"t1"}));
            g.add_node(make_node("Relu", {"t1"}, {"t2"}));
            g.add_node(make_node("Mul", {"t2", "c"}, {"y"}));
            g.add_output("y");
            return g;
          },
          {{"a", a.data()}, {"b", b.data()}, {"c", cc.data()}, {"y", y_atoll.data()}}, "y"));
      Impl nv{"naive"};
      nv.run = [&] {
        naive::add_relu_mul(a.data(), b.data(), cc.data(), y_naive.data(), static_cast<std::int64_t>(n), threads);
      };
      nv.out = y_naive.data();
      nv.kernel = "one fused loop (gcc -O3 -march=native)";
      impls.push_back(nv);
      impls.push_back(dnnl_impl(y_dnnl.data(), [&] {
        return dnnl_cases::add_relu_mul(a.data(), b.data(), cc.data(), y_dnnl.data(), rows, kCols);
      }));
      run_impls(config, c, impls, n);
      c.libs.push_back(triad_lib);
      out.push_back(std::move(c));
    }
    if (config.selected(soft)) {
      CaseResult c = new_case(soft, rows, threads, 2 * fb);
      std::vector<Impl> impls;
      impls.push_back(atoll_impl(
          "atoll", config,
          [&] {
            Graph g;
            g.name = "softmax";
            two_d(g, "x");
            g.add_node(make_node("Softmax", {"x"}, {"y"}, {{"axis", -1}}));
            g.add_output("y");
            return g;
          },
          {{"x", a.data()}, {"y", y_atoll.data()}}, "y"));
      Impl nv{"naive"};
      nv.run = [&] { naive::softmax(a.data(), y_naive.data(), rows, kCols, threads); };
      nv.out = y_naive.data();
      nv.kernel = "per row: max, exp+sum, divide (gcc -O3 -march=native)";
      impls.push_back(nv);
      impls.push_back(dnnl_impl(y_dnnl.data(), [&] { return dnnl_cases::softmax(a.data(), y_dnnl.data(), rows, kCols); }));
      run_impls(config, c, impls, n);
      c.libs.push_back(triad_lib);
      out.push_back(std::move(c));
    }
    if (config.selected(ln)) {
      CaseResult c = new_case(ln, rows, threads, 2 * fb + 2.0 * 4 * kCols);
      std::vector<Impl> impls;
      impls.push_back(atoll_impl(
          "atoll", config,
          [&] {
            Graph g;
            g.name = "layernorm";
            two_d(g, "x");
            g.add_input("scale", {DType::F32, {kCols}});
            g.add_input("bias", {DType::F32, {kCols}});
            g.add_node(make_node("LayerNormalization", {"x", "scale", "bias"}, {"y"}, {{"axis", -1}, {"epsilon", kEps}}));
            g.add_output("y");
            return g;
          },
          {{"x", a.data()}, {"scale", scale.data()}, {"bias", bias.data()}, {"y", y_atoll.data()}}, "y"));
      Impl nv{"naive"};
      nv.run = [&] { naive::layernorm(a.data(), scale.data(), bias.data(), y_naive.data(), rows, kCols, kEps, threads); };
      nv.out = y_naive.data();
      nv.kernel = "per row: mean, variance, normalize (gcc -O3 -march=native)";
      impls.push_back(nv);
      impls.push_back(dnnl_impl(y_dnnl.data(), [&] {
        return dnnl_cases::layernorm(a.data(), scale.data(), bias.data(), y_dnnl.data(), rows, kCols, kEps);
      }));
      run_impls(config, c, impls, n);
      c.libs.push_back(triad_lib);
      out.push_back(std::move(c));
    }
  }
  return out;
}

}  // namespace atl::bench
