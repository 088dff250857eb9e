// Builds the SCoP of a cluster: statements from the registry's Compute
// definitions, isl domains (parametric for symbolic dims), access relations
// and arrays, with the statement bodies renamed to the SCoP's array names.
#include "polyhedral/isl/isl_context.h"
#include "polyhedral/scop/collect_reads.h"
#include "polyhedral/scop/scop.h"

#include "graph/compute/compute.h"
#include "graph/compute/widen_accumulators.h"
#include "graph/ir/op_registry.h"
#include "graph/ir/node_graph.h"

#include <atoll/diagnostics.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace atl::poly {

namespace {

using compute::Expr;
using compute::ExprKind;
using compute::ExprPtr;
using compute::QuasiAffine;

/// " + c*x" or " - |c|*x" (isl's parser takes no parenthesised coefficients).
std::string term(std::int64_t c, const std::string &x) {
  return (c < 0 ? " - " : " + ") + std::to_string(c < 0 ? -c : c) + "*" + x;
}

std::string qa_text(const QuasiAffine &q) {
  std::string s = std::to_string(q.constant);
  for (const auto &[name, coeff] : q.vars) s += term(coeff, isl_variable(name));
  for (const auto &t : q.terms) {
    std::string inner = qa_text(*t.num);
    if (t.kind == QuasiAffine::Term::Kind::FloorDiv)
      s += term(t.coeff, "floor((" + inner + ")/" + std::to_string(t.den) + ")");
    else
      s += term(t.coeff, "((" + inner + ") mod " + std::to_string(t.den) + ")");
  }
  return s;
}

/// An affine function of the parameters: c0 + sum c_p * p.
struct ParamAffine {
  std::int64_t constant = 0;
  std::map<std::string, std::int64_t> coeff;
  std::string text() const {
    std::string s = std::to_string(constant);
    for (const auto &[p, c] : coeff)
      if (c != 0) s += term(c, isl_variable(p));
    return s;
  }
  std::int64_t at(const std::map<std::string, std::int64_t> &v) const {
    std::int64_t r = constant;
    for (const auto &[p, c] : coeff) r += c * v.at(p);
    return r;
  }
};

/// Parameter values at which analysis runs: the base (every symbol at its
/// minimum), one per symbol bumped by one, and a check point (maxima).
struct Instantiations {
  std::vector<std::string> params;
  std::map<std::string, std::int64_t> base, check;
  std::vector<std::map<std::string, std::int64_t>> bumped;  // parallel to params
};

Instantiations instantiations(const Graph &g) {
  Instantiations in;
  for (const auto &[name, r] : g.params) {
    in.params.push_back(name);
    in.base[name] = r.min;
    in.check[name] = r.max;
  }
  for (const auto &p : in.params) {
    auto v = in.base;
    const ParamRange &r = g.params.at(p);
    v[p] = r.max > r.min ? r.min + 1 : r.min;
    in.bumped.push_back(v);
  }
  return in;
}

/// Fits an affine function of the parameters to values sampled at the
/// instantiations; empty when the values are not affine.
std::optional<ParamAffine> fit(const Instantiations &in, std::int64_t base, const std::vector<std::int64_t> &bumped,
                               std::int64_t check) {
  ParamAffine f;
  f.constant = base;
  for (std::size_t i = 0; i < in.params.size(); ++i) {
    std::int64_t delta = in.bumped[i].at(in.params[i]) - in.base.at(in.params[i]);
    std::int64_t c = delta == 0 ? 0 : bumped[i] - base;
    f.coeff[in.params[i]] = c;
    f.constant -= c * in.base.at(in.params[i]);
  }
  if (f.at(in.check) != check) return std::nullopt;
  return f;
}

ExprPtr rename(const ExprPtr &e, const std::map<std::string, std::string> &names) {
  auto copy = std::make_shared<Expr>(*e);
  if (e->kind == ExprKind::Read) copy->name = names.at(e->name);
  for (auto &a : copy->args) a = rename(a, names);
  return copy;
}


std::string dim_text(const Dim &d) { return d.is_symbolic() ? isl_variable(d.symbol) : std::to_string(d.value); }

/// "[N, M] -> " for isl parameters `params` (already isl variables), "" for none.
std::string param_prefix(const std::vector<std::string> &params) {
  if (params.empty()) return "";
  std::string text = "[";
  for (std::size_t k = 0; k < params.size(); ++k) text += (k ? ", " : "") + params[k];
  return text += "] -> ";
}

/// A statement's isl tuple, "S[i, j]", from its name and index names.
std::string statement_tuple(const std::string &name, const std::vector<std::string> &indices) {
  std::string tuple = name + "[";
  for (std::size_t k = 0; k < indices.size(); ++k) tuple += (k ? ", " : "") + isl_variable(indices[k]);
  return tuple + "]";
}

class ScopBuilder {
public:
  ScopBuilder(isl::ctx ctx, const Graph &g, std::vector<NodeId> cluster)
      : ctx_(ctx), g_(g), cluster_(std::move(cluster)), inst_(instantiations(g)) {}

  Scop run() {
    // Nodes in the graph's order.
    std::vector<NodeId> ordered;
    for (NodeId v : g_.order())
      if (std::find(cluster_.begin(), cluster_.end(), v) != cluster_.end()) ordered.push_back(v);
    ATOLL_ASSERT(ordered.size() == cluster_.size(), "cluster names a node that is not in the graph");
    ATOLL_ASSERT(!ordered.empty(), "empty cluster");
    cluster_ = ordered;
    scop_.name = g_.node(cluster_.front()).name;

    for (const auto &p : inst_.params) scop_.params.push_back(isl_variable(p));
    prefix_ = param_prefix(scop_.params);
    std::string ctx_text;
    for (const auto &[p, r] : g_.params)
      ctx_text += (ctx_text.empty() ? "" : " and ") + std::to_string(r.min) + " <= " + isl_variable(p) +
                  " <= " + std::to_string(r.max);
    scop_.context = isl::set(ctx_, prefix_ + "{ : " + (ctx_text.empty() ? "true" : ctx_text) + " }");

    for (NodeId v : cluster_) graph_arrays(v);
    for (NodeId v : cluster_) {
      const Node &node = g_.node(v);
      try {
        node_statements(node);
      } catch (const UserError &e) {
        throw e.with({node.pointer, g_.name, node.name});
      }
    }
    std::stable_sort(scop_.arrays.begin(), scop_.arrays.end(),
                     [](const ScopArray &a, const ScopArray &b) { return a.kind < b.kind; });
    return std::move(scop_);
  }

private:
  isl::ctx ctx_;
  const Graph &g_;
  std::vector<NodeId> cluster_;
  Instantiations inst_;
  Scop scop_;
  std::string prefix_;
  std::set<std::string> used_names_;

  bool in_cluster(NodeId v) const { return std::find(cluster_.begin(), cluster_.end(), v) != cluster_.end(); }

  std::string unique_name(const std::string &want) {
    std::string base = sanitize_identifier(want), name = base;
    for (int k = 1; used_names_.count(name); ++k) name = base + "_" + std::to_string(k);
    used_names_.insert(name);
    return name;
  }

  isl::set extent_set(const std::string &array, const SymShape &shape) const {
    std::string dims, cons = "true";
    for (std::size_t d = 0; d < shape.size(); ++d) {
      std::string o = "o" + std::to_string(d);
      dims += (d ? ", " : "") + o;
      cons += " and 0 <= " + o + " < " + dim_text(shape[d]);
    }
    return isl::set(ctx_, prefix_ + "{ " + array + "[" + dims + "] : " + cons + " }");
  }

  void add_array(const std::string &tensor, ScopArray::Kind kind, DType dtype, SymShape shape,
                 const std::string &name_hint = {}) {
    ScopArray a;
    a.tensor = tensor;
    a.kind = kind;
    a.array.name = unique_name(name_hint.empty() ? tensor : name_hint);
    a.array.dtype = dtype;
    a.array.shape = std::move(shape);
    a.array.role = kind == ScopArray::Kind::Input    ? KernelArray::Role::Input
                   : kind == ScopArray::Kind::Output ? KernelArray::Role::Output
                                                     : KernelArray::Role::Temporary;
    a.extent = extent_set(a.array.name, a.array.shape);
    if (!tensor.empty()) scop_.array_of_tensor[tensor] = a.array.name;
    scop_.arrays.push_back(std::move(a));
  }

  /// Graph tensors the node reads from outside the cluster or writes.
  void graph_arrays(NodeId v) {
    const Node &node = g_.node(v);
    for (const std::string &t : node.inputs) {
      if (t.empty() || scop_.array_of_tensor.count(t)) continue;
      auto prod = g_.producer(t);
      if (prod && in_cluster(*prod)) continue;  // added with its producer
      const TensorDecl &d = g_.tensor(t);
      add_array(t, ScopArray::Kind::Input, d.type.dtype, d.type.shape);
      if (d.data && d.data->size() == 1 && d.type.dtype == DType::F32) scop_.arrays.back().scalar = d.data->front();
    }
    for (const std::string &t : node.outputs) {
      if (t.empty() || scop_.array_of_tensor.count(t)) continue;
      bool escapes = std::find(g_.outputs.begin(), g_.outputs.end(), t) != g_.outputs.end();
      bool used = false;
      for (auto [e, end] = boost::out_edges(v, g_.nodes()); e != end; ++e) {
        if (g_.nodes()[*e].tensor != t) continue;
        used = true;
        if (!in_cluster(boost::target(*e, g_.nodes()))) escapes = true;
      }
      const TensorDecl &d = g_.tensor(t);
      add_array(t, escapes || !used ? ScopArray::Kind::Output : ScopArray::Kind::ClusterLocal, d.type.dtype,
                d.type.shape);
    }
  }

  compute::Analysis analyze_at(const Node &node, const OpContext &ctx, const OpDefinition &def,
                               const compute::Program &prog, const std::map<std::string, std::int64_t> &values) {
    compute::Signature sig;
    sig.node = node.name;
    sig.params = values;
    auto concrete = [&](const SymShape &s) {
      Shape out;
      for (const Dim &d : s) out.push_back(d.is_symbolic() ? values.at(d.symbol) : d.value);
      return out;
    };
    for (std::size_t i = 0; i < def.inputs.size() && i < node.inputs.size(); ++i) {
      if (def.inputs[i].empty() || node.inputs[i].empty()) continue;
      const TensorType &t = g_.tensor(node.inputs[i]).type;
      sig.inputs[def.inputs[i]] = compute::TensorUse{compute::TensorRole::Input, t.dtype, concrete(t.shape)};
    }
    for (std::size_t i = 0; i < def.outputs.size() && i < node.outputs.size(); ++i) {
      if (node.outputs[i].empty()) continue;
      sig.outputs.push_back(def.outputs[i]);
      sig.output_shapes[def.outputs[i]] = concrete(ctx.outputs[i].shape);
    }
    return compute::analyze(prog, sig);
  }

  void node_statements(const Node &node) {
    const OpInfo *op = find_op(node.op);
    if (!op) throw UserError("unknown operator '" + node.op + "'");
    OpContext ctx{node, {}, {}, &g_.params};
    for (const std::string &in : node.inputs)
      ctx.inputs.push_back(in.empty() ? std::optional<TensorType>() : std::optional<TensorType>(g_.tensor(in).type));
    for (const std::string &o : node.outputs) ctx.outputs.push_back(g_.tensor(o).type);
    OpDefinition def = op->define(ctx);
    auto prog = compute::widen_accumulators(compute::parse(def.text), low_precision_outputs(def, ctx));

    // Analysis at the instantiations; index ranges and temporary shapes are
    // fitted as affine functions of the parameters.
    compute::Analysis base = analyze_at(node, ctx, def, *prog, inst_.base);
    std::vector<compute::Analysis> bumped;
    for (const auto &v : inst_.bumped) bumped.push_back(analyze_at(node, ctx, def, *prog, v));
    compute::Analysis check = inst_.params.empty() ? base : analyze_at(node, ctx, def, *prog, inst_.check);
    auto fitted = [&](auto get, const std::string &what) {
      std::vector<std::int64_t> b;
      for (const auto &a : bumped) b.push_back(get(a));
      auto f = fit(inst_, get(base), b, get(check));
      if (!f) throw UserError(what + " is not an affine function of the symbolic dimensions");
      return *f;
    };

    // Formal tensor names -> SCoP arrays.
    std::map<std::string, std::string> names;
    for (std::size_t i = 0; i < def.inputs.size() && i < node.inputs.size(); ++i)
      if (!def.inputs[i].empty() && !node.inputs[i].empty()) names[def.inputs[i]] = scop_.array_of_tensor.at(node.inputs[i]);
    for (std::size_t i = 0; i < def.outputs.size() && i < node.outputs.size(); ++i)
      if (!node.outputs[i].empty()) names[def.outputs[i]] = scop_.array_of_tensor.at(node.outputs[i]);
    for (const auto &[formal, use] : base.tensors) {
      if (names.count(formal)) continue;
      SymShape shape;
      for (std::size_t d = 0; d < use.shape.size(); ++d) {
        ParamAffine f = fitted([&](const compute::Analysis &a) { return a.tensors.at(formal).shape[d]; },
                               "extent " + std::to_string(d) + " of temporary '" + formal + "'");
        std::vector<std::string> syms;
        for (const auto &[p, c] : f.coeff)
          if (c != 0) syms.push_back(p);
        if (syms.empty()) shape.push_back(Dim(f.constant));
        else if (syms.size() == 1 && f.constant == 0 && f.coeff[syms[0]] == 1) shape.push_back(Dim::sym(syms[0]));
        else
          throw UserError("extent " + std::to_string(d) + " of temporary '" + formal + "' is " + f.text() +
                          ": only a constant or a symbolic dimension itself is supported");
      }
      add_array("", ScopArray::Kind::NodeInternal, use.dtype, shape, node.name + "_" + formal);
      names[formal] = scop_.arrays.back().array.name;
    }

    for (std::size_t s = 0; s < base.statements.size(); ++s) {
      const auto &as = base.statements[s];
      const compute::Statement &src = prog->statements[as.source];
      ScopStatement st;
      st.name = as.name;
      st.node = node.name;
      st.init = as.init;
      st.op = as.init ? compute::AssignOp::Assign : src.op;
      st.init_of = src.op;
      st.nan_insensitive = !as.init && (src.op == compute::AssignOp::Max || src.op == compute::AssignOp::Min) &&
                           std::find(def.nan_insensitive.begin(), def.nan_insensitive.end(), src.lhs->name) !=
                               def.nan_insensitive.end();
      st.lhs = rename(src.lhs, names);
      if (!as.init) st.rhs = rename(src.rhs, names);
      std::string cons = "true";
      for (std::size_t k = 0; k < as.indices.size(); ++k) {
        const auto &ix = as.indices[k];
        st.indices.push_back(ix.name);
        st.reduction.push_back(ix.reduction);
        std::string what = "the range of index '" + ix.name + "' of " + as.name;
        ParamAffine lo = fitted([&](const compute::Analysis &a) { return a.statements[s].indices[k].lo; }, what);
        ParamAffine hi = fitted([&](const compute::Analysis &a) { return a.statements[s].indices[k].hi; }, what);
        cons += " and " + lo.text() + " <= " + isl_variable(ix.name) + " < " + hi.text();
      }
      st.domain = isl::set(ctx_, prefix_ + "{ " + statement_tuple(st.name, st.indices) + " : " + cons + " }")
                      .intersect_params(scop_.context);
      st.write = element_access(scop_, st, *st.lhs, false);
      rebuild_reads(scop_, st);  // none for an `_init`
      scop_.statements.push_back(std::move(st));
    }
  }

};

}  // namespace

std::string isl_variable(const std::string &name) {
  static const std::set<std::string> keywords = {"and", "or", "mod", "floor", "ceil", "min", "max", "exists", "infty",
                                                 "not", "implies", "true", "false", "rat", "NaN", "cond", "xor"};
  return keywords.count(name) ? name + "_" : name;
}

std::string sanitize_identifier(const std::string &name) {
  static const std::set<std::string> reserved = {
      "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern",
      "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return", "short", "signed",
      "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "bool",
      "true", "false", "and", "or", "not", "mod", "floor", "ceil", "min", "max", "exists", "infty",
      // C library functions generated code calls or links against: a kernel or
      // array of that name would clash with (or shadow) them.
      "exp", "expf", "log", "logf", "tanh", "tanhf", "erf", "erff", "pow", "powf", "sqrt", "sqrtf", "floorf",
      "fabs", "fabsf", "fmaf", "fma", "fminf", "fmaxf", "abs", "main", "memcpy", "memset", "malloc", "free",
      "sin", "sinf", "cos", "cosf", "tan", "tanf", "asin", "asinf", "acos", "acosf", "atan", "atanf", "sinh", "sinhf",
      "cosh", "coshf", "asinh", "asinhf", "acosh", "acoshf", "atanh", "atanhf",
      // OpenCL C's keywords, types and the built-ins its kernels call
      "half", "kernel", "global", "local", "constant", "private", "read_only", "write_only", "read_write",
      "uniform", "pipe", "complex", "imaginary", "uchar", "ushort", "uint", "ulong", "size_t", "ptrdiff_t",
      "intptr_t", "uintptr_t", "sampler_t", "event_t", "image1d_t", "image2d_t", "image3d_t", "get_global_id",
      "get_local_id", "get_group_id", "get_local_size", "barrier", "mad", "clamp", "select", "sign", "vload_half",
      "vstore_half", "as_float", "as_uint", "convert_float",
      // CUDA C++'s keywords and built-in variables
      "class", "new", "delete", "template", "this", "namespace", "operator", "public", "protected", "virtual",
      "friend", "try", "catch", "throw", "typename", "using", "explicit", "mutable", "export", "nullptr",
      "decltype", "constexpr", "static_assert", "alignas", "alignof", "noexcept", "thread_local", "char16_t",
      "char32_t", "wchar_t", "asm", "dynamic_cast", "static_cast", "reinterpret_cast", "const_cast", "typeid",
      "compl", "bitand", "bitor", "xor", "xor_eq", "and_eq", "or_eq", "not_eq", "threadIdx", "blockIdx",
      "blockDim", "gridDim", "warpSize", "int8_t", "uint8_t", "int16_t", "uint16_t", "int32_t", "uint32_t",
      "int64_t", "uint64_t"};
  // OpenCL's and CUDA's vector types: float4, uchar16, int2...
  auto vector_type = [](const std::string &w) {
    static const char *bases[] = {"char", "uchar", "short", "ushort", "int", "uint", "long", "ulong",
                                  "float", "double", "half", "longlong", "ulonglong"};
    for (const char *b : bases) {
      std::string base(b);
      if (w.size() > base.size() && w.compare(0, base.size(), base) == 0) {
        std::string n = w.substr(base.size());
        if (n == "1" || n == "2" || n == "3" || n == "4" || n == "8" || n == "16") return true;
      }
    }
    return false;
  };
  std::string s;
  for (char c : name) s += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  // a leading digit is not C; a leading "__" is the implementation's
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0])) || s.rfind("__", 0) == 0) s = "t_" + s;
  if (reserved.count(s) || vector_type(s) || s.rfind("atoll_", 0) == 0) s += "_";
  return s;
}

namespace {

void collect_exp_calls(const compute::Expr &e, std::vector<const compute::Expr *> &out) {
  if (e.kind == compute::ExprKind::Call && e.func == compute::Func::Exp) out.push_back(&e);
  for (const compute::ExprPtr &a : e.args)
    if (a) collect_exp_calls(*a, out);
}

}  // namespace

std::vector<const compute::Expr *> exp_calls(const compute::Expr &e) {
  std::vector<const compute::Expr *> out;
  collect_exp_calls(e, out);
  return out;
}

const ScopStatement *Scop::statement(const std::string &n) const {
  for (const auto &s : statements)
    if (s.name == n) return &s;
  return nullptr;
}

const ScopArray *Scop::array(const std::string &n) const {
  for (const auto &a : arrays)
    if (a.array.name == n) return &a;
  return nullptr;
}

isl::union_set Scop::domain() const {
  isl::union_set u = isl::union_set(context.ctx(), "{ }");
  for (const auto &s : statements) u = u.unite(isl::union_set(s.domain));
  return u;
}

isl::union_map Scop::writes() const {
  isl::union_map u = isl::union_map(context.ctx(), "{ }");
  for (const auto &s : statements) u = u.unite(isl::union_map(s.write.relation));
  return u;
}

isl::union_map Scop::reads() const {
  isl::union_map u = isl::union_map(context.ctx(), "{ }");
  for (const auto &s : statements) {
    for (const auto &r : s.reads) u = u.unite(isl::union_map(r.relation));
    if (s.op != compute::AssignOp::Assign) u = u.unite(isl::union_map(s.write.relation));
  }
  return u;
}

isl::schedule Scop::original_schedule() const {
  // isl's YAML: a sequence of filters, each a band over the indices in order.
  const std::string prefix = param_prefix(params);
  std::string text = "{ domain: \"" + isl_text(domain()) + "\", child: { sequence: [ ";
  for (std::size_t k = 0; k < statements.size(); ++k) {
    const ScopStatement &s = statements[k];
    const std::string tuple = statement_tuple(s.name, s.indices);
    text += std::string(k ? ", " : "") + "{ filter: \"" + prefix + "{ " + tuple + " }\"";
    if (!s.indices.empty()) {
      std::string band;
      for (std::size_t d = 0; d < s.indices.size(); ++d)
        band += std::string(d ? ", " : "") + "{ " + tuple + " -> [(" + isl_variable(s.indices[d]) + ")] }";
      text += ", child: { schedule: \"" + prefix + "[" + band + "]\" }";
    }
    text += " }";
  }
  text += " ] } }";
  return isl::schedule(context.ctx(), text);
}

std::optional<double> constant_value(const Scop &scop, const compute::Expr &e) {
  if (e.kind == compute::ExprKind::Number) return e.number;
  if (e.kind != compute::ExprKind::Read) return std::nullopt;
  const ScopArray *a = scop.array(e.name);
  return a ? a->scalar : std::nullopt;
}

bool positive_constant(const Scop &scop, const compute::Expr &e) {
  const std::optional<double> v = constant_value(scop, e);
  const float f = v ? static_cast<float>(*v) : 0.0f;
  return std::isfinite(f) && f > 0;
}

void rebuild_reads(const Scop &scop, ScopStatement &st) {
  std::vector<BodyRead> reads;
  if (st.rhs) collect_reads(*st.rhs, false, reads);
  st.reads.clear();
  for (const BodyRead &b : reads) st.reads.push_back(element_access(scop, st, *b.read, b.guarded));
}

ScopAccess element_access(const Scop &scop, const ScopStatement &st, const compute::Expr &read, bool guarded) {
  const ScopArray *arr = scop.array(read.name);
  ATOLL_ASSERT(arr, "access to an unknown array " + read.name);
  ScopAccess a;
  a.array = read.name;
  a.guarded = guarded;
  std::string outs, cons = "true";
  for (std::size_t d = 0; d < read.args.size(); ++d) {
    std::string o = "o" + std::to_string(d);
    outs += (d ? ", " : "") + o;
    const Expr &s = *read.args[d];
    if (compute::contains_read(s)) {
      a.indirect = true;
      cons += " and 0 <= " + o + " < " + dim_text(arr->array.shape[d]);
      continue;
    }
    auto q = compute::to_quasi_affine(s);
    if (!q) throw UserError("non-affine subscript '" + compute::print(s) + "' in '" + compute::print(read) + "'");
    cons += " and " + o + " = " + qa_text(*q);
  }
  isl::map m(st.domain.ctx(), param_prefix(scop.params) + "{ " + statement_tuple(st.name, st.indices) + " -> " +
                                  read.name + "[" + outs + "] : " + cons + " }");
  m = m.intersect_domain(st.domain);
  if (guarded) m = m.intersect_range(arr->extent);
  a.relation = m;
  return a;
}

Scop build_scop(isl::ctx ctx, const Graph &graph, const std::vector<NodeId> &cluster) {
  return ScopBuilder(ctx, graph, cluster).run();
}

}  // namespace atl::poly
