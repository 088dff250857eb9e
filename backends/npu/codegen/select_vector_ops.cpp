// select_vector_ops: each statement of an NPU kernel's tile as vector
// instructions over UB tiles in NZ (three-address code over temporaries
// released after use, broadcast operands read in place, constants as
// scalar operands, the math functions as sequences of the unit's ops).
// The temporaries it takes are the ones poly::npu_ub_tiles counts.
#include "backends/npu/codegen/npu_builder.h"

namespace atl::npu::codegen {

void Gen::statements(const NE &slot, const NE &rows16, const NE &cols16) {
  const NE full_elems = rows16 * cols16, row_elems = rows16 * lit(32 / kEb);
  cur_slot = slot;
  const int jvar = new_var("j"), rvar = new_var("r");
  expand_cols(slot, rows16, rvar);
  for (const poly::NpuStatement &st : plan.statements) {
    if (st.alias) continue;  // the array shares its source's tile
    std::size_t next_temp = 0;
    // A per-row statement works on the blocks of 8 copies a row.
    const NE elems = st.per_row ? row_elems : full_elems;
    auto temp = [&]() -> NE {
      if (next_temp >= temps.size())
        throw UserError("--target npu: kernel " + kernel.name + ": statement " + st.name +
                        " needs more temporaries than were counted");
      return temps[next_temp++];
    };
    // Mirrors poly::npu_ub_tiles' count: a node writes into `dst`, or a
    // new temporary; its first operand may be computed in that place when
    // it is a temporary or `early` (the statement's array is not read).
    std::function<Val(const compute::Expr &, NE, bool)> eval = [&](const compute::Expr &e, NE dst,
                                                                   bool early) -> Val {
      using compute::ExprKind;
      switch (e.kind) {
        case ExprKind::Number:
          return {true, e.number, nullptr};
        case ExprKind::Read: {
          const NpuOperand &o = plan.operands.at(e.name);
          if (o.form == NpuOperand::Form::Scalar) return {true, *o.constant, nullptr};
          if (o.form == NpuOperand::Form::Full) return {false, 0, tile_at(e.name, slot)};
          if (st.per_row) return {false, 0, cols.at(e.name)};
          NE t = dst && early ? dst : temp();
          broadcast_op(NPU_ADD, t, nullptr, broadcast_of(e), o.form == NpuOperand::Form::Col, rows16, cols16, jvar);
          return {false, 0, t};
        }
        default:
          break;
      }
      const bool inherit = !dst || early;
      NE out = dst ? dst : temp();
      const std::size_t kept = next_temp;  // this node's own temporary stays; its operands' go after it
      struct Release {
        std::size_t &next, kept;
        ~Release() { next = kept; }
      } release{next_temp, kept};
      auto first = [&](const compute::Expr &a) { return eval(a, inherit ? out : nullptr, true); };
      // A broadcast operand (row or per-row) of a binary op is read in place.
      const int bi = poly::npu_broadcast_operand(e, plan, st.per_row);
      auto with_broadcast = [&](int op) -> Val {
        const compute::Expr &leaf = *e.args[bi];
        const Val x = first(*e.args[1 - bi]);
        const bool col = plan.operands.at(leaf.name).form == NpuOperand::Form::Col;
        const NE b = broadcast_of(leaf);
        const bool commutes = op == NPU_ADD || op == NPU_MUL || op == NPU_MAX || op == NPU_MIN;
        if (bi == 1 || commutes) {
          broadcast_op(op, out, x.tile, b, col, rows16, cols16, jvar);
        } else if (op == NPU_SUB) {  // b - x = -(x - b)
          broadcast_op(NPU_SUB, out, x.tile, b, col, rows16, cols16, jvar);
          vun(NPU_NEG, out, out, elems);
        } else {  // b / x = (1 / x) * b
          vun(NPU_RECIP, out, x.tile, elems);
          broadcast_op(NPU_MUL, out, out, b, col, rows16, cols16, jvar);
        }
        return {false, 0, out};
      };
      auto unary = [&](int op, const Val &x) {
        vun(op, out, x.tile, elems);
        return Val{false, 0, out};
      };
      auto binary = [&](int op, const Val &x, const Val &y) -> Val {
        if (x.is_const && y.is_const) {
          double r = op == NPU_ADD ? x.c + y.c : op == NPU_SUB ? x.c - y.c : op == NPU_MUL ? x.c * y.c
                   : op == NPU_DIV ? x.c / y.c : op == NPU_MAX ? std::max(x.c, y.c) : std::min(x.c, y.c);
          return {true, static_cast<double>(static_cast<float>(r)), nullptr};
        }
        if (!x.is_const && !y.is_const) {
          vbin(op, out, x.tile, y.tile, elems);
        } else if (!x.is_const) {  // tile op constant
          if (op == NPU_SUB) vscalar(NPU_ADD, out, x.tile, -y.c, elems);
          else vscalar(op, out, x.tile, y.c, elems);
        } else {  // constant op tile
          if (op == NPU_SUB) {
            vun(NPU_NEG, out, y.tile, elems);
            vscalar(NPU_ADD, out, out, x.c, elems);
          } else if (op == NPU_DIV) {
            vun(NPU_RECIP, out, y.tile, elems);
            vscalar(NPU_MUL, out, out, x.c, elems);
          } else {
            vscalar(op, out, y.tile, x.c, elems);
          }
        }
        return {false, 0, out};
      };
      auto as_tile = [&](Val v) {  // a constant operand of a unary op
        if (v.is_const) {
          vdup(out, v.c, elems);
          v = {false, 0, out};
        }
        return v;
      };
      switch (e.kind) {
        case ExprKind::Unary:
          return unary(NPU_NEG, as_tile(first(*e.args[0])));
        case ExprKind::Binary: {
          int op = e.binop == compute::BinOp::Add ? NPU_ADD : e.binop == compute::BinOp::Sub ? NPU_SUB
                 : e.binop == compute::BinOp::Mul ? NPU_MUL : NPU_DIV;
          if (bi >= 0) return with_broadcast(op);
          Val x = first(*e.args[0]), y = eval(*e.args[1], nullptr, true);
          return binary(op, x, y);
        }
        case ExprKind::Call: {
          if (e.func == compute::Func::Max || e.func == compute::Func::Min) {
            if (bi >= 0) return with_broadcast(e.func == compute::Func::Max ? NPU_MAX : NPU_MIN);
            Val x = first(*e.args[0]), y = eval(*e.args[1], nullptr, true);
            return binary(e.func == compute::Func::Max ? NPU_MAX : NPU_MIN, x, y);
          }
          Val x = as_tile(first(*e.args[0]));
          switch (e.func) {
            case compute::Func::Exp: return unary(NPU_EXP, x);
            case compute::Func::Log: return unary(NPU_LN, x);
            case compute::Func::Sqrt: return unary(NPU_SQRT, x);
            case compute::Func::Tanh: return unary(NPU_TANH, x);
            case compute::Func::Abs: return unary(NPU_ABS, x);
            case compute::Func::Sigmoid:  // 1 / (1 + exp(-x))
              vun(NPU_NEG, out, x.tile, elems);
              vun(NPU_EXP, out, out, elems);
              vscalar(NPU_ADD, out, out, 1.0, elems);
              vun(NPU_RECIP, out, out, elems);
              return {false, 0, out};
            case compute::Func::Erf: {
              // Abramowitz and Stegun 7.1.26 (|error| <= 1.5e-7):
              //   erf(x) = s (1 - (a1 t + ... + a5 t^5) exp(-x^2)), t = 1 / (1 + p |x|),
              // s = x / (|x| + 1e-30): the sign, and 0 where x is 0 (so is the rest).
              // x may be in `out`: it is last read before `out` is written.
              const NE a = temp(), s = temp(), t = temp();
              vun(NPU_ABS, a, x.tile, elems);
              vscalar(NPU_ADD, s, a, 1e-30, elems);
              vbin(NPU_DIV, s, x.tile, s, elems);
              vscalar(NPU_MUL, t, a, 0.3275911, elems);
              vscalar(NPU_ADD, t, t, 1.0, elems);
              vun(NPU_RECIP, t, t, elems);
              const double c[] = {0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429};
              vscalar(NPU_MUL, out, t, c[4], elems);
              for (int i = 3; i >= 0; --i) {
                vscalar(NPU_ADD, out, out, c[i], elems);
                vbin(NPU_MUL, out, out, t, elems);
              }
              vbin(NPU_MUL, a, a, a, elems);
              vun(NPU_NEG, a, a, elems);
              vun(NPU_EXP, a, a, elems);
              vbin(NPU_MUL, out, out, a, elems);
              vun(NPU_NEG, out, out, elems);
              vscalar(NPU_ADD, out, out, 1.0, elems);
              vbin(NPU_MUL, out, out, s, elems);
              return {false, 0, out};
            }
            default:
              break;
          }
          break;
        }
        default:
          break;
      }
      throw UserError("--target npu: node '" + st.node + "': an operation without an NPU vector sequence");
    };
    if (st.op != compute::AssignOp::Assign) {
      const NE e = temp();
      Val v = eval(*st.rhs, e, true);
      if (v.is_const) vdup(e, v.c, elems);
      else if (v.tile.get() != e.get()) vscalar(NPU_ADD, e, v.tile, 0.0, elems);
      std::int64_t cc = 1;
      (void)constant(extent(plan.space.back()), cc);
      reduce_rows(st.op, e, cols.at(st.array), rows16, cc, rvar);
      continue;
    }
    const NE dst = st.per_row ? cols.at(st.array) : tile_at(st.array, slot);
    Val v = eval(*st.rhs, dst, !poly::npu_reads(*st.rhs, st.array));
    if (v.is_const) vdup(dst, v.c, elems);
    else if (v.tile.get() != dst.get()) vscalar(NPU_ADD, dst, v.tile, 0.0, elems);  // a plain copy
  }
}

}  // namespace atl::npu::codegen
