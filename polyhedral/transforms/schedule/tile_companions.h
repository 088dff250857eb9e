// Statements that can run inside the tiles of a tiled main statement: its
// init before it and its elementwise epilogue after it, each instance
// placed in the one tile that produces (or initialises) what it touches.
//
// For C[m, n] += A[m, k] * B[k, n] tiled as [floor(m / 6), floor(n / 64)]
// and its epilogue Y[m, n] = max(C[m, n] + bias[n], 0):
//
//   tile_of(Y) = { Y[m, n] -> [floor(m / 6), floor(n / 64)] }
//
// (Y reads C[m, n], written by every C[m, n, k] of one tile), so Y can run
// in that tile right after its k loop, while C's tile is still in cache.
#pragma once

#include "polyhedral/scop/scop.h"

#include <isl/cpp.h>

#include <optional>
#include <string>
#include <vector>

namespace atl::poly::tiling {

class TileCompanions {
public:
  /// `main_tile`: the tile coordinates of `main`'s instances, outermost
  /// first; they may use only its non-reduction dimensions.
  TileCompanions(const Scop &scop, const ScopStatement &main, std::vector<isl::union_pw_aff> main_tile);

  /// The first `levels` tile coordinates of `t` when every instance of `t`
  /// touches data of exactly one such tile: `main`'s init (it writes what
  /// main accumulates), or a non-reduction statement each of whose reads of
  /// arrays written by main or by an added statement maps into one tile,
  /// with at least one such read. nullopt otherwise.
  std::optional<isl::multi_union_pw_aff> tile_of(const ScopStatement &t, std::size_t levels) const;

  /// True when `t` reads every array that main or an added statement
  /// writes at exactly the element it writes itself (bias, activation,
  /// BatchNormalization in main's layout; not a layout conversion).
  bool same_element(const ScopStatement &t) const;

  /// Records that `t` (with tile_of(t)) runs in the tiles, so that
  /// statements reading its results can follow it.
  void add(const ScopStatement &t);

  /// True when `later` (run after `earlier` in a tile) may share its loops
  /// with `earlier` point by point: both have the same number of dimensions
  /// and whatever `later` reads of `earlier`'s results it reads at its own
  /// point (bias -> activation), so one loop nest can run both.
  static bool pointwise(const ScopStatement &earlier, const ScopStatement &later);

  /// `statements` (run one after another in a tile) cut into runs that can
  /// share loops: each statement pointwise after every earlier one of its run.
  static std::vector<std::vector<const ScopStatement *>> runs(const std::vector<const ScopStatement *> &statements);

private:
  /// { t[...] -> main[...] }: the main instances an instance of `t` depends on.
  std::optional<isl::union_map> sources(const ScopStatement &t) const;

  const Scop &scop_;
  const ScopStatement &main_;
  std::vector<isl::union_pw_aff> main_tile_;  ///< main's tile coordinates
  std::vector<std::pair<const ScopStatement *, isl::union_map>> placed_;  ///< statement, its sources
};

}  // namespace atl::poly::tiling
