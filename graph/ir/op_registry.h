// The operator registry: one entry per ONNX operator of the batch format,
// with attribute specs, shape and dtype inference, FLOP count, fusion
// pattern kind and the operator's definition as Compute statements.
#pragma once

#include "graph/ir/graph.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace atl {

/// Fusion pattern kinds, as TVM's fuse_ops uses them.
enum class PatternKind { Elementwise, Broadcast, Injective, Reduction, OutFusable, Opaque };
const char *pattern_name(PatternKind kind);

/// JSON type of an attribute value.
enum class AttrKind { Int, Float, String, Ints, Floats, Strings, DType, Any };

/// Whether a JSON attribute value has `kind`. Strict (batch files): exact JSON
/// types. Lenient (graphs built in code, constant inputs moved into attrs): a
/// scalar may arrive as a one-element list and an integer as an integral float.
bool attr_kind_matches(AttrKind kind, const nlohmann::json &v, bool strict);
/// "an integer", "a list of numbers", ...: for messages.
const char *attr_kind_text(AttrKind kind);

struct AttrSpec {
  const char *name;
  AttrKind kind;
};

/// What an operator rule sees of a node: the node, its input types (empty
/// for an omitted optional input ""), after inference its output types, and
/// the graph's parameter ranges (for symbolic dimensions).
struct OpContext {
  const Node &node;
  std::vector<std::optional<TensorType>> inputs;
  std::vector<TensorType> outputs;
  const std::map<std::string, ParamRange> *params = nullptr;

  /// The attribute or nullptr.
  const nlohmann::json *attr(const char *name) const;
  std::int64_t attr_int(const char *name, std::int64_t dflt) const;
  double attr_float(const char *name, double dflt) const;
  std::string attr_string(const char *name, const std::string &dflt) const;
  std::vector<std::int64_t> attr_ints(const char *name, std::vector<std::int64_t> dflt) const;
  std::vector<double> attr_floats(const char *name, std::vector<double> dflt) const;
  /// A UserError naming the node (the graph is added by the caller).
  UserError error(const std::string &reason) const;
};

/// An operator's definition as tensor comprehensions. `text` is Compute
/// source; it names the node's tensors by the formal names below (one per
/// input slot, "" for an omitted input; one per output) and may use
/// temporaries of its own.
struct OpDefinition {
  std::string text;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  /// Temporaries of `text` whose max or min reduction only stabilises the
  /// result: the outputs are the same whatever it gives for a row holding a
  /// NaN (Softmax's row maximum: the NaN reaches every output through the
  /// sum anyway). Backends may compute those reductions without carrying
  /// NaN (x86: one maxps a vector instead of three operations).
  std::vector<std::string> nan_insensitive;
};

struct OpInfo {
  const char *name;
  PatternKind pattern;
  int min_inputs, max_inputs;   ///< max_inputs -1 = variadic
  int min_outputs, max_outputs;
  /// Attributes the operator accepts (any other is an error).
  std::vector<AttrSpec> attrs;
  /// Constant inputs the batch may give as attribute instead: input slot ->
  /// attribute name (Reshape: {1, "shape"}). The front end moves inline-data
  /// inputs into the attribute before inference.
  std::vector<std::pair<int, const char *>> const_inputs;
  /// Checks attribute values and input types; returns the output types.
  std::vector<TensorType> (*infer)(const OpContext &ctx);
  /// FLOPs (a multiply-add is 2); ctx.outputs is filled; shapes concrete.
  std::int64_t (*flops)(const OpContext &ctx);
  /// The Compute definition; ctx.outputs is filled.
  OpDefinition (*define)(const OpContext &ctx);
};

/// The entry for an ONNX operator name, or nullptr.
const OpInfo *find_op(std::string_view name);
/// The registry's view of node `v` of `graph`: its input and output types
/// (an omitted or unknown tensor as nullopt / an empty type).
OpContext node_context(const Graph &graph, NodeId v);
/// Each f16/bf16 tensor of `names` (with its type in `types`) with its
/// extents ("64" or a parameter name), as widen_accumulators takes them.
std::map<std::string, std::vector<std::string>> low_precision_extents(const std::vector<std::string> &names,
                                                                       const std::vector<TensorType> &types);
/// The formal names of `def`'s outputs whose dtype (ctx.outputs) is f16 or
/// bf16, with their extents ("64" or a parameter name): their reductions
/// accumulate wide (compute::widen_accumulators).
std::map<std::string, std::vector<std::string>> low_precision_outputs(const OpDefinition &def, const OpContext &ctx);
/// Every registered operator, in a fixed order.
const std::vector<const OpInfo *> &all_ops();
/// The pattern of one application of `op`: its static pattern, except that a
/// Broadcast operator whose inputs all have the output's shape (ctx.outputs
/// filled) is Elementwise, and a `Compute` node is classified from its
/// definition (compute_pattern).
PatternKind node_pattern(const OpInfo &op, const OpContext &ctx);

/// The pattern of a `Compute` node: Elementwise when it is one assignment
/// `Y(i, j, ...) = f(...)` whose reads are all at exactly (i, j, ...),
/// Broadcast when the other reads are of lower-rank tensors (per-channel
/// parameters), OutFusable for one contraction `Y(i, ...) +=! X(..) * W(..)` with
/// distinct output indices and no guarded read (a blocked convolution),
/// Injective for a copy `Y(f(i, ...)) = X(g(i, ...))` with plain subscripts
/// (a layout conversion), Opaque otherwise (other reductions, several statements, shifted, permuted
/// or guarded reads).
PatternKind compute_pattern(const OpContext &ctx);

}  // namespace atl
