// Tiles permutable bands of a schedule tree (multi-level), keeping the
// coincidence and permutable flags; plus band positions shared by the
// band transformations.
//
// Before (a permutable band of two members, sizes {32, 8}):
//
//   band [permutable, coincident: 1 1] { S[i, j] -> [(i), (j)] }
//     leaf
//
// After:
//
//   band [permutable, coincident: 1 1] { S[i, j] -> [(32 * floor(i / 32)), (8 * floor(j / 8))] }   // tile loops
//     band [permutable, coincident: 1 1] { S[i, j] -> [(i - 32 * floor(i / 32)), (j - 8 * floor(j / 8))] }  // point loops
//       leaf
//
// (the exact tile and point expressions follow isl's tile options). A
// member with size 0 or a size >= its extent is not tiled: it gets no tile
// loop and stays in the point band.
#pragma once

#include <isl/cpp.h>

#include <vector>

namespace atl::poly {

/// Tile sizes. `levels[l]` holds the sizes of level l (outermost first: e.g.
/// cache tiles, then register tiles), one per band member from the
/// outermost; a list shorter than the band repeats its last entry. A size of
/// 0 or one >= the member's extent leaves that member untiled at that
/// level. Level l+1 tiles the point band of level l.
struct TileOptions {
  std::vector<std::vector<long>> levels = {{32}};
};

/// Tiles every band that is permutable (or has a single member) with
/// options.levels. Non-permutable bands of several members are left alone.
isl::schedule tile_bands(isl::schedule schedule, const TileOptions &options);

/// Tiles only the band at `position` (pre-order index among band nodes, see
/// band_at) with `sizes` (one level). Throws atl::UserError when there is
/// no such band, when the band has several members and is not permutable,
/// or when a size is negative. The tile band stays at `position`; the point
/// band follows it at position + 1 (when at least one member was tiled).
isl::schedule tile_band_at(isl::schedule schedule, int position, const std::vector<long> &sizes);

// ---- Band positions (shared by the band transformations) ----

/// The band nodes of a schedule in pre-order (outer before inner, earlier
/// children before later ones). A band's position is its index here.
std::vector<isl::schedule_node_band> collect_bands(const isl::schedule &schedule);

/// The extent (number of values) of band member `member` over the band's
/// instances, or -1 when it is not bounded by a constant (symbolic sizes).
long member_extent(const isl::schedule_node_band &band, int member);

/// What replaces a band: its partial schedule and flags.
struct BandSpec {
  isl::multi_union_pw_aff schedule;
  bool permutable = false;
  std::vector<bool> coincident;  ///< one per member
};

/// The schedule rebuilt with the band at `position` replaced by `bands`
/// (outermost first, each the parent of the next; the old band's subtree
/// goes under the last). Every other node is copied (band AST loop types
/// are not: isl's C++ interface cannot read them). Throws atl::UserError
/// for mark, extension or expansion nodes (mark ids cannot be read either).
isl::schedule replace_band(const isl::schedule &schedule, int position, const std::vector<BandSpec> &bands);

}  // namespace atl::poly
