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

/// What a SCoP is known by in the records: the hash of its canonical text
/// (the key), and the hash of that text with every integer constant masked
/// (the family: GEMMs or convolutions of other sizes), with those constants
/// in order (the shape).
struct ScopIdentity {
  std::string key, family;
  std::vector<long> shape;
};

/// A cluster's space: its identity and its knobs. Empty knobs: nothing
/// to tune (a cluster the CPU table does not tile, or another target).
struct KnobSpace {
  std::string key;
  std::string family;       ///< ScopIdentity::family
  std::vector<long> shape;  ///< ScopIdentity::shape
  std::vector<KnobDomain> knobs;
  /// The point whose every knob has its default value.
  KnobValues defaults() const;
  /// Checks that `point` names only knobs of this space with values of their
  /// type (an int knob may take any value >= 0, not only those listed);
  /// returns the first problem, "" when it is a point of the space.
  std::string check(const KnobValues &point) const;
};

/// Tuned points for apply_tuning: by exact key, and by family (the same
/// SCoP with other integer constants: a GEMM of other sizes) with the
/// constants (the shape) of each tuned key.
struct TuningTable {
  std::map<std::string, KnobValues> exact;
  struct Shaped {
    std::string key;
    std::vector<long> shape;
    KnobValues point;
  };
  std::map<std::string, std::vector<Shaped>> by_family;

  /// Adds a point for a cluster (key, family, shape).
  void add(const std::string &key, const std::string &family, const std::vector<long> &shape, KnobValues point);
  /// The point for a cluster: its key's, else the family's nearest shape
  /// (sum of |log| ratios of the constants), with `from` set to the key it
  /// came from; null when there is none.
  const KnobValues *find(const std::string &key, const std::string &family, const std::vector<long> &shape,
                         std::string *from = nullptr) const;
};

/// The canonical text of a SCoP: print_scop with the cluster, its statements,
/// nodes and arrays renamed by first appearance (S0, N0, A0...), so two
/// clusters that compute the same thing under other names give one text.
std::string canonical_scop_text(const Scop &scop);
/// The SCoP's identity from one canonical_scop_text: 16-hex-digit FNV-1a
/// hashes of the text and of the text with its integer constants masked.
ScopIdentity scop_identity(const Scop &scop);

/// The space of a cluster (the CPU table run to its end; `identity` its
/// SCoP's): which knobs its passes read, and what they chose.
KnobSpace knob_space(const ClusterState &state, const ScopIdentity &identity);

/// A compiled cluster's features, by name (what a learned cost model reads,
/// and what model_ms reads): the target (lanes, registers, caches), the
/// main statement's extents and points, the register and cache tiles that
/// the tiling passes chose, the bytes of the arrays, and the counts of the
/// passes' statistics (loops vectorized, unrolled, arrays packed...).
/// `stats` are the cluster's summed statistics with its loop marks counted.
std::map<std::string, double> cluster_features(const ClusterState &state, const std::map<std::string, long> &stats);

/// The analytical cost model's time for a cluster, in milliseconds, from
/// its features: for a tiled contraction, the register tile's FMA
/// efficiency (loads against FMAs, spills, partial tiles) against the
/// cache traffic its cache tiles imply, as a roofline; for other clusters
/// the compulsory bytes at a streaming rate and the points at the vector
/// rate. Deterministic; good for ranking points of one cluster, not for
/// absolute times.
double model_ms(const std::map<std::string, double> &features);

/// Sets `options` from a point. Throws UserError naming the knob for a name
/// the CPU table does not know or a value not of its type.
void apply_knobs(const KnobValues &point, PolyOptions &options);

/// The point as one line of text: `name=value` in name order, comma-separated.
std::string point_text(const KnobValues &point);

}  // namespace atl::poly
