// Registry entry of `Compute`, the custom operator written as tensor
// comprehensions: parse, analyze (at several instantiations when shapes are
// symbolic), count FLOPs from the statements, define as the expr itself.
#include "graph/compute/ast.h"
#include "graph/compute/compute.h"
#include "graph/ir/ops/ops_util.h"

#include <functional>
#include <optional>
#include <set>

namespace atl::ops {
namespace {

std::shared_ptr<const compute::Program> program_of(const OpContext &ctx) {
  const nlohmann::json *e = ctx.attr("expr");
  if (!e || !e->is_string()) fail(ctx, "attribute 'expr' (the statements, a string) is required");
  return compute::parse(e->get<std::string>());
}

/// attrs.shape: one int list (the only / first output) or one list per output.
std::map<std::string, Shape> given_shapes(const OpContext &ctx) {
  std::map<std::string, Shape> out;
  const nlohmann::json *s = ctx.attr("shape");
  if (!s) return out;
  auto as_shape = [&](const nlohmann::json &j) {
    Shape sh;
    if (!j.is_array()) fail(ctx, "attribute 'shape' must be a list of sizes or a list of such lists");
    for (const auto &d : j) {
      if (!d.is_number_integer() || d.get<std::int64_t>() < 1)
        fail(ctx, "attribute 'shape' must hold positive integers, got " + d.dump());
      sh.push_back(d.get<std::int64_t>());
    }
    return sh;
  };
  bool nested = s->is_array() && !s->empty() && (*s)[0].is_array();
  if (!nested) {
    out[ctx.node.outputs.at(0)] = as_shape(*s);
    return out;
  }
  if (s->size() != ctx.node.outputs.size())
    fail(ctx, "attribute 'shape' has " + std::to_string(s->size()) + " shapes for " +
                  std::to_string(ctx.node.outputs.size()) + " outputs");
  for (std::size_t i = 0; i < s->size(); ++i) out[ctx.node.outputs[i]] = as_shape((*s)[i]);
  return out;
}

compute::Analysis analyze_at(const OpContext &ctx, const compute::Program &prog,
                             const std::map<std::string, std::int64_t> &values) {
  compute::Signature sig;
  sig.node = ctx.node.name.empty() ? "n0" : ctx.node.name;
  sig.params = values;
  for (std::size_t i = 0; i < ctx.inputs.size(); ++i) {
    if (!has_input(ctx, static_cast<int>(i))) continue;
    const TensorType &t = *ctx.inputs[i];
    Shape sh;
    for (const Dim &d : t.shape) sh.push_back(d.is_symbolic() ? values.at(d.symbol) : d.value);
    sig.inputs[ctx.node.inputs[i]] = {compute::TensorRole::Input, t.dtype, sh};
  }
  sig.outputs = ctx.node.outputs;
  sig.output_shapes = given_shapes(ctx);
  return compute::analyze(prog, sig);
}

/// Symbols used by the input shapes, with their ranges.
std::map<std::string, ParamRange> symbols(const OpContext &ctx) {
  std::map<std::string, ParamRange> out;
  for (const auto &t : ctx.inputs) {
    if (!t) continue;
    for (const Dim &d : t->shape) {
      if (!d.is_symbolic()) continue;
      if (!ctx.params || !ctx.params->count(d.symbol))
        fail(ctx, "symbolic dimension '" + d.symbol + "' has no declared range (params)");
      out[d.symbol] = ctx.params->at(d.symbol);
    }
  }
  return out;
}

/// Values for every parameter: symbols get distinct values near the top
/// (`high`) or the bottom of their ranges.
std::map<std::string, std::int64_t> instantiation(const OpContext &ctx, const std::map<std::string, ParamRange> &syms,
                                                   bool high) {
  std::map<std::string, std::int64_t> v;
  if (ctx.params)
    for (const auto &[name, r] : *ctx.params) v[name] = r.min;
  std::set<std::int64_t> used;
  for (const auto &[name, r] : syms) {
    std::int64_t x = high ? r.max : r.min;
    while (used.count(x) && (high ? x > r.min : x < r.max)) x += high ? -1 : 1;
    used.insert(x);
    v[name] = x;
  }
  return v;
}

std::string values_text(const std::map<std::string, ParamRange> &syms, const std::map<std::string, std::int64_t> &v) {
  std::string s;
  for (const auto &[name, r] : syms) s += (s.empty() ? "" : ", ") + name + " = " + std::to_string(v.at(name));
  return s;
}

std::vector<TensorType> infer_compute(const OpContext &ctx) {
  auto prog = program_of(ctx);
  std::map<std::string, ParamRange> syms = symbols(ctx);
  std::vector<std::map<std::string, std::int64_t>> insts = {instantiation(ctx, syms, true)};
  if (!syms.empty()) insts.push_back(instantiation(ctx, syms, false));
  std::vector<compute::Analysis> as;
  for (const auto &v : insts) {
    try {
      as.push_back(analyze_at(ctx, *prog, v));
    } catch (const UserError &e) {
      if (syms.empty()) throw;
      throw UserError(e.reason() + " (with " + values_text(syms, v) + ")", e.where());
    }
  }
  std::vector<TensorType> out;
  for (const std::string &name : ctx.node.outputs) {
    const compute::TensorUse &u0 = as[0].tensors.at(name);
    TensorType t{u0.dtype, to_sym_shape(u0.shape)};
    if (as.size() > 1) {
      const compute::TensorUse &u1 = as[1].tensors.at(name);
      for (std::size_t d = 0; d < u0.shape.size(); ++d) {
        std::int64_t a = u0.shape[d], b = u1.shape[d];
        if (a == b) continue;
        std::string found;
        for (const auto &[sym, r] : syms)
          if (insts[0].at(sym) == a && insts[1].at(sym) == b) found = sym;
        if (found.empty())
          fail(ctx, "output '" + name + "' dimension " + std::to_string(d) + " is " + std::to_string(a) + " with " +
                        values_text(syms, insts[0]) + " but " + std::to_string(b) + " with " +
                        values_text(syms, insts[1]) +
                        ": a symbolic output dimension must be one of the symbols itself");
        t.shape[d] = Dim::sym(found);
      }
    }
    out.push_back(t);
  }
  return out;
}

/// Arithmetic operations of an expression; subscripts are not counted.
std::int64_t count_ops(const compute::Expr &e) {
  using compute::ExprKind;
  switch (e.kind) {
  case ExprKind::Number:
  case ExprKind::Var:
  case ExprKind::Read: return 0;
  case ExprKind::Guard: return count_ops(*e.args[1]);
  case ExprKind::Unary:
  case ExprKind::Binary:
  case ExprKind::Select:
  case ExprKind::Call: break;
  }
  std::int64_t n = 1;
  for (const auto &a : e.args) n += count_ops(*a);
  return n;
}

std::int64_t flops_compute(const OpContext &ctx) {
  auto prog = program_of(ctx);
  compute::Analysis a = analyze_at(ctx, *prog, instantiation(ctx, {}, false));
  std::int64_t total = 0;
  for (const auto &st : a.statements) {
    if (st.init) continue;
    const compute::Statement &s = prog->statements.at(st.source);
    std::int64_t points = 1;
    for (const auto &i : st.indices) points *= std::max<std::int64_t>(0, i.hi - i.lo);
    total += points * (count_ops(*s.rhs) + (s.op == compute::AssignOp::Assign ? 0 : 1));
  }
  return total;
}

OpDefinition define_compute(const OpContext &ctx) {
  return {ctx.attr_string("expr", ""), ctx.node.inputs, ctx.node.outputs};
}

}  // namespace

std::vector<OpInfo> compute_ops() {
  return {OpInfo{"Compute", PatternKind::Opaque, 0, -1, 1, 64, {{"expr", AttrKind::String}, {"shape", AttrKind::Any}},
                 {}, infer_compute, flops_compute, define_compute}};
}

}  // namespace atl::ops

namespace atl {

namespace {

/// Reads in `e`: false when one is neither at exactly `lhs` nor of a tensor of
/// lower rank, or is a guarded read of full rank; counts the reads at `lhs`.
bool pointwise_reads(const compute::Expr &e, const compute::Expr &lhs, int &identity) {
  using compute::ExprKind;
  if (e.kind == ExprKind::Guard) {
    // A guarded read of a lower-rank tensor (a per-channel parameter of a
    // padded channel block) broadcasts like an unguarded one.
    const compute::Expr &r = *e.args[0];
    if (r.kind != ExprKind::Read || r.name == lhs.name || r.args.size() >= lhs.args.size()) return false;
    for (const compute::ExprPtr &a : e.args)
      if (!pointwise_reads(*a, lhs, identity)) return false;
    return true;
  }
  if (e.kind == ExprKind::Read) {
    if (e.name == lhs.name) return false;
    bool same = e.args.size() == lhs.args.size();
    for (std::size_t i = 0; same && i < e.args.size(); ++i)
      same = e.args[i]->kind == ExprKind::Var && e.args[i]->name == lhs.args[i]->name;
    if (same) {
      ++identity;
      return true;
    }
    if (e.args.size() >= lhs.args.size()) return false;
  }
  for (const compute::ExprPtr &a : e.args)
    if (!pointwise_reads(*a, lhs, identity)) return false;
  return true;
}

}  // namespace

PatternKind compute_pattern(const OpContext &ctx) {
  std::shared_ptr<const compute::Program> p;
  try {
    p = compute::parse(ctx.attr_string("expr", ""));
  } catch (const std::exception &) {
    return PatternKind::Opaque;
  }
  // A copy `Y(f(i, ...)) = X(g(i, ...))` (a layout conversion): data
  // movement, unless it is the identity.
  auto copy_kind = [](const compute::Statement &st) -> std::optional<PatternKind> {
    if (!st.lhs || !st.rhs || st.op != compute::AssignOp::Assign || st.init ||
        st.rhs->kind != compute::ExprKind::Read || st.rhs->name == st.lhs->name)
      return std::nullopt;
    bool plain = true;
    std::function<void(const compute::Expr &)> check = [&](const compute::Expr &e) {
      if (e.kind == compute::ExprKind::Read || e.kind == compute::ExprKind::Guard) plain = false;
      for (const compute::ExprPtr &a : e.args) check(*a);
    };
    for (const compute::ExprPtr &a : st.rhs->args) check(*a);
    for (const compute::ExprPtr &a : st.lhs->args) check(*a);
    if (!plain) return std::nullopt;
    std::set<std::string> vars;
    bool identity = st.lhs->args.size() == st.rhs->args.size();
    for (std::size_t i = 0; identity && i < st.lhs->args.size(); ++i)
      identity = st.lhs->args[i]->kind == compute::ExprKind::Var && st.rhs->args[i]->kind == compute::ExprKind::Var &&
                 st.lhs->args[i]->name == st.rhs->args[i]->name && vars.insert(st.lhs->args[i]->name).second;
    return identity ? PatternKind::Elementwise : PatternKind::Injective;
  };
  // A contraction `Y(i, ...) +=! X(...) * W(...)` (a blocked convolution): its
  // output takes elementwise epilogues, like Conv and MatMul.
  auto contraction = [](const compute::Statement &st) {
    if (!st.lhs || !st.rhs || st.op != compute::AssignOp::Add || !st.init) return false;
    std::set<std::string> seen;
    for (const compute::ExprPtr &a : st.lhs->args)
      if (a->kind != compute::ExprKind::Var || !seen.insert(a->name).second) return false;
    std::function<bool(const compute::Expr &)> plain = [&](const compute::Expr &e) {
      if (e.kind == compute::ExprKind::Guard || (e.kind == compute::ExprKind::Read && e.name == st.lhs->name)) return false;
      for (const compute::ExprPtr &a : e.args)
        if (!plain(*a)) return false;
      return true;
    };
    bool product = st.rhs->kind == compute::ExprKind::Binary && st.rhs->binop == compute::BinOp::Mul &&
                   st.rhs->args.size() == 2 && st.rhs->args[0]->kind == compute::ExprKind::Read &&
                   st.rhs->args[1]->kind == compute::ExprKind::Read;
    return product && plain(*st.rhs);
  };
  // Its bias, added in place: `Y(i, ...) += B(f(i, ...))` at every element
  // of Y, reading neither Y nor anything through a guard, with no index of
  // its own (block_conv_layout writes a Conv's bias so).
  auto bias_of = [](const compute::Statement &st, const compute::Statement &main) {
    if (!st.lhs || !st.rhs || st.op != compute::AssignOp::Add || st.init || st.lhs->name != main.lhs->name ||
        st.lhs->args.size() != main.lhs->args.size())
      return false;
    std::set<std::string> vars;
    for (std::size_t i = 0; i < st.lhs->args.size(); ++i) {
      const compute::Expr &a = *st.lhs->args[i], &b = *main.lhs->args[i];
      if (a.kind != compute::ExprKind::Var || b.kind != compute::ExprKind::Var || a.name != b.name) return false;
      vars.insert(a.name);
    }
    std::function<bool(const compute::Expr &)> plain = [&](const compute::Expr &e) {
      if (e.kind == compute::ExprKind::Guard || (e.kind == compute::ExprKind::Read && e.name == st.lhs->name) ||
          (e.kind == compute::ExprKind::Var && !vars.count(e.name)))
        return false;
      for (const compute::ExprPtr &a : e.args)
        if (!plain(*a)) return false;
      return true;
    };
    return plain(*st.rhs);
  };
  if (p->statements.size() == 2 && contraction(p->statements[0]) && bias_of(p->statements[1], p->statements[0]))
    return PatternKind::OutFusable;
  if (p->statements.size() > 1) {
    // Several copies into one tensor (a conversion whose last channel block
    // is partial): data movement.
    for (const compute::Statement &st : p->statements)
      if (!copy_kind(st) || st.lhs->name != p->statements[0].lhs->name) return PatternKind::Opaque;
    return PatternKind::Injective;
  }
  const compute::Statement &st = p->statements[0];
  if (!st.lhs || !st.rhs) return PatternKind::Opaque;
  if (auto k = copy_kind(st)) return *k;
  std::set<std::string> seen;
  for (const compute::ExprPtr &a : st.lhs->args)
    if (a->kind != compute::ExprKind::Var || !seen.insert(a->name).second) return PatternKind::Opaque;
  if (st.op == compute::AssignOp::Add && st.init) return contraction(st) ? PatternKind::OutFusable : PatternKind::Opaque;
  if (st.op != compute::AssignOp::Assign || st.init) return PatternKind::Opaque;
  int identity = 0;
  if (!pointwise_reads(*st.rhs, *st.lhs, identity) || identity == 0) return PatternKind::Opaque;
  std::size_t reads = 0;
  std::function<void(const compute::Expr &)> count = [&](const compute::Expr &e) {
    reads += e.kind == compute::ExprKind::Read;
    for (const compute::ExprPtr &a : e.args) count(*a);
  };
  count(*st.rhs);
  return static_cast<std::size_t>(identity) == reads ? PatternKind::Elementwise : PatternKind::Broadcast;
}

}  // namespace atl
