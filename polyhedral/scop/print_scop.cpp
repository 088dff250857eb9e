// Prints a SCoP as text for `explain --stage scop`.
#include "polyhedral/isl/isl_context.h"
#include "polyhedral/scop/scop.h"

namespace atl::poly {

namespace {

const char *kind_name(ScopArray::Kind k) {
  switch (k) {
  case ScopArray::Kind::Input: return "input";
  case ScopArray::Kind::Output: return "output";
  case ScopArray::Kind::ClusterLocal: return "cluster-temporary";
  case ScopArray::Kind::NodeInternal: return "node-temporary";
  }
  return "?";
}

}  // namespace

void print_scop(std::ostream &os, const Scop &scop) {
  os << "scop " << scop.name << "\n";
  os << "  context: " << isl_text(scop.context) << "\n";
  for (const auto &a : scop.arrays) {
    os << "  array " << a.array.name << ": " << dtype_name(a.array.dtype) << sym_shape_to_string(a.array.shape) << " "
       << kind_name(a.kind);
    if (!a.tensor.empty() && a.tensor != a.array.name) os << " (tensor '" << a.tensor << "')";
    os << "\n";
  }
  for (const auto &s : scop.statements) {
    os << "  statement " << s.name << "\n";
    os << "    domain: " << isl_text(s.domain) << "\n";
    os << "    write: " << isl_text(s.write.relation) << "\n";
    for (const auto &r : s.reads)
      os << "    read" << (r.guarded ? " (guarded)" : "") << (r.indirect ? " (indirect)" : "") << ": "
         << isl_text(r.relation) << "\n";
    if (s.init)
      os << "    body: " << compute::print(*s.lhs) << " = identity of " << compute::assign_op_name(s.init_of) << "\n";
    else
      os << "    body: " << compute::print(*s.lhs) << " " << compute::assign_op_name(s.op) << " "
         << compute::print(*s.rhs) << (s.nan_insensitive ? "  (NaN-insensitive)" : "")
         << (!s.bounded_exps.empty() ? "  (exp bounded above)" : "") << "\n";
  }
}

}  // namespace atl::poly
