// Compares computed outputs with the reference: NaN/inf positions, normwise
// relative error against each output's dtype tolerance (cli.md, --verify).
#include "src/pipeline/pipeline.h"

#include <cmath>
#include <optional>
#include <sstream>

namespace atl {

namespace {

double tolerance(DType t) {
  switch (t) {
  case DType::F32:
  case DType::F64: return 1e-4;
  case DType::F16:
  case DType::BF16: return 1e-2;
  case DType::I8:
  case DType::I32:
  case DType::I64:
  case DType::U8:
  case DType::Bool: return 0.0;
  }
  return 0.0;
}

}  // namespace

std::map<std::string, DType> verify_precisions(const Graph &graph) {
  // Per tensor, the narrowest float dtype a node rounded it through
  // (nodes in topological order, so every input is known first).
  auto narrower = [](std::optional<DType> a, DType b) { return !a || b == DType::BF16 ? b : *a; };  // bf16: fewer bits
  std::map<std::string, DType> narrowed;
  for (NodeId v : graph.order()) {
    const Node &n = graph.node(v);
    std::optional<DType> low;
    for (const std::string &in : n.inputs)
      if (auto it = narrowed.find(in); it != narrowed.end()) low = narrower(low, it->second);
    for (const std::string &out : n.outputs) {
      const DType t = graph.tensor(out).type.dtype;
      const std::optional<DType> here = t == DType::F16 || t == DType::BF16 ? narrower(low, t) : low;
      if (here) narrowed[out] = *here;
    }
  }
  std::map<std::string, DType> result;
  for (const std::string &o : graph.outputs)
    if (auto it = narrowed.find(o); it != narrowed.end() && graph.tensor(o).type.dtype == DType::F32)
      result[o] = it->second;
  return result;
}

VerifyResult compare_outputs(const std::map<std::string, Tensor> &got, const std::map<std::string, Tensor> &ref,
                             const std::vector<std::string> &outputs, const std::map<std::string, DType> &precision) {
  VerifyResult r;
  r.passed = true;
  double global_abs = 0, global_ref = 0;
  for (const std::string &name : outputs) {
    auto fail = [&](const std::string &why) {
      if (r.passed) r.detail = "output '" + name + "': " + why;
      r.passed = false;
    };
    auto g = got.find(name);
    auto e = ref.find(name);
    if (g == got.end() || e == ref.end()) {
      fail("missing");
      continue;
    }
    const Tensor &a = g->second, &b = e->second;
    if (a.shape != b.shape) {
      fail("shape " + shape_to_string(a.shape) + " differs from the reference's " + shape_to_string(b.shape));
      continue;
    }
    double max_abs = 0, max_ref = 0;
    std::int64_t first_bad = -1;
    for (std::int64_t i = 0; i < a.numel(); ++i) {
      double x = a.get(i), y = b.get(i);
      bool xs = std::isfinite(x), ys = std::isfinite(y);
      if (!xs || !ys) {
        bool same = (std::isnan(x) && std::isnan(y)) || (std::isinf(x) && std::isinf(y) && (x > 0) == (y > 0));
        if (!same && first_bad < 0) first_bad = i;
        continue;
      }
      max_abs = std::max(max_abs, std::fabs(x - y));
      max_ref = std::max(max_ref, std::fabs(y));
    }
    if (first_bad >= 0) {
      std::ostringstream os;
      os << "non-finite values differ at element " << first_bad << " (" << a.get(first_bad) << " vs reference "
         << b.get(first_bad) << ")";
      fail(os.str());
    }
    double rel = max_ref > 0 ? max_abs / max_ref : (max_abs > 0 ? INFINITY : 0.0);
    const auto p = precision.find(name);
    const DType tol_type = p != precision.end() ? p->second : b.dtype;
    if (rel > tolerance(tol_type)) {
      std::ostringstream os;
      os << "max_rel_err " << rel << " exceeds " << tolerance(tol_type) << " for " << dtype_name(b.dtype);
      if (tol_type != b.dtype) os << " computed through " << dtype_name(tol_type);
      fail(os.str());
    }
    global_abs = std::max(global_abs, max_abs);
    global_ref = std::max(global_ref, max_ref);
  }
  r.max_abs_err = global_abs;
  r.max_rel_err = global_ref > 0 ? global_abs / global_ref : (global_abs > 0 ? INFINITY : 0.0);
  return r;
}

}  // namespace atl
