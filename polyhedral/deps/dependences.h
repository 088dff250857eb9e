// Dependences of a SCoP: flow (RAW), anti (WAR) and output (WAW) relations
// between statement instances, and the reductions among them.
//
// Re-association (the default, PolyOptions::allow_reassociation = true):
// a reduction statement (`op=` whose right-hand side does not read the
// array it reduces into) has self-dependences only through its accumulator.
// Those may be dropped from the scheduler's validity constraints so that the
// reduction loop can be reordered (sums re-associated; for floating-point
// arrays results may differ in the last bits; integer arrays are exact). To
// stay correct, every other access to the reduced array is then ordered
// against ALL instances of the reduction (memory-based dependences in
// `reduction_closure`), and the reduction dependences stay in the
// coincidence constraints, so a reduction loop is never marked parallel.
#pragma once

#include "polyhedral/scop/scop.h"

#include <isl/cpp.h>

#include <ostream>
#include <string>
#include <vector>

namespace atl::poly {

struct DepOptions {
  bool allow_reassociation = true;  ///< see the header comment
};

/// A detected reduction: statement `statement` reduces into `array`.
struct Reduction {
  std::string statement;
  std::string array;
  compute::AssignOp op = compute::AssignOp::Add;
  isl::union_map self;  ///< its self-dependences (flow, anti, output) through `array`
};

struct Dependences {
  isl::union_map flow;    ///< value-based RAW: last write -> read
  isl::union_map anti;    ///< WAR: read -> later write
  isl::union_map output;  ///< WAW: write -> next write of the element
  std::vector<Reduction> reductions;
  bool relaxed = false;   ///< reductions relaxed (reassociation allowed and some found)
  /// When relaxed: memory-based dependences between each reduction and the
  /// other statements touching its array (both directions).
  isl::union_map reduction_closure;

  /// flow + anti + output.
  isl::union_map all() const;
  /// What a legal schedule must respect: all() when not relaxed, else all()
  /// minus the reductions' self-dependences plus reduction_closure.
  isl::union_map validity() const;
  /// Union of the reductions' self-dependences.
  isl::union_map reduction_deps() const;
};

/// Computes the dependences with isl's dataflow analysis against the
/// original order.
Dependences compute_dependences(const Scop &scop, const DepOptions &options = {});

/// `explain --stage deps`: by kind, then the reductions.
void print_dependences(std::ostream &os, const Dependences &deps);

}  // namespace atl::poly
