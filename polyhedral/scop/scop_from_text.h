// A SCoP handed to Atoll as text: isl strings for domains and accesses plus
// Compute statement bodies, as another compiler would give it.
#pragma once

#include "polyhedral/scop/scop.h"

#include <atoll/dtype.h>
#include "graph/ir/graph.h"

#include <string>
#include <vector>

namespace atl::poly {

/// An array of a text SCoP. Symbolic extents name isl parameters.
struct TextArray {
  std::string name;  ///< a C identifier; the isl tuple name in access maps
  DType dtype = DType::F32;
  SymShape shape;
  KernelArray::Role role = KernelArray::Role::Input;  ///< Temporary: zero-filled, local to the SCoP
};

/// One statement of a text SCoP, in execution order.
struct TextStatement {
  std::string domain;              ///< isl set "[N] -> { S[i, j] : ... }"; tuple = statement name
  std::string write;               ///< isl map "{ S[i, j] -> C[i, j] }" (single-valued, affine)
  std::vector<std::string> reads;  ///< isl maps, in the order the body reads
  /// Either a Compute statement "C(i, j) += A(i, k) * B(k, j)" (its reads in
  /// the order of `reads`, its left-hand side the array of `write`), or only
  /// the right-hand side expression "A(i, k) * B(k, j)": the left-hand side
  /// is then derived from `write` and the operator is `op`. Index names are
  /// the domain's dimension names; parameters are the isl parameters.
  /// `op=!` is refused: give the initialisation as its own statement.
  std::string body;
  compute::AssignOp op = compute::AssignOp::Assign;  ///< for an expression body
};

/// A whole text SCoP.
struct TextScop {
  std::string name = "scop";            ///< becomes the kernel's name (a C identifier)
  std::string context;                  ///< isl parameter set "[N] -> { : 1 <= N <= 64 }" ("" = none)
  std::vector<TextArray> arrays;
  std::vector<TextStatement> statements;
};

/// Builds a poly::Scop (usable with compute_dependences, the schedulers,
/// check_legality and build_ast) from text. Every problem (bad isl text, an
/// access to an unknown array, a body that does not match its maps, an index
/// the domain does not name) is an atl::UserError naming the statement.
Scop scop_from_text(isl::ctx ctx, const TextScop &text);

}  // namespace atl::poly
