// Takes a positive constant factor out of a max or min reduction into its readers.
#include "polyhedral/transforms/scop/factor_reduction_scale.h"

#include "polyhedral/scop/collect_reads.h"

#include <memory>

namespace atl::poly {

namespace {

using compute::AssignOp;
using compute::BinOp;
using compute::Expr;
using compute::ExprKind;
using compute::ExprPtr;

/// The factored form of a reduction's value: `e` and how its readers apply
/// the factor (`factor` with `op`), or nothing.
struct Factor {
  ExprPtr value, factor;
  BinOp op = BinOp::Mul;
};
std::optional<Factor> split_factor(const Scop &scop, const Expr &rhs) {
  if (rhs.kind != ExprKind::Binary || rhs.args.size() != 2 || !rhs.args[0] || !rhs.args[1]) return std::nullopt;
  if (rhs.binop == BinOp::Mul) {
    if (positive_constant(scop, *rhs.args[1])) return Factor{rhs.args[0], rhs.args[1], BinOp::Mul};
    if (positive_constant(scop, *rhs.args[0])) return Factor{rhs.args[1], rhs.args[0], BinOp::Mul};
  }
  if (rhs.binop == BinOp::Div && positive_constant(scop, *rhs.args[1]))
    return Factor{rhs.args[0], rhs.args[1], BinOp::Div};
  return std::nullopt;
}

/// `e` with every read of `array` applied the factor.
ExprPtr scale_reads(const ExprPtr &e, const std::string &array, const Factor &f) {
  if (e->kind == ExprKind::Read && e->name == array) {
    auto scaled = std::make_shared<Expr>();
    scaled->kind = ExprKind::Binary;
    scaled->binop = f.op;
    scaled->line = e->line, scaled->column = e->column;
    scaled->args = {e, f.factor};
    return scaled;
  }
  return map_args(e, [&](const ExprPtr &a) { return scale_reads(a, array, f); });
}

}  // namespace

std::vector<std::string> factor_reduction_scales(Scop &scop) {
  std::vector<std::string> done;
  for (std::size_t k = 0; k < scop.statements.size(); ++k) {
    const ScopStatement &s = scop.statements[k];
    if (s.init || (s.op != AssignOp::Max && s.op != AssignOp::Min) || !s.rhs) continue;
    const ScopArray *a = scop.array(s.write.array);
    if (!a || a->array.dtype != DType::F32 ||
        (a->kind != ScopArray::Kind::ClusterLocal && a->kind != ScopArray::Kind::NodeInternal))
      continue;
    std::optional<Factor> f = split_factor(scop, *s.rhs);
    if (!f) continue;
    // Written only by this reduction and its identity; read as a value, later.
    bool ok = true;
    std::vector<std::size_t> readers;
    for (std::size_t t = 0; t < scop.statements.size() && ok; ++t) {
      if (t == k) continue;
      const ScopStatement &r = scop.statements[t];
      if (r.write.array == s.write.array && !(r.init && r.init_of == s.op)) ok = false;
      const ArrayReads in = array_reads(r.rhs, r.lhs, s.write.array);
      if (in.bad || (in.plain > 0 && t < k)) ok = false;
      if (in.plain > 0) readers.push_back(t);
    }
    if (!ok || readers.empty()) continue;
    scop.statements[k].rhs = f->value;
    rebuild_reads(scop, scop.statements[k]);
    for (std::size_t t : readers) {
      ScopStatement &r = scop.statements[t];
      r.rhs = scale_reads(r.rhs, s.write.array, *f);
      rebuild_reads(scop, r);
    }
    done.push_back(scop.statements[k].name);
  }
  return done;
}

}  // namespace atl::poly
