// Pre-compiled statements of the Compute evaluator (internal): flattened
// expression code over registers, affine accesses as linear offsets.
#pragma once

#include "graph/compute/ast.h"

#include <atoll/dtype.h>
#include <atoll/tensor.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace atl::compute::detail {

/// A quasi-affine form over loop positions, parameters folded into `c`.
struct LinForm {
  struct Term {
    bool mod;
    std::int64_t coeff;
    std::shared_ptr<const LinForm> num;
    std::int64_t den;
  };
  std::int64_t c = 0;
  std::vector<std::pair<int, std::int64_t>> coef;  ///< (loop position, coefficient), non-zero
  std::vector<Term> terms;
  std::int64_t eval(const std::int64_t *idx) const;
};

enum class Op : std::uint8_t {
  Index, Move, Jump, JumpIfZero, ReadFast, ReadSlow,
  Neg, Not, Add, Sub, Mul, Div, FloorDiv, Mod, Lt, Le, Gt, Ge, Eq, Ne, And, Or,
  Exp, Log, Sqrt, Tanh, Sigmoid, Erf, Abs, Floor, Min, Max, Pow,
  Sin, Cos, Tan, Asin, Acos, Atan, Sinh, Cosh, Asinh, Acosh, Atanh,
};

/// dst = op(a, b); for Index a is a loop position, for reads an access id,
/// for Jump a is the target, for JumpIfZero a is the condition and b the target.
struct Instr {
  Op op;
  int dst = 0, a = 0, b = 0;
};

/// An access whose offset is base + sum coef[d] * idx[d], proven in bounds.
struct FastAccess {
  double *data;
  std::int64_t base = 0;
  std::vector<std::int64_t> coef;  ///< per loop position
};

/// Any other access: floor/mod subscripts, guard() reads, indirect subscripts.
struct SlowAccess {
  struct Sub {
    bool indirect = false;
    int reg = 0;    ///< indirect: register holding the subscript's value
    LinForm form;   ///< otherwise
    const Expr *expr = nullptr;
  };
  double *data;
  Shape shape;
  std::vector<std::int64_t> strides;
  std::vector<Sub> subs;
  bool guarded = false;
  bool checked = false;  ///< some subscript needs a run-time bounds check
  int fallback = 0;      ///< guarded: register with the padding value
  const Expr *read = nullptr;
};

/// One statement (or an op=! initialisation) ready to run.
struct Kernel {
  std::vector<std::string> names;  ///< loop indices, outer to inner
  std::vector<std::int64_t> lo, hi;
  std::vector<Instr> code;
  std::vector<double> regs;        ///< constants and parameters preset
  std::vector<FastAccess> fast;
  std::vector<SlowAccess> slow;
  int result = 0;                  ///< register with the right-hand side's value
  AssignOp op = AssignOp::Assign;
  DType dtype = DType::F32;
  bool lhs_fast = true;
  int lhs = 0;                     ///< access id of the store
};

/// Where tensors live during evaluation.
struct Storage {
  std::map<std::string, double *> data;
  std::map<std::string, Shape> shapes;
};

/// Compiles statement `st` over the loop indices `loops` (names and ranges);
/// with `init`, the kernel stores `identity` instead of the right-hand side.
Kernel compile_kernel(const Statement &st, const std::vector<std::string> &names, const std::vector<std::int64_t> &lo,
                      const std::vector<std::int64_t> &hi, bool init, double identity, DType dtype,
                      const Storage &storage, const std::map<std::string, std::int64_t> &params);

}  // namespace atl::compute::detail
