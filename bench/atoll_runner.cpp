// Compiles a graph with atl::compile_graph and runs its kernel functions on
// preallocated f32 buffers, the way an embedding compiler would call them.
#include "bench/atoll_runner.h"

#include "polyhedral/ast/loop_ast.h"

#include <algorithm>
#include <functional>
#include <sstream>

namespace atl::bench {

namespace {

void count_marks(const poly::LStmt &s, std::map<std::string, int> &marks) {
  for (const std::string &m : s.marks) ++marks[m];
  for (const auto &b : s.body)
    if (b) count_marks(*b, marks);
  if (s.then_body) count_marks(*s.then_body, marks);
  if (s.else_body) count_marks(*s.else_body, marks);
}

std::int64_t numel(const SymShape &shape) {
  std::int64_t n = 1;
  for (const Dim &d : shape) n *= d.value;
  return n;
}

}  // namespace

AtollRunner::AtollRunner(const Graph &graph, int compile_reps) : graph_(graph) {
  CompileOptions options;
  options.target = "cpu";
  options.keep_text = false;
  for (int i = 0; i < std::max(1, compile_reps); ++i) {
    compiled_ = CompiledGraph{};  // free the previous JIT first
    compiled_ = compile_graph(graph_, options);
    compile_ms_.push_back(compiled_.compile_ms);
  }
  std::vector<double> s = compile_ms_;
  std::sort(s.begin(), s.end());
  compile_median_ = s.size() % 2 ? s[s.size() / 2] : (s[s.size() / 2 - 1] + s[s.size() / 2]) / 2;
}

void AtollRunner::bind(const std::string &tensor, float *data) {
  const TensorDecl &d = graph_.tensor(tensor);  // throws for an unknown name
  if (d.type.dtype != DType::F32) throw UserError("bench: tensor " + tensor + " is not f32");
  bound_[tensor] = data;
}

AtollRunner::Place AtollRunner::place(const std::string &tensor) const {
  for (const memory::TensorAlias &a : compiled_.aliases)
    if (a.tensor == tensor) {
      Place base = place(a.base);
      base.offset += a.byte_offset / static_cast<std::int64_t>(sizeof(float));
      return base;
    }
  return {tensor, 0};
}

void AtollRunner::prepare() {
  calls_.clear();
  owned_.clear();
  // Pass 1: the floats every storage base needs (tensors of the compiled graph,
  // which may be a simplified copy of graph_, are sized from the kernel arrays).
  std::map<std::string, std::int64_t> need;
  for (const poly::ClusterResult &c : compiled_.clusters) {
    std::map<std::string, std::string> tensor_of;
    for (const auto &[tensor, array] : c.array_of_tensor) tensor_of[array] = tensor;
    for (const poly::LArray &a : c.kernel.arrays) {
      if (a.dtype != DType::F32) throw UserError("bench: kernel array " + a.name + " is not f32");
      if (!c.kernel.params.empty()) throw UserError("bench: kernel " + c.kernel.name + " has symbolic parameters");
      auto t = tensor_of.find(a.name);
      if (t == tensor_of.end()) continue;
      Place p = place(t->second);
      need[p.base] = std::max(need[p.base], p.offset + numel(a.shape));
    }
  }
  for (const auto &[base, floats] : need) {
    if (bound_.count(base)) continue;
    bool io = std::count(graph_.inputs.begin(), graph_.inputs.end(), base) ||
              std::count(graph_.weights.begin(), graph_.weights.end(), base) ||
              std::count(graph_.outputs.begin(), graph_.outputs.end(), base);
    auto c = compiled_.constants.find(base);
    if (io && c == compiled_.constants.end()) throw UserError("bench: graph tensor " + base + " is not bound");
    std::int64_t size = floats;
    if (graph_.has_tensor(base)) size = std::max(size, numel(graph_.tensor(base).type.shape));
    Buffer &b = owned_[base];
    b = Buffer(static_cast<std::size_t>(size));
    if (c != compiled_.constants.end())
      for (std::size_t i = 0; i < c->second.data.size() && i < b.size(); ++i) b[i] = static_cast<float>(c->second.data[i]);
  }
  // Pass 2: the argument arrays of every call; temporaries get their own zeroed buffers.
  int temp = 0;
  for (const poly::ClusterResult &c : compiled_.clusters) {
    std::map<std::string, std::string> tensor_of;
    for (const auto &[tensor, array] : c.array_of_tensor) tensor_of[array] = tensor;
    Call call;
    for (const poly::LArray &a : c.kernel.arrays) {
      auto t = tensor_of.find(a.name);
      if (t != tensor_of.end()) {
        Place p = place(t->second);
        auto b = bound_.find(p.base);
        float *base = b != bound_.end() ? b->second : owned_.at(p.base).data();
        call.arrays.push_back(base + p.offset);
      } else {
        Buffer &b = owned_["$temp" + std::to_string(temp++)];
        b = Buffer(static_cast<std::size_t>(numel(a.shape)));
        call.arrays.push_back(b.data());
      }
    }
    calls_.push_back(std::move(call));
  }
}

void AtollRunner::run() {
  for (std::size_t i = 0; i < calls_.size(); ++i) compiled_.functions[i](calls_[i].arrays.data(), nullptr);
}

std::string AtollRunner::description() const {
  std::ostringstream os;
  std::map<std::string, long> stats;
  for (std::size_t i = 0; i < compiled_.clusters.size(); ++i) {
    const poly::ClusterResult &c = compiled_.clusters[i];
    std::map<std::string, int> marks;
    if (c.kernel.body) count_marks(*c.kernel.body, marks);
    os << (i ? " | " : "") << c.algorithm;
    for (const auto &[m, n] : marks) os << " " << m << "x" << n;
    for (const auto &[k, v] : c.stats) stats[k] += v;
  }
  for (const auto &[k, v] : stats)
    if (v) os << "; " << k << "=" << v;
  if (!compiled_.fallbacks.empty()) os << "; fallbacks=" << compiled_.fallbacks.size();
  return os.str();
}

}  // namespace atl::bench
