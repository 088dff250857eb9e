// Array contraction: temporaries used within one iteration of an outer loop
// nest become local buffers private to that iteration (see contract_arrays.h).
#include "polyhedral/transforms/ast/contract_arrays.h"

#include <atoll/dtype.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace atl::poly {

namespace {

/// One access of an array: its subscripts and the loops around it, outermost first.
struct Access {
  const std::vector<LExprPtr> *indices = nullptr;
  std::vector<const LStmt *> loops;
  bool guarded = false;  ///< a guarded load: its bounds check reads the array's shape
};

/// `iterator`, `iterator + c` or `iterator - c`.
bool is_shifted_iterator(const LExpr &e, const std::string &iterator) {
  if (e.kind == LExprKind::Var) return e.name == iterator;
  return e.kind == LExprKind::Binary && e.type == LType::Index &&
         (e.binop == compute::BinOp::Add || e.binop == compute::BinOp::Sub) && e.args[0]->kind == LExprKind::Var &&
         e.args[0]->name == iterator && e.args[1]->kind == LExprKind::Int;
}

void variables(const LExpr &e, std::set<std::string> &out) {
  if (e.kind == LExprKind::Var) out.insert(e.name);
  for (const LExprPtr &a : e.args) variables(*a, out);
}

/// Every access of every array, with its loops.
class AccessCollector {
public:
  std::map<std::string, std::vector<Access>> accesses;

  void stmt(const LStmt &s) {
    switch (s.kind) {
    case LStmtKind::Block:
      for (const LStmtPtr &c : s.body)
        if (c) stmt(*c);
      return;
    case LStmtKind::For:
      if (s.init) expr(*s.init);
      loops_.push_back(&s);
      if (s.cond) expr(*s.cond);
      for (const LStmtPtr &c : s.body)
        if (c) stmt(*c);
      loops_.pop_back();
      return;
    case LStmtKind::If:
      if (s.cond) expr(*s.cond);
      if (s.then_body) stmt(*s.then_body);
      if (s.else_body) stmt(*s.else_body);
      return;
    case LStmtKind::Store:
      accesses[s.array].push_back(Access{&s.indices, loops_});
      for (const LExprPtr &i : s.indices) expr(*i);
      if (s.value) expr(*s.value);
      return;
    }
  }

private:
  void expr(const LExpr &e, bool guarded = false) {
    if (e.kind == LExprKind::Load) accesses[e.name].push_back(Access{&e.args, loops_, guarded});
    for (std::size_t i = 0; i < e.args.size(); ++i) expr(*e.args[i], e.kind == LExprKind::GuardedLoad && i == 0);
  }

  std::vector<const LStmt *> loops_;
};

/// How one temporary is contracted.
struct Plan {
  std::vector<bool> dropped;  ///< per dimension
  std::vector<std::int64_t> kept;  ///< per kept dimension: its extent in the local buffer
  const LStmt *scope = nullptr;
};

std::optional<Plan> plan_for(const LArray &array, const std::vector<Access> &accesses,
                             const ContractOptions &options) {
  if (accesses.empty()) return std::nullopt;
  // A guarded read tests its subscripts against the array's extents, which
  // contraction would change (Pad of a fused producer: the padding rows
  // would read the local buffer in bounds instead of giving the pad value).
  for (const Access &a : accesses)
    if (a.guarded) return std::nullopt;
  const std::size_t rank = array.shape.size();
  // Loops around every access (a common prefix), and whether each dimension
  // has the same subscript in every access.
  std::vector<const LStmt *> common = accesses[0].loops;
  for (const Access &a : accesses) {
    std::size_t n = 0;
    while (n < common.size() && n < a.loops.size() && common[n] == a.loops[n]) ++n;
    common.resize(n);
  }
  std::vector<bool> uniform(rank, true);
  for (const Access &a : accesses) {
    if (a.indices->size() != rank) return std::nullopt;
    for (std::size_t d = 0; d < rank; ++d)
      if (!same_expr(*(*a.indices)[d], *(*accesses[0].indices)[d])) uniform[d] = false;
  }
  const std::vector<LExprPtr> &idx = *accesses[0].indices;
  // The chain C: outermost common loops, each the subscript of a uniform dimension.
  std::vector<const LStmt *> chain;
  for (const LStmt *loop : common) {
    if (loop->marks.count(mark::kVector)) break;
    bool bound = false;
    for (std::size_t d = 0; d < rank && !bound; ++d) bound = uniform[d] && is_shifted_iterator(*idx[d], loop->iterator);
    if (!bound) break;
    chain.push_back(loop);
  }
  if (chain.empty()) return std::nullopt;
  std::set<std::string> chain_iterators, all_iterators;
  for (const LStmt *l : chain) chain_iterators.insert(l->iterator);
  for (const Access &a : accesses)
    for (const LStmt *l : a.loops) all_iterators.insert(l->iterator);
  for (const Access &a : accesses)
    for (const LStmt *l : a.loops)
      if (l->marks.count(mark::kParallel) && std::find(chain.begin(), chain.end(), l) == chain.end())
        return std::nullopt;
  // Dimensions fixed within one iteration of C: the same expression of C's
  // iterators (and parameters) in every access.
  Plan plan;
  plan.scope = chain.back();
  plan.dropped.assign(rank, false);
  bool gain = false;
  std::int64_t bytes = dtype_size(array.dtype);
  for (std::size_t d = 0; d < rank; ++d) {
    if (uniform[d]) {
      std::set<std::string> vars;
      variables(*idx[d], vars);
      bool fixed = true;
      for (const std::string &v : vars)
        if (all_iterators.count(v) && !chain_iterators.count(v)) fixed = false;
      plan.dropped[d] = fixed;
    }
  }
  plan.kept.assign(rank, 0);
  for (std::size_t d = 0; d < rank; ++d) {
    if (plan.dropped[d]) {
      gain |= array.shape[d].is_symbolic() || array.shape[d].value > 1;
      continue;
    }
    if (array.shape[d].is_symbolic()) return std::nullopt;  // a local buffer needs a constant size
    plan.kept[d] = array.shape[d].value;
    // Subscripts (0, p) address a coalesced plane as one row (build_ast's
    // flatten_planes): the row holds the two dimensions' elements.
    if (d > 0 && plan.dropped[d - 1] && (*idx[d - 1]).kind == LExprKind::Int && (*idx[d - 1]).ival == 0) {
      if (array.shape[d - 1].is_symbolic()) return std::nullopt;
      plan.kept[d] *= array.shape[d - 1].value;
    }
    bytes *= plan.kept[d];
  }
  std::int64_t limit = options.max_bytes;
  if (options.in_place.count(array.name)) limit = std::min(limit, options.in_place_max_bytes);
  if (!gain || bytes > limit) return std::nullopt;
  return plan;
}

/// The kernel body with the plans' dropped dimensions subscripted 0 and each
/// plan's array listed in the locals of its scope loop.
LStmtPtr rewrite(const LStmtPtr &body, const std::map<std::string, Plan> &plans) {
  std::map<const LStmt *, std::vector<std::string>> scopes;
  for (const auto &[name, plan] : plans) scopes[plan.scope].push_back(name);
  auto subscripts = [&](const std::string &array, std::vector<LExprPtr> &idx) {
    auto it = plans.find(array);
    if (it == plans.end()) return;
    for (std::size_t d = 0; d < idx.size(); ++d)
      if (it->second.dropped[d]) idx[d] = build::integer(0);
  };
  return copy_loop_ast(
      body, [&](LExpr &e) { if (e.kind == LExprKind::Load) subscripts(e.name, e.args); },
      [&](const LStmt &original, LStmt &c) {
        if (c.kind == LStmtKind::Store) subscripts(c.array, c.indices);
        if (auto it = scopes.find(&original); it != scopes.end())
          c.locals.insert(c.locals.end(), it->second.begin(), it->second.end());
      });
}

/// Bytes of an array, symbolic extents counted at `symbolic` elements.
std::int64_t bytes_of(const LArray &a, std::int64_t symbolic = 1) {
  std::int64_t n = static_cast<std::int64_t>(dtype_size(a.dtype));
  for (const Dim &d : a.shape) n *= d.is_symbolic() ? symbolic : d.value;
  return n;
}

}  // namespace

ContractResult contract_arrays(LKernel &kernel, const ContractOptions &options) {
  ContractResult r;
  if (!kernel.body) return r;
  AccessCollector collect;
  collect.stmt(*kernel.body);
  std::map<std::string, Plan> plans;
  for (const LArray &a : kernel.arrays) {
    if (a.role != LArray::Role::Temporary) continue;
    if (auto p = plan_for(a, collect.accesses[a.name], options)) plans.emplace(a.name, *p);
  }
  if (plans.empty()) return r;
  kernel.body = rewrite(kernel.body, plans);
  std::vector<LArray> kept;
  for (LArray &a : kernel.arrays) {
    auto it = plans.find(a.name);
    if (it == plans.end()) {
      kept.push_back(std::move(a));
      continue;
    }
    r.arrays.push_back(a.name);
    r.bytes_before += bytes_of(a);
    for (std::size_t d = 0; d < a.shape.size(); ++d)
      a.shape[d] = it->second.dropped[d] ? Dim(1) : Dim(it->second.kept[d]);
    a.role = LArray::Role::Local;
    r.bytes_after += bytes_of(a);
    kernel.locals.push_back(std::move(a));
  }
  kernel.arrays = std::move(kept);
  return r;
}

}  // namespace atl::poly
