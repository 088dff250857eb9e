// The plan of one NPU kernel: what classify_npu_kernel found in a cluster's
// SCoP (a contraction for the cube with an elementwise epilogue, or an
// elementwise kernel for the vector unit), how each array is read as a
// tile, and the tile sizes tile_for_npu chose. backends/npu/codegen reads
// it to build the kernel's NPU program.
//
// The iteration space is the output's: dims [batch..., m, n] for the cube
// (m rows and n columns of the output matrix, k the contraction), and
// [rows..., n] for a vector kernel (the leading dims flattened into rows,
// n the last, contiguous dim).
#pragma once

#include "graph/compute/ast.h"

#include <atoll/dtype.h>
#include <atoll/graph.h>

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace atl::poly {

/// How a kernel reads or writes an array, tile by tile.
struct NpuOperand {
  std::string array;
  DType dtype = DType::F32;
  SymShape shape;
  /// Per array dim: the space dim its subscript is (the index itself), or
  /// -1 for a dim of extent 1 read at 0 (broadcast). For the cube's A and
  /// B, kNpuK marks the contraction index.
  std::vector<int> dims;
  enum class Form {
    Full,   ///< every element of a tile: depends on the rows and the columns
    Row,    ///< one row broadcast over the tile's rows: depends on n only
    Col,    ///< one value per row, broadcast over the columns: a row reduction's result
    Scalar, ///< a compile-time constant
  } form = Form::Full;
  std::optional<double> constant;  ///< Form::Scalar
  bool output = false;             ///< written back to global memory
  bool loaded_col = false;         ///< Form::Col read from global memory (not a reduction's result)
};

inline constexpr int kNpuK = -2;  ///< NpuOperand::dims: the contraction index

/// One statement of the kernel, in order: `array[space] = rhs`, or for a
/// row reduction (vector kernels) `array[rows] op= rhs` over the columns.
struct NpuStatement {
  std::string name;   ///< the polyhedral statement (NODE_k)
  std::string node;   ///< the graph node
  std::string array;  ///< the array it writes
  compute::ExprPtr rhs;
  compute::AssignOp op = compute::AssignOp::Assign;  ///< Add, Max or Min: a row reduction
  bool per_row = false;  ///< writes one value a row from per-row values (a reduction's scaling)
  /// A plain copy `array = other` of a tile nothing reads after it: the
  /// array takes the other's tile (NpuKernelPlan::tile_alias), no instruction.
  bool alias = false;
};

struct NpuKernelPlan {
  enum class Kind { Cube, Vector } kind = Kind::Vector;
  std::string cluster;
  DType dtype = DType::F32;  ///< every array's: f32 or f16 (the cube accumulates f16 in f32)
  SymShape space;  ///< extents of the space dims (see above)
  // The cube: C[batch..., m, n] = sum_k A * B, then the statements.
  int m = -1, n = -1;              ///< space dims of the output's rows and columns (-1: extent 1)
  std::vector<int> batch;          ///< the other space dims
  Dim k_extent;                    ///< the contraction's extent
  NpuOperand a, b;                 ///< A as [m, k] and B as [k, n], possibly stored transposed
  bool a_transposed = false;       ///< A stored as [k, m]
  bool b_transposed = false;       ///< B stored as [n, k]
  std::string c;                   ///< the accumulator array
  std::string contraction;         ///< its statement
  // Every array the statements read or write (the cube's A and B apart).
  std::map<std::string, NpuOperand> operands;
  std::vector<NpuStatement> statements;
  /// Row reductions: a tile holds whole rows (tc covers the last dim).
  bool whole_rows = false;
  /// A vector kernel whose operands are not all contiguous over the leading
  /// dims (a Transpose that keeps the last dim, a broadcast along a leading
  /// dim): tiles are rows of dim R-2 only, per index of the dims before it
  /// (like the cube's batch), each operand read with its own row pitch.
  bool batched_rows = false;
  /// Arrays that share another's UB tile (copies, see NpuStatement::alias).
  std::map<std::string, std::string> tile_alias;
  // Tile sizes (tile_for_npu): the cube's mc x nc output tile, kc the L1
  // chunk of k and k0 the L0 step; a vector kernel's tr x tc tile.
  std::int64_t mc = 0, nc = 0, kc = 0, k0 = 0, tr = 0, tc = 0;
  /// Slots of a vector kernel's UB tiles: 2 (double buffering) unless even
  /// the smallest tile does not fit twice.
  int ub_slots = 2;
  /// The cube's A panel (mc rows, all of k in kc chunks) stays in L1 over
  /// a row of output tiles; cores take whole panels.
  bool a_panel = false;
  double estimated_cycles = 0;  ///< the analytical cost of the chosen tiles
  std::string tiles_from;       ///< "cost model" or "tile hint"
};

/// explain --stage classify_npu_kernel / tile_for_npu.
void print_npu_plan(std::ostream &os, const NpuKernelPlan &plan);

}  // namespace atl::poly
