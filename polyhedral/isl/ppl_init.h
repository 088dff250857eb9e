// PPL initialisation without PPL's change of the process's rounding mode.
#pragma once

namespace atl::poly {

/// Initialises PPL once per process (thread-safe) and restores the
/// rounding mode PPL found (round-to-nearest), so that no other code runs
/// with PPL's round-upward mode. Call before any PPL use; Atoll uses only
/// PPL's exact (GMP) arithmetic, which does not need that mode.
void ensure_ppl_initialized();

}  // namespace atl::poly
