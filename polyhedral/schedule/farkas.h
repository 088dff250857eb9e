// Farkas' lemma (affine form) on a dependence polyhedron: the constraints on
// schedule coefficients that make an affine form non-negative on every
// dependence instance, with the multipliers projected out by PPL.
#pragma once

#include <isl/cpp.h>
#include <ppl.hh>

#include <vector>

namespace atl::poly::pluto {

/// The constraints of one dependence (a basic map S -> T), with isl's
/// existential variables lifted to extra dimensions. Every row has the
/// columns [constant, params..., source dims..., target dims..., extra...]
/// and reads `row . (1, x) = 0` (equalities) or `>= 0` (inequalities).
struct DependencePolyhedron {
  int n_param = 0, n_in = 0, n_out = 0, n_extra = 0;
  std::vector<std::vector<long>> equalities;
  std::vector<std::vector<long>> inequalities;
  int columns() const { return 1 + n_param + n_in + n_out + n_extra; }
};

/// Reads the constraints of `bmap` (which must not be empty).
DependencePolyhedron dependence_polyhedron(const isl::basic_map &bmap);

/// The variables of one dependence edge's coefficient space, in this order:
/// u[0..n_param), w, the source's iterator coefficients c_S[0..n_src) and
/// constant c0_S, then (unless the edge is a self-dependence, where target
/// and source share their coefficients) c_T[0..n_dst) and c0_T.
struct EdgeSpace {
  int n_param = 0, n_src = 0, n_dst = 0;
  bool self = false;
  int u(int p) const { return p; }
  int w() const { return n_param; }
  int src(int k) const { return n_param + 1 + k; }
  int src0() const { return n_param + 1 + n_src; }
  int dst(int k) const { return self ? src(k) : n_param + 2 + n_src + k; }
  int dst0() const { return self ? src0() : n_param + 2 + n_src + n_dst; }
  int size() const { return self ? n_param + 2 + n_src : n_param + 3 + n_src + n_dst; }
};

/// Legality: phi_T(t) - phi_S(s) >= 0 on the polyhedron, where
/// phi_X(x) = c_X . x + c0_X. Constraints over the EdgeSpace variables.
Parma_Polyhedra_Library::Constraint_System farkas_legality(const DependencePolyhedron &dep, const EdgeSpace &space);

/// Bounding: u . p + w - (phi_T(t) - phi_S(s)) >= 0 on the polyhedron.
Parma_Polyhedra_Library::Constraint_System farkas_bounding(const DependencePolyhedron &dep, const EdgeSpace &space);

}  // namespace atl::poly::pluto
