// Runs the implementations of one benchmark case side by side: interleaved
// timing rounds, then each result checked against the reference.
#pragma once

#include "bench/report.h"

#include "graph/ir/graph.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace atl::bench {

/// Settings of a benchmark run (main.cpp parses them).
struct Config {
  bool quick = false;
  std::vector<std::string> filters;  ///< substrings of case names; empty = all
  MeasureOptions measure;            ///< per round
  int rounds = 3;                    ///< timing rounds, libraries interleaved
  int compile_reps = 3;              ///< Atoll compiles per case (compile time median)
  double settle_s = 0.01;            ///< pause before each library's timing
  double impl_budget_s = 4;          ///< no further round for a library that used this much
  bool verbose = true;               ///< progress on stderr
  bool selected(const std::string &name) const;
};

/// One implementation of a case.
struct Impl {
  std::string lib;
  std::function<void()> run;     ///< the timed call
  std::function<void()> finish;  ///< untimed, before the check (layout conversion)
  const float *out = nullptr;    ///< its result, checked after finish
  std::string kernel;
  std::string unavailable;       ///< non-empty: n/a, with why
  std::string error;             ///< non-empty: setup failed
  std::vector<double> compile_ms;
  int kernels = 0;
};

/// Times every implementation that exists (rounds interleaved, a pause before
/// each), checks `out` of each against the one named c.reference over
/// `out_count` floats, and fills c.libs (rates = c.work / median).
void run_impls(const Config &config, CaseResult &c, std::vector<Impl> &impls, std::size_t out_count);

/// An Atoll implementation: builds and compiles the graph (compile errors
/// become Impl::error), binds the named tensors, result in `out`'s buffer.
Impl atoll_impl(const std::string &lib, const Config &config, const std::function<Graph()> &build,
                const std::map<std::string, float *> &bind, const std::string &out_tensor);

/// The thread count every library uses from now on (Atoll's pool, OpenBLAS, OpenMP for oneDNN and naive).
void set_threads(int n);

/// Node helper: op, inputs, outputs, attributes.
Node make_node(const std::string &op, std::vector<std::string> inputs, std::vector<std::string> outputs,
               nlohmann::json attrs = nlohmann::json::object());

}  // namespace atl::bench
