// Inlines cheap elementwise producers of cluster temporaries into their readers.
#include "polyhedral/transforms/scop/inline_producers.h"

#include "polyhedral/scop/collect_reads.h"

#include <algorithm>
#include <functional>
#include <iterator>
#include <map>
#include <memory>

namespace atl::poly {

namespace {

using compute::Expr;
using compute::ExprKind;
using compute::ExprPtr;

/// Operations of a value expression (subscripts not counted); -1 when it
/// holds something a producer must not have (a guard, a read of an array
/// the cluster writes, an indirect or non-affine subscript).
int value_operations(const Scop &scop, const Expr &e) {
  switch (e.kind) {
  case ExprKind::Number: case ExprKind::Var: return 0;
  case ExprKind::Guard: return -1;
  case ExprKind::Read: {
    const ScopArray *a = scop.array(e.name);
    if (!a || a->kind != ScopArray::Kind::Input) return -1;
    for (const ExprPtr &s : e.args)
      if (!s || compute::contains_read(*s) || !compute::to_quasi_affine(*s)) return -1;
    return 0;
  }
  case ExprKind::Unary: case ExprKind::Binary: case ExprKind::Select: case ExprKind::Call: {
    int n = 1;
    for (const ExprPtr &a : e.args) {
      int k = a ? value_operations(scop, *a) : -1;
      if (k < 0) return -1;
      n += k;
    }
    return n;
  }
  }
  return -1;
}

/// `e` with every read of `array` replaced by `value`, whose variables
/// `indices` take the read's subscripts.
ExprPtr substitute(const ExprPtr &e, const std::string &array, const ExprPtr &value,
                   const std::vector<std::string> &indices) {
  if (e->kind == ExprKind::Read && e->name == array) {
    std::map<std::string, ExprPtr> at;
    for (std::size_t d = 0; d < indices.size(); ++d) at[indices[d]] = e->args[d];
    std::function<ExprPtr(const ExprPtr &)> bind = [&](const ExprPtr &v) -> ExprPtr {
      if (v->kind == ExprKind::Var) {
        auto it = at.find(v->name);
        return it == at.end() ? v : it->second;
      }
      auto copy = std::make_shared<Expr>(*v);
      for (ExprPtr &a : copy->args)
        if (a) a = bind(a);
      return copy;
    };
    return bind(value);
  }
  return map_args(e, [&](const ExprPtr &a) { return substitute(a, array, value, indices); });
}

/// Whether statement `k` can be inlined; its readers' positions in `readers`.
bool inlinable(const Scop &scop, std::size_t k, int max_reads, std::vector<std::size_t> &readers) {
  const ScopStatement &s = scop.statements[k];
  if (s.init || s.op != compute::AssignOp::Assign || !s.rhs || !s.lhs) return false;
  if (std::find(s.reduction.begin(), s.reduction.end(), true) != s.reduction.end()) return false;
  const ScopArray *a = scop.array(s.write.array);
  if (!a || a->kind != ScopArray::Kind::ClusterLocal || a->array.dtype != DType::F32) return false;
  // It writes every element, so a reader in bounds reads one it wrote (and
  // the recomputed reads stay within the producer's domain).
  if (!s.write.relation.range().is_equal(a->extent)) return false;
  // f32 operands: the value is the one stored, not a wider one.
  for (const ScopAccess &r : s.reads) {
    const ScopArray *in = scop.array(r.array);
    if (!in || in->array.dtype != DType::F32) return false;
  }
  // Element (i0, ..., in) at domain point (i0, ..., in).
  if (s.lhs->args.size() != s.indices.size()) return false;
  for (std::size_t d = 0; d < s.indices.size(); ++d)
    if (!s.lhs->args[d] || s.lhs->args[d]->kind != ExprKind::Var || s.lhs->args[d]->name != s.indices[d]) return false;
  const int ops = value_operations(scop, *s.rhs);
  if (ops < 0 || ops > 1) return false;
  int reads = 0;
  readers.clear();
  for (std::size_t t = 0; t < scop.statements.size(); ++t) {
    if (t == k) continue;
    const ScopStatement &r = scop.statements[t];
    if (r.write.array == s.write.array) return false;  // another writer
    const ArrayReads in = array_reads(r.rhs, r.lhs, s.write.array);
    if (in.bad) return false;
    if (in.plain == 0) continue;
    if (t < k) return false;  // read before it is written
    reads += in.plain;
    readers.push_back(t);
  }
  return !readers.empty() && reads <= max_reads;
}

}  // namespace

InlineResult inline_producers(Scop &scop, int max_reads) {
  InlineResult res;
  std::vector<std::size_t> readers;
  for (std::size_t k = 0; k < scop.statements.size();) {
    if (!inlinable(scop, k, max_reads, readers)) {
      ++k;
      continue;
    }
    const ScopStatement s = scop.statements[k];
    const std::string array = s.write.array;
    for (std::size_t t : readers) {
      ScopStatement &r = scop.statements[t];
      r.rhs = substitute(r.rhs, array, s.rhs, s.indices);
      rebuild_reads(scop, r);
    }
    res.statements.push_back(s.name);
    res.into[s.node] = scop.statements[readers.front()].node;
    scop.statements.erase(scop.statements.begin() + static_cast<std::ptrdiff_t>(k));
    scop.arrays.erase(std::remove_if(scop.arrays.begin(), scop.arrays.end(),
                                     [&](const ScopArray &a) { return a.array.name == array; }),
                      scop.arrays.end());
    for (auto it = scop.array_of_tensor.begin(); it != scop.array_of_tensor.end();)
      it = it->second == array ? scop.array_of_tensor.erase(it) : std::next(it);
  }
  return res;
}

}  // namespace atl::poly
