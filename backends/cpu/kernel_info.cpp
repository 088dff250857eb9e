// Kernel facts shared by the LLVM and C generators, and the checks run before either.
#include "backends/cpu/kernel_info.h"

#include <atoll/diagnostics.h>

#include <cctype>
#include <functional>
#include <set>

namespace atl::cpu {

using poly::LExpr;
using poly::LExprKind;
using poly::LKernel;
using poly::LStmt;
using poly::LStmtKind;
using poly::LType;

bool uses_float_values(const LKernel &kernel) {
  // f64 and integer tensors need double values (f32 holds neither exactly).
  auto narrow = [](DType t) { return t == DType::F32 || t == DType::F16 || t == DType::BF16; };
  for (const poly::LArray &a : kernel.arrays)
    if (!narrow(a.dtype)) return false;
  for (const poly::LArray &a : kernel.locals)
    if (!narrow(a.dtype)) return false;
  return true;
}

const poly::LArray *find_array(const LKernel &kernel, const std::string &name) {
  for (const poly::LArray &a : kernel.arrays)
    if (a.name == name) return &a;
  for (const poly::LArray &a : kernel.locals)
    if (a.name == name) return &a;
  return nullptr;
}

namespace {

bool mentions(const LExpr &e, const std::string &var) {
  if (e.kind == LExprKind::Var && e.name == var) return true;
  for (const poly::LExprPtr &a : e.args)
    if (mentions(*a, var)) return true;
  return false;
}

bool is_identifier(const std::string &s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

class Checker {
public:
  explicit Checker(const LKernel &k) : k_(k) {}

  void run() {
    if (!is_identifier(k_.name)) fail("kernel name '" + k_.name + "' is not a C identifier");
    std::set<std::string> names;
    for (const poly::LArray &a : k_.arrays) {
      if (!is_identifier(a.name)) fail("array name '" + a.name + "' is not a C identifier");
      if (!names.insert(a.name).second) fail("duplicate argument name '" + a.name + "'");
    }
    for (const std::string &p : k_.params) {
      if (!is_identifier(p)) fail("parameter name '" + p + "' is not a C identifier");
      if (!names.insert(p).second) fail("duplicate argument name '" + p + "'");
      scope_.insert(p);
    }
    for (const poly::LArray &a : k_.arrays)
      for (const Dim &d : a.shape) {
        if (d.is_symbolic() && !scope_.count(d.symbol))
          fail("array '" + a.name + "' has extent '" + d.symbol + "', which is not a parameter");
        if (!d.is_symbolic() && d.value < 0) fail("array '" + a.name + "' has a negative extent");
      }
    for (const poly::LArray &a : k_.locals) {
      if (!is_identifier(a.name)) fail("local array name '" + a.name + "' is not a C identifier");
      if (!names.insert(a.name).second) fail("duplicate array name '" + a.name + "'");
      if (a.role != poly::LArray::Role::Local) fail("local array '" + a.name + "' does not have the role Local");
      for (const Dim &d : a.shape)
        if (d.is_symbolic() || d.value <= 0) fail("local array '" + a.name + "' needs constant positive extents");
    }
    if (!k_.body) fail("kernel has no body");
    stmt(*k_.body);
    for (const poly::LArray &a : k_.locals)
      if (!declared_.count(a.name)) fail("local array '" + a.name + "' is not declared by a loop");
  }

private:
  [[noreturn]] void fail(const std::string &why) const { throw UserError("kernel '" + k_.name + "': " + why); }

  void subscripts(const std::string &array, const std::vector<poly::LExprPtr> &idx) {
    const poly::LArray *a = find_array(k_, array);
    if (!a) fail("unknown array '" + array + "'");
    if (a->role == poly::LArray::Role::Local && !live_.count(array))
      fail("local array '" + array + "' is used outside the loop that declares it");
    if (idx.size() != a->shape.size())
      fail("array '" + array + "' has rank " + std::to_string(a->shape.size()) + " but is accessed with " +
           std::to_string(idx.size()) + " subscripts");
    for (const poly::LExprPtr &i : idx) expr(*i, LType::Index);
  }

  void expr(const LExpr &e, LType want) {
    if (e.type != want)
      fail(std::string("a ") + (e.type == LType::Index ? "index" : "value") + " expression is used as a " +
           (want == LType::Index ? "index" : "value"));
    switch (e.kind) {
    case LExprKind::Int:
    case LExprKind::Float: return;
    case LExprKind::Var:
      if (!scope_.count(e.name)) fail("unknown variable '" + e.name + "'");
      return;
    case LExprKind::Unary: return arity(e, 1), expr(*e.args[0], want);
    case LExprKind::Binary:
    case LExprKind::Min:
    case LExprKind::Max: arity(e, 2); expr(*e.args[0], want); expr(*e.args[1], want); return;
    case LExprKind::Select:
      arity(e, 3);
      expr(*e.args[0], e.args[0]->type);
      expr(*e.args[1], want);
      expr(*e.args[2], want);
      return;
    case LExprKind::Call:
      if (static_cast<int>(e.args.size()) != compute::func_arity(e.func))
        fail(std::string("function '") + compute::func_name(e.func) + "' takes " +
             std::to_string(compute::func_arity(e.func)) + " arguments");
      for (const poly::LExprPtr &a : e.args) expr(*a, LType::Value);
      return;
    case LExprKind::Load: return subscripts(e.name, e.args);
    case LExprKind::GuardedLoad:
      arity(e, 2);
      if (e.args[0]->kind != LExprKind::Load) fail("a guarded load must wrap a load");
      expr(*e.args[0], LType::Value);
      expr(*e.args[1], LType::Value);
      return;
    case LExprKind::ToValue: return arity(e, 1), expr(*e.args[0], LType::Index);
    case LExprKind::ToIndex: return arity(e, 1), expr(*e.args[0], LType::Value);
    }
  }

  void arity(const LExpr &e, std::size_t n) const {
    if (e.args.size() != n) fail("malformed expression (wrong operand count)");
  }

  void stmt(const LStmt &s) {
    switch (s.kind) {
    case LStmtKind::Block:
      for (const poly::LStmtPtr &c : s.body)
        if (c) stmt(*c);
      return;
    case LStmtKind::For: {
      if (!is_identifier(s.iterator)) fail("loop iterator '" + s.iterator + "' is not a C identifier");
      if (find_array(k_, s.iterator)) fail("loop iterator '" + s.iterator + "' has an array's name");
      if (s.step == 0) fail("loop over '" + s.iterator + "' has step 0");
      if (!s.init || !s.cond) fail("loop over '" + s.iterator + "' lacks a bound");
      expr(*s.init, LType::Index);
      for (const std::string &l : s.locals) {
        const poly::LArray *a = find_array(k_, l);
        if (!a || a->role != poly::LArray::Role::Local) fail("loop over '" + s.iterator + "' declares '" + l + "', which is not a local array");
        if (!declared_.insert(l).second) fail("local array '" + l + "' is declared by two loops");
        live_.insert(l);
      }
      bool shadowed = !scope_.insert(s.iterator).second;
      expr(*s.cond, s.cond->type);
      for (const poly::LStmtPtr &c : s.body)
        if (c) stmt(*c);
      if (!shadowed) scope_.erase(s.iterator);
      for (const std::string &l : s.locals) live_.erase(l);
      return;
    }
    case LStmtKind::If:
      if (!s.cond) fail("if without a condition");
      expr(*s.cond, s.cond->type);
      if (s.then_body) stmt(*s.then_body);
      if (s.else_body) stmt(*s.else_body);
      return;
    case LStmtKind::Store:
      subscripts(s.array, s.indices);
      if (!s.value) fail("store without a value");
      expr(*s.value, LType::Value);
      return;
    }
  }

  const LKernel &k_;
  std::set<std::string> scope_;
  std::set<std::string> declared_;  ///< local arrays declared by a loop
  std::set<std::string> live_;      ///< local arrays declared by an enclosing loop
};

}  // namespace

std::optional<LoopUpperBound> loop_upper_bound(const LStmt &loop) {
  if (loop.kind != LStmtKind::For || loop.step <= 0 || !loop.cond) return std::nullopt;
  const LExpr &c = *loop.cond;
  if (c.kind != LExprKind::Binary || c.type != LType::Index) return std::nullopt;
  if (c.binop != compute::BinOp::Lt && c.binop != compute::BinOp::Le) return std::nullopt;
  const LExpr &lhs = *c.args[0];
  if (lhs.kind != LExprKind::Var || lhs.name != loop.iterator) return std::nullopt;
  if (mentions(*c.args[1], loop.iterator)) return std::nullopt;
  return LoopUpperBound{c.args[1], c.binop == compute::BinOp::Le};
}

bool is_speculatable(const LExpr &e) {
  switch (e.kind) {
  case LExprKind::Load: return false;
  case LExprKind::GuardedLoad: return is_speculatable(*e.args[1]);
  case LExprKind::Binary:
    if (e.type == LType::Index && (e.binop == compute::BinOp::Div || e.binop == compute::BinOp::Mod) &&
        !(e.args[1]->kind == LExprKind::Int && e.args[1]->ival != 0))
      return false;
    break;
  case LExprKind::Int:
  case LExprKind::Float:
  case LExprKind::Var:
  case LExprKind::Unary:
  case LExprKind::Min:
  case LExprKind::Max:
  case LExprKind::Select:
  case LExprKind::Call:
  case LExprKind::ToValue:
  case LExprKind::ToIndex: break;
  }
  for (const poly::LExprPtr &a : e.args)
    if (!is_speculatable(*a)) return false;
  return true;
}

void check_kernel(const LKernel &kernel) { Checker(kernel).run(); }

namespace {

void collect_stored(const poly::LStmt &s, std::set<std::string> &out) {
  if (s.kind == poly::LStmtKind::Store) out.insert(s.array);
  for (const poly::LStmtPtr &c : s.body)
    if (c) collect_stored(*c, out);
  if (s.then_body) collect_stored(*s.then_body, out);
  if (s.else_body) collect_stored(*s.else_body, out);
}

}  // namespace

std::set<std::string> stored_arrays(const poly::LKernel &kernel) {
  std::set<std::string> out;
  if (kernel.body) collect_stored(*kernel.body, out);
  return out;
}

const char *c_storage_type(DType t) {
  switch (t) {
  case DType::F32: return "float";
  case DType::F16:
  case DType::BF16: return "uint16_t";
  case DType::I8: return "int8_t";
  case DType::I32: return "int32_t";
  case DType::I64: return "int64_t";
  case DType::Bool:
  case DType::U8: return "uint8_t";
  case DType::F64: return "double";
  }
  return "?";
}

std::string describe_array(const poly::LArray &array) {
  const char *role = "input";
  switch (array.role) {
  case poly::LArray::Role::Input: role = "input"; break;
  case poly::LArray::Role::Output: role = "output"; break;
  case poly::LArray::Role::Temporary: role = "temporary (zero-filled by the caller)"; break;
  case poly::LArray::Role::Local: role = "local (one per iteration of its loop)"; break;
  }
  return array.name + ": " + dtype_name(array.dtype) + sym_shape_to_string(array.shape) + ", " + role;
}

}  // namespace atl::cpu
