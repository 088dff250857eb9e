// Reports the versions of isl and PPL that the process is really bound to,
// and checks schedule-tree text with isl.
#include "polyhedral/isl/isl_info.h"
#include "polyhedral/isl/ppl_init.h"

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

bool isl_reads_schedule(const std::string &text) {
  isl_ctx *raw = isl_ctx_alloc();
  isl_options_set_on_error(raw, ISL_ON_ERROR_CONTINUE);
  isl_schedule *s = isl_schedule_read_from_str(raw, text.c_str());
  bool ok = s != nullptr;
  isl_schedule_free(s);
  isl_ctx_free(raw);
  return ok;
}

std::string ppl_version_string() {
  ensure_ppl_initialized();
  return Parma_Polyhedra_Library::version();
}

}  // namespace atl::poly
