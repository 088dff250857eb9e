// classify_npu_kernel: the cluster as a cube or a vector kernel (see the
// header). It reads the statements' subscripts, which the SCoP builder
// keeps as written: a plain index is a space dim, 0 on an extent-1 dim a
// broadcast; anything else (a window, a run-time index) is beyond this
// code generator.
#include "polyhedral/transforms/npu/classify_npu_kernel.h"

#include "polyhedral/transforms/npu/tile_for_npu.h"

#include <atoll/diagnostics.h>

#include <algorithm>
#include <set>

namespace atl::poly {

namespace {

/// The name a message gives an array: its graph tensor, else its own.
std::string label(const ScopArray &a) { return a.tensor.empty() ? a.array.name : a.tensor; }

[[noreturn]] void unsupported(const ScopStatement &st, const std::string &why) {
  throw UserError("--target npu: node '" + st.node + "': " + why);
}

void reads_of(const compute::Expr &e, std::vector<const compute::Expr *> &out) {
  if (e.kind == compute::ExprKind::Read) {
    out.push_back(&e);
    return;
  }
  for (const auto &a : e.args) reads_of(*a, out);
}

/// The operations the vector unit's instruction selection takes.
void check_ops(const ScopStatement &st, const compute::Expr &e) {
  using compute::ExprKind;
  switch (e.kind) {
    case ExprKind::Number:
    case ExprKind::Read:
      return;
    case ExprKind::Var:
      unsupported(st, "uses the index '" + e.name + "' as a value; the NPU has no scalar data path");
    case ExprKind::Unary:
      if (e.unop != compute::UnOp::Neg) unsupported(st, "logical not is not supported on the NPU yet");
      break;
    case ExprKind::Binary:
      if (e.binop != compute::BinOp::Add && e.binop != compute::BinOp::Sub && e.binop != compute::BinOp::Mul &&
          e.binop != compute::BinOp::Div)
        unsupported(st, std::string("the operator '") + compute::binop_name(e.binop) +
                            "' is not supported on the NPU yet (add, sub, mul, div are)");
      break;
    case ExprKind::Call:
      switch (e.func) {
        case compute::Func::Exp:
        case compute::Func::Log:
        case compute::Func::Sqrt:
        case compute::Func::Tanh:
        case compute::Func::Abs:
        case compute::Func::Sigmoid:
        case compute::Func::Erf:
        case compute::Func::Max:
        case compute::Func::Min:
          break;
        default:
          unsupported(st, std::string("the function '") + compute::func_name(e.func) +
                              "' has no NPU vector sequence yet (exp, log, sqrt, tanh, abs, sigmoid, erf, max, min do)");
      }
      break;
    case ExprKind::Select:
      unsupported(st, "selects are not supported on the NPU yet");
    case ExprKind::Guard:
      unsupported(st, "reads with padding (a window) are not supported on the NPU yet");
  }
  for (const auto &a : e.args) check_ops(st, *a);
}

struct Classifier {
  const Scop &scop;
  NpuKernelPlan plan;

  const ScopArray &array(const ScopStatement &st, const std::string &name) const {
    const ScopArray *a = scop.array(name);
    if (!a) unsupported(st, "reads an unknown array '" + name + "'");
    if (a->array.dtype != DType::F32 && a->array.dtype != DType::F16)
      unsupported(st, "NPU code generation handles f32 and f16 tensors; '" + label(*a) + "' is " +
                          dtype_name(a->array.dtype));
    return *a;
  }

  /// One subscript of an access as the NPU path reads it: an index, or 0.
  /// A pair (i / W, i % W) over an array's last two dims (coalesce_dims
  /// made it) is one subscript i over a dim of extent H * W.
  struct Sub {
    bool zero = false;
    std::string index;
    Dim extent;
  };
  static bool pair_of(const compute::Expr &d, const compute::Expr &m, const Dim &w, std::string &index) {
    using compute::ExprKind;
    auto is = [](const compute::Expr &e, compute::BinOp op) {
      return e.kind == ExprKind::Binary && e.binop == op && e.args[0]->kind == ExprKind::Var &&
             e.args[1]->kind == ExprKind::Number;
    };
    if (!is(d, compute::BinOp::Div) || !is(m, compute::BinOp::Mod) || w.is_symbolic()) return false;
    if (d.args[0]->name != m.args[0]->name || d.args[1]->number != double(w.value) || m.args[1]->number != double(w.value))
      return false;
    index = d.args[0]->name;
    return true;
  }
  /// The subscripts of `access` (of array `a`) and the shape they address.
  std::vector<Sub> subscripts(const ScopStatement &st, const compute::Expr &access, const ScopArray &a) const {
    std::vector<Sub> out;
    const auto &args = access.args;
    const SymShape &shape = a.array.shape;
    const std::set<std::string> unit = unit_indices(st);
    for (std::size_t p = 0; p < args.size(); ++p) {
      const compute::Expr &s = *args[p];
      std::string index;
      if (p + 1 < args.size() && p + 1 < shape.size() && !shape[p].is_symbolic() &&
          pair_of(s, *args[p + 1], shape[p + 1], index)) {
        out.push_back({false, index, Dim(shape[p].value * shape[p + 1].value)});
        ++p;
      } else if (s.kind == compute::ExprKind::Var) {
        out.push_back({false, s.name, shape[p]});
      } else if (s.kind == compute::ExprKind::Binary && s.binop == compute::BinOp::Add &&
                 s.args[0]->kind == compute::ExprKind::Var && s.args[1]->kind == compute::ExprKind::Var &&
                 (unit.count(s.args[0]->name) || unit.count(s.args[1]->name))) {
        // h + kh with kh of one point (a 1x1 window): h.
        const bool first_unit = unit.count(s.args[0]->name) > 0;
        out.push_back({false, s.args[first_unit ? 1 : 0]->name, shape[p]});
      } else if (s.kind == compute::ExprKind::Number && s.number == 0) {
        out.push_back({true, "", shape[p]});
      } else {
        unsupported(st, "reads or writes '" + label(a) +
                            "' at a computed subscript (a window, a shift or a run-time index); not supported on the "
                            "NPU yet");
      }
    }
    return out;
  }
  static SymShape shape_of(const std::vector<Sub> &subs) {
    SymShape s;
    for (const Sub &x : subs) s.push_back(x.extent);
    return s;
  }
  /// Indices of one point (a 1x1 window's kh and kw): constants 0.
  std::set<std::string> unit_indices(const ScopStatement &st) const {
    std::set<std::string> unit;
    for (std::size_t i = 0; i < st.indices.size(); ++i) {
      try {
        if (st.domain.dim_min_val(static_cast<int>(i)).is_zero() && st.domain.dim_max_val(static_cast<int>(i)).is_zero())
          unit.insert(st.indices[i]);
      } catch (const isl::exception &) {
      }
    }
    return unit;
  }
  int reductions(const ScopStatement &st) const {
    const std::set<std::string> unit = unit_indices(st);
    int n = 0;
    for (std::size_t i = 0; i < st.indices.size(); ++i) n += st.reduction[i] && !unit.count(st.indices[i]);
    return n;
  }
  /// The written array's shape as the statement addresses it.
  SymShape written_shape(const ScopStatement &st) const {
    return shape_of(subscripts(st, *st.lhs, array(st, st.lhs->name)));
  }

  /// Space dim of each of the statement's indices: its position among the
  /// written subscripts; reduction indices map to kNpuK, indices of one
  /// point to -1.
  std::map<std::string, int> index_dims(const ScopStatement &st) const {
    std::map<std::string, int> dims;
    const std::vector<Sub> subs = subscripts(st, *st.lhs, array(st, st.lhs->name));
    for (std::size_t p = 0; p < subs.size(); ++p) {
      if (subs[p].zero) {
        if (!(subs[p].extent == Dim(1)))
          unsupported(st, "writes at a constant subscript; the NPU path needs the plain indices");
        continue;  // a dim of one element: no index
      }
      if (dims.count(subs[p].index)) unsupported(st, "writes a diagonal (index '" + subs[p].index + "' twice)");
      dims[subs[p].index] = static_cast<int>(p);
    }
    const std::set<std::string> unit = unit_indices(st);
    for (std::size_t i = 0; i < st.indices.size(); ++i)
      if (unit.count(st.indices[i]) && !dims.count(st.indices[i])) dims[st.indices[i]] = -1;
      else if (st.reduction[i]) dims[st.indices[i]] = kNpuK;
    return dims;
  }

  /// The dims of a read of `read` in statement `st`, and the shape they
  /// address (`shape`): dims of extent 1 read at 0 are dropped.
  std::vector<int> read_dims(const ScopStatement &st, const compute::Expr &read,
                             const std::map<std::string, int> &index, SymShape *shape = nullptr) const {
    const ScopArray &a = array(st, read.name);
    std::vector<int> dims;
    SymShape kept;
    for (const Sub &s : subscripts(st, read, a)) {
      int d = -1;
      if (!s.zero) {
        auto it = index.find(s.index);
        if (it == index.end()) unsupported(st, "reads '" + label(a) + "' at an index it does not write");
        d = it->second;
      }
      if (d == -1) {
        if (s.extent == Dim(1)) continue;  // one element: no dim at all
        unsupported(st, "reads '" + label(a) + "' at a constant position of a longer dim; not supported on the NPU yet");
      }
      dims.push_back(d);
      kept.push_back(s.extent);
    }
    if (shape) *shape = kept;
    return dims;
  }

  /// Records how the statements read `read` (Full, Row or Scalar).
  void add_operand(const ScopStatement &st, const compute::Expr &read, const std::map<std::string, int> &index) {
    const ScopArray &a = array(st, read.name);
    NpuOperand o;
    o.array = read.name;
    o.dtype = a.array.dtype;
    o.dims = read_dims(st, read, index, &o.shape);
    const int rank = static_cast<int>(plan.space.size());
    std::set<int> present;
    for (int d : o.dims)
      if (d >= 0) present.insert(d);
    if (std::count(o.dims.begin(), o.dims.end(), kNpuK))
      unsupported(st, "reads '" + label(a) + "' inside the contraction");
    // Dims that belong to the tile's rows and columns.
    const bool cube = plan.kind == NpuKernelPlan::Kind::Cube;
    const int cols = cube ? plan.n : rank - 1;
    std::vector<int> rows;
    if (cube) {
      if (plan.m >= 0) rows.push_back(plan.m);
    } else if (plan.batched_rows) {
      if (rank >= 2) rows.push_back(rank - 2);
    } else {
      for (int d = 0; d + 1 < rank; ++d) rows.push_back(d);
    }
    bool has_cols = cols >= 0 && present.count(cols);
    bool all_rows = true, no_rows = true;
    for (int r : rows) (present.count(r) ? no_rows : all_rows) = false;
    // Dims must appear in space order (rows then columns contiguous);
    // batched vector tiles take any order with the columns last.
    int last = -1;
    for (int d : o.dims)
      if (d >= 0) {
        if (d <= last && !plan.batched_rows)
          unsupported(st, "reads '" + label(a) + "' with its dims permuted; not supported on the NPU yet");
        last = d;
      }
    if (plan.batched_rows && !o.dims.empty() && present.count(cols) && o.dims.back() != cols)
      unsupported(st, "reads '" + label(a) + "' with its last dim moved (a transpose); not supported on the NPU yet");
    const auto known = plan.operands.find(o.array);
    const bool col_array = !cube && known != plan.operands.end() && known->second.form == NpuOperand::Form::Col;
    if (col_array) {
      if (has_cols || !all_rows) unsupported(st, "reads the row reduction '" + label(a) + "' with other subscripts");
      o.form = NpuOperand::Form::Col;
    } else if (present.empty()) {
      if (!a.scalar)
        unsupported(st, "reads the one-element tensor '" + label(a) +
                            "' whose value is not a constant; not supported on the NPU yet");
      o.form = NpuOperand::Form::Scalar;
      o.constant = a.scalar;
    } else if ((has_cols || cols < 0) && all_rows) {
      o.form = NpuOperand::Form::Full;
      if (!cube && !plan.batched_rows)  // the flattened rows need every leading dim
        for (int d = 0; d + 1 < rank; ++d)
          if (!present.count(d) && !(plan.space[d] == Dim(1)))
            unsupported(st, "reads '" + label(a) + "' broadcast along dim " + std::to_string(d) +
                                "; not supported on the NPU yet");
    } else if (has_cols && no_rows) {
      o.form = NpuOperand::Form::Row;
    } else if (!has_cols && all_rows && !rows.empty() && !written_here(o.array)) {
      // One value a row, loaded: a per-channel bias of an NCHW convolution.
      if (plan.batched_rows && o.dims.back() != rows.front())
        unsupported(st, "reads '" + label(a) + "' one value a row, not contiguous; not supported on the NPU yet");
      if (!cube && !plan.batched_rows)
        for (int d = 0; d + 1 < rank; ++d)
          if (!present.count(d)) unsupported(st, "reads '" + label(a) + "' broadcast along dim " + std::to_string(d) +
                                                     "; not supported on the NPU yet");
      o.form = NpuOperand::Form::Col;
      o.loaded_col = true;
    } else {
      unsupported(st, "reads '" + label(a) + "' broadcast along the columns; not supported on the NPU yet");
    }
    // Dims of one element do not change where elements are.
    auto significant = [](const NpuOperand &x) {
      std::vector<int> d;
      for (std::size_t p = 0; p < x.dims.size(); ++p)
        if (!(x.shape[p] == Dim(1))) d.push_back(x.dims[p]);
      return d;
    };
    auto [it, fresh] = plan.operands.emplace(o.array, o);
    if (!fresh && significant(it->second) != significant(o))
      unsupported(st, "reads '" + label(a) + "' in two different ways; not supported on the NPU yet");
  }

  /// A row reduction of a vector kernel: `r[rows] op= e[rows, cols]`.
  bool add_reduction(const ScopStatement &st) {
    if (plan.kind == NpuKernelPlan::Kind::Cube)
      unsupported(st, "a reduction in a contraction's epilogue is not supported on the NPU yet");
    if (st.op == compute::AssignOp::Mul) unsupported(st, "product reductions are not supported on the NPU yet");
    const ScopArray &w = array(st, st.lhs->name);
    const int rank = static_cast<int>(plan.space.size());
    SymShape rows(plan.space.begin(), plan.space.end() - (rank ? 1 : 0));
    if (reductions(st) != 1)
      unsupported(st, "reduces over several indices (a convolution's or a pooling window?); not supported on the NPU "
                      "yet (contractions over one index and row reductions are)");
    if (rank < 1 || written_shape(st) != rows)
      unsupported(st, "reduces other than along the last dim; not supported on the NPU yet");
    if (w.kind == ScopArray::Kind::Output)
      unsupported(st, "a row reduction as a kernel output ('" + label(w) + "') is not supported on the NPU yet");
    if (plan.space.back().is_symbolic())
      unsupported(st, "reduces rows of symbolic length; the NPU path needs a constant row length");
    auto index = index_dims(st);
    for (std::size_t i = 0; i < st.indices.size(); ++i)
      if (st.reduction[i]) index[st.indices[i]] = rank - 1;
    check_ops(st, *st.rhs);
    std::vector<const compute::Expr *> reads;
    reads_of(*st.rhs, reads);
    for (const compute::Expr *r : reads) add_operand(st, *r, index);
    NpuOperand o;
    o.array = st.lhs->name;
    o.dtype = w.array.dtype;
    o.shape = written_shape(st);
    for (int d = 0; d + 1 < rank; ++d) o.dims.push_back(d);
    o.form = NpuOperand::Form::Col;
    plan.operands[o.array] = o;
    plan.statements.push_back({st.name, st.node, st.lhs->name, st.rhs, st.op});
    plan.whole_rows = true;
    return true;
  }

  /// `r[rows] = f(per-row values, constants)`: arithmetic on reductions' results.
  void add_per_row(const ScopStatement &st, const ScopArray &w) {
    if (w.kind == ScopArray::Kind::Output)
      unsupported(st, "a per-row result as a kernel output ('" + label(w) + "') is not supported on the NPU yet");
    auto index = index_dims(st);
    check_ops(st, *st.rhs);
    std::vector<const compute::Expr *> reads;
    reads_of(*st.rhs, reads);
    for (const compute::Expr *r : reads) {
      add_operand(st, *r, index);
      const NpuOperand &o = plan.operands.at(r->name);
      if (o.form != NpuOperand::Form::Col && o.form != NpuOperand::Form::Scalar)
        unsupported(st, "computes a per-row value from '" + label(array(st, r->name)) +
                            "', which is not one; not supported on the NPU yet");
    }
    NpuOperand o;
    o.array = st.lhs->name;
    o.dtype = w.array.dtype;
    o.shape = written_shape(st);
    for (int d = 0; d + 1 < static_cast<int>(plan.space.size()); ++d) o.dims.push_back(d);
    o.form = NpuOperand::Form::Col;
    plan.operands[o.array] = o;
    NpuStatement s{st.name, st.node, st.lhs->name, st.rhs};
    s.per_row = true;
    plan.statements.push_back(s);
  }

  void add_statement(const ScopStatement &st) {
    if (st.init) {
      // The identity of a row reduction: the reduction starts from its first element.
      const std::string main_name = st.name.size() > 5 ? st.name.substr(0, st.name.size() - 5) : std::string();
      for (const ScopStatement &r : scop.statements)
        if (&r != &st && r.name == main_name && !r.init &&
            r.op != compute::AssignOp::Assign && plan.kind == NpuKernelPlan::Kind::Vector)
          return;
      unsupported(st, "initialises a reduction other than a contraction; not supported on the NPU yet");
    }
    if (st.op != compute::AssignOp::Assign && reductions(st) == 0) {
      // `a op= e` with no reduction index (a bias added into an
      // accumulator): `a = a op e`.
      ScopStatement s = st;
      auto e = std::make_shared<compute::Expr>();
      e->args = {st.lhs, st.rhs};
      if (st.op == compute::AssignOp::Add || st.op == compute::AssignOp::Mul) {
        e->kind = compute::ExprKind::Binary;
        e->binop = st.op == compute::AssignOp::Add ? compute::BinOp::Add : compute::BinOp::Mul;
      } else {
        e->kind = compute::ExprKind::Call;
        e->func = st.op == compute::AssignOp::Max ? compute::Func::Max : compute::Func::Min;
      }
      s.rhs = e;
      s.op = compute::AssignOp::Assign;
      add_statement(s);
      return;
    }
    if (st.op != compute::AssignOp::Assign) {
      add_reduction(st);
      return;
    }
    const ScopArray &w = array(st, st.lhs->name);
    const int rank = static_cast<int>(plan.space.size());
    if (plan.kind == NpuKernelPlan::Kind::Vector && rank >= 1 &&
        written_shape(st) == SymShape(plan.space.begin(), plan.space.end() - 1)) {
      add_per_row(st, w);
      return;
    }
    if (written_shape(st) != plan.space)
      unsupported(st, "writes '" + label(w) + "' of shape " + sym_shape_to_string(written_shape(st)) +
                          " in a kernel whose space is " + sym_shape_to_string(plan.space));
    auto index = index_dims(st);
    check_ops(st, *st.rhs);
    std::vector<const compute::Expr *> reads;
    reads_of(*st.rhs, reads);
    for (const compute::Expr *r : reads) add_operand(st, *r, index);
    NpuOperand &o = plan.operands[st.lhs->name];
    o.array = st.lhs->name;
    o.dtype = w.array.dtype;
    o.shape = written_shape(st);
    o.dims.clear();
    for (std::size_t p = 0; p < plan.space.size(); ++p) o.dims.push_back(static_cast<int>(p));
    o.form = NpuOperand::Form::Full;
    o.output = w.kind == ScopArray::Kind::Output;
    plan.statements.push_back({st.name, st.node, st.lhs->name, st.rhs});
  }

  bool written_here(const std::string &array) const {
    for (const ScopStatement &s : scop.statements)
      if (s.lhs->name == array) return true;
    return false;
  }

  bool is_contraction(const ScopStatement &st) const {
    return st.op == compute::AssignOp::Add && !st.init && st.rhs && st.rhs->kind == compute::ExprKind::Binary &&
           st.rhs->binop == compute::BinOp::Mul && st.rhs->args[0]->kind == compute::ExprKind::Read &&
           st.rhs->args[1]->kind == compute::ExprKind::Read &&
           reductions(st) > 0;
  }

  void contraction(const ScopStatement &st) {
    plan.kind = NpuKernelPlan::Kind::Cube;
    plan.contraction = st.name;
    plan.cluster = scop.name;
    if (reductions(st) != 1)
      unsupported(st, "contracts over several indices (a convolution's window?); the NPU path takes one (MatMul, Gemm)");
    const ScopArray &c = array(st, st.lhs->name);
    plan.c = st.lhs->name;
    plan.space = written_shape(st);
    auto index = index_dims(st);
    const compute::Expr *ra = st.rhs->args[0].get(), *rb = st.rhs->args[1].get();
    auto operand = [&](const compute::Expr &r) {
      const ScopArray &a = array(st, r.name);
      NpuOperand o;
      o.array = r.name;
      o.dtype = a.array.dtype;
      o.dims = read_dims(st, r, index, &o.shape);
      for (std::size_t p = 0; p < o.dims.size(); ++p)
        if (o.dims[p] == kNpuK) plan.k_extent = o.shape[p];
      return o;
    };
    NpuOperand A = operand(*ra), B = operand(*rb);
    auto has = [](const NpuOperand &o, int d) { return std::count(o.dims.begin(), o.dims.end(), d) > 0; };
    const int R = static_cast<int>(plan.space.size());
    for (int d = 0; d < R; ++d)
      if (!has(A, d) && !has(B, d) && !(plan.space[d] == Dim(1)))
        unsupported(st, "writes an output dim that neither operand reads");
    if (!has(A, kNpuK) || !has(B, kNpuK)) unsupported(st, "the contraction index must subscript both operands");
    if (R >= 1 && has(A, R - 1) && !has(B, R - 1)) std::swap(A, B);  // C^T = B^T A^T: columns come from B
    if (R >= 1 && !(has(B, R - 1) && !has(A, R - 1)))
      unsupported(st, "the output's last dim is read by both operands; not supported on the NPU yet");
    plan.n = R >= 1 ? R - 1 : -1;
    plan.m = R >= 2 && has(A, R - 2) && !has(B, R - 2) ? R - 2 : -1;
    for (int d = 0; d < R; ++d)
      if (d != plan.m && d != plan.n) plan.batch.push_back(d);
    // Storage: the two matrix dims last, batch dims (or broadcasts) before.
    auto storage = [&](const NpuOperand &o, int matrix_dim, const char *what) {
      const int r = static_cast<int>(o.dims.size());
      auto is_batch = [&](int d) { return d == -1 || std::count(plan.batch.begin(), plan.batch.end(), d) > 0; };
      if (matrix_dim < 0) {
        if (r < 1 || o.dims[r - 1] != kNpuK) unsupported(st, std::string(what) + " must have the contraction index last");
        for (int p = 0; p + 1 < r; ++p)
          if (!is_batch(o.dims[p])) unsupported(st, std::string(what) + " has an unsupported layout");
        return false;
      }
      if (r < 2) unsupported(st, std::string(what) + " has an unsupported layout");
      for (int p = 0; p + 2 < r; ++p)
        if (!is_batch(o.dims[p])) unsupported(st, std::string(what) + " has its matrix dims apart; not supported yet");
      if (o.dims[r - 2] == matrix_dim && o.dims[r - 1] == kNpuK) return false;
      if (o.dims[r - 2] == kNpuK && o.dims[r - 1] == matrix_dim) return true;
      unsupported(st, std::string(what) + " has an unsupported layout");
    };
    if (plan.n < 0) unsupported(st, "a contraction without output columns is not supported on the NPU yet");
    plan.a_transposed = storage(A, plan.m, "the left operand");
    // B as [k, n]: stored [n, k] is the transposed form.
    plan.b_transposed = !storage(B, plan.n, "the right operand");
    plan.a = A;
    plan.b = B;
    NpuOperand co;
    co.array = plan.c;
    co.dtype = c.array.dtype;
    co.shape = plan.space;
    for (int d = 0; d < R; ++d) co.dims.push_back(d);
    co.output = c.kind == ScopArray::Kind::Output;
    plan.operands[plan.c] = co;
  }
};

NpuKernelPlan classify(const Scop &scop, bool batched_rows);

}  // namespace

NpuKernelPlan classify_npu_kernel(const Scop &scop) {
  try {
    return classify(scop, false);
  } catch (const UserError &) {
    // A vector kernel whose operands are permuted or broadcast along a
    // leading dim may still run with batched row tiles.
    const Classifier probe{scop, {}};
    for (const ScopStatement &st : scop.statements)
      if (probe.is_contraction(st)) throw;
    return classify(scop, true);
  }
}

namespace {

NpuKernelPlan classify(const Scop &scop, bool batched_rows) {
  Classifier c{scop, {}};
  c.plan.batched_rows = batched_rows;
  c.plan.cluster = scop.name;
  const ScopStatement *main = nullptr;
  for (const ScopStatement &st : scop.statements)
    if (c.is_contraction(st)) {
      if (main) unsupported(st, "a second contraction in the same kernel; not supported on the NPU yet");
      main = &st;
    }
  if (scop.statements.empty()) throw UserError("--target npu: cluster '" + scop.name + "' has no statements");
  if (main) {
    c.contraction(*main);
  } else {
    const ScopStatement &last = scop.statements.back();
    c.plan.space = c.written_shape(last);
    c.plan.kind = NpuKernelPlan::Kind::Vector;
  }
  bool after = !main;
  for (const ScopStatement &st : scop.statements) {
    if (main && &st == main) {
      after = true;
      continue;
    }
    if (main && st.init && st.name == main->name + "_init") continue;  // folded into the first mmad
    if (!after) unsupported(st, "computes a value the contraction reads, in the same kernel; not supported on the NPU yet");
    c.add_statement(st);
  }
  // Copies (an f16 contraction's `y = acc`): the copy takes the source's
  // tile when nothing reads or writes the source after it.
  auto &sts = c.plan.statements;
  for (std::size_t i = 0; i < sts.size(); ++i) {
    const compute::Expr &r = *sts[i].rhs;
    if (sts[i].op != compute::AssignOp::Assign || sts[i].per_row || r.kind != compute::ExprKind::Read) continue;
    auto src = c.plan.operands.find(r.name);
    if (src == c.plan.operands.end() || src->second.form != NpuOperand::Form::Full || src->second.output ||
        r.name == sts[i].array || c.plan.tile_alias.count(sts[i].array))
      continue;
    // The source must be computed here (a loaded input's slot is reloaded
    // while the copy's store may still read it).
    bool computed = r.name == c.plan.c && c.plan.kind == NpuKernelPlan::Kind::Cube;
    for (std::size_t j = 0; j < i; ++j) computed = computed || sts[j].array == r.name;
    if (!computed) continue;
    bool later = false;
    for (std::size_t j = 0; j < sts.size(); ++j)
      if (j != i && (sts[j].array == sts[i].array || (j > i && (sts[j].array == r.name || npu_reads(*sts[j].rhs, r.name)))))
        later = true;
    if (later) continue;
    std::string root = r.name;
    while (c.plan.tile_alias.count(root)) root = c.plan.tile_alias.at(root);
    c.plan.tile_alias[sts[i].array] = root;
    sts[i].alias = true;
  }
  if (main)
    for (const std::string &ab : {c.plan.a.array, c.plan.b.array})
      if (auto it = c.plan.operands.find(ab); it != c.plan.operands.end() && it->second.output)
        unsupported(*main, "writes an operand of its own contraction");
  // The kernel computes in the element type of the tensors it loads and
  // stores; its temporaries (an f16 contraction's f32 accumulator) too.
  std::set<std::string> touched{c.plan.a.array, c.plan.b.array};
  for (const auto &[name, o] : c.plan.operands) touched.insert(name);
  bool typed = false;
  for (const std::string &name : touched) {
    const ScopArray *a = scop.array(name);
    if (!a || (a->kind != ScopArray::Kind::Input && a->kind != ScopArray::Kind::Output)) continue;
    if (typed && a->array.dtype != c.plan.dtype)
      unsupported(main ? *main : scop.statements.back(),
                  std::string("mixes ") + dtype_name(c.plan.dtype) + " and " + dtype_name(a->array.dtype) +
                      " tensors in one kernel; not supported on the NPU yet");
    c.plan.dtype = a->array.dtype;
    typed = true;
  }
  return c.plan;
}

}  // namespace

}  // namespace atl::poly
