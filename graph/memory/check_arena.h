// Checks an arena layout: no two buffers live at the same time share bytes.
#pragma once

#include "graph/memory/pack_buffers.h"

#include <string>
#include <vector>

namespace atl::memory {

/// Every problem of `layout` for `buffers` (empty when it is valid): an
/// offset that is negative or not aligned, a buffer past the arena's end,
/// two buffers whose lifetimes and byte ranges both overlap.
std::vector<std::string> check_arena(const std::vector<Buffer> &buffers, const ArenaLayout &layout);

}  // namespace atl::memory
