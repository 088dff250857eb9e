// Compiles a graph built through the C++ API and runs its kernels directly on
// caller-owned buffers (no tensor conversion in the timed path).
#pragma once

#include "graph/ir/graph.h"

#include "bench/measure.h"
#include "src/pipeline/compile_graph.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace atl::bench {

/// A compiled Atoll graph bound to raw f32 buffers.
class AtollRunner {
public:
  /// Compiles `graph` (finalized, concrete, f32 tensors) `compile_reps` times
  /// (timing each compile, keeping the last). Throws UserError as compile_graph does.
  AtollRunner(const Graph &graph, int compile_reps);

  /// Binds a graph input, weight or output to caller storage (dense row-major f32).
  void bind(const std::string &tensor, float *data);
  /// Allocates intermediates (own zero-filled buffers, not Atoll's arena),
  /// temporaries and folded constants, and builds the kernel calls; every
  /// input and output must be bound. Nothing is cleared between runs: the
  /// kernels initialise what they write (the result check would catch it otherwise).
  void prepare();
  /// Runs every kernel once, in order.
  void run();

  double compile_ms_median() const { return compile_median_; }
  const std::vector<double> &compile_ms() const { return compile_ms_; }
  int kernels() const { return static_cast<int>(compiled_.functions.size()); }
  /// What ran: the scheduler and loop marks (parallel, vector, ...) per kernel,
  /// and the optimizer's non-zero statistics.
  std::string description() const;

private:
  /// Where a tensor lives: its storage base (itself, or the base it is a view of) and an offset in floats.
  struct Place {
    std::string base;
    std::int64_t offset = 0;
  };
  Place place(const std::string &tensor) const;

  Graph graph_;
  CompiledGraph compiled_;
  std::vector<double> compile_ms_;
  double compile_median_ = 0;
  std::map<std::string, float *> bound_;
  std::map<std::string, Buffer> owned_;  ///< intermediates, constants, temporaries
  struct Call {
    std::vector<void *> arrays;
    std::vector<std::int64_t> params;
  };
  std::vector<Call> calls_;
};

}  // namespace atl::bench
