// Tiles permutable bands of a schedule tree (multi-level), keeping the
// coincidence and permutable flags, AST loop types and isolate options;
// plus band positions and band replacement shared by the band
// transformations.
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
//
// Every other node of the tree stays as it was (marks, filters, sequences,
// other bands with their options). AST loop types follow their members: the
// point band keeps the band's, the tile band gets those of its (tiled)
// members. An isolate option moves to the point band, its outer tuple
// extended with the tile loops (the tile band is then floor(i / s) and the
// point band i, whatever isl's tile options say).
#pragma once

#include "polyhedral/isl/isl_context.h"

#include <isl/cpp.h>

#include <optional>
#include <string>

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
/// options.levels. Non-permutable bands of several members, and bands above
/// an anchored subtree (see replace_band), are left alone.
isl::schedule tile_bands(isl::schedule schedule, const TileOptions &options);

/// Tiles only the band at `position` (pre-order index among band nodes, see
/// collect_bands) with `sizes` (one level). Throws atl::UserError when there
/// is no such band, when the band has several members and is not
/// permutable, when a size is negative, or when its subtree is anchored
/// (see replace_band). The tile band stays at `position`; the point band
/// follows it at position + 1 (when at least one member was tiled).
isl::schedule tile_band_at(isl::schedule schedule, int position, const std::vector<long> &sizes);

// ---- Band positions (shared by the band transformations) ----

/// The band nodes of a schedule in pre-order (outer before inner, earlier
/// children before later ones). A band's position is its index here.
std::vector<isl::schedule_node_band> collect_bands(const isl::schedule &schedule);

/// The extent (number of values) of band member `member` over the band's
/// instances, or -1 when it is not bounded by a constant (symbolic sizes).
long member_extent(const isl::schedule_node_band &band, int member);

/// What replaces a band: its partial schedule, flags and AST options.
struct BandSpec {
  isl::multi_union_pw_aff schedule;
  bool permutable = false;
  std::vector<bool> coincident;                 ///< one per member
  std::vector<AstLoopType> loop_types;          ///< one per member; empty = isl's default
  std::vector<AstLoopType> isolate_loop_types;  ///< the same inside the isolated part
  std::optional<isl::set> isolate;  ///< the isolate option isolate[[outer] -> [members]]
};

/// Everything of `band` as a BandSpec: partial schedule, permutable and
/// coincident flags, AST loop types and the isolate option.
BandSpec band_spec(const isl::schedule_node_band &band);

/// The isolate option `isolate` (isolate[[o0, ...] -> [b0, ...]]) rewritten
/// for a band at another place: the new outer tuple is `outer` and the new
/// member tuple `members`, each an isl expression over the old names o0..
/// and b0.. (e.g. outer {"o0", "floor(b1/8)"}, members {"b1", "b0"}).
isl::set move_isolate(const isl::set &isolate, const std::vector<std::string> &outer,
                      const std::vector<std::string> &members);

/// The schedule with the band at `position` replaced by `bands` (outermost
/// first, each the parent of the next; the old band's subtree goes under
/// the last; an empty list deletes the band). Every other node stays as it
/// is, marks included. Throws atl::UserError when the band's subtree is
/// anchored (a band with an isolate option or an extension or context node
/// below it): isl cannot insert or delete bands above such a subtree.
isl::schedule replace_band(const isl::schedule &schedule, int position, const std::vector<BandSpec> &bands);

}  // namespace atl::poly
