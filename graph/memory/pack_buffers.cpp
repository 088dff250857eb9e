// Greedy interval packing of buffers into one arena under several orders.
#include "graph/memory/pack_buffers.h"

#include <atoll/diagnostics.h>

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>
#include <tuple>

namespace atl::memory {

namespace {

bool overlap_in_time(const Buffer &a, const Buffer &b) { return a.first <= b.last && b.first <= a.last; }

std::int64_t lifetime(const Buffer &b) { return b.last - b.first + 1; }

/// The order in which a heuristic places the buffers (indices).
std::vector<std::size_t> placement_order(const std::vector<Buffer> &buffers, PackHeuristic h) {
  std::vector<std::size_t> order(buffers.size());
  std::iota(order.begin(), order.end(), 0);
  auto key = [&](std::size_t i) {
    const Buffer &b = buffers[i];
    std::int64_t size = aligned_size(b.bytes);
    switch (h) {
    case PackHeuristic::SizeFirstFit:
    case PackHeuristic::SizeBestFit: return std::make_tuple(-size, static_cast<std::int64_t>(b.first), std::int64_t{0});
    case PackHeuristic::StartFirstFit: return std::make_tuple(static_cast<std::int64_t>(b.first), -size, std::int64_t{0});
    case PackHeuristic::LifetimeBestFit: return std::make_tuple(-lifetime(b), -size, static_cast<std::int64_t>(b.first));
    case PackHeuristic::AreaFirstFit: return std::make_tuple(-size * lifetime(b), static_cast<std::int64_t>(b.first), std::int64_t{0});
    }
    return std::make_tuple(std::int64_t{0}, std::int64_t{0}, std::int64_t{0});
  };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return key(a) < key(b); });
  return order;
}

bool best_fit(PackHeuristic h) { return h == PackHeuristic::SizeBestFit || h == PackHeuristic::LifetimeBestFit; }

}  // namespace

std::int64_t aligned_size(std::int64_t bytes) {
  return (std::max<std::int64_t>(bytes, 0) + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment;
}

const std::vector<PackHeuristic> &all_heuristics() {
  static const std::vector<PackHeuristic> all = {PackHeuristic::SizeFirstFit, PackHeuristic::SizeBestFit,
                                                 PackHeuristic::StartFirstFit, PackHeuristic::LifetimeBestFit,
                                                 PackHeuristic::AreaFirstFit};
  return all;
}

std::string heuristic_name(PackHeuristic h) {
  switch (h) {
  case PackHeuristic::SizeFirstFit: return "size-first-fit";
  case PackHeuristic::SizeBestFit: return "size-best-fit";
  case PackHeuristic::StartFirstFit: return "start-first-fit";
  case PackHeuristic::LifetimeBestFit: return "lifetime-best-fit";
  case PackHeuristic::AreaFirstFit: return "area-first-fit";
  }
  return "?";
}

ArenaLayout pack_buffers(const std::vector<Buffer> &buffers, PackHeuristic heuristic) {
  ArenaLayout out;
  out.heuristic = heuristic_name(heuristic);
  out.offsets.assign(buffers.size(), 0);
  std::vector<std::size_t> placed;
  for (std::size_t i : placement_order(buffers, heuristic)) {
    const std::int64_t size = aligned_size(buffers[i].bytes);
    // Buffers already placed that are live at the same time, by offset.
    std::vector<std::pair<std::int64_t, std::int64_t>> busy;  // [begin, end)
    for (std::size_t j : placed)
      if (overlap_in_time(buffers[i], buffers[j])) busy.emplace_back(out.offsets[j], out.offsets[j] + aligned_size(buffers[j].bytes));
    std::sort(busy.begin(), busy.end());
    std::int64_t cursor = 0, chosen = -1, chosen_gap = std::numeric_limits<std::int64_t>::max();
    for (const auto &[begin, end] : busy) {
      std::int64_t gap = begin - cursor;
      if (gap >= size && (chosen < 0 || (best_fit(heuristic) && gap < chosen_gap))) {
        chosen = cursor;
        chosen_gap = gap;
        if (!best_fit(heuristic)) break;
      }
      cursor = std::max(cursor, end);
    }
    if (chosen < 0) chosen = cursor;
    out.offsets[i] = chosen;
    out.peak_bytes = std::max(out.peak_bytes, chosen + size);
    placed.push_back(i);
  }
  return out;
}

ArenaLayout pack_best(const std::vector<Buffer> &buffers) {
  ArenaLayout best;
  bool have = false;
  for (PackHeuristic h : all_heuristics()) {
    ArenaLayout l = pack_buffers(buffers, h);
    if (!have || l.peak_bytes < best.peak_bytes) {
      best = std::move(l);
      have = true;
    }
  }
  return best;
}

std::int64_t live_bytes_bound(const std::vector<Buffer> &buffers) {
  std::map<int, std::int64_t> live;
  for (const Buffer &b : buffers)
    for (int k = b.first; k <= b.last; ++k) live[k] += aligned_size(b.bytes);
  std::int64_t best = 0;
  for (const auto &[k, bytes] : live) best = std::max(best, bytes);
  return best;
}

}  // namespace atl::memory
