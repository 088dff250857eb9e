// Atoll embedded in another compiler: compile one graph for a target into a
// Module that holds its kernels, print any stage, write its code, and run it
// on buffers the caller owns. Reference: docs/api.md, "Compile a graph into
// a module". The C API (atoll.h) is a thin layer over this class.
//
// This header needs only the standard library and Atoll's public headers:
// no Boost, nlohmann, isl or LLVM type appears in it. A graph built in code
// is a GraphBuilder (<atoll/graph.h>).
//
// Errors: everything the caller gets wrong (a graph that does not read, an
// unknown operator, an option, a tensor name, a missing or null buffer, a
// stage name) is an atl::UserError whose what() names the place; nothing
// the caller passes makes Atoll crash.
#pragma once

#include <atoll/diagnostics.h>
#include <atoll/graph.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace atl {

/// How to compile a module.
struct ModuleOptions {
  /// "cpu" (LLVM JIT, default) or "cpu-c" (C99 through the system C compiler,
  /// loaded as a shared object).
  std::string target = "cpu";
  /// Threads that parallel loops use. This is a setting of the whole process
  /// (as `atoll --threads`), made when the module is compiled: 0 (default)
  /// leaves the current setting, n > 0 sets n threads, -1 all cores.
  int threads = 0;
  /// A value for every symbolic dimension of the graph (required when it has
  /// any; a name the graph does not declare is an error). The module's
  /// tensors have the shapes of these values; its kernels, compiled for
  /// the symbolic graph, are called with them.
  std::map<std::string, std::int64_t> params;
  /// "isl", "pluto" or "feautrier": overrides the graph's scheduler hint.
  /// Empty: the graph's hint (or the default).
  std::string scheduler;
  /// A tuning records file (docs/tuning.md): each cluster with a record of
  /// this machine that beat the default compiles with that record's point.
  /// Empty: none. An unreadable file is a UserError.
  std::string records;
};

/// One buffer of a call: a tensor's name and its dense row-major storage in
/// the tensor's dtype (f32 = float, f16 and bf16 = uint16_t bits, i8 =
/// int8_t, i32 = int32_t, i64 = int64_t, bool = uint8_t 0 or 1). Inputs are
/// only read; outputs are written whole.
struct Binding {
  const char *name = nullptr;
  void *data = nullptr;
};

class Module;

/// Compiles one graph object of the batch format (batch-format.md: an
/// element of a batch's "graphs" array, with its "name"). Errors are
/// UserErrors whose location is relative to the graph object: the line and
/// column of a JSON syntax error, "at /nodes/1/op" and the node's name for
/// an unknown operator.
Module compile_graph_json(const std::string &graph_json, const ModuleOptions &options = {});

/// Compiles a graph built in code (finalized: GraphBuilder::finalize) or
/// read with GraphBuilder::from_json.
Module compile(const GraphBuilder &graph, const ModuleOptions &options = {});

/// A compiled graph: its kernels, its own weights (those with inline data)
/// and folded constants, and the values of its symbolic dimensions. Copies
/// share the same compiled code (a Module is a handle; copying is cheap).
///
/// Threads: after compile returns, a Module is read-only. run(), explain(),
/// write() and the queries may be called from several threads at once, on
/// the same Module or its copies; each run() call gets its own arena (one
/// block: intermediates, temporaries and the call's pointer table, kept by
/// the Module for a later call: as many blocks as calls ran at once) and
/// works on its caller's buffers, so calls on different buffers do not
/// interact. What the calls share, read-only: the code, the module's own
/// weights and constants, and (when every weight is the module's own) the
/// tensors its weight phase made once at compile time. The thread count of
/// parallel loops (ModuleOptions::threads) is one setting of the process.
/// explain() keeps the texts it made, behind a lock.
class Module {
public:
  /// An empty module (not compiled): every call on it but has_tensor (false)
  /// is a UserError.
  Module();

  /// The graph's name.
  const std::string &name() const;
  /// "cpu" or "cpu-c".
  const std::string &target() const;
  /// The tensors the caller passes besides the outputs: the graph's inputs
  /// in declaration order, then its weights without inline data (weights
  /// with data are the module's own).
  const std::vector<std::string> &inputs() const;
  /// The graph's outputs, in the graph's order.
  const std::vector<std::string> &outputs() const;
  /// The graph's weights with inline data: the module's own, never passed
  /// to run().
  const std::vector<std::string> &own_weights() const;
  /// Whether `name` is an input or an output (of inputs() or outputs()).
  bool has_tensor(const std::string &name) const;
  /// The shape of an input or output at the module's parameter values.
  /// Any other name is a UserError listing the module's tensors.
  std::vector<std::int64_t> shape(const std::string &name) const;
  /// Its dtype: "f32", "f16", "bf16", "i8", "i32", "i64", "bool", "u8" or "f64".
  std::string dtype(const std::string &name) const;
  /// Bytes of its buffer: elements times the dtype's size.
  std::int64_t bytes(const std::string &name) const;
  /// The symbolic dimensions' values the module was compiled at.
  const std::map<std::string, std::int64_t> &params() const;
  /// Kernels, in call order.
  std::size_t num_kernels() const;
  /// The bytes of one call's arena (intermediates and temporaries).
  std::int64_t arena_bytes() const;

  /// Runs the module once on the caller's buffers: `inputs` names every
  /// input (inputs()), `outputs` every output (outputs()), each with a
  /// buffer of bytes(name) bytes. The kernels read the inputs and write the
  /// outputs in place: nothing is copied in or out (an output the kernels
  /// leave in another buffer, a view of an input or of an intermediate, is
  /// copied into its own).
  /// Buffers must not overlap. A name that is not an input (resp. output), a
  /// missing name or a null pointer is a UserError naming it; then no
  /// buffer was written. Rounding is round-to-nearest during the call.
  void run(const std::map<std::string, const void *> &inputs, const std::map<std::string, void *> &outputs) const;
  /// The same with every input and output in one list, in any order, each
  /// exactly once (a repeated name is a UserError). The call takes one
  /// block (the arena, the tensors of a weight phase that runs in every
  /// call; a free one of an earlier call, else a new one that the Module
  /// keeps) and, for more than 32 inputs and outputs, its pointer table.
  void run(const Binding *buffers, std::size_t count) const;
  void run(const std::vector<Binding> &buffers) const { run(buffers.data(), buffers.size()); }

  /// The text of one stage, as `atoll explain` prints it: "scop", "deps",
  /// "schedule", "ast" (per kernel, after a header line), "llvm" (the LLVM
  /// IR as lowered), "c" (the C99 source), or the name of a pass of the CPU
  /// pipeline (`atoll explain --list-stages`, e.g. "tile_for_cpu"): the IR
  /// after that pass, per kernel (the graph is scheduled once more, with
  /// --print-after of that pass). Any other name is a UserError listing the
  /// stages. Texts are made once and kept.
  std::string explain(const std::string &stage) const;
  /// The stages explain() accepts: the six above, then the passes in order.
  static std::vector<std::string> stages();

  /// Writes the module's code into `dir` (created if needed) as `atoll
  /// compile` writes it for the target: NAME.o and NAME.h (cpu) or NAME.c
  /// (cpu-c), with the kernels' symbols as in a batch of one graph, and
  /// NAME.constants/TENSOR.npy for every constant the compiler folded. No
  /// manifest.json: `atoll compile` writes that. Returns the files written,
  /// relative to `dir`.
  std::vector<std::string> write(const std::string &dir) const;

  struct Impl;  ///< the compiled code and its run plan; defined inside the library

private:
  explicit Module(std::shared_ptr<const Impl> impl);
  friend Module compile(const GraphBuilder &, const ModuleOptions &);
  friend Module compile_graph_json(const std::string &, const ModuleOptions &);
  const Impl &impl(const char *what) const;
  std::shared_ptr<const Impl> impl_;
};

}  // namespace atl
