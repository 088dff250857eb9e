// Inlines a cluster's cheap elementwise producers into the statements that
// read them, before scheduling: the producer's one operation is recomputed
// where its element is read, and its array (a temporary of the cluster) is
// neither stored nor loaded.
//
//   before:  scs[h, i, j] = sc[h, i, j] * scale[]
//            mx[h, i] max= scs[h, i, j]
//            p[h, i, j] = exp(scs[h, i, j] - mx[h, i])
//   after:   mx[h, i] max= sc[h, i, j] * scale[]
//            p[h, i, j] = exp(sc[h, i, j] * scale[] - mx[h, i])
//
// A producer qualifies when it is the only writer of a float temporary of
// the cluster, writes element (i0, ..., in) at domain point (i0, ..., in)
// for every element (no reduction), computes at most one operation from
// float arrays the cluster only reads (inputs: they cannot change while it
// runs), and is read,
// without a guard and not in a subscript, at most `max_reads` times by later
// statements. Those are the cases where a recomputed operation is cheaper
// than the store and loads it replaces (attention's scale before Softmax:
// one multiply where the fused kernel stored the scaled scores and loaded
// them twice).
#pragma once

#include "polyhedral/scop/scop.h"

#include <map>
#include <string>
#include <vector>

namespace atl::poly {

struct InlineResult {
  std::vector<std::string> statements;      ///< the producers inlined (removed from the SCoP)
  std::map<std::string, std::string> into;  ///< producer's node -> a node that now computes its value
};

/// Inlines in place; the readers' access relations are rebuilt from their
/// new bodies, the producers and their arrays leave the SCoP.
InlineResult inline_producers(Scop &scop, int max_reads = 2);

}  // namespace atl::poly
