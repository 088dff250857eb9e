// The tuning knobs of a cluster: the options of the CPU table's passes that
// a search may set (the scheduler, band fusion, the cache and register tiles
// of tile_for_cpu, the window tiles' rows, packing, vectors, unrolling), with
// their typed domains and the cost model's defaults.
//
// A point of the space is a complete assignment: every knob of the cluster's
// space with a value. A point is keyed by the cluster's canonical SCoP
// (scop_key: statements and arrays renamed by position, symbolic parameters
// kept), so a tuned point applies to any cluster that is the same
// computation under other names, in another graph or batch. The pass
// apply_tuning (scop_passes.cpp) looks the key up in PolyOptions::tuning and
// sets the options before the dependences and the schedule are made.
#pragma once

#include "polyhedral/pipeline/poly_options.h"

#include <map>
#include <string>
#include <vector>

namespace atl::poly {

struct ClusterState;
struct Scop;

/// One knob: its stable name (`band0/cache_tile[2]`, `pack`), its type
/// ("int", "bool" or "enum"), the values a search tries (text, in order), the
/// value the cost model chose, and what it sets.
struct KnobDomain {
  std::string name;
  std::string type;
  std::vector<std::string> values;
  std::string default_value;
  std::string description;
};

/// A cluster's space: its canonical key and its knobs. Empty knobs: nothing
/// to tune (a cluster the CPU table does not tile, or another target).
struct KnobSpace {
  std::string key;
  std::vector<KnobDomain> knobs;
  /// The point whose every knob has its default value.
  KnobValues defaults() const;
  /// Checks that `point` names only knobs of this space with values of their
  /// type (an int knob may take any value >= 0, not only those listed);
  /// returns the first problem, "" when it is a point of the space.
  std::string check(const KnobValues &point) const;
};

/// The canonical text of a SCoP: print_scop with the cluster, its statements,
/// nodes and arrays renamed by first appearance (S0, N0, A0...), so two
/// clusters that compute the same thing under other names give one text.
std::string canonical_scop_text(const Scop &scop);
/// A 16-hex-digit hash (FNV-1a, 64 bits) of canonical_scop_text.
std::string scop_key(const Scop &scop);

/// The space of a cluster compiled with the default options (the CPU table
/// run to its end, no knobs applied): which knobs its passes read, and what
/// they chose.
KnobSpace knob_space(const ClusterState &state);

/// Sets `options` from a point. Throws UserError naming the knob for a name
/// the CPU table does not know or a value not of its type.
void apply_knobs(const KnobValues &point, PolyOptions &options);

/// The point as one line of text: `name=value` in name order, comma-separated.
std::string point_text(const KnobValues &point);

}  // namespace atl::poly
