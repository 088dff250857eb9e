// Farkas' lemma on dependence polyhedra: reads a basic map's constraints
// and projects the Farkas multipliers out with PPL (Fourier-Motzkin by
// double description), leaving constraints on schedule coefficients.
#include "polyhedral/schedule/farkas.h"

#include <atoll/diagnostics.h>

#include "polyhedral/isl/isl_context.h"

namespace atl::poly::pluto {

namespace PPL = Parma_Polyhedra_Library;

namespace {

// Constraint rows as machine integers (dependence constraints have small
// coefficients; anything else is Atoll's bug).
std::vector<std::vector<long>> to_long(const std::vector<std::vector<isl::val>> &rows) {
  std::vector<std::vector<long>> out;
  for (const auto &row : rows) {
    std::vector<long> r;
    for (const isl::val &v : row) {
      ATOLL_ASSERT(v.is_int(), "non-integer constraint coefficient");
      r.push_back(v.get_num_si());
    }
    out.push_back(std::move(r));
  }
  return out;
}

// phi_T(t) - phi_S(s) (sign +1) or its negation (sign -1) as the
// coefficient of polyhedron column `col` over the edge variables.
PPL::Linear_Expression form_coefficient(const DependencePolyhedron &dep, const EdgeSpace &sp, int col, int sign) {
  PPL::Linear_Expression e;
  int k = col - 1;
  if (k < dep.n_param) return e;
  k -= dep.n_param;
  if (k < dep.n_in) {
    e -= sign * PPL::Variable(static_cast<PPL::dimension_type>(sp.src(k)));
    return e;
  }
  k -= dep.n_in;
  if (k < dep.n_out) e += sign * PPL::Variable(static_cast<PPL::dimension_type>(sp.dst(k)));
  return e;
}

// Constraints on the edge variables such that the affine form whose
// coefficient on column j is coef(j) (j >= 1) and whose constant is `cst`
// is non-negative on the polyhedron.
template <class Coef>
PPL::Constraint_System farkas(const DependencePolyhedron &dep, const EdgeSpace &sp, Coef coef,
                              const PPL::Linear_Expression &cst) {
  const auto nl = static_cast<PPL::dimension_type>(sp.size());
  const auto ni = static_cast<PPL::dimension_type>(dep.inequalities.size());
  const auto ne = static_cast<PPL::dimension_type>(dep.equalities.size());
  auto lambda = [&](size_t k) { return PPL::Variable(nl + k); };
  auto mu = [&](size_t k) { return PPL::Variable(nl + ni + k); };
  PPL::C_Polyhedron poly(nl + ni + ne, PPL::UNIVERSE);
  PPL::Constraint_System cs;
  for (int col = 1; col < dep.columns(); ++col) {
    PPL::Linear_Expression e = -coef(col);
    for (size_t k = 0; k < ni; ++k)
      if (long a = dep.inequalities[k][static_cast<size_t>(col)]) e += a * lambda(k);
    for (size_t k = 0; k < ne; ++k)
      if (long a = dep.equalities[k][static_cast<size_t>(col)]) e += a * mu(k);
    cs.insert(e == 0);
  }
  PPL::Linear_Expression c = cst;
  for (size_t k = 0; k < ni; ++k) {
    if (long a = dep.inequalities[k][0]) c -= a * lambda(k);
    cs.insert(lambda(k) >= 0);
  }
  for (size_t k = 0; k < ne; ++k)
    if (long a = dep.equalities[k][0]) c -= a * mu(k);
  cs.insert(c >= 0);
  poly.add_constraints(cs);
  if (ni + ne > 0) poly.remove_higher_space_dimensions(nl);
  return poly.minimized_constraints();
}

}  // namespace

DependencePolyhedron dependence_polyhedron(const isl::basic_map &bmap) {
  DependencePolyhedron dep;
  dep.n_in = static_cast<int>(bmap.domain_tuple_dim());
  dep.n_out = static_cast<int>(bmap.range_tuple_dim());
  ConstraintRows rows = lifted_constraints(bmap);
  ATOLL_ASSERT(rows.n_set >= dep.n_in + dep.n_out, "unexpected lifted dependence space");
  dep.n_param = rows.n_param;
  dep.n_extra = rows.n_set - dep.n_in - dep.n_out;
  dep.equalities = to_long(rows.equalities);
  dep.inequalities = to_long(rows.inequalities);
  return dep;
}

PPL::Constraint_System farkas_legality(const DependencePolyhedron &dep, const EdgeSpace &sp) {
  PPL::Linear_Expression cst;
  if (!sp.self) {
    cst += PPL::Variable(static_cast<PPL::dimension_type>(sp.dst0()));
    cst -= PPL::Variable(static_cast<PPL::dimension_type>(sp.src0()));
  }
  return farkas(dep, sp, [&](int col) { return form_coefficient(dep, sp, col, +1); }, cst);
}

PPL::Constraint_System farkas_bounding(const DependencePolyhedron &dep, const EdgeSpace &sp) {
  PPL::Linear_Expression cst = PPL::Variable(static_cast<PPL::dimension_type>(sp.w()));
  if (!sp.self) {
    cst -= PPL::Variable(static_cast<PPL::dimension_type>(sp.dst0()));
    cst += PPL::Variable(static_cast<PPL::dimension_type>(sp.src0()));
  }
  auto coef = [&](int col) {
    PPL::Linear_Expression e = form_coefficient(dep, sp, col, -1);
    if (col - 1 < dep.n_param) e += PPL::Variable(static_cast<PPL::dimension_type>(sp.u(col - 1)));
    return e;
  };
  return farkas(dep, sp, coef, cst);
}

}  // namespace atl::poly::pluto
