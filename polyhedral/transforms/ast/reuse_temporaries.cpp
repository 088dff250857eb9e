// In-place epilogues: temporaries take the storage of the array their only
// elementwise reader writes (see reuse_temporaries.h).
#include "polyhedral/transforms/ast/reuse_temporaries.h"

#include <atoll/dtype.h>

#include <map>
#include <set>

namespace atl::poly {

namespace {

const LArray *kernel_array(const LKernel &k, const std::string &name) {
  for (const LArray &a : k.arrays)
    if (a.name == name) return &a;
  return nullptr;
}

/// The array whose storage temporary `t` can take, or "" (the conditions of
/// reuse_temporaries.h, on the SCoP).
std::string storage_for(const Scop &scop, const LKernel &kernel, const LArray &t) {
  const ScopStatement *reader = nullptr;
  for (const ScopStatement &s : scop.statements)
    for (const ScopAccess &r : s.reads)
      if (r.array == t.name) {
        if (reader && reader != &s) return "";
        reader = &s;
      }
  if (!reader || reader->init || reader->op != compute::AssignOp::Assign) return "";
  const std::string &u = reader->write.array;
  if (u == t.name) return "";
  const LArray *ua = kernel_array(kernel, u);
  if (!ua || (ua->role != LArray::Role::Output && ua->role != LArray::Role::Temporary)) return "";
  if (ua->dtype != t.dtype || ua->shape != t.shape) return "";
  for (const ScopAccess &r : reader->reads) {
    if (r.array == u) return "";
    if (r.array != t.name) continue;
    if (r.guarded || r.indirect) return "";
    if (!r.relation.set_range_tuple(u).is_equal(reader->write.relation)) return "";
  }
  for (const ScopStatement &s : scop.statements)
    if (&s != reader && s.write.array == u) return "";
  isl::map write = reader->write.relation.intersect_domain(reader->domain);
  if (!write.is_injective()) return "";
  // S writes every element of U: elements it leaves alone keep what the run
  // time put there (zeros), which T's producers must not overwrite.
  const ScopArray *us = scop.array(u);
  if (!us || !us->extent.intersect_params(scop.context).is_subset(write.range())) return "";
  return u;
}

std::int64_t bytes_of(const LArray &a) {
  std::int64_t n = static_cast<std::int64_t>(dtype_size(a.dtype));
  for (const Dim &d : a.shape) n *= d.is_symbolic() ? 1 : d.value;
  return n;
}

}  // namespace

ReuseResult reuse_temporaries(const Scop &scop, LKernel &kernel) {
  ReuseResult r;
  if (!kernel.body) return r;
  // temporary -> the array its reader writes; one temporary per array (two
  // operands of one reader, y = r + c, are both live until it runs).
  std::map<std::string, std::string> next;
  std::set<std::string> targets;
  for (const LArray &a : kernel.arrays)
    if (a.role == LArray::Role::Temporary)
      if (std::string u = storage_for(scop, kernel, a); !u.empty() && targets.insert(u).second) next.emplace(a.name, u);
  // Follow chains to the array that is not renamed itself; a cycle renames nothing.
  std::map<std::string, std::string> to;
  for (const auto &[t, first] : next) {
    std::string u = first;
    std::set<std::string> seen = {t};
    while (next.count(u) && seen.insert(u).second) u = next.at(u);
    if (!next.count(u)) to.emplace(t, u);
  }
  if (to.empty()) return r;
  // Every load and store of a renamed array refers to its storage instead.
  auto rename = [&](std::string &n) {
    if (auto it = to.find(n); it != to.end()) n = it->second;
  };
  kernel.body = copy_loop_ast(
      kernel.body, [&](LExpr &e) { if (e.kind == LExprKind::Load) rename(e.name); },
      [&](const LStmt &, LStmt &c) { if (c.kind == LStmtKind::Store) rename(c.array); });
  std::vector<LArray> kept;
  for (LArray &a : kernel.arrays) {
    auto it = to.find(a.name);
    if (it == to.end()) {
      kept.push_back(std::move(a));
      continue;
    }
    r.reused.emplace_back(a.name, it->second);
    r.bytes_saved += bytes_of(a);
  }
  kernel.arrays = std::move(kept);
  return r;
}

}  // namespace atl::poly
