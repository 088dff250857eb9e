// What a simplification pass did: named counts, and how many rewrites changed the graph.
#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <string>

namespace atl {

/// Counts of what one pass run did, for `--stats`, reports and the fixed-point driver.
/// `counts` holds rewrites ("nodes folded": 3) and notes that changed nothing
/// ("not folded: weights are run-time values": 1); `changes` counts only rewrites.
struct PassStats {
  std::map<std::string, std::int64_t> counts;
  std::int64_t changes = 0;  ///< 0: the pass returned an equivalent copy of its input

  /// Adds n (when non-zero) to counts[what]; a rewrite also adds n to `changes`.
  void count(const std::string &what, std::int64_t n = 1, bool rewrite = true) {
    if (n == 0) return;
    counts[what] += n;
    if (rewrite) changes += n;
  }
  /// Adds another run's counts to these.
  void merge(const PassStats &o) {
    for (const auto &[k, n] : o.counts) counts[k] += n;
    changes += o.changes;
  }
};

/// "a: 1, b: 2" (counts in name order), or "nothing" when empty.
inline std::ostream &operator<<(std::ostream &os, const PassStats &s) {
  if (s.counts.empty()) return os << "nothing";
  bool first = true;
  for (const auto &[k, n] : s.counts) {
    os << (first ? "" : ", ") << k << ": " << n;
    first = false;
  }
  return os;
}

}  // namespace atl
