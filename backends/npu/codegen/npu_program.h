// An NPU kernel as a small program: integer variables, loops, conditions
// and intrinsic calls with their operands as integer expressions. It has
// two readers that give the same instruction sequence:
//
//   emit_npu_c      C99 against npu_intrin.h (compile --target npu, explain --stage npu);
//   npu_interpret   the kernel ABI function that walks the program and
//                   makes the same npu_* calls (run --target npu).
//
// Kernel arguments: the arrays (GM buffers) in LKernel order, then the
// parameter block (int64 per kernel parameter). The interpreter takes one
// argument before them: a block holding the NpuProgram's address.
#pragma once

#include "npu_intrin.h"

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace atl::npu {

// ---- integer expressions ------------------------------------------------
enum class NOp { Const, Var, Add, Sub, Mul, Div, Mod, Min, Max, Lt, Eq, And, CoreId, CoreNum };
struct NExpr;
using NE = std::shared_ptr<const NExpr>;
struct NExpr {
  NOp op = NOp::Const;
  std::int64_t value = 0;  ///< Const
  int var = -1;            ///< Var
  NE a, b;
};
NE lit(std::int64_t v);
NE var(int v);
/// npu_core_id / npu_core_num (a SCALAR instruction each: Set them once).
NE core_id();
NE core_num();
/// Arithmetic that folds constants (Div and Mod are floor division and
/// modulo; every operand the generators use is non-negative).
NE operator+(NE a, NE b);
NE operator-(NE a, NE b);
NE operator*(NE a, NE b);
NE operator/(NE a, NE b);
NE operator%(NE a, NE b);
NE min(NE a, NE b);
NE max(NE a, NE b);
NE lt(NE a, NE b);
NE eq(NE a, NE b);
NE both(NE a, NE b);
/// ceil(a / b) and a rounded up to a multiple of b.
NE ceil_div(NE a, NE b);
NE round_up(NE a, NE b);
/// The value of e when it is a constant.
bool constant(const NE &e, std::int64_t &value);

// ---- intrinsic calls ----------------------------------------------------
struct NAddr {
  npu_mem mem = NPU_UB;
  int arg = -1;  ///< GM: the kernel argument
  NE off;        ///< byte offset (in the argument for GM)
};

struct NShape {
  NE repeat;
  std::uint16_t dst_blk = 1, src0_blk = 1, src1_blk = 1, dst_rep = 8, src0_rep = 8, src1_rep = 8;
  int lanes = 0;  ///< 0: every lane; else the first `lanes` lanes
  NE lane_bit;    ///< when set: the one lane of this index (a run-time value)
};

enum class NCallKind { Copy, LoadL0, Mmad, Fix, VBin, VUn, VScalar, VDup, VReduce, SetFlag, WaitFlag };

struct NCall {
  NCallKind kind = NCallKind::Copy;
  NAddr dst, src0, src1;
  /// Copy: n_burst, burst, src_gap, dst_gap, rows, cols, elem_bytes; LoadL0: n_frac,
  /// frac_stride, transpose; Mmad: m, n, k, init (0 zero, 1 accumulate); Fix: m, n,
  /// relu, dst_row_bytes; SetFlag/WaitFlag: event.
  std::vector<NE> ints;
  int op = 0;  ///< Copy/Fix: npu_layout; VBin/VScalar: npu_vbinop; VUn: npu_vunop; VReduce: npu_vredop
  npu_dtype dt = NPU_F32, dt2 = NPU_F32;  ///< LoadL0/V*: dtype; Mmad: ab, acc; Fix: acc, to
  double scalar = 0;                      ///< VScalar, VDup
  NShape shape;                           ///< V*
  npu_pipe from = NPU_SCALAR, to = NPU_SCALAR;  ///< SetFlag/WaitFlag
};

// ---- statements ---------------------------------------------------------
enum class NStmtKind { Block, For, If, Set, Call };
struct NStmt;
using NS = std::shared_ptr<NStmt>;
struct NStmt {
  NStmtKind kind = NStmtKind::Block;
  std::vector<NS> body;  ///< Block; For and If: their body
  int var = -1;          ///< For: the iterator; Set: the variable
  NE lo, hi, step;       ///< For: var = lo; var < hi; var += step
  NE cond;               ///< If
  NE value;              ///< Set
  NCall call;            ///< Call
  std::string comment;   ///< printed before the statement in C
};

struct NpuProgram {
  std::string name;               ///< the C function's name
  std::vector<std::string> vars;  ///< variable names; the first num_params are the kernel parameters
  int num_params = 0;
  int num_arrays = 0;             ///< GM arguments before the parameter block
  NS body;
  /// Counts for --stats and the goldens.
  int waits() const;
};

/// The C file's head: the include and the helpers the kernels use.
void emit_npu_c_preamble(std::ostream &os);
/// C99 text of the kernel: `void NAME(npu_ctx_t *ctx, void **gm)`.
void emit_npu_c(std::ostream &os, const NpuProgram &program);

/// The kernel ABI entry of the interpreter: gm[0] holds the NpuProgram's
/// address, gm[1..] are the C kernel's arguments.
extern "C" void npu_interpret(npu_ctx_t *ctx, void **gm);

/// The program without its `index`-th wait_flag in program order (for the
/// mutation tests: the hazard checker must report every one).
NpuProgram without_wait(const NpuProgram &program, int index);

}  // namespace atl::npu
