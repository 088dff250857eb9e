// The operator registry table (find_op, all_ops) and OpContext's attribute readers.
#include "graph/ir/op_registry.h"

#include "graph/ir/ops/ops_util.h"

#include <cmath>
#include <deque>

namespace atl {

const char *pattern_name(PatternKind kind) {
  switch (kind) {
  case PatternKind::Elementwise: return "elementwise";
  case PatternKind::Broadcast: return "broadcast";
  case PatternKind::Injective: return "injective";
  case PatternKind::Reduction: return "reduction";
  case PatternKind::OutFusable: return "out-fusable";
  case PatternKind::Opaque: return "opaque";
  }
  return "?";
}

namespace {

/// A scalar attribute may arrive as a one-element list (a constant input moved into attrs).
const nlohmann::json *scalar(const nlohmann::json *v) {
  if (v && v->is_array() && v->size() == 1) return &(*v)[0];
  return v;
}

bool integral(const nlohmann::json &v) {
  if (v.is_number_integer()) return true;
  if (!v.is_number_float()) return false;
  double d = v.get<double>();
  return std::isfinite(d) && std::floor(d) == d && std::fabs(d) < 9.0e18;
}

std::int64_t as_int(const nlohmann::json &v) {
  return v.is_number_integer() ? v.get<std::int64_t>() : static_cast<std::int64_t>(v.get<double>());
}

}  // namespace

bool attr_kind_matches(AttrKind kind, const nlohmann::json &v, bool strict) {
  auto all = [&](auto pred) {
    if (!v.is_array()) return !strict && pred(v);
    for (const auto &e : v)
      if (!pred(e)) return false;
    return true;
  };
  auto integer = [strict](const nlohmann::json &e) { return strict ? e.is_number_integer() : integral(e); };
  auto number = [](const nlohmann::json &e) { return e.is_number(); };
  const nlohmann::json &one = strict ? v : *scalar(&v);
  switch (kind) {
  case AttrKind::Int: return integer(one);
  case AttrKind::Float: return one.is_number();
  case AttrKind::String: return v.is_string();
  case AttrKind::Ints: return all(integer);
  case AttrKind::Floats: return all(number);
  case AttrKind::Strings: return all([](const nlohmann::json &e) { return e.is_string(); });
  case AttrKind::DType:
    if (!strict) return v.is_string() || v.is_number_integer();
    return (v.is_string() && parse_dtype(v.get<std::string>())) ||
           (v.is_number_integer() && dtype_from_onnx(v.get<long long>()));
  case AttrKind::Any: return true;
  }
  return false;
}

const char *attr_kind_text(AttrKind kind) {
  switch (kind) {
  case AttrKind::Int: return "an integer";
  case AttrKind::Float: return "a number";
  case AttrKind::String: return "a string";
  case AttrKind::Ints: return "a list of integers";
  case AttrKind::Floats: return "a list of numbers";
  case AttrKind::Strings: return "a list of strings";
  case AttrKind::DType: return "a dtype name (\"f16\") or ONNX's TensorProto enum integer";
  case AttrKind::Any: return "any value";
  }
  return "?";
}

namespace {

std::vector<TensorType> checked_infer(const OpContext &ctx);
OpDefinition resolved_define(const OpContext &ctx);

struct Registry {
  std::deque<OpInfo> storage;
  std::vector<const OpInfo *> list;
  std::map<std::string, const OpInfo *, std::less<>> by_name;
  /// Each operator's own inference; OpInfo::infer checks attributes first.
  std::map<std::string, std::vector<TensorType> (*)(const OpContext &), std::less<>> infer;
  /// Each operator's own definition; OpInfo::define resolves parameter names.
  std::map<std::string, OpDefinition (*)(const OpContext &), std::less<>> define;

  Registry() {
    for (auto family : {ops::elementwise_ops, ops::linalg_ops, ops::conv_ops, ops::pool_ops, ops::normalization_ops,
                        ops::reduce_ops, ops::movement_ops, ops::slicing_ops, ops::resize_ops, ops::compute_ops})
      for (OpInfo &info : family()) {
        infer[info.name] = info.infer;
        info.infer = checked_infer;
        if (std::string_view(info.name) != "Compute") {
          define[info.name] = info.define;
          info.define = resolved_define;
        }
        storage.push_back(std::move(info));
        const OpInfo *p = &storage.back();
        ATOLL_ASSERT(by_name.emplace(p->name, p).second, std::string("operator registered twice: ") + p->name);
        list.push_back(p);
      }
  }
};

const Registry &registry() {
  static const Registry r;
  return r;
}

/// Checks attribute names and JSON kinds (as the front end does for
/// batches) before the operator's own inference.
std::vector<TensorType> checked_infer(const OpContext &ctx) {
  const OpInfo *op = find_op(ctx.node.op);
  ATOLL_ASSERT(op, "checked_infer of an unregistered operator " + ctx.node.op);
  if (ctx.node.attrs.is_object())
    for (const auto &[name, value] : ctx.node.attrs.items()) {
      const AttrSpec *spec = nullptr;
      for (const AttrSpec &a : op->attrs)
        if (name == a.name) spec = &a;
      if (!spec) {
        std::string list;
        for (const AttrSpec &a : op->attrs) list += (list.empty() ? "" : ", ") + std::string(a.name);
        throw ctx.error(ctx.node.op + ": unknown attribute '" + name + "' (accepted: " + (list.empty() ? "none" : list) + ")");
      }
      if (!attr_kind_matches(spec->kind, value, false))
        throw ctx.error(ctx.node.op + ": attribute '" + name + "' must be " + attr_kind_text(spec->kind) + ", got " +
                        value.dump());
    }
  else if (!ctx.node.attrs.is_null())
    throw ctx.error(ctx.node.op + ": attributes must be a JSON object");
  return registry().infer.find(ctx.node.op)->second(ctx);
}

/// The operator's definition with parameter references resolved (ops_util.h).
OpDefinition resolved_define(const OpContext &ctx) {
  OpDefinition d = registry().define.find(ctx.node.op)->second(ctx);
  d.text = ops::resolve_param_refs(d.text, ctx.params);
  return d;
}

}  // namespace

OpContext node_context(const Graph &graph, NodeId v) {
  const Node &n = graph.node(v);
  OpContext ctx{n, {}, {}, &graph.params};
  for (const std::string &t : n.inputs) {
    if (t.empty() || !graph.has_tensor(t)) ctx.inputs.emplace_back(std::nullopt);
    else ctx.inputs.emplace_back(graph.tensor(t).type);
  }
  for (const std::string &t : n.outputs)
    ctx.outputs.push_back(!t.empty() && graph.has_tensor(t) ? graph.tensor(t).type : TensorType{});
  return ctx;
}

std::map<std::string, std::vector<std::string>> low_precision_extents(const std::vector<std::string> &names,
                                                                       const std::vector<TensorType> &types) {
  std::map<std::string, std::vector<std::string>> out;
  for (std::size_t i = 0; i < names.size() && i < types.size(); ++i) {
    if (types[i].dtype != DType::F16 && types[i].dtype != DType::BF16) continue;
    std::vector<std::string> &extents = out[names[i]];
    for (const Dim &d : types[i].shape) extents.push_back(d.is_symbolic() ? d.symbol : std::to_string(d.value));
  }
  return out;
}

std::map<std::string, std::vector<std::string>> low_precision_outputs(const OpDefinition &def, const OpContext &ctx) {
  return low_precision_extents(def.outputs, ctx.outputs);
}

const OpInfo *find_op(std::string_view name) {
  const auto &m = registry().by_name;
  auto it = m.find(name);
  return it == m.end() ? nullptr : it->second;
}

const std::vector<const OpInfo *> &all_ops() { return registry().list; }

PatternKind node_pattern(const OpInfo &op, const OpContext &ctx) {
  if (std::string_view(op.name) == "Compute") return compute_pattern(ctx);
  if (op.pattern != PatternKind::Broadcast || ctx.outputs.empty()) return op.pattern;
  for (const auto &t : ctx.inputs)
    if (t && t->shape != ctx.outputs[0].shape) return op.pattern;
  return PatternKind::Elementwise;
}

const nlohmann::json *OpContext::attr(const char *name) const {
  if (!node.attrs.is_object()) return nullptr;
  auto it = node.attrs.find(name);
  return it == node.attrs.end() ? nullptr : &*it;
}

std::int64_t OpContext::attr_int(const char *name, std::int64_t dflt) const {
  const nlohmann::json *v = scalar(attr(name));
  if (!v) return dflt;
  if (!integral(*v)) throw error(std::string("attribute '") + name + "' must be an integer, got " + v->dump());
  return as_int(*v);
}

double OpContext::attr_float(const char *name, double dflt) const {
  const nlohmann::json *v = scalar(attr(name));
  if (!v) return dflt;
  if (!v->is_number()) throw error(std::string("attribute '") + name + "' must be a number, got " + v->dump());
  return v->get<double>();
}

std::string OpContext::attr_string(const char *name, const std::string &dflt) const {
  const nlohmann::json *v = attr(name);
  if (!v) return dflt;
  if (!v->is_string()) throw error(std::string("attribute '") + name + "' must be a string, got " + v->dump());
  return v->get<std::string>();
}

std::vector<std::int64_t> OpContext::attr_ints(const char *name, std::vector<std::int64_t> dflt) const {
  const nlohmann::json *v = attr(name);
  if (!v) return dflt;
  if (integral(*v)) return {as_int(*v)};
  std::vector<std::int64_t> out;
  if (v->is_array())
    for (const auto &e : *v) {
      if (!integral(e)) break;
      out.push_back(as_int(e));
    }
  if (!v->is_array() || out.size() != v->size())
    throw error(std::string("attribute '") + name + "' must be a list of integers, got " + v->dump());
  return out;
}

std::vector<double> OpContext::attr_floats(const char *name, std::vector<double> dflt) const {
  const nlohmann::json *v = attr(name);
  if (!v) return dflt;
  if (v->is_number()) return {v->get<double>()};
  std::vector<double> out;
  if (v->is_array())
    for (const auto &e : *v) {
      if (!e.is_number()) break;
      out.push_back(e.get<double>());
    }
  if (!v->is_array() || out.size() != v->size())
    throw error(std::string("attribute '") + name + "' must be a list of numbers, got " + v->dump());
  return out;
}

UserError OpContext::error(const std::string &reason) const {
  Location where;
  where.node = node.name;
  return UserError(reason, where);
}

}  // namespace atl
