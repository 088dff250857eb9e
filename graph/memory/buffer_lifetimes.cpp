// Lifetimes of arena buffers from the kernel call order, aliases and temporaries.
#include "graph/memory/buffer_lifetimes.h"

#include <algorithm>
#include <map>
#include <set>

namespace atl::memory {

std::string temporary_name(const std::string &kernel, const std::string &array) { return kernel + "/" + array; }

std::vector<Buffer> buffer_lifetimes(const std::vector<KernelUse> &kernels, const std::vector<TensorAlias> &aliases,
                                     const std::function<bool(const std::string &)> &external,
                                     const std::function<std::int64_t(const std::string &)> &base_bytes) {
  std::map<std::string, std::string> base_of;
  for (const TensorAlias &a : aliases) base_of[a.tensor] = a.base;
  auto base = [&](const std::string &t) {
    auto it = base_of.find(t);
    return it == base_of.end() ? t : it->second;
  };
  // A base is external when it, or any tensor living inside it, is.
  std::set<std::string> external_bases;
  for (const TensorAlias &a : aliases)
    if (external(a.tensor) || external(a.base)) external_bases.insert(a.base);

  std::map<std::string, Buffer> by_name;
  std::map<std::string, std::int64_t> direct_bytes;  // base -> largest argument naming it directly
  std::vector<Buffer> temporaries;
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    const int step = static_cast<int>(k);
    for (const KernelArg &arg : kernels[k].args) {
      if (arg.access == KernelArg::Access::Temporary || arg.tensor.empty()) {
        temporaries.push_back({temporary_name(kernels[k].name, arg.array), arg.bytes, step, step, true});
        continue;
      }
      std::string b = base(arg.tensor);
      if (external(b) || external_bases.count(b)) continue;
      if (b == arg.tensor) direct_bytes[b] = std::max(direct_bytes[b], arg.bytes);
      auto [it, fresh] = by_name.try_emplace(b);
      if (fresh) it->second = {b, 0, step, step, false};
      it->second.first = std::min(it->second.first, step);
      it->second.last = std::max(it->second.last, step);
    }
  }
  std::vector<Buffer> out;
  for (auto &[name, b] : by_name) {
    auto direct = direct_bytes.find(name);
    b.bytes = direct != direct_bytes.end() ? direct->second : base_bytes(name);
    out.push_back(b);
  }
  out.insert(out.end(), temporaries.begin(), temporaries.end());
  std::stable_sort(out.begin(), out.end(), [](const Buffer &a, const Buffer &b) {
    return a.first != b.first ? a.first < b.first : a.name < b.name;
  });
  return out;
}

std::int64_t bytes_moved(const std::vector<KernelUse> &kernels) {
  std::int64_t total = 0;
  for (const KernelUse &k : kernels)
    for (const KernelArg &a : k.args)
      if (a.access != KernelArg::Access::Temporary) total += a.bytes;
  return total;
}

}  // namespace atl::memory
