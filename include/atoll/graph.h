// Graphs of operators, as another compiler builds them: the shape
// vocabulary (Dim, TensorType, ParamRange) and GraphBuilder, which builds a
// graph in code or reads one graph object of the batch format, checks it
// (shape inference, operator rules) and hands it to compile() (module.h)
// or run_graphs() (driver.h). Reference: docs/api.md.
//
// Public: only the standard library and Atoll's public headers.
#pragma once

#include <atoll/diagnostics.h>
#include <atoll/dtype.h>
#include <atoll/tensor.h>

#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace atl {

/// One dimension of a possibly symbolic shape: a positive constant, or the
/// name of a graph parameter (`"N"`) whose range the graph declares.
struct Dim {
  std::int64_t value = 0;  ///< meaningful when symbol is empty
  std::string symbol;      ///< non-empty for a symbolic dimension

  Dim() = default;
  Dim(std::int64_t v) : value(v) {}  // NOLINT: constants convert implicitly
  static Dim sym(std::string name) { Dim d; d.symbol = std::move(name); return d; }
  bool is_symbolic() const { return !symbol.empty(); }
  bool operator==(const Dim &o) const { return symbol == o.symbol && (is_symbolic() || value == o.value); }
  bool operator!=(const Dim &o) const { return !(*this == o); }
  std::string str() const;
};
using SymShape = std::vector<Dim>;

std::string sym_shape_to_string(const SymShape &shape);
bool is_concrete(const SymShape &shape);
/// The concrete shape; throws UserError naming the symbol when one is left.
Shape concrete_shape(const SymShape &shape);
SymShape to_sym_shape(const Shape &shape);

/// Type of a tensor in the graph: element type and (symbolic) shape.
struct TensorType {
  DType dtype = DType::F32;
  SymShape shape;
  int rank() const { return static_cast<int>(shape.size()); }
  std::string str() const;  ///< "f32[N, 64, 56, 56]"
};

/// Range of a symbolic dimension.
struct ParamRange {
  std::int64_t min = 1;
  std::int64_t max = 1;
};

/// The value of a node attribute, as in the batch format: an integer, a
/// number, a string, or a list of integers, numbers or strings (the batch
/// format's list of operators, docs/batch-format.md, says which takes which).
class Attr {
public:
  using Value = std::variant<std::int64_t, double, std::string, std::vector<std::int64_t>, std::vector<double>,
                             std::vector<std::string>>;
  Attr(int v) : value_(std::int64_t(v)) {}          // NOLINT: attributes convert implicitly
  Attr(long v) : value_(std::int64_t(v)) {}         // NOLINT
  Attr(long long v) : value_(std::int64_t(v)) {}    // NOLINT
  Attr(double v) : value_(v) {}                     // NOLINT
  Attr(const char *v) : value_(std::string(v)) {}   // NOLINT
  Attr(std::string v) : value_(std::move(v)) {}     // NOLINT
  Attr(std::initializer_list<int> v) : value_(std::vector<std::int64_t>(v.begin(), v.end())) {}  // NOLINT
  Attr(std::initializer_list<double> v) : value_(std::vector<double>(v)) {}                        // NOLINT
  Attr(std::initializer_list<const char *> v) : value_(std::vector<std::string>(v.begin(), v.end())) {}  // NOLINT
  Attr(std::vector<std::int64_t> v) : value_(std::move(v)) {}  // NOLINT
  Attr(std::vector<double> v) : value_(std::move(v)) {}        // NOLINT
  Attr(std::vector<std::string> v) : value_(std::move(v)) {}   // NOLINT
  const Value &value() const { return value_; }

private:
  Value value_;
};

/// A graph of operators under construction. Declare its parameters, inputs,
/// weights, nodes and outputs, then finalize(): it infers every produced
/// tensor's type and checks the whole graph (unknown tensors, cycles,
/// duplicates, operator rules), throwing a UserError that names the graph
/// and the node. A finalized graph is read-only (another add_* is a
/// UserError). Copies are independent.
class GraphBuilder {
public:
  explicit GraphBuilder(std::string name);
  /// One graph object of the batch format (batch-format.md: an element of a
  /// batch's "graphs" array), read and finalized. Errors are located
  /// relative to the object ("at /nodes/1/op", or the line and column of a
  /// JSON syntax error). Schedule hints ("schedule") are honoured as in a batch.
  static GraphBuilder from_json(const std::string &graph_json);

  GraphBuilder(const GraphBuilder &other);
  GraphBuilder &operator=(const GraphBuilder &other);
  GraphBuilder(GraphBuilder &&other) noexcept;
  GraphBuilder &operator=(GraphBuilder &&other) noexcept;
  ~GraphBuilder();

  /// A symbolic dimension `name` (used in shapes as Dim::sym(name)) with its range.
  void add_param(const std::string &name, std::int64_t min, std::int64_t max);
  /// A run-time input. `init` says how test data is made ("uniform(-1,1)",
  /// batch-format.md), for run_graphs with verify or bench.
  void add_input(const std::string &name, TensorType type, std::string init = {});
  /// A weight the caller passes at run time (`init` as for inputs).
  void add_weight(const std::string &name, TensorType type, std::string init = {});
  /// A weight with its values (row-major, as doubles): a compile-time
  /// constant that a module owns.
  void add_weight_data(const std::string &name, TensorType type, std::vector<double> data);
  /// An operator application (docs/batch-format.md, "Operators"); `name`
  /// defaults to "n<position>".
  void add_node(const std::string &op, std::vector<std::string> inputs, std::vector<std::string> outputs,
                const std::map<std::string, Attr> &attrs = {}, const std::string &name = {});
  void add_output(const std::string &name);

  /// Checks the graph and infers its types; UserError when it does not hold.
  void finalize();
  bool finalized() const;

  const std::string &name() const;
  std::vector<std::string> inputs() const;
  std::vector<std::string> weights() const;
  std::vector<std::string> outputs() const;
  /// The type of a declared or (once finalized) produced tensor; any other
  /// name is a UserError.
  TensorType tensor_type(const std::string &tensor) const;
  /// Total FLOPs of its operators (finalized, concrete shapes; with symbolic
  /// dimensions, at `params`).
  std::int64_t flops(const std::map<std::string, std::int64_t> &params = {}) const;
  /// The graph as `atoll explain --stage graph` prints it (finalized).
  std::string text() const;
  /// Its Graphviz form (finalized).
  std::string dot() const;

  struct Impl;  ///< the graph IR; defined inside the library

private:
  std::unique_ptr<Impl> impl_;
  friend const Impl &graph_builder_impl(const GraphBuilder &builder);
  friend GraphBuilder make_graph_builder(std::unique_ptr<Impl> impl);
};

}  // namespace atl
