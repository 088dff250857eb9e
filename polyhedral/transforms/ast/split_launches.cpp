// Loop AST -> GPU launches (see split_launches.h).
#include "polyhedral/transforms/ast/split_launches.h"

#include "polyhedral/ast/build_ast.h"

#include <atoll/diagnostics.h>

#include <isl/aff.h>

#include <map>
#include <set>

namespace atl::poly {

namespace {

void kernels_in(const LStmt &s, std::set<int> &out) {
  if (auto g = gpu_mark_of(s)) out.insert(g->kernel);
  for (const LStmtPtr &b : s.body)
    if (b) kernels_in(*b, out);
  if (s.then_body) kernels_in(*s.then_body, out);
  if (s.else_body) kernels_in(*s.else_body, out);
}

/// True when every store of `s` is inside a loop mapped to threads.
bool stores_under_threads(const LStmt &s, bool under) {
  if (auto g = gpu_mark_of(s); g && g->thread) under = true;
  if (s.kind == LStmtKind::Store) return under;
  for (const LStmtPtr &b : s.body)
    if (b && !stores_under_threads(*b, under)) return false;
  if (s.then_body && !stores_under_threads(*s.then_body, under)) return false;
  if (s.else_body && !stores_under_threads(*s.else_body, under)) return false;
  return true;
}

LStmtPtr without_gpu_marks(const LStmtPtr &s) {
  return copy_loop_ast(s, nullptr, [](const LStmt &, LStmt &copy) {
    for (auto it = copy.marks.begin(); it != copy.marks.end();)
      it = parse_gpu_mark(*it) ? copy.marks.erase(it) : std::next(it);
  });
}

/// A launch's grid size as an Index expression of the parameters.
LExprPtr grid_expr(const std::optional<isl::pw_aff> &maybe) {
  if (!maybe) return build::integer(1);
  const isl::pw_aff &count = *maybe;
  if (isl_pw_aff_is_cst(count.get()) == isl_bool_true) {
    isl::val v = count.max_val();
    if (v.is_int()) return build::integer(std::max<long>(1, v.get_num_si()));
  }
  isl::ast_build b = isl::ast_build::from_context(isl::set::universe(count.space().params()));
  return build::max(build::integer(1), index_expr_from_isl(b.expr_from(count)));
}

class Splitter {
public:
  Splitter(const LKernel &k, const std::vector<GpuMapping> &m) : kernel_(k) {
    for (const GpuMapping &g : m) mappings_[g.kernel] = &g;
  }

  GpuProgram run() {
    if (kernel_.body) split(kernel_.body, {});
    for (std::size_t i = 0; i < program_.launches.size(); ++i)
      program_.launches[i].name = kernel_.name + "_k" + std::to_string(i);
    return std::move(program_);
  }

private:
  void split(const LStmtPtr &s, const std::vector<LExprPtr> &guards) {
    std::set<int> ks;
    kernels_in(*s, ks);
    if (ks.empty()) return serial(s, guards);
    if (ks.size() == 1 && mappings_.count(*ks.begin()) && stores_under_threads(*s, false))
      return mapped(s, guards, *mappings_.at(*ks.begin()));
    if (s->kind == LStmtKind::Block) {
      for (const LStmtPtr &c : s->body)
        if (c) split(c, guards);
      return;
    }
    if (s->kind == LStmtKind::If && !s->else_body) {
      std::vector<LExprPtr> inner = guards;
      inner.push_back(s->cond);
      return split(s->then_body, inner);
    }
    serial(without_gpu_marks(s), guards);
  }

  static LStmtPtr guarded(LStmtPtr s, const std::vector<LExprPtr> &guards) {
    for (auto g = guards.rbegin(); g != guards.rend(); ++g)
      s = build::branch(*g, s->kind == LStmtKind::Block ? s : build::block({s}));
    return s;
  }

  void serial(const LStmtPtr &s, const std::vector<LExprPtr> &guards) {
    LStmtPtr body = guarded(s, guards);
    if (!program_.launches.empty() && !program_.launches.back().mapped) {
      GpuLaunch &last = program_.launches.back();
      last.body = build::block({last.body, body});
      return;
    }
    GpuLaunch l;
    l.body = body;
    for (LExprPtr &g : l.grid) g = build::integer(1);
    program_.launches.push_back(std::move(l));
  }

  /// The GPU marks of the loops around every store of `s`: the dimensions
  /// the whole launch spreads over.
  static void common_marks(const LStmt &s, std::set<std::string> around, std::optional<std::set<std::string>> &common) {
    if (s.kind == LStmtKind::For)
      for (const std::string &m : s.marks)
        if (parse_gpu_mark(m)) around.insert(m);
    if (s.kind == LStmtKind::Store) {
      if (!common) common = around;
      else
        for (auto it = common->begin(); it != common->end();) it = around.count(*it) ? std::next(it) : common->erase(it);
    }
    for (const LStmtPtr &b : s.body)
      if (b) common_marks(*b, around, common);
    if (s.then_body) common_marks(*s.then_body, around, common);
    if (s.else_body) common_marks(*s.else_body, around, common);
  }

  // A dimension whose loop isl did not make (one value), or which some
  // store is not inside, gets one block or one thread: its loops then run
  // every value in each thread, and no store runs twice.
  void mapped(const LStmtPtr &s, const std::vector<LExprPtr> &guards, const GpuMapping &g) {
    std::optional<std::set<std::string>> common;
    common_marks(*s, {}, common);
    if (!common || common->empty()) return serial(without_gpu_marks(s), guards);
    GpuLaunch l;
    l.body = guarded(s, guards);
    l.mapped = true;
    for (int d = 0; d < 3; ++d) {
      const std::size_t i = static_cast<std::size_t>(d);
      l.block[i] = common->count(gpu_mark_name({true, d, g.kernel})) ? g.block[i] : 1;
      l.grid[i] = common->count(gpu_mark_name({false, d, g.kernel})) ? grid_expr(g.grid[i]) : build::integer(1);
    }
    program_.launches.push_back(std::move(l));
  }

  const LKernel &kernel_;
  std::map<int, const GpuMapping *> mappings_;
  GpuProgram program_;
};

}  // namespace

GpuProgram split_launches(const LKernel &kernel, const std::vector<GpuMapping> &mappings) {
  return Splitter(kernel, mappings).run();
}

}  // namespace atl::poly
