// A wall-clock limit on PPL's computations: past it, PPL's next expensive step throws PplTimeout.
#pragma once

#include "polyhedral/isl/watchdog.h"

#include <memory>
#include <stdexcept>

namespace Parma_Polyhedra_Library {
class Throwable;
}

namespace atl::poly {

/// What a PplDeadline makes PPL throw when the time runs out.
struct PplTimeout : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Bounds the wall-clock time of the PPL computations run while it lives
/// (`seconds` > 0; 0 = no bound). A Watchdog sets PPL's
/// `abandon_expensive_computations` when the time runs out, so PPL's next
/// check (in MIP_Problem's simplex and branch and bound, among others)
/// throws PplTimeout; the destructor clears it. The pointer is global to the
/// process: the caller must hold the lock that serialises all PPL use (PPL is
/// not thread safe anyway), and deadlines must not nest.
class PplDeadline {
public:
  explicit PplDeadline(double seconds);
  ~PplDeadline();
  PplDeadline(const PplDeadline &) = delete;
  PplDeadline &operator=(const PplDeadline &) = delete;
  /// True when the time ran out.
  bool expired() const { return watchdog_.expired(); }

private:
  std::unique_ptr<Parma_Polyhedra_Library::Throwable> hook_;  ///< what PPL's check throws
  Watchdog watchdog_;
};

}  // namespace atl::poly
