// Gives a contraction's operand (Compute, or a Gemm's run-time B under transB) a transposed copy when the output's innermost index is not its last subscript.
#include "graph/passes/transpose_contraction_operand.h"

#include "graph/compute/ast.h"
#include "graph/compute/compute.h"
#include "graph/passes/rebuild_graph.h"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <set>

namespace atl {

namespace {

constexpr std::int64_t kMinInnerExtent = 8;  // one AVX2 vector of f32
constexpr std::int64_t kMinReuse = 4;

/// The plain index a subscript is (`j`), or "" (a constant, `h + 1`, ...).
std::string plain_index(const compute::Expr &e) { return e.kind == compute::ExprKind::Var ? e.name : ""; }

/// Number of reads of `name` in `e`.
int reads_of(const compute::Expr &e, const std::string &name) {
  int n = e.kind == compute::ExprKind::Read && e.name == name;
  for (const compute::ExprPtr &a : e.args) n += reads_of(*a, name);
  return n;
}

int reads_of(const compute::Program &p, const std::string &name) {
  int n = 0;
  for (const compute::Statement &st : p.statements) {
    if (st.rhs) n += reads_of(*st.rhs, name);
    if (st.lhs)
      for (const compute::ExprPtr &a : st.lhs->args) n += reads_of(*a, name);
  }
  return n;
}

/// `e` with the read of `from` replaced by a read of `to` whose subscripts
/// at positions p and q are swapped.
compute::ExprPtr swap_read(const compute::ExprPtr &e, const std::string &from, const std::string &to, std::size_t p,
                           std::size_t q) {
  auto copy = std::make_shared<compute::Expr>(*e);
  if (e->kind == compute::ExprKind::Read && e->name == from) {
    copy->name = to;
    std::swap(copy->args[p], copy->args[q]);
    return copy;
  }
  for (compute::ExprPtr &a : copy->args) a = swap_read(a, from, to, p, q);
  return copy;
}

class Transposer {
public:
  Transposer(const Graph &g, PassStats &st) : g_(g), st_(st) {
    for (NodeId v : g.order()) names_.insert(g.node(v).name);
  }

  /// {the copy, the node reading it} or {n}.
  std::vector<Node> rewrite(const Node &n) {
    if (n.op == "Gemm") return rewrite_gemm(n);
    std::shared_ptr<const compute::Program> prog = compute_program(n);
    if (!prog) return {n};
    for (const std::string &t : n.inputs)
      if (t.empty() || g_.tensor(t).type.dtype != DType::F32 || !is_concrete(g_.tensor(t).type.shape)) return {n};
    for (std::size_t s = 0; s < prog->statements.size(); ++s) {
      std::vector<Node> out = rewrite_statement(n, *prog, s);
      if (!out.empty()) return out;
    }
    return {n};
  }

private:
  /// Gemm(A, B, C) with transB = 1 and B a run-time value (weights are laid
  /// out by pack_gemm_weights) becomes Gemm(A, Transpose(B), C), transB = 0.
  std::vector<Node> rewrite_gemm(const Node &n) {
    if (number_attr(n, "transB", 0) == 0 || n.inputs.size() < 2 || n.inputs[1].empty()) return {n};
    const TensorDecl &a = g_.tensor(n.inputs[0]), &b = g_.tensor(n.inputs[1]);
    if (b.role == TensorRole::Weight || b.data || b.type.dtype != DType::F32 || !is_concrete(b.type.shape) ||
        !is_concrete(a.type.shape) || b.type.rank() != 2 || a.type.rank() != 2)
      return {n};
    const Shape as = concrete_shape(a.type.shape), bs = concrete_shape(b.type.shape);
    const std::int64_t rows = number_attr(n, "transA", 0) != 0 ? as[1] : as[0];  // M: uses of each element of B
    if (bs[0] < kMinInnerExtent || rows < kMinReuse) return {n};
    Node copy = copy_of(n, n.inputs[1], "Transpose", {{"perm", {1, 0}}});
    Node m = n;
    m.inputs[1] = copy.outputs[0];
    m.attrs["transB"] = 0;
    return {copy, m};
  }

  /// The node making n's transposed copy of `b` (op and attrs given; the
  /// copy's node and tensor names are fresh), counted.
  Node copy_of(const Node &n, const std::string &b, const char *op, nlohmann::json attrs) {
    Node copy;
    copy.op = op;
    copy.pointer = n.pointer;
    copy.name = fresh_node_name(n.name + "_" + b + "_t", names_);
    copy.inputs = {b};
    copy.outputs = {fresh_tensor_name(g_, b + "_t", taken_)};
    copy.attrs = std::move(attrs);
    st_.count("contraction operands transposed");
    return copy;
  }

  /// The rewrite for statement s of n, or nothing.
  std::vector<Node> rewrite_statement(const Node &n, const compute::Program &prog, std::size_t s) {
    using compute::ExprKind;
    const compute::Statement &st = prog.statements[s];
    if (!st.lhs || !st.rhs || !st.init || st.op != compute::AssignOp::Add || st.lhs->args.empty()) return {};
    const compute::Expr &rhs = *st.rhs;
    if (rhs.kind != ExprKind::Binary || rhs.binop != compute::BinOp::Mul || rhs.args.size() != 2) return {};
    const compute::Expr &a0 = *rhs.args[0], &a1 = *rhs.args[1];
    if (a0.kind != ExprKind::Read || a1.kind != ExprKind::Read || a0.name == a1.name) return {};
    std::vector<std::string> lhs;
    for (const compute::ExprPtr &x : st.lhs->args) lhs.push_back(plain_index(*x));
    const std::string j = lhs.back();
    if (j.empty()) return {};
    auto subscripts = [](const compute::Expr &r) {
      std::vector<std::string> v;
      for (const compute::ExprPtr &x : r.args) v.push_back(plain_index(*x));
      return v;
    };
    const std::vector<std::string> s0 = subscripts(a0), s1 = subscripts(a1);
    const bool in0 = std::count(s0.begin(), s0.end(), j) > 0, in1 = std::count(s1.begin(), s1.end(), j) > 0;
    if (in0 == in1) return {};
    const compute::Expr &b = in0 ? a0 : a1;
    const std::vector<std::string> &sb = in0 ? s0 : s1;
    const std::vector<std::string> &sa = in0 ? s1 : s0;
    // B: a node input read once, distinct plain indices, j not last, a
    // reduction index last.
    if (std::find(n.inputs.begin(), n.inputs.end(), b.name) == n.inputs.end() || reads_of(prog, b.name) != 1 ||
        !compute_identifier(b.name) || sb.size() < 2)
      return {};
    const std::set<std::string> distinct(sb.begin(), sb.end());
    if (distinct.size() != sb.size() || distinct.count("")) return {};
    const std::size_t last = sb.size() - 1;
    const std::size_t p = static_cast<std::size_t>(std::find(sb.begin(), sb.end(), j) - sb.begin());
    if (p == last || std::count(lhs.begin(), lhs.end(), sb[last]) > 0) return {};
    for (const compute::Statement &other : prog.statements)
      if (other.lhs && other.lhs->name == b.name) return {};
    const TensorDecl &bt = g_.tensor(b.name);
    const Shape shape = concrete_shape(bt.type.shape);
    if (static_cast<std::int64_t>(shape.size()) != static_cast<std::int64_t>(sb.size())) return {};
    if (shape[p] < kMinInnerExtent) return {};
    // Reuse: the extents of the output's indices that B lacks (from A's
    // shape: an index of T that B lacks is a subscript of A).
    if (bt.role != TensorRole::Weight && !bt.data) {
      const std::string &a = in0 ? a1.name : a0.name;
      if (std::find(n.inputs.begin(), n.inputs.end(), a) == n.inputs.end()) return {};
      const TensorDecl &at = g_.tensor(a);
      const Shape ashape = concrete_shape(at.type.shape);
      std::int64_t reuse = 1;
      for (const std::string &i : lhs)
        if (!i.empty() && !distinct.count(i))
          for (std::size_t k = 0; k < sa.size() && k < ashape.size(); ++k)
            if (sa[k] == i) {
              reuse *= ashape[k];
              break;
            }
      if (reuse < kMinReuse) return {};
    }

    // The copy: B with subscripts p and last swapped.
    std::vector<std::string> idx;
    for (std::size_t k = 0; k < sb.size(); ++k) idx.push_back("i" + std::to_string(k) + "_");
    std::vector<std::string> swapped = idx;
    std::swap(swapped[p], swapped[last]);
    Shape copy_shape = shape;
    std::swap(copy_shape[p], copy_shape[last]);
    auto join = [](const std::vector<std::string> &v) {
      std::string r;
      for (const std::string &x : v) r += (r.empty() ? "" : ", ") + x;
      return r;
    };
    Node copy = copy_of(n, b.name, "Compute", {{"shape", nlohmann::json::array({copy_shape})}});
    const std::string &copy_name = copy.outputs[0];
    copy.attrs["expr"] = copy_name + "(" + join(swapped) + ") = " + b.name + "(" + join(idx) + ")";

    compute::Program rewritten = prog;
    compute::Statement &target = rewritten.statements[s];
    target.rhs = swap_read(target.rhs, b.name, copy_name, p, last);
    Node m = n;
    std::replace(m.inputs.begin(), m.inputs.end(), b.name, copy_name);
    std::string text;
    for (const compute::Statement &x : rewritten.statements) text += (text.empty() ? "" : "\n") + compute::print(x);
    m.attrs["expr"] = text;
    return {copy, m};
  }

  const Graph &g_;
  PassStats &st_;
  std::set<std::string> names_;
  std::set<std::string> taken_;  // tensor names this pass made
};

}  // namespace

Graph transpose_contraction_operand(const Graph &graph, PassStats *stats) {
  PassStats local;
  Transposer t(graph, local);
  Graph out = rewrite_each_node(graph, local, [&](const Node &n) { return t.rewrite(n); });
  if (stats) stats->merge(local);
  return out;
}

}  // namespace atl
