// Initialises PPL once and restores round-to-nearest afterwards.
#include "polyhedral/isl/ppl_init.h"

#include <ppl.hh>

#include <mutex>

namespace atl::poly {

void ensure_ppl_initialized() {
  static std::once_flag once;
  std::call_once(once, [] {
    Parma_Polyhedra_Library::initialize();
    Parma_Polyhedra_Library::restore_pre_PPL_rounding();
  });
}

}  // namespace atl::poly
