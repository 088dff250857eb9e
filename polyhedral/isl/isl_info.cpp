// Reports the versions of isl and PPL that the process is really bound to.
#include "polyhedral/isl/isl_info.h"

#include <isl/cpp.h>
#include <isl/version.h>
#include <ppl.hh>

namespace atl::poly {

std::string isl_version_string() {
  const char *v = isl_version();
  std::string s = v ? v : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

std::string ppl_version_string() { return Parma_Polyhedra_Library::version(); }

}  // namespace atl::poly
