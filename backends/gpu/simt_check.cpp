// Executes GPU launches thread by thread and records element accesses (see simt_check.h).
#include "backends/gpu/simt_check.h"

#include "backends/gpu/index_eval.h"
#include "backends/gpu/opencl_runtime.h"

#include <atoll/diagnostics.h>

#include <array>
#include <optional>
#include <unordered_map>

namespace atl::gpu {

namespace {

using poly::LExpr;
using poly::LExprKind;
using poly::LStmt;
using poly::LStmtKind;

struct Budget {};  // thrown when the access budget runs out

/// Who touched one element in the current launch: -1 nobody, -2 several threads.
struct Element {
  std::int64_t writer = -1, reader = -1;
};

class Checker {
public:
  Checker(const poly::LKernel &k, const std::int64_t *params, std::int64_t budget, SimtReport &r)
      : kernel_(k), budget_(budget), report_(r) {
    for (std::size_t i = 0; i < k.params.size(); ++i) env_[k.params[i]] = params[i];
    for (const poly::LArray &a : k.arrays) {
      Array arr;
      for (const Dim &d : a.shape) {
        std::int64_t v = d.is_symbolic() ? env_.at(d.symbol) : d.value;
        arr.shape.push_back(v);
        arr.size *= std::max<std::int64_t>(v, 0);
      }
      arrays_[a.name] = std::move(arr);
    }
  }

  void launch(const poly::GpuLaunch &l) {
    for (auto &[name, a] : arrays_) a.touched.clear();
    std::array<std::int64_t, 3> grid{1, 1, 1};
    for (std::size_t d = 0; d < 3; ++d) grid[d] = l.grid[d] ? std::max<std::int64_t>(1, eval_index(*l.grid[d], kernel_, params_ptr())) : 1;
    launch_ = &l;
    for (block_[2] = 0; block_[2] < grid[2]; ++block_[2])
      for (block_[1] = 0; block_[1] < grid[1]; ++block_[1])
        for (block_[0] = 0; block_[0] < grid[0]; ++block_[0])
          for (thread_[2] = 0; thread_[2] < l.block[2]; ++thread_[2])
            for (thread_[1] = 0; thread_[1] < l.block[1]; ++thread_[1])
              for (thread_[0] = 0; thread_[0] < l.block[0]; ++thread_[0]) {
                grid_ = grid;
                id_ = ((((block_[2] * grid[1] + block_[1]) * grid[0] + block_[0]) * l.block[2] + thread_[2]) * l.block[1] +
                       thread_[1]) * l.block[0] + thread_[0];
                ++report_.threads;
                stmt(*l.body);
              }
  }

private:
  struct Array {
    std::vector<std::int64_t> shape;
    std::int64_t size = 1;
    std::unordered_map<std::int64_t, Element> touched;
  };

  const std::int64_t *params_ptr() {
    param_values_.clear();
    for (const std::string &p : kernel_.params) param_values_.push_back(env_.at(p));
    return param_values_.data();
  }

  void stmt(const LStmt &s) {
    switch (s.kind) {
    case LStmtKind::Block:
      for (const auto &b : s.body)
        if (b) stmt(*b);
      return;
    case LStmtKind::If: {
      std::optional<std::int64_t> c = index(*s.cond);
      if (!c) {  // a guard on values: both branches' accesses are not followed
        ++report_.unchecked;
        return;
      }
      if (*c) stmt(*s.then_body);
      else if (s.else_body) stmt(*s.else_body);
      return;
    }
    case LStmtKind::For: {
      std::optional<poly::GpuMark> m = poly::gpu_mark_of(s);
      std::int64_t first = 0, stride = s.step;
      if (m) {
        const std::size_t d = static_cast<std::size_t>(m->dim);
        first = s.step * (m->thread ? thread_[d] : block_[d]);
        stride = s.step * (m->thread ? launch_->block[d] : grid_[d]);
      }
      std::optional<std::int64_t> init = index(*s.init);
      if (!init) {
        ++report_.unchecked;
        return;
      }
      auto saved = env_.find(s.iterator) != env_.end() ? std::optional<std::int64_t>(env_[s.iterator]) : std::nullopt;
      for (std::int64_t v = *init + first;; v += stride) {
        env_[s.iterator] = v;
        std::optional<std::int64_t> c = index(*s.cond);
        if (!c || !*c) break;
        for (const auto &b : s.body)
          if (b) stmt(*b);
      }
      if (saved) env_[s.iterator] = *saved;
      else env_.erase(s.iterator);
      return;
    }
    case LStmtKind::Store: {
      reads(*s.value, s);
      for (const auto &i : s.indices) reads(*i, s);
      if (s.op != compute::AssignOp::Assign) access(s.array, s.indices, false, s, false);
      access(s.array, s.indices, true, s, false);
      return;
    }
    }
  }

  /// Records the loads of `e` (guarded ones only where in bounds).
  void reads(const LExpr &e, const LStmt &at) {
    if (e.kind == LExprKind::GuardedLoad) {
      const LExpr &ld = *e.args[0];
      for (const auto &i : ld.args) reads(*i, at);
      access(ld.name, ld.args, false, at, true);
      reads(*e.args[1], at);
      return;
    }
    for (const auto &a : e.args) reads(*a, at);
    if (e.kind == LExprKind::Load) access(e.name, e.args, false, at, false);
  }

  void access(const std::string &name, const std::vector<poly::LExprPtr> &idx, bool write, const LStmt &at,
              bool guarded) {
    auto it = arrays_.find(name);
    if (it == arrays_.end()) return;  // a local buffer (the GPU table makes none)
    Array &a = it->second;
    std::int64_t off = 0;
    for (std::size_t d = 0; d < idx.size(); ++d) {
      std::optional<std::int64_t> i = index(*idx[d]);
      if (!i) {
        ++report_.unchecked;
        return;
      }
      const std::int64_t ext = d < a.shape.size() ? a.shape[d] : 1;
      if (guarded && (*i < 0 || *i >= ext)) return;
      off = off * ext + *i;
    }
    if (++report_.accesses > budget_) throw Budget{};
    if (off < 0 || off >= a.size) {
      if (report_.out_of_bounds++ < 8)
        report_.problems.push_back(where(at) + ": out-of-bounds " + (write ? "write" : "read") + " of " + name +
                                   " at offset " + std::to_string(off) + " of " + std::to_string(a.size));
      return;
    }
    Element &e = a.touched[off];
    std::int64_t other = -1;
    if (write) {
      if (e.writer >= 0 && e.writer != id_) other = e.writer;
      else if (e.reader == -2 || (e.reader >= 0 && e.reader != id_)) other = e.reader;
      e.writer = id_;
    } else {
      if (e.writer >= 0 && e.writer != id_) other = e.writer;
      e.reader = (e.reader == -1 || e.reader == id_) ? id_ : -2;
    }
    if (other == -1) return;
    if (report_.races++ < 8)
      report_.problems.push_back(where(at) + ": race on " + name + " element " + std::to_string(off) + ": thread " +
                                 std::to_string(id_) + " " + (write ? "writes" : "reads") + " it, thread " +
                                 (other == -2 ? std::string("(several)") : std::to_string(other)) +
                                 " also touches it in the same launch");
  }

  std::string where(const LStmt &at) const {
    return "launch " + launch_->name + ", statement " + (at.statement.empty() ? at.array : at.statement) +
           ", block (" + std::to_string(block_[0]) + ", " + std::to_string(block_[1]) + ", " +
           std::to_string(block_[2]) + ") thread (" + std::to_string(thread_[0]) + ", " + std::to_string(thread_[1]) +
           ", " + std::to_string(thread_[2]) + ")";
  }

  /// An Index expression; empty where it depends on a loaded value.
  std::optional<std::int64_t> index(const LExpr &e) {
    return eval_index_expr(e, [this](const std::string &name) -> std::optional<std::int64_t> {
      auto it = env_.find(name);
      if (it == env_.end()) throw UserError("SIMT check: unbound variable " + name + " in " + kernel_.name);
      return it->second;
    });
  }

  const poly::LKernel &kernel_;
  std::int64_t budget_;
  SimtReport &report_;
  std::unordered_map<std::string, std::int64_t> env_;
  std::map<std::string, Array> arrays_;
  std::vector<std::int64_t> param_values_;
  const poly::GpuLaunch *launch_ = nullptr;
  std::array<std::int64_t, 3> block_{0, 0, 0}, thread_{0, 0, 0}, grid_{1, 1, 1};
  std::int64_t id_ = 0;
};

}  // namespace

SimtReport simt_check(const poly::LKernel &kernel, const poly::GpuProgram &program, const std::int64_t *params,
                      std::int64_t max_accesses) {
  SimtReport r;
  Checker c(kernel, params, max_accesses, r);
  try {
    for (const poly::GpuLaunch &l : program.launches) c.launch(l);
  } catch (const Budget &) {
    r.truncated = true;
  }
  return r;
}

}  // namespace atl::gpu
