// Plans one arena for a kernel sequence and answers where each tensor lives.
#include "graph/memory/plan_arena.h"

#include "graph/memory/check_arena.h"

#include <atoll/diagnostics.h>

namespace atl::memory {

std::optional<std::int64_t> MemoryPlan::offset_of(const std::string &tensor) const {
  std::string base = tensor;
  std::int64_t extra = 0;
  if (auto a = alias_of.find(tensor); a != alias_of.end()) {
    base = a->second.base;
    extra = a->second.byte_offset;
  }
  auto it = index.find(base);
  if (it == index.end() || buffers[it->second].temporary) return std::nullopt;
  return layout.offsets[it->second] + extra;
}

std::optional<std::int64_t> MemoryPlan::temporary_offset(const std::string &kernel, const std::string &array) const {
  auto it = index.find(temporary_name(kernel, array));
  if (it == index.end() || !buffers[it->second].temporary) return std::nullopt;
  return layout.offsets[it->second];
}

MemoryPlan plan_arena(const std::vector<KernelUse> &kernels, const std::vector<TensorAlias> &aliases,
                      const std::function<bool(const std::string &)> &external,
                      const std::function<std::int64_t(const std::string &)> &base_bytes) {
  MemoryPlan plan;
  for (const TensorAlias &a : aliases) plan.alias_of[a.tensor] = a;
  plan.buffers = buffer_lifetimes(kernels, aliases, external, base_bytes);
  plan.layout = pack_best(plan.buffers);
  for (std::size_t i = 0; i < plan.buffers.size(); ++i) {
    plan.index[plan.buffers[i].name] = i;
    plan.intermediates_bytes += plan.buffers[i].bytes;
  }
  plan.bytes_moved = bytes_moved(kernels);
  std::vector<std::string> problems = check_arena(plan.buffers, plan.layout);
  ATOLL_ASSERT(problems.empty(), "invalid arena layout: " + (problems.empty() ? std::string() : problems.front()));
  return plan;
}

}  // namespace atl::memory
