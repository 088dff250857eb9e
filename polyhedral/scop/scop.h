// The static control part of a cluster: statements with isl domains and
// access relations, the arrays they touch and the statement bodies.
#pragma once

#include "graph/compute/ast.h"
#include "graph/core/kernel_array.h"

#include "graph/ir/graph.h"

#include <isl/cpp.h>

#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

namespace atl::poly {

/// An array of the SCoP. `array.name` is a C identifier (the graph tensor
/// name sanitised, or NODE_formal for a node-internal temporary).
struct ScopArray {
  enum class Kind {
    Input,         ///< read by the cluster, produced outside it
    Output,        ///< produced in the cluster and used outside (or a graph output)
    ClusterLocal,  ///< produced and consumed only inside the cluster
    NodeInternal,  ///< a temporary of one node's definition
  };
  KernelArray array;   ///< role Input, Output, or Temporary (both temporary kinds)
  Kind kind = Kind::Input;
  std::string tensor;  ///< the graph tensor ("" for a node-internal temporary)
  isl::set extent;     ///< { A[a0, ...] : 0 <= a_d < shape_d } (parametric)
  /// The value of a one-element f32 input that is a compile-time constant
  /// (a weight with inline data).
  std::optional<double> scalar;
};

/// One access of a statement: a map from the statement's domain to array
/// elements. A guarded read holds only the in-bounds part; an indirect
/// subscript reads the whole axis.
struct ScopAccess {
  std::string array;
  isl::map relation;
  bool guarded = false;
  bool indirect = false;
};

/// One polyhedral statement (a Compute statement or its `_init`).
struct ScopStatement {
  std::string name;                  ///< NODE_k or NODE_k_init: the isl tuple name
  std::string node;                  ///< the graph node it comes from
  std::vector<std::string> indices;  ///< domain dimensions, loop-nest order (Compute names)
  std::vector<bool> reduction;       ///< per index: a reduction index
  isl::set domain;                   ///< parametric when the graph has symbols
  ScopAccess write;                  ///< the element written
  std::vector<ScopAccess> reads;     ///< every tensor read (not the implicit op= read)
  compute::AssignOp op = compute::AssignOp::Assign;  ///< Assign for an `_init`
  bool init = false;                 ///< stores the identity of `op` of its main statement
  compute::AssignOp init_of = compute::AssignOp::Assign;  ///< for `_init`: the reduction it initialises
  compute::ExprPtr lhs;              ///< Read node; tensor names are SCoP array names
  compute::ExprPtr rhs;              ///< value (null for `_init`); array names renamed
  /// A max or min whose NaN handling does not matter (OpDefinition::nan_insensitive).
  bool nan_insensitive = false;
  /// The exp calls of `rhs` whose argument is never +inf (bound_shifted_exps),
  /// by their place among rhs's exp calls in preorder (exp_calls): the loop
  /// AST's exp then needs no upper clamp. Passes that rewrite rhs keep its
  /// exp calls and their order.
  std::set<int> bounded_exps;
};

/// The exp calls of an expression in preorder (a call before its
/// arguments, arguments in order): the places ScopStatement::bounded_exps names.
std::vector<const compute::Expr *> exp_calls(const compute::Expr &e);

/// The SCoP of a cluster. The isl objects live in the context given to
/// build_scop; destroy the Scop before that context.
struct Scop {
  std::string name;                       ///< the cluster: its first node's name
  std::vector<std::string> params;        ///< symbolic dimensions (isl parameters), sorted
  isl::set context;                       ///< ranges of the parameters
  std::vector<ScopStatement> statements;  ///< in original execution order
  std::vector<ScopArray> arrays;          ///< inputs, outputs, then temporaries
  std::map<std::string, std::string> array_of_tensor;  ///< graph tensor -> array name

  const ScopStatement *statement(const std::string &name) const;
  const ScopArray *array(const std::string &name) const;
  isl::union_set domain() const;      ///< all statement instances
  isl::union_map writes() const;      ///< must-writes
  isl::union_map reads() const;       ///< may-reads, including the implicit op= read
  /// The original order: a sequence of the statements, each a band over its
  /// indices in loop-nest order.
  isl::schedule original_schedule() const;
};

/// Builds the SCoP of the nodes `cluster` (in the graph's order) of a
/// finalized graph. Throws atl::UserError naming graph and node for
/// definitions it cannot represent, isl::exception for isl failures.
Scop build_scop(isl::ctx ctx, const Graph &graph, const std::vector<NodeId> &cluster);

/// The access of statement `st` (its name, indices and domain set) to the
/// element `read` (a Read node of an array of `scop`): exact for
/// quasi-affine subscripts, the whole axis for an indirect one, the
/// in-bounds part when `guarded`. Throws atl::UserError for a non-affine
/// subscript.
ScopAccess element_access(const Scop &scop, const ScopStatement &st, const compute::Expr &read, bool guarded);

/// The value of `e` when it is a literal or a read of a one-element constant
/// array (ScopArray::scalar), else nothing.
std::optional<double> constant_value(const Scop &scop, const compute::Expr &e);
/// Whether `e` is such a constant, finite and positive in f32 (a factor
/// that keeps order under rounding).
bool positive_constant(const Scop &scop, const compute::Expr &e);

/// Sets the read accesses of `st` from its body (after a transform rewrote
/// `rhs`), in collect_reads' order.
void rebuild_reads(const Scop &scop, ScopStatement &st);

/// `explain --stage scop`: parameters, arrays, then per statement its
/// domain, accesses and body.
void print_scop(std::ostream &os, const Scop &scop);

/// `name` made an identifier that clashes with no keyword, type or built-in
/// of C, CUDA C++ or OpenCL C (a tensor named "half" or "float4"), nor
/// with the C library functions kernels call.
std::string sanitize_identifier(const std::string &name);

/// `name` as a variable of isl's parser: words it reads as keywords ("and",
/// "mod", "min"...) get an underscore. Domains' dimensions are named so.
std::string isl_variable(const std::string &name);

}  // namespace atl::poly
