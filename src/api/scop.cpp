// The SCoP-level API (include/atoll/scop.h) on the polyhedral layer: a
// ScopDescription becomes a poly::TextScop and then a poly::Scop in the
// program's own isl context; schedule trees travel as isl YAML; a kernel is
// build_ast's LKernel compiled by the CPU backend, with every argument
// checked by name before the call.
#include <atoll/scop.h>

#include "backends/cpu/cpu_backend.h"
#include "polyhedral/ast/build_ast.h"
#include "polyhedral/deps/dependences.h"
#include "polyhedral/isl/isl_context.h"
#include "polyhedral/schedule/schedule.h"
#include "polyhedral/schedule/schedule_pluto.h"
#include "polyhedral/scop/scop_from_text.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <optional>
#include <sstream>
#include <utility>

namespace atl {

namespace {

std::string join(const std::vector<std::string> &names) {
  std::string list;
  for (const std::string &n : names) list += (list.empty() ? "" : ", ") + n;
  return list;
}

/// The error of SCoP `scop`: "scop 'name': reason".
UserError scop_error(const std::string &scop, const std::string &reason) {
  return UserError("scop '" + scop + "': " + reason);
}

/// Runs `body`; an isl failure that escapes the polyhedral layer (it reports
/// the caller's mistakes as UserErrors itself) becomes a UserError naming
/// the SCoP and the step, so that no isl type reaches the caller.
template <class Body>
auto isl_guarded(const std::string &scop, const char *step, Body &&body) -> decltype(body()) {
  try {
    return body();
  } catch (const isl::exception &e) {
    throw scop_error(scop, std::string(step) + ": isl failed: " + (e.what() ? e.what() : "unknown error"));
  }
}

compute::AssignOp assign_op(ScopAssign op) {
  switch (op) {
  case ScopAssign::Assign: return compute::AssignOp::Assign;
  case ScopAssign::Add: return compute::AssignOp::Add;
  case ScopAssign::Mul: return compute::AssignOp::Mul;
  case ScopAssign::Max: return compute::AssignOp::Max;
  case ScopAssign::Min: return compute::AssignOp::Min;
  }
  throw UserError("statement operator " + std::to_string(static_cast<int>(op)) + " is not a ScopAssign");
}

KernelArray::Role kernel_role(ScopRole role, const std::string &array) {
  switch (role) {
  case ScopRole::Input: return KernelArray::Role::Input;
  case ScopRole::Output: return KernelArray::Role::Output;
  case ScopRole::Temporary: return KernelArray::Role::Temporary;
  }
  throw UserError("array '" + array + "': role " + std::to_string(static_cast<int>(role)) + " is not a ScopRole");
}

/// The public form of a kernel array (Local arrays are never arguments).
ScopArray public_array(const KernelArray &a) {
  ScopArray out;
  out.name = a.name;
  out.dtype = a.dtype;
  for (const Dim &d : a.shape) out.shape.push_back(d.is_symbolic() ? ScopExtent(d.symbol) : ScopExtent(d.value));
  out.role = a.role == KernelArray::Role::Input    ? ScopRole::Input
             : a.role == KernelArray::Role::Output ? ScopRole::Output
                                                   : ScopRole::Temporary;
  return out;
}

/// The description as the polyhedral layer's text SCoP. Parameter names in
/// shapes must be C identifiers (they become isl parameters and kernel
/// arguments); everything else scop_from_text checks.
poly::TextScop text_scop(const ScopDescription &d) {
  poly::TextScop t;
  t.name = d.name;
  t.context = d.context;
  for (const ScopArray &a : d.arrays) {
    poly::TextArray ta;
    ta.name = a.name;
    ta.dtype = a.dtype;
    for (std::size_t k = 0; k < a.shape.size(); ++k) {
      const ScopExtent &e = a.shape[k];
      if (e.is_param()) {
        if (poly::sanitize_identifier(e.param) != e.param)
          throw UserError("array '" + a.name + "': extent " + std::to_string(k) + " names the parameter '" + e.param +
                          "', which is not a C identifier");
        ta.shape.push_back(Dim::sym(e.param));
      } else {
        ta.shape.push_back(Dim(e.value));
      }
    }
    ta.role = kernel_role(a.role, a.name);
    t.arrays.push_back(std::move(ta));
  }
  for (const ScopStatement &s : d.statements) {
    poly::TextStatement ts;
    ts.domain = s.domain;
    ts.write = s.write;
    ts.reads = s.reads;
    ts.body = s.body;
    ts.op = assign_op(s.op);
    t.statements.push_back(std::move(ts));
  }
  return t;
}

ScheduleViolation public_violation(const poly::Violation &v) {
  return ScheduleViolation{v.kind, v.source, v.target, v.relation, v.dimension, v.simultaneous, v.message()};
}

std::string illegal_message(const std::vector<ScheduleViolation> &violations) {
  if (violations.empty()) return "the schedule tree is illegal";
  std::string text = violations.front().message;
  if (violations.size() > 1)
    text += " (and " + std::to_string(violations.size() - 1) + " more violated dependence" +
            (violations.size() > 2 ? "s" : "") + ")";
  return text;
}

Location tree_hint() {
  Location l;
  l.hint = "tree";
  return l;
}

/// A 64-byte aligned, zero-filled buffer for a temporary the caller does not give.
class ZeroBlock {
public:
  explicit ZeroBlock(std::int64_t bytes) {
    std::size_t size = static_cast<std::size_t>((std::max<std::int64_t>(bytes, 1) + 63) / 64 * 64);
    data_.reset(static_cast<unsigned char *>(std::aligned_alloc(64, size)));
    if (!data_) throw std::bad_alloc();
    std::memset(data_.get(), 0, size);
  }
  void *data() const { return data_.get(); }

private:
  struct Free {
    void operator()(unsigned char *p) const { std::free(p); }
  };
  std::unique_ptr<unsigned char, Free> data_;
};

}  // namespace

IllegalScheduleError::IllegalScheduleError(std::vector<ScheduleViolation> violations)
    : UserError(illegal_message(violations), tree_hint()), violations_(std::move(violations)) {}

// ---- ScopProgram ----

struct ScopProgram::Impl {
  // The context is declared first: every isl object below lives in it and
  // must be destroyed before it.
  poly::IslContext ctx;
  poly::Scop scop;
  poly::Dependences deps;
  std::vector<std::string> statements;

  /// The checked, domain-restricted schedule of `tree` and every dependence
  /// it violates. schedule_given checks that the tree is isl YAML for
  /// exactly the SCoP's instances (UserError, hint "tree") and stops at the
  /// first violation; all_violations then lists every one.
  std::pair<isl::schedule, std::vector<poly::Violation>> check(const std::string &tree) const {
    try {
      return {poly::schedule_given(scop, deps, tree).schedule, {}};
    } catch (const poly::IllegalSchedule &e) {
      isl::schedule s = poly::intersect_schedule_domain(isl::schedule(ctx.get(), tree), scop.domain());
      std::vector<poly::Violation> all = poly::all_violations(scop, deps, s);
      if (all.empty()) all.push_back(e.violation());  // all_violations checks what check_legality checks
      return {s, std::move(all)};
    }
  }
};

ScopProgram::ScopProgram(const ScopDescription &description) : impl_(std::make_unique<Impl>()) {
  Impl &p = *impl_;
  poly::TextScop text = text_scop(description);
  isl_guarded(description.name, "reading the SCoP", [&] {
    p.scop = poly::scop_from_text(p.ctx, text);
    p.deps = poly::compute_dependences(p.scop);
  });
  for (const poly::ScopStatement &s : p.scop.statements) p.statements.push_back(s.name);
}

ScopProgram::~ScopProgram() = default;
ScopProgram::ScopProgram(ScopProgram &&) noexcept = default;
ScopProgram &ScopProgram::operator=(ScopProgram &&) noexcept = default;

const ScopProgram::Impl &ScopProgram::impl(const char *what) const {
  if (!impl_) throw UserError(std::string("ScopProgram::") + what + ": the program was moved from");
  return *impl_;
}

const std::string &ScopProgram::name() const { return impl("name").scop.name; }
const std::vector<std::string> &ScopProgram::params() const { return impl("params").scop.params; }
const std::vector<std::string> &ScopProgram::statements() const { return impl("statements").statements; }

std::string ScopProgram::scop_text() const {
  const Impl &p = impl("scop_text");
  return isl_guarded(p.scop.name, "printing the SCoP", [&] {
    std::ostringstream os;
    poly::print_scop(os, p.scop);
    return os.str();
  });
}

std::string ScopProgram::dependences_text() const {
  const Impl &p = impl("dependences_text");
  return isl_guarded(p.scop.name, "printing the dependences", [&] {
    std::ostringstream os;
    poly::print_dependences(os, p.deps);
    return os.str();
  });
}

std::string ScopProgram::original_tree() const {
  const Impl &p = impl("original_tree");
  return isl_guarded(p.scop.name, "the original schedule",
                     [&] { return poly::schedule_to_yaml(poly::schedule_original(p.scop)); });
}

ScopSchedule ScopProgram::schedule(const std::string &scheduler) const {
  const Impl &p = impl("schedule");
  return isl_guarded(p.scop.name, "scheduling", [&] {
    poly::ScheduleResult r;
    if (scheduler == "isl") {
      r = poly::schedule_isl(p.scop, p.deps);
    } else if (scheduler == "feautrier") {
      r = poly::schedule_feautrier(p.scop, p.deps);
    } else if (scheduler == "pluto") {
      r = poly::schedule_pluto(p.scop, p.deps);
    } else if (scheduler == "original") {
      r.schedule = poly::schedule_original(p.scop);
      r.algorithm = "original";
    } else {
      const char *known = "isl, feautrier, pluto or original";
      throw scop_error(p.scop.name, "unknown scheduler '" + scheduler + "' (expected " + known + ")");
    }
    return ScopSchedule{poly::schedule_to_yaml(r.schedule), r.algorithm, r.fallbacks};
  });
}

std::vector<ScheduleViolation> ScopProgram::violations(const std::string &tree) const {
  const Impl &p = impl("violations");
  return isl_guarded(p.scop.name, "checking the schedule tree", [&] {
    std::vector<ScheduleViolation> out;
    for (const poly::Violation &v : p.check(tree).second) out.push_back(public_violation(v));
    return out;
  });
}

// ---- ScopKernel ----

struct ScopKernel::Impl {
  std::string name, target;
  std::vector<ScopArray> arrays;    ///< LKernel order
  std::vector<std::string> params;  ///< LKernel order
  poly::LKernel kernel;
  std::unique_ptr<cpu::CpuExecutable> exe;

  /// The parameters' context (isl text); run() checks the values against
  /// it in an isl context of the kernel's own, so that a kernel does not
  /// depend on its ScopProgram. `context` is declared after `isl` (destroyed
  /// before it). Both, and the texts made on demand, are behind `mutex`.
  std::string context_text;
  mutable std::unique_ptr<poly::IslContext> isl;
  mutable isl::set context;
  mutable std::mutex mutex;
  mutable std::optional<std::string> ast, c, ir;

  UserError error(const std::string &reason) const { return scop_error(name, reason); }

  const ScopArray &array(const std::string &a) const {
    for (const ScopArray &x : arrays)
      if (x.name == a) return x;
    std::vector<std::string> names;
    for (const ScopArray &x : arrays) names.push_back(x.name);
    throw error("no array '" + a + "' (arrays: " + join(names) + ")");
  }

  /// The parameters' values in kernel order: every parameter given, no
  /// other name, and the values inside the SCoP's context.
  std::vector<std::int64_t> param_values(const std::map<std::string, std::int64_t> &given) const {
    for (const auto &[n, v] : given)
      if (std::find(params.begin(), params.end(), n) == params.end())
        throw error("no parameter '" + n + "'" +
                    (params.empty() ? std::string(" (it has none)") : " (parameters: " + join(params) + ")"));
    std::vector<std::int64_t> values;
    std::string point;
    for (const std::string &n : params) {
      auto it = given.find(n);
      if (it == given.end()) throw error("missing a value for the parameter '" + n + "'");
      values.push_back(it->second);
      point += (point.empty() ? "" : " and ") + n + " = " + std::to_string(it->second);
    }
    if (params.empty()) return values;
    std::lock_guard<std::mutex> lock(mutex);
    bool inside = isl_guarded(name, "checking the parameters", [&] {
      if (!isl) {
        isl = std::make_unique<poly::IslContext>();
        context = isl::set(isl->get(), context_text);
      }
      return isl::set(isl->get(), "[" + join(params) + "] -> { : " + point + " }").is_subset(context);
    });
    if (!inside) throw error("the parameter values " + point + " are outside the SCoP's context " + context_text);
    return values;
  }

  std::vector<std::int64_t> shape_at(const ScopArray &a, const std::vector<std::int64_t> &values) const {
    std::vector<std::int64_t> out;
    for (const ScopExtent &e : a.shape) {
      std::int64_t v = e.value;
      if (e.is_param()) {
        auto p = std::find(params.begin(), params.end(), e.param);
        v = values.at(static_cast<std::size_t>(p - params.begin()));
        if (v < 0) throw error("array '" + a.name + "' has the negative extent " + e.param + " = " + std::to_string(v));
      }
      out.push_back(v);
    }
    return out;
  }

  std::int64_t bytes_at(const ScopArray &a, const std::vector<std::int64_t> &values) const {
    std::int64_t n = static_cast<std::int64_t>(dtype_size(a.dtype));
    for (std::int64_t e : shape_at(a, values)) n *= e;
    return n;
  }

  /// A text made once, on first use.
  template <class Make>
  std::string text(std::optional<std::string> &slot, Make &&make) const {
    std::lock_guard<std::mutex> lock(mutex);
    if (!slot) slot = make();
    return *slot;
  }
};

ScopKernel ScopProgram::compile(const std::string &tree, const std::string &target) const {
  const Impl &p = impl("compile");
  if (target != "cpu" && target != "cpu-c")
    throw scop_error(p.scop.name, "target '" + target + "' cannot run here (expected cpu or cpu-c)");
  auto k = std::make_shared<ScopKernel::Impl>();
  k->name = p.scop.name;
  k->target = target;
  isl_guarded(p.scop.name, "generating code", [&] {
    auto [schedule, violated] = p.check(tree);
    if (!violated.empty()) {
      std::vector<ScheduleViolation> all;
      for (const poly::Violation &v : violated) all.push_back(public_violation(v));
      throw IllegalScheduleError(std::move(all));
    }
    k->kernel = poly::build_ast(p.scop, p.deps, schedule);
    k->context_text = poly::isl_text(p.scop.context);
  });
  for (const KernelArray &a : k->kernel.arrays) k->arrays.push_back(public_array(a));
  k->params = k->kernel.params;
  k->exe = target == "cpu" ? cpu::jit_kernels({k->kernel}) : cpu::build_c_kernels({k->kernel});
  return ScopKernel(std::move(k));
}

ScopKernel::ScopKernel() = default;
ScopKernel::ScopKernel(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

const ScopKernel::Impl &ScopKernel::impl(const char *what) const {
  if (!impl_) throw UserError(std::string("ScopKernel::") + what + ": the kernel is empty (not compiled)");
  return *impl_;
}

const std::string &ScopKernel::name() const {
  static const std::string empty;
  return impl_ ? impl_->name : empty;
}
const std::string &ScopKernel::target() const { return impl("target").target; }
const std::vector<ScopArray> &ScopKernel::arrays() const { return impl("arrays").arrays; }
const std::vector<std::string> &ScopKernel::params() const { return impl("params").params; }

std::vector<std::int64_t> ScopKernel::shape(const std::string &array,
                                            const std::map<std::string, std::int64_t> &params) const {
  const Impl &k = impl("shape");
  const ScopArray &a = k.array(array);
  return k.shape_at(a, k.param_values(params));
}

std::int64_t ScopKernel::bytes(const std::string &array, const std::map<std::string, std::int64_t> &params) const {
  const Impl &k = impl("bytes");
  const ScopArray &a = k.array(array);
  return k.bytes_at(a, k.param_values(params));
}

std::string ScopKernel::loop_ast() const {
  const Impl &k = impl("loop_ast");
  return k.text(k.ast, [&] {
    std::ostringstream os;
    poly::print_loop_ast(os, k.kernel);
    return os.str();
  });
}

std::string ScopKernel::c_source() const {
  const Impl &k = impl("c_source");
  return k.text(k.c, [&] { return cpu::emit_c_source({k.kernel}); });
}

std::string ScopKernel::llvm_ir() const {
  const Impl &k = impl("llvm_ir");
  return k.text(k.ir, [&] { return cpu::emit_llvm_ir({k.kernel}); });
}

void ScopKernel::run(const std::map<std::string, void *> &arrays,
                     const std::map<std::string, std::int64_t> &params) const {
  const Impl &k = impl("run");
  std::vector<std::int64_t> values = k.param_values(params);
  for (const auto &[n, data] : arrays) k.array(n);  // every name is an array
  std::vector<void *> args;
  std::vector<ZeroBlock> temporaries;
  temporaries.reserve(k.arrays.size());
  for (const ScopArray &a : k.arrays) {
    auto it = arrays.find(a.name);
    if (it == arrays.end()) {
      if (a.role != ScopRole::Temporary)
        throw k.error("missing a buffer for the " + std::string(a.role == ScopRole::Input ? "input" : "output") +
                      " array '" + a.name + "'");
      temporaries.emplace_back(k.bytes_at(a, values));
      args.push_back(temporaries.back().data());
      continue;
    }
    if (!it->second) throw k.error("the buffer of array '" + a.name + "' is a null pointer");
    k.shape_at(a, values);  // no negative extent
    args.push_back(it->second);
  }
  std::int64_t none = 0;
  k.exe->run(k.kernel.name, args.data(), values.empty() ? &none : values.data());
}

}  // namespace atl
