// Reductions into f16/bf16 outputs accumulate in an f32 temporary (see widen_accumulators.h).
#include "graph/compute/widen_accumulators.h"

#include <cctype>
#include <set>

namespace atl::compute {

namespace {

bool reads(const Expr &e, const std::string &name) {
  if (e.kind == ExprKind::Read && e.name == name) return true;
  for (const auto &a : e.args)
    if (reads(*a, name)) return true;
  return false;
}

bool names_tensor(const Program &p, const std::string &name) {
  for (const Statement &s : p.statements)
    if (reads(*s.lhs, name) || reads(*s.rhs, name)) return true;
  return false;
}

/// The left-hand side's subscripts are distinct plain indices or constants.
bool plain_subscripts(const Expr &lhs) {
  std::set<std::string> seen;
  for (const auto &a : lhs.args)
    if (a->kind != ExprKind::Number && (a->kind != ExprKind::Var || !seen.insert(a->name).second)) return false;
  return true;
}

/// Every read of `name` in `e` is at exactly `at`'s subscripts.
bool reads_only_at(const Expr &e, const std::string &name, const Expr &at) {
  if (e.kind == ExprKind::Read && e.name == name && !equal(e, at)) return false;
  for (const auto &a : e.args)
    if (!reads_only_at(*a, name, at)) return false;
  return true;
}

/// `e` with every read of `from` renamed `to`.
ExprPtr rename(const ExprPtr &e, const std::string &from, const std::string &to) {
  if (!reads(*e, from)) return e;
  auto r = std::make_shared<Expr>(*e);
  if (r->kind == ExprKind::Read && r->name == from) r->name = to;
  for (auto &a : r->args) a = rename(a, from, to);
  return r;
}

}  // namespace

std::shared_ptr<const Program> widen_accumulators(const std::shared_ptr<const Program> &program,
                                                  const std::map<std::string, std::vector<std::string>> &low_precision) {
  if (low_precision.empty()) return program;
  auto out = std::make_shared<Program>(*program);
  std::vector<Statement> copies;
  for (std::size_t k = 0; k < out->statements.size(); ++k) {
    Statement &s = out->statements[k];
    const std::string name = s.lhs->name;
    auto extents = low_precision.find(name);
    if (!s.init || s.op == AssignOp::Assign || extents == low_precision.end() || !plain_subscripts(*s.lhs) ||
        extents->second.size() != s.lhs->args.size())
      continue;
    // Before k nothing mentions NAME; from k on, only in-place updates at
    // the reduction's own element (ReduceMean's `Y(i) = Y(i) / n`).
    bool widen = true;
    for (std::size_t j = 0; j < out->statements.size() && widen; ++j) {
      const Statement &o = out->statements[j];
      bool mentions = reads(*o.lhs, name) || reads(*o.rhs, name);
      if (j < k) widen = !mentions;
      else if (j > k && mentions)
        widen = o.lhs->name == name && o.op == AssignOp::Assign && equal(*o.lhs, *s.lhs) &&
                reads_only_at(*o.rhs, name, *s.lhs);
      for (const auto &sub : o.lhs->args) widen = widen && !reads(*sub, name);
    }
    if (widen) widen = reads_only_at(*s.rhs, name, *s.lhs) && !reads(*s.rhs, name);
    const std::string acc = name + "_acc";
    if (!widen || names_tensor(*out, acc)) continue;
    Statement copy;
    copy.lhs = s.lhs;
    copy.op = AssignOp::Assign;
    copy.rhs = rename(s.lhs, name, acc);
    copy.line = s.line;
    copy.column = s.column;
    // The output's extents bound the indices of both statements: the
    // accumulator is a temporary of inferred shape, so an index that
    // appeared alone only in the output's subscripts (a convolution's rows)
    // needs its range written out.
    for (std::size_t d = 0; d < s.lhs->args.size(); ++d) {
      const Expr &sub = *s.lhs->args[d];
      if (sub.kind != ExprKind::Var) continue;
      const std::string &extent = extents->second[d];
      auto lo = std::make_shared<Expr>(), hi = std::make_shared<Expr>();
      lo->kind = ExprKind::Number;
      if (!extent.empty() && std::isdigit(static_cast<unsigned char>(extent[0]))) {
        hi->kind = ExprKind::Number;
        hi->number = std::stod(extent);
      } else {
        hi->kind = ExprKind::Var;
        hi->name = extent;
      }
      IndexRange range{sub.name, lo, hi, s.line, s.column};
      copy.where.push_back(range);
      bool bounded = false;
      for (const IndexRange &r : s.where) bounded = bounded || r.name == sub.name;
      if (!bounded) s.where.push_back(range);
    }
    for (std::size_t j = k; j < out->statements.size(); ++j) {
      Statement &o = out->statements[j];
      o.lhs = rename(o.lhs, name, acc);
      o.rhs = rename(o.rhs, name, acc);
    }
    copies.push_back(std::move(copy));
  }
  if (copies.empty()) return program;
  for (Statement &c : copies) out->statements.push_back(std::move(c));
  return out;
}

}  // namespace atl::compute
