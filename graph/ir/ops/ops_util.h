// Shared helpers of the operator registry entries: input access, dtype and
// rank checks, broadcasting, axes, conv/pool windows, Compute text building.
#pragma once

#include "graph/ir/op_registry.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace atl::ops {

// ---- operator families, one file each -------------------------------------
std::vector<OpInfo> elementwise_ops();
std::vector<OpInfo> linalg_ops();
std::vector<OpInfo> conv_ops();
std::vector<OpInfo> pool_ops();
std::vector<OpInfo> normalization_ops();
std::vector<OpInfo> reduce_ops();
std::vector<OpInfo> movement_ops();
std::vector<OpInfo> slicing_ops();
std::vector<OpInfo> resize_ops();
std::vector<OpInfo> compute_ops();

// ---- errors and inputs -----------------------------------------------------
/// Throws ctx.error("<Op>: reason").
[[noreturn]] void fail(const OpContext &ctx, const std::string &reason);
/// True when input slot `slot` is given (not omitted, not past the end).
bool has_input(const OpContext &ctx, int slot);
/// The type of a required input; fails clearly when it is omitted.
const TensorType &in(const OpContext &ctx, int slot);
/// True when output slot `slot` is requested (named and non-empty).
bool has_output(const OpContext &ctx, int slot);
/// The node's output names as formal output names for a definition:
/// `formal` where the slot is requested, "" otherwise.
std::vector<std::string> out_names(const OpContext &ctx, const std::vector<std::string> &formal);
/// The node's input slots as formal names: formal[i] where given, "" otherwise.
std::vector<std::string> in_names(const OpContext &ctx, const std::vector<std::string> &formal);

// ---- dtypes and ranks -----------------------------------------------------
void require_float(const OpContext &ctx, const TensorType &t, const std::string &what);
void require_numeric(const OpContext &ctx, const TensorType &t, const std::string &what);  ///< not bool
void require_bool(const OpContext &ctx, const TensorType &t, const std::string &what);
void require_index(const OpContext &ctx, const TensorType &t, const std::string &what);  ///< i32 / i64
void require_same_dtype(const OpContext &ctx, const TensorType &a, const std::string &wa, const TensorType &b,
                        const std::string &wb);
void require_rank_at_least(const OpContext &ctx, const TensorType &t, int rank, const std::string &what);

// ---- shapes ----------------------------------------------------------------
/// Numpy (multidirectional) broadcasting of shapes; symbolic dims broadcast
/// with themselves and with 1; anything else is an error naming both.
SymShape broadcast_shapes(const OpContext &ctx, const std::vector<SymShape> &shapes);
/// True when `from` broadcasts to exactly `to` (unidirectional broadcasting).
bool broadcasts_to(const SymShape &from, const SymShape &to);
/// Normalises an axis in [-rank, rank) to [0, rank).
int norm_axis(const OpContext &ctx, std::int64_t axis, int rank, const std::string &what);
/// Normalises a list of axes, rejecting duplicates.
std::vector<int> norm_axes(const OpContext &ctx, const std::vector<std::int64_t> &axes, int rank,
                           const std::string &what);
/// The value of a dimension that must be concrete, or an error naming the
/// symbol and why a concrete size is needed.
std::int64_t concrete(const OpContext &ctx, const Dim &d, const std::string &why);
/// Number of elements of a concrete shape (1 for rank 0).
std::int64_t elements(const SymShape &shape);
/// Product of dims [from, to) of a concrete shape.
std::int64_t product(const SymShape &shape, int from, int to);

/// Resolved sliding window of Conv and the pools (per spatial axis).
struct Window {
  std::vector<std::int64_t> kernel, strides, dilations, pad_begin, pad_end, in, out;
  /// True when some window position reads outside the input.
  bool reads_outside() const;
};
/// Reads auto_pad, pads, strides, dilations (and ceil_mode when
/// `with_ceil`) for a window of the given kernel over X's spatial dims.
Window resolve_window(const OpContext &ctx, const TensorType &x, const std::vector<std::int64_t> &kernel,
                      bool with_ceil);
/// The kernel_shape attribute checked against the expected spatial rank (or
/// the given default when it is absent and `dflt` is non-empty).
std::vector<std::int64_t> kernel_shape(const OpContext &ctx, std::size_t spatial,
                                       const std::vector<std::int64_t> &dflt);

// ---- Compute text ----------------------------------------------------------
/// A numeric literal that reads back as the same double ("0.5", "(-2)", "inf").
std::string num(double v);
/// A dimension as a value in Compute text: its size, or a marked reference
/// to its parameter ("$N") that resolve_param_refs turns into the name.
std::string dim_text(const Dim &d);
/// Resolves "$NAME" parameter references and renames every other identifier
/// used as a value (an index) that clashes with a parameter name, so that a
/// graph parameter called `n` or `h` cannot capture an operator's index.
std::string resolve_param_refs(const std::string &text, const std::map<std::string, ParamRange> *params);
/// "name(a, b, c)" (or "name()" for rank 0).
std::string call(const std::string &name, const std::vector<std::string> &subs);
/// Index names prefix0, prefix1, ...
std::vector<std::string> index_names(int n, const std::string &prefix = "i");
/// Subscripts reading an input of shape `in` broadcast to `out` at output
/// indices `idx`: aligned right, "0" where the input has 1 and `out` does not.
std::vector<std::string> broadcast_subs(const SymShape &in, const SymShape &out, const std::vector<std::string> &idx);
/// "i in 0:8" range list joined with ", ".
std::string where_clause(const std::vector<std::pair<std::string, std::int64_t>> &ranges);

/// A sum of index terms with integer coefficients and a constant: prints
/// "h * 2 + kh - 1".
struct Affine {
  std::vector<std::pair<std::string, std::int64_t>> terms;
  std::int64_t constant = 0;
  Affine() = default;
  explicit Affine(std::string index) { terms.push_back({std::move(index), 1}); }
  Affine &add(const std::string &index, std::int64_t coef) {
    if (coef) terms.push_back({index, coef});
    return *this;
  }
  Affine &plus(std::int64_t c) { constant += c; return *this; }
  std::string str() const;
};

}  // namespace atl::ops
