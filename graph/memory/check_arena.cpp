// Validates arena layouts (used by the tests and by plan_arena's assertion).
#include "graph/memory/check_arena.h"

namespace atl::memory {

std::vector<std::string> check_arena(const std::vector<Buffer> &buffers, const ArenaLayout &layout) {
  std::vector<std::string> problems;
  if (layout.offsets.size() != buffers.size()) {
    problems.push_back(std::to_string(layout.offsets.size()) + " offsets for " + std::to_string(buffers.size()) +
                       " buffers");
    return problems;
  }
  auto where = [&](std::size_t i) {
    return "'" + buffers[i].name + "' [" + std::to_string(layout.offsets[i]) + ", " +
           std::to_string(layout.offsets[i] + buffers[i].bytes) + ") live " + std::to_string(buffers[i].first) + ".." +
           std::to_string(buffers[i].last);
  };
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    std::int64_t off = layout.offsets[i];
    if (off < 0 || off % kArenaAlignment != 0) problems.push_back(where(i) + ": offset not aligned to 64 bytes");
    if (off + buffers[i].bytes > layout.peak_bytes)
      problems.push_back(where(i) + ": ends past the arena (" + std::to_string(layout.peak_bytes) + " bytes)");
    for (std::size_t j = i + 1; j < buffers.size(); ++j) {
      const Buffer &a = buffers[i], &b = buffers[j];
      bool in_time = a.first <= b.last && b.first <= a.last;
      bool in_space = a.bytes > 0 && b.bytes > 0 && off < layout.offsets[j] + b.bytes && layout.offsets[j] < off + a.bytes;
      if (in_time && in_space) problems.push_back(where(i) + " overlaps " + where(j));
    }
  }
  return problems;
}

}  // namespace atl::memory
