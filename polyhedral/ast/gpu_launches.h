// The GPU form of a cluster's loop AST: the kernel split into launches, each
// a loop nest whose loops marked "block_D_K" and "thread_D_K" run across
// the blocks and the threads of a block (transforms/schedule/map_to_gpu puts
// the marks, transforms/ast/split_launches makes the launches, backends/gpu
// prints them as CUDA C++ or OpenCL C).
#pragma once

#include "polyhedral/ast/loop_ast.h"

#include <array>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace atl::poly {

/// A GPU mapping mark: loop dimension `dim` (0 = x, 1 = y, 2 = z) of GPU
/// kernel `kernel` runs across blocks (the tile loops) or threads (the
/// point loops).
struct GpuMark {
  bool thread = false;
  int dim = 0;
  int kernel = 0;
};

/// "block_x_0", "thread_y_2".
std::string gpu_mark_name(const GpuMark &m);
/// The mark a name spells; empty for other names.
std::optional<GpuMark> parse_gpu_mark(const std::string &name);
/// The GPU mark of a loop, if it has one.
std::optional<GpuMark> gpu_mark_of(const LStmt &loop);

/// One kernel launch: a loop nest of the cluster's kernel with the launch
/// sizes. Every launch takes the kernel's arrays and parameters.
struct GpuLaunch {
  std::string name;              ///< the function: the cluster kernel's name + "_k<i>"
  LStmtPtr body;
  /// Blocks per dimension (Index expressions of the kernel's parameters);
  /// the loops are grid-stride loops, so any positive grid is correct.
  std::array<LExprPtr, 3> grid;
  std::array<int, 3> block = {1, 1, 1};  ///< threads per block
  bool mapped = false;           ///< false: the nest runs on one thread (no parallel band)
};

/// The launches of one cluster, in the order they run.
struct GpuProgram {
  std::vector<GpuLaunch> launches;
};

/// `explain --stage split_launches`: each launch with its grid, block and loop nest.
void print_gpu_program(std::ostream &os, const LKernel &kernel, const GpuProgram &program);

}  // namespace atl::poly
