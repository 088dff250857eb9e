// Offsets of buffers in one arena: interval packing, best of several heuristics.
#pragma once

#include "graph/memory/buffer_lifetimes.h"

#include <cstdint>
#include <string>
#include <vector>

namespace atl::memory {

/// Every buffer starts at a multiple of this many bytes.
constexpr std::int64_t kArenaAlignment = 64;

/// An order in which buffers are placed, and how a gap is chosen: each
/// buffer goes into a gap between the buffers already placed whose
/// lifetimes overlap its own (first fit: the lowest gap that fits; best
/// fit: the smallest), or above them all.
enum class PackHeuristic {
  SizeFirstFit,      ///< largest first (ties: earlier start), first fit
  SizeBestFit,       ///< largest first, best fit
  StartFirstFit,     ///< earliest start first (ties: larger), first fit
  LifetimeBestFit,   ///< longest lifetime first (ties: larger), best fit
  AreaFirstFit,      ///< largest bytes x lifetime first, first fit
};

/// Every heuristic, in the order pack_best tries them.
const std::vector<PackHeuristic> &all_heuristics();
/// A short name ("size-first-fit", ...).
std::string heuristic_name(PackHeuristic h);

/// Offsets of `buffers` (same order) and the arena size.
struct ArenaLayout {
  std::vector<std::int64_t> offsets;
  std::int64_t peak_bytes = 0;  ///< arena size: the highest buffer end, aligned
  std::string heuristic;        ///< which heuristic made it
};

/// Places the buffers with one heuristic.
ArenaLayout pack_buffers(const std::vector<Buffer> &buffers, PackHeuristic heuristic);

/// Tries every heuristic and keeps the smallest arena (the first on ties).
ArenaLayout pack_best(const std::vector<Buffer> &buffers);

/// A lower bound of any layout: the most bytes (aligned) live at one kernel.
std::int64_t live_bytes_bound(const std::vector<Buffer> &buffers);

/// A buffer's size rounded up to kArenaAlignment.
std::int64_t aligned_size(std::int64_t bytes);

}  // namespace atl::memory
