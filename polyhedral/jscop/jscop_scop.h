// Internal to polyhedral/jscop: a JSCoP's strings parsed into isl objects,
// and its memory-based dependences.
#pragma once

#include "polyhedral/deps/dependences.h"
#include "polyhedral/jscop/jscop.h"
#include "polyhedral/scop/scop.h"

#include <isl/cpp.h>

#include <map>
#include <string>
#include <vector>

namespace atl::poly::jscop {

/// One access, parsed.
struct Access {
  isl::map relation;  ///< restricted to the statement's domain
  bool write = false;
  std::string array;  ///< the range tuple's name
};

/// A JSCoP in isl objects (all in one context).
struct Parsed {
  isl::set context;
  std::vector<isl::set> domains;             ///< per statement
  std::vector<isl::map> original;            ///< per statement, padded to `dimensions` outputs
  std::vector<std::vector<Access>> accesses;  ///< per statement
  std::map<std::string, long> element_bytes;  ///< per array named in "arrays"
  int dimensions = 0;                         ///< output dimensions of the original schedules
  isl::union_map reads() const;
  isl::union_map writes() const;
  isl::union_map schedule() const;  ///< the original schedules, as one union map
  isl::union_set domain() const;
  long bytes_of(const std::string &array) const;  ///< 8 when the type is unknown
};

/// Parses every string of `scop` in `ctx`. UserError with the JSON pointer
/// of a string isl cannot read or that does not fit its statement.
Parsed parse(isl::ctx ctx, const Jscop &scop);

/// The schedule map `m` with `dimensions - n_out(m)` zero outputs appended.
isl::map pad(const isl::map &m, int dimensions);

/// Dependences between statement instances through memory, every write a
/// may-write: flow (write -> later read), anti (read -> later write) and
/// output (write -> later write) of the same element, in the original
/// order. No reductions are detected (statements have no bodies).
Dependences memory_dependences(const Parsed &parsed);

/// A Scop with the statements' names and domains only: what the schedulers
/// and the legality check read.
Scop scheduling_scop(const Jscop &scop, const Parsed &parsed);

/// The differences schedule(target) - schedule(source) over `deps`, with
/// `schedules` one map per statement (same output dimensions).
isl::union_set schedule_deltas(const std::vector<isl::map> &schedules, const isl::union_map &deps);
/// isl constraints saying that the `n`-tuple named by prefix `u` (u0, u1,
/// ...) is lexicographically greater than that of `t`; an empty `t` means
/// the zero tuple.
std::string lex_greater(const std::string &u, const std::string &t, int n);
/// True when every vector of `deltas` (of `n` dimensions) is
/// lexicographically positive.
bool lex_positive(const isl::union_set &deltas, int n);

}  // namespace atl::poly::jscop
