// Side-by-side timing of one case's implementations and the correctness check.
#include "bench/case_runner.h"

#include "backends/cpu/cpu_backend.h"
#include "bench/atoll_runner.h"

#include <cblas.h>
#include <omp.h>

#include <chrono>
#include <cmath>
#include <iostream>
#include <memory>

namespace atl::bench {

bool Config::selected(const std::string &name) const {
  if (filters.empty()) return true;
  for (const std::string &f : filters)
    if (name.find(f) != std::string::npos) return true;
  return false;
}

void set_threads(int n) {
  cpu::set_cpu_threads(n);
  openblas_set_num_threads(n);
  omp_set_num_threads(n);
}

Node make_node(const std::string &op, std::vector<std::string> inputs, std::vector<std::string> outputs,
               nlohmann::json attrs) {
  Node n;
  n.op = op;
  n.inputs = std::move(inputs);
  n.outputs = std::move(outputs);
  n.attrs = std::move(attrs);
  return n;
}

Impl atoll_impl(const std::string &lib, const Config &config, const std::function<Graph()> &build,
                const std::map<std::string, float *> &bind, const std::string &out_tensor) {
  Impl impl;
  impl.lib = lib;
  try {
    Graph g = build();
    g.finalize();
    auto runner = std::make_shared<AtollRunner>(g, config.compile_reps);
    for (const auto &[tensor, data] : bind) runner->bind(tensor, data);
    runner->prepare();
    impl.run = [runner] { runner->run(); };
    impl.out = bind.at(out_tensor);
    impl.kernel = runner->description();
    impl.compile_ms = runner->compile_ms();
    impl.kernels = runner->kernels();
  } catch (const std::exception &e) {
    impl.error = std::string("compile: ") + e.what();
    auto nl = impl.error.find('\n');
    if (nl != std::string::npos) impl.error.resize(nl);
  }
  return impl;
}

void run_impls(const Config &config, CaseResult &c, std::vector<Impl> &impls, std::size_t out_count) {
  std::vector<Timing> timings(impls.size());
  std::vector<double> spent(impls.size(), 0);
  for (int round = 0; round < config.rounds; ++round)
    for (std::size_t i = 0; i < impls.size(); ++i) {
      Impl &impl = impls[i];
      if (!impl.unavailable.empty() || !impl.error.empty()) continue;
      if (round > 0 && spent[i] >= config.impl_budget_s) continue;
      if (config.verbose)
        std::cerr << "  [" << c.name << " t" << c.threads << "] " << impl.lib << " round " << round + 1 << "\r"
                  << std::flush;
      settle(config.settle_s);
      auto t0 = std::chrono::steady_clock::now();
      try {
        measure(impl.run, config.measure, timings[i]);
      } catch (const std::exception &e) {
        impl.error = std::string("run: ") + e.what();
      }
      spent[i] += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
  if (config.verbose) std::cerr << std::string(70, ' ') << "\r" << std::flush;
  const float *ref = nullptr;
  for (Impl &impl : impls)
    if (impl.lib == c.reference && impl.unavailable.empty() && impl.error.empty()) {
      if (impl.finish) impl.finish();
      ref = impl.out;
    }
  for (std::size_t i = 0; i < impls.size(); ++i) {
    Impl &impl = impls[i];
    LibResult r;
    r.lib = impl.lib;
    r.unavailable = impl.unavailable;
    r.error = impl.error;
    r.kernel = impl.kernel;
    r.compile_ms = impl.compile_ms;
    r.kernels = impl.kernels;
    if (r.ran()) {
      r.timing = timings[i];
      r.rate = r.timing.median > 0 ? c.work / (r.timing.median * 1e-3) / 1e9 : 0;
      if (impl.lib != c.reference) {
        if (impl.finish) impl.finish();
        if (impl.out && !ref) {
          r.error = "no reference result to check against";
        } else if (impl.out) {
          r.max_rel_err = max_rel_err(impl.out, ref, out_count);
          r.ok = r.max_rel_err <= kTolerance;
        }
      }
    }
    c.libs.push_back(std::move(r));
  }
}

}  // namespace atl::bench
