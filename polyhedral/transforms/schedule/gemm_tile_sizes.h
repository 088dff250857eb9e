// The cost model's sizes for the GEMM-shaped statement of a cluster on the
// CPU: the roles of its dimensions (rows, vector columns, column blocks,
// reductions), the register tile (rows x vector columns) that fits the
// register file, and the cache tiles whose isl footprints fit L1, L2 and L3.
// tile_for_cpu builds the schedule tree from these sizes.
#pragma once

#include "polyhedral/scop/scop.h"
#include "polyhedral/transforms/schedule/tile_for_cpu.h"

#include <optional>
#include <string>
#include <vector>

namespace atl::poly::gemm {

/// The dimensions' roles in the micro-kernel.
struct Roles {
  int v = -1, r = -1;         ///< vector (stride-1 output) and row dimensions
  int u = -1;                 ///< column-block dimension (blocked layouts), or -1
  std::vector<int> others;    ///< other parallel dimensions, domain order
  std::vector<int> reductions;
  int red0 = -1;              ///< the reduction dimension tiled for L1
};

/// The roles of `s`'s dimensions, or nothing (and `why`) when it is not
/// GEMM-shaped.
std::optional<Roles> roles_of(const ScopStatement &s, std::string &why);

/// The register tile: `mr` rows, `nr` vector columns (whole vectors), `nu`
/// column blocks of a blocked layout (1: none).
struct RegisterTile {
  long mr = 1, nr = 1, nu = 1;
};

/// The register tile of `s` (extents `ext`, -1 where symbolic) for the
/// target and the `unroll` hint of `o`. Drops the column-block role into
/// `roles.others` where the vector dimension is not one or two whole vectors.
RegisterTile choose_register_tile(const ScopStatement &s, Roles &roles, const std::vector<long> &ext,
                                  const CpuTileOptions &o);

/// The cache tile size of every dimension of `s` (0: not tiled): the `tile`
/// hint's sizes when given, else the cost model's from footprints.
std::vector<long> choose_cache_tiles(const Scop &scop, const ScopStatement &s, const Roles &roles,
                                     const std::vector<long> &ext, const RegisterTile &tile, const CpuTileOptions &o);

}  // namespace atl::poly::gemm
