// What a GEMM tiling leaves for the schedule passes after it: the statement
// it tiled, its cache tile and its register tile. tile_for_cpu records it in
// the cluster state (ClusterState::gemm_tiles, saved and rolled back with the
// tree); pack_tiles reads it to size the panels it copies, without knowing
// the tiling pass.
#pragma once

#include <string>
#include <vector>

namespace atl::poly {

struct GemmTiling {
  std::string statement;          ///< the tiled main statement ("" = none)
  std::vector<long> cache_sizes;  ///< per domain dimension (0 = untiled)
  long mr = 1, nr = 1;            ///< register tile: rows x columns (all vectors of all column blocks)
  long nu = 1;                    ///< column blocks of a blocked layout (nr = nu x the vector dimension)
};

}  // namespace atl::poly
