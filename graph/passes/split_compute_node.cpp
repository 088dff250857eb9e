// Splits a Compute node of several contractions (or a contraction and a reduction) into one node per contraction or run of reductions.
#include "graph/passes/split_compute_node.h"

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

/// `T(...) +=! A(...) * B(...)`: a product of two reads (or guarded reads)
/// summed over the indices the left-hand side lacks, reading nothing of T.
bool contraction(const compute::Statement &st) {
  using compute::ExprKind;
  if (!st.lhs || !st.rhs || !st.init || st.op != compute::AssignOp::Add) return false;
  const compute::Expr &e = *st.rhs;
  if (e.kind != ExprKind::Binary || e.binop != compute::BinOp::Mul || e.args.size() != 2) return false;
  for (const compute::ExprPtr &a : e.args) {
    const compute::Expr *r = a.get();
    if (r->kind == ExprKind::Guard) r = r->args.at(0).get();
    if (r->kind != ExprKind::Read || r->name == st.lhs->name) return false;
  }
  return true;
}

/// Tensors a statement reads (its right-hand side, subscripts included, and
/// the left-hand side's subscripts; `op=` without `!` also reads the target).
std::set<std::string> reads_of(const compute::Statement &st) {
  std::set<std::string> out;
  std::function<void(const compute::Expr &)> walk = [&](const compute::Expr &e) {
    if (e.kind == compute::ExprKind::Read) out.insert(e.name);
    for (const compute::ExprPtr &a : e.args) walk(*a);
  };
  if (st.rhs) walk(*st.rhs);
  if (st.lhs)
    for (const compute::ExprPtr &a : st.lhs->args) walk(*a);
  if (st.lhs && !st.init && st.op != compute::AssignOp::Assign) out.insert(st.lhs->name);
  return out;
}

bool concrete_f32(const TensorType &t) { return t.dtype == DType::F32 && is_concrete(t.shape); }

class Splitter {
public:
  Splitter(const Graph &g, PassStats &st) : g_(g), st_(st) {
    for (NodeId v : g.order()) names_.insert(g.node(v).name);
  }

  /// The parts of node `n`, or {n} when it stays whole.
  std::vector<Node> split(const Node &n) {
    std::shared_ptr<const compute::Program> prog = compute_program(n);
    if (!prog) return {n};
    const std::vector<compute::Statement> &sts = prog->statements;
    // Contractions, other reductions (`op=!`), and the rest.
    enum class Kind { Contraction, Reduction, Other };
    std::vector<Kind> kinds;
    for (const auto &s : sts) kinds.push_back(contraction(s) ? Kind::Contraction : s.init ? Kind::Reduction : Kind::Other);
    if (std::count(kinds.begin(), kinds.end(), Kind::Contraction) == 0) return {n};
    for (const std::string &t : n.inputs)
      if (t.empty() || !concrete_f32(g_.tensor(t).type)) return {n};
    for (const std::string &t : n.outputs)
      if (t.empty() || !concrete_f32(g_.tensor(t).type)) return {n};
    const std::set<std::string> inputs(n.inputs.begin(), n.inputs.end());
    const std::set<std::string> outputs(n.outputs.begin(), n.outputs.end());

    // Where each tensor is written, and where it is read.
    std::map<std::string, std::size_t> first_write, last_write;
    std::vector<std::set<std::string>> reads;
    for (std::size_t i = 0; i < sts.size(); ++i) {
      const std::string &t = sts[i].lhs->name;
      if (inputs.count(t)) return {n};  // a node that writes its input: left alone
      first_write.emplace(t, i);
      last_write[t] = i;
      reads.push_back(reads_of(sts[i]));
    }
    for (std::size_t i = 0; i < sts.size(); ++i)
      for (const std::string &t : reads[i])
        if (!inputs.count(t) && (!first_write.count(t) || first_write[t] > i)) return {n};
    for (const std::string &t : n.outputs)
      if (!first_write.count(t)) return {n};  // an output no statement writes
    auto cut_allowed = [&](std::size_t i) {  // a cut just before statement i
      for (const auto &[t, f] : first_write)
        if (f < i && i <= last_write[t]) return false;
      return true;
    };

    // Cuts: before a contraction that follows a contraction or a reduction in
    // its part, and before a reduction that follows a contraction; as late as
    // allowed after the previous one (its epilogues stay with it).
    std::vector<std::size_t> cuts;
    bool has_contraction = false, has_reduction = false;
    std::size_t last = 0;  // the part's last contraction or reduction
    for (std::size_t i = 0; i < sts.size(); ++i) {
      if (kinds[i] == Kind::Other) continue;
      const bool contracts = kinds[i] == Kind::Contraction;
      if (has_contraction || (contracts && has_reduction)) {
        for (std::size_t c = i; c > last; --c)
          if (cut_allowed(c)) {
            cuts.push_back(c);
            has_contraction = has_reduction = false;
            break;
          }
      }
      (contracts ? has_contraction : has_reduction) = true;
      last = i;
    }
    if (cuts.empty()) return {n};

    // The tensors and shapes analysis gives (temporaries included).
    compute::Signature sig;
    sig.node = n.name;
    for (const std::string &t : n.inputs)
      sig.inputs[t] = {compute::TensorRole::Input, DType::F32, concrete_shape(g_.tensor(t).type.shape)};
    sig.outputs = n.outputs;
    for (const std::string &t : n.outputs) sig.output_shapes[t] = concrete_shape(g_.tensor(t).type.shape);
    compute::Analysis an;
    try {
      an = compute::analyze(*prog, sig);
    } catch (const std::exception &) {
      return {n};
    }

    std::vector<std::size_t> bounds = {0};
    bounds.insert(bounds.end(), cuts.begin(), cuts.end());
    bounds.push_back(sts.size());
    // Tensors read by statements at or after position i.
    auto read_from = [&](std::size_t i, const std::string &t) {
      for (std::size_t j = i; j < sts.size(); ++j)
        if (reads[j].count(t)) return true;
      return false;
    };
    std::vector<Node> parts;
    std::set<std::string> made;  // tensors earlier parts write for later ones
    for (std::size_t p = 0; p + 1 < bounds.size(); ++p) {
      const std::size_t lo = bounds[p], hi = bounds[p + 1];
      Node m;
      m.op = "Compute";
      m.pointer = n.pointer;
      m.name = fresh_node_name(n.name + "_" + std::to_string(p), names_);
      std::set<std::string> read, written;
      std::string text;
      for (std::size_t i = lo; i < hi; ++i) {
        read.insert(reads[i].begin(), reads[i].end());
        written.insert(sts[i].lhs->name);
        text += (text.empty() ? "" : "\n") + compute::print(sts[i]);
      }
      for (const std::string &t : n.inputs)
        if (read.count(t) && std::find(m.inputs.begin(), m.inputs.end(), t) == m.inputs.end()) m.inputs.push_back(t);
      for (const std::string &t : read)
        if (made.count(t) && !written.count(t)) m.inputs.push_back(t);
      nlohmann::json shapes = nlohmann::json::array();
      for (const std::string &t : written) {
        bool leaves = outputs.count(t) || read_from(hi, t);
        if (!leaves) continue;
        if (!outputs.count(t) && (g_.has_tensor(t) || !an.tensors.count(t) || an.tensors.at(t).dtype != DType::F32))
          return {n};
        made.insert(t);
        m.outputs.push_back(t);
        shapes.push_back(outputs.count(t) ? nlohmann::json(concrete_shape(g_.tensor(t).type.shape))
                                          : nlohmann::json(an.tensors.at(t).shape));
      }
      if (m.outputs.empty()) return {n};
      m.attrs = {{"expr", text}, {"shape", shapes}};
      parts.push_back(std::move(m));
    }
    st_.count("compute nodes split");
    st_.count("compute nodes made", static_cast<std::int64_t>(parts.size()), false);
    return parts;
  }

private:
  const Graph &g_;
  PassStats &st_;
  std::set<std::string> names_;
};

}  // namespace

Graph split_compute_node(const Graph &graph, PassStats *stats) {
  PassStats local;
  Splitter s(graph, local);
  Graph out = rewrite_each_node(graph, local, [&](const Node &n) { return s.split(n); });
  if (stats) stats->merge(local);
  return out;
}

}  // namespace atl
