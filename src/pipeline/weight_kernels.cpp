// Finds the kernels that read only weights (the weight phase): they run once per weight binding, not per call.
#include "src/pipeline/compile_graph.h"

#include <algorithm>

namespace atl {

WeightPhase weight_phase(const CompiledGraph &compiled, const Graph &concrete,
                         const std::map<std::string, std::int64_t> &params) {
  return weight_phase_of(compiled, concrete, kernel_uses(compiled, params));
}

WeightPhase weight_phase_of(const CompiledGraph &compiled, const Graph &concrete,
                            const std::vector<memory::KernelUse> &uses) {
  WeightPhase w;
  w.kernel.assign(compiled.clusters.size(), false);
  std::map<std::string, std::string> base_of;
  for (const memory::TensorAlias &a : compiled.aliases) base_of[a.tensor] = a.base;
  auto base = [&](const std::string &t) {
    auto it = base_of.find(t);
    return it == base_of.end() ? t : it->second;
  };
  auto listed = [](const std::vector<std::string> &v, const std::string &t) {
    return std::find(v.begin(), v.end(), t) != v.end();
  };
  // Bases that a graph output or input lives in, directly or as a view.
  std::set<std::string> caller_owned;
  for (const std::string &t : concrete.outputs) caller_owned.insert(base(t));
  for (const std::string &t : concrete.inputs) caller_owned.insert(base(t));
  auto constant = [&](const std::string &t) {
    const std::string b = base(t);
    return listed(concrete.weights, b) || compiled.constants.count(b) > 0 || w.tensors.count(b) > 0;
  };
  for (std::size_t k = 0; k < uses.size(); ++k) {
    bool reads_only_weights = true, writes = false, writes_caller = false;
    for (const memory::KernelArg &a : uses[k].args) {
      if (a.access == memory::KernelArg::Access::Read) reads_only_weights &= constant(a.tensor);
      if (a.access == memory::KernelArg::Access::Write) {
        writes = true;
        writes_caller |= caller_owned.count(base(a.tensor)) > 0 || listed(concrete.weights, base(a.tensor));
      }
    }
    // Arrays of symbolic size are bound per call: such kernels stay in the
    // call phase (a kernel of a symbolic graph may take the graph's
    // parameters without using them).
    bool concrete_sizes = true;
    for (const poly::LArray &a : compiled.clusters[k].kernel.arrays)
      for (const Dim &d : a.shape) concrete_sizes &= !d.is_symbolic();
    if (!reads_only_weights || !writes || writes_caller || !concrete_sizes) continue;
    w.kernel[k] = true;
    for (const memory::KernelArg &a : uses[k].args)
      if (a.access == memory::KernelArg::Access::Write) w.tensors.emplace(base(a.tensor), a.bytes);
  }
  return w;
}

}  // namespace atl
