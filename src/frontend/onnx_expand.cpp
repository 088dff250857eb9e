// Expansions of the ONNX reader: operators that Atoll has no registry
// operator for, written as a few of the operators it has (MatMul, Softmax,
// Where, GatherElements, ...). Attention (opsets 23-25), the loss operators
// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss, RotaryEmbedding.
// What they compute follows ONNX's reference implementation
// (onnx/reference/ops/op_*.py); docs/onnx.md lists them.
#include "src/frontend/onnx_import.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace atl::onnx_import {

namespace {

using nlohmann::json;

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

/// Emits the nodes of one expansion: single-output operators on fresh
/// intermediate names, constants, attribute reads.
class Builder {
public:
  explicit Builder(const ExpandNode &n) : n_(n) {}

  Importer &im() const { return n_.im; }
  [[noreturn]] void fail(const std::string &reason) const { n_.im.fail(reason); }

  std::string input(std::size_t k) const { return k < n_.inputs.size() ? n_.inputs[k] : std::string(); }
  std::string output(std::size_t k) const { return k < n_.outputs.size() ? n_.outputs[k] : std::string(); }
  const TensorType &type(const std::string &name) const { return n_.im.value(name).type; }

  /// The fixed dimensions of a tensor; fails naming it when one is symbolic.
  Shape dims(const std::string &name, const std::string &what) const {
    const TensorType &t = type(name);
    if (!is_concrete(t.shape))
      fail(what + " '" + name + "' has symbolic dimensions " + sym_shape_to_string(t.shape) +
           ", which this expansion needs fixed");
    return concrete_shape(t.shape);
  }

  /// The dimensions of a tensor whose first one, the batch, may be
  /// symbolic (then 0 here); the others must be fixed.
  Shape dims_but_batch(const std::string &name, const std::string &what) const {
    SymShape rest = type(name).shape;
    if (rest.empty()) return dims(name, what);
    Dim first = rest[0];
    rest[0] = Dim(1);
    if (!is_concrete(rest))
      fail(what + " '" + name + "' has symbolic dimensions " + sym_shape_to_string(type(name).shape) +
           ", which this expansion needs fixed but for the first (the batch)");
    Shape d = concrete_shape(rest);
    d[0] = first.is_symbolic() ? 0 : first.value;
    return d;
  }

  bool has_attr(const char *name) const { return n_.attrs.contains(name); }
  std::int64_t attr_int(const char *name, std::int64_t dflt) const {
    if (!n_.attrs.contains(name)) return dflt;
    if (!n_.attrs[name].is_number_integer()) fail(std::string("attribute '") + name + "' is not an integer");
    return n_.attrs[name].get<std::int64_t>();
  }
  double attr_float(const char *name, double dflt) const {
    if (!n_.attrs.contains(name)) return dflt;
    if (!n_.attrs[name].is_number()) fail(std::string("attribute '") + name + "' is not a number");
    return n_.attrs[name].get<double>();
  }
  std::string attr_string(const char *name, const std::string &dflt) const {
    if (!n_.attrs.contains(name)) return dflt;
    if (!n_.attrs[name].is_string()) fail(std::string("attribute '") + name + "' is not a string");
    return n_.attrs[name].get<std::string>();
  }

  /// A fresh intermediate tensor name, after the node's first output.
  std::string temp(const std::string &what) const { return n_.im.fresh(output(0) + "_" + what); }

  /// Emits `op` with one output: `out` when given, else a fresh name.
  std::string op(const std::string &op_name, std::vector<std::string> inputs, json attrs = json::object(),
                 std::string out = "") const {
    if (out.empty()) out = temp(lower(op_name));
    Node node;
    node.op = op_name;
    node.inputs = std::move(inputs);
    node.outputs = {out};
    node.attrs = std::move(attrs);
    n_.im.emit(std::move(node));
    return out;
  }

  std::string constant(const std::string &what, Tensor t) const {
    std::string name = temp(what);
    n_.im.define_constant(name, std::move(t));
    return name;
  }
  std::string scalar(const std::string &what, DType dtype, double v) const {
    Tensor t(dtype, {});
    t.set(0, v);
    return constant(what, std::move(t));
  }
  /// The integers 0..n-1 along axis `axis` of a tensor of rank `rank` (the
  /// other dimensions 1), as i64.
  std::string iota(const std::string &what, std::int64_t n, int axis, int rank) const {
    Shape s(static_cast<std::size_t>(rank), 1);
    s[static_cast<std::size_t>(axis)] = n;
    Tensor t(DType::I64, s);
    for (std::int64_t i = 0; i < n; ++i) t.set(i, static_cast<double>(i));
    return constant(what, std::move(t));
  }

  std::string reshape(const std::string &x, const Shape &shape, std::string out = "") const {
    return op("Reshape", {x}, {{"shape", shape}}, std::move(out));
  }
  std::string transpose(const std::string &x, const std::vector<std::int64_t> &perm, std::string out = "") const {
    return op("Transpose", {x}, {{"perm", perm}}, std::move(out));
  }
  std::string slice(const std::string &x, std::int64_t start, std::int64_t end, std::int64_t axis,
                    std::int64_t step = 1) const {
    return op("Slice", {x}, {{"starts", {start}}, {"ends", {end}}, {"axes", {axis}}, {"steps", {step}}});
  }

private:
  const ExpandNode &n_;

  static std::string lower(std::string s) {
    for (char &c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  }
};

/// Atoll's dtype for an ONNX element type named by an attribute
/// (softmax_precision).
DType precision_dtype(const Builder &b, std::int64_t onnx_type) {
  switch (onnx_type) {
    case onnx::TensorProto::FLOAT: return DType::F32;
    case onnx::TensorProto::DOUBLE: return DType::F64;
    case onnx::TensorProto::FLOAT16: return DType::F16;
    case onnx::TensorProto::BFLOAT16: return DType::BF16;
    default:
      b.fail("softmax_precision " + onnx_dtype_name(static_cast<int>(onnx_type)) +
             " is not supported (FLOAT, FLOAT16, BFLOAT16, DOUBLE)");
  }
}

// --- Attention -------------------------------------------------------------------

/// The first entry of every Reshape of the expansions: 0, which copies the
/// input's first dimension, the batch (which may be symbolic).
constexpr std::int64_t kBatch = 0;

/// The shapes of one Attention node, in its 4-D form [batch, heads, seq, head size].
struct AttentionShape {
  Dim batch;
  std::int64_t q_heads = 0, kv_heads = 0, q_len = 0, kv_len = 0, past = 0, head = 0, v_head = 0;
  std::int64_t total() const { return past + kv_len; }
  std::int64_t group() const { return q_heads / kv_heads; }
};

/// [batch, seq, heads * size] -> [batch, heads, seq, size].
std::string split_heads(const Builder &b, const std::string &x, std::int64_t seq, std::int64_t heads,
                        std::int64_t size) {
  return b.transpose(b.reshape(x, {kBatch, seq, heads, size}), {0, 2, 1, 3});
}

/// The additive bias of the scores, broadcastable to [batch, q_heads, q_len,
/// total]: 0 where a query attends a key, -inf where it does not, plus a
/// float attn_mask. `guard` says whether a query row may attend no key at
/// all (then the softmax of that row, NaN, is replaced by zeros).
struct Bias {
  std::string name;  ///< empty: no bias
  bool guard = false;
};

Bias attention_bias(const Builder &b, const AttentionShape &s, DType dt) {
  std::string mask = b.input(3), nonpad = b.input(6);
  bool causal = b.attr_int("is_causal", 0) != 0;
  std::int64_t left = b.attr_int("left_window_size", -1), right = b.attr_int("right_window_size", -1);
  if (left < -1 || right < -1) b.fail("left_window_size and right_window_size must be -1 or nonnegative");
  bool structural = causal || left >= 0 || right >= 0;
  std::vector<std::string> parts;
  bool guard = false;

  if (!mask.empty()) {
    const TensorType &mt = b.type(mask);
    if (mt.rank() < 1 || mt.rank() > 4) b.fail("attn_mask must have rank 1 to 4, not " + mt.str());
    std::string m = mask;
    if (mt.dtype == DType::Bool) {
      // Select, not multiply: an allowed cell is exactly 0 (0 * -inf would be NaN).
      m = b.op("Where", {mask, b.scalar("zero", dt, 0), b.scalar("neg_inf", dt, kNegInf)});
    } else if (!is_float(mt.dtype)) {
      b.fail("attn_mask " + mt.str() + " must be bool or floating-point");
    } else if (mt.dtype != dt) {
      m = b.op("Cast", {mask}, {{"to", dtype_name(dt)}});
    }
    // A mask shorter than the keys is padded with "do not attend".
    const Dim &last = mt.shape.back();
    if (last.is_symbolic() || last.value != s.total()) {
      Shape md = b.dims(mask, "attn_mask");
      if (md.back() > s.total())
        b.fail("attn_mask " + mt.str() + " has more columns than the " + std::to_string(s.total()) + " keys");
      Shape pad_shape = md;
      pad_shape.back() = s.total() - md.back();
      Tensor pad(dt, pad_shape);
      std::fill(pad.data.begin(), pad.data.end(), kNegInf);
      m = b.op("Concat", {m, b.constant("mask_pad", std::move(pad))}, {{"axis", -1}});
    }
    parts.push_back(m);
    guard = true;
  }

  if (structural || !nonpad.empty()) {
    // Query i attends key j where j <= i + offset (causal), i + offset - j <=
    // left and j - (i + offset) <= right (windows, when not -1), and, with
    // nonpad_kv_seqlen, j < nonpad_kv_seqlen[b]. The offset is the number of
    // cached keys: past_key's, or nonpad_kv_seqlen[b] - q_len per batch (an
    // external cache). Without nonpad_kv_seqlen this is a constant (folded
    // while reading when small); with it, it is computed at run time.
    std::string keys = b.iota("keys", s.total(), 3, 4), allowed, offset;
    if (!nonpad.empty()) {
      const TensorType &nt = b.type(nonpad);
      if (nt.dtype != DType::I64 && nt.dtype != DType::I32) b.fail("nonpad_kv_seqlen must be an integer tensor");
      if (nt.shape != SymShape{s.batch})
        b.fail("nonpad_kv_seqlen " + nt.str() + " must have shape [" + s.batch.str() + "]");
      std::string valid = b.reshape(nonpad, {kBatch, 1, 1, 1});
      if (nt.dtype != DType::I64) valid = b.op("Cast", {valid}, {{"to", "i64"}});
      allowed = b.op("Less", {keys, valid});
      offset = b.op("Sub", {valid, b.scalar("q_len", DType::I64, double(s.q_len))});
      guard = true;
    } else {
      offset = b.scalar("past", DType::I64, double(s.past));
      // A row that attends no key needs the guard: one whose window (from the
      // causal and window bounds) holds no key.
      for (std::int64_t i = 0; i < s.q_len; ++i) {
        std::int64_t pos = i + s.past, lo = 0, hi = s.total() - 1;
        if (causal) hi = std::min(hi, pos);
        if (right >= 0) hi = std::min(hi, pos + right);
        if (left >= 0) lo = std::max(lo, pos - left);
        guard |= lo > hi;
      }
    }
    auto both = [&](const std::string &cond) { allowed = allowed.empty() ? cond : b.op("And", {allowed, cond}); };
    if (structural) {
      std::string pos = b.op("Add", {b.iota("queries", s.q_len, 2, 4), offset});
      if (causal) both(b.op("LessOrEqual", {keys, pos}));
      if (left >= 0)
        both(b.op("GreaterOrEqual", {keys, b.op("Sub", {pos, b.scalar("left", DType::I64, double(left))})}));
      if (right >= 0)
        both(b.op("LessOrEqual", {keys, b.op("Add", {pos, b.scalar("right", DType::I64, double(right))})}));
    }
    parts.push_back(b.op("Where", {allowed, b.scalar("zero", dt, 0), b.scalar("neg_inf", dt, kNegInf)}));
  }

  Bias bias;
  bias.guard = guard;
  for (const std::string &p : parts) bias.name = bias.name.empty() ? p : b.op("Add", {bias.name, p});
  return bias;
}

}  // namespace

void expand_attention(const ExpandNode &node) {
  Builder b(node);
  std::string q = b.input(0), k = b.input(1), v = b.input(2);
  if (q.empty() || k.empty() || v.empty()) b.fail("Q, K and V are required");
  std::string past_k = b.input(4), past_v = b.input(5);
  if (past_k.empty() != past_v.empty()) b.fail("past_key and past_value must be given together");
  if (!past_k.empty() && !b.input(6).empty()) b.fail("nonpad_kv_seqlen cannot be combined with past_key");
  DType dt = b.type(q).dtype;
  if (!is_float(dt)) b.fail("Q must be a floating-point tensor, not " + b.type(q).str());
  if (b.type(k).dtype != dt || b.type(v).dtype != dt) b.fail("Q, K and V must have the same element type");
  int rank = b.type(q).rank();
  if ((rank != 3 && rank != 4) || b.type(k).rank() != rank || b.type(v).rank() != rank)
    b.fail("Q, K and V must all be 3-D or all 4-D");
  Shape qd = b.dims_but_batch(q, "Q"), kd = b.dims_but_batch(k, "K"), vd = b.dims_but_batch(v, "V");

  AttentionShape s;
  s.batch = b.type(q).shape[0];
  std::string q4 = q, k4 = k, v4 = v;
  if (rank == 3) {
    s.q_heads = b.attr_int("q_num_heads", 0);
    s.kv_heads = b.attr_int("kv_num_heads", 0);
    if (s.q_heads <= 0 || s.kv_heads <= 0) b.fail("3-D Q, K and V need positive q_num_heads and kv_num_heads");
    if (qd[2] % s.q_heads != 0 || kd[2] % s.kv_heads != 0 || vd[2] % s.kv_heads != 0)
      b.fail("the hidden sizes of Q, K and V must be multiples of their numbers of heads");
    s.q_len = qd[1];
    s.kv_len = kd[1];
    s.head = qd[2] / s.q_heads;
    s.v_head = vd[2] / s.kv_heads;
    if (kd[2] / s.kv_heads != s.head) b.fail("K's head size differs from Q's");
    if (vd[1] != s.kv_len) b.fail("K and V have different sequence lengths");
  } else {
    if (node.opset >= 25 && (b.has_attr("q_num_heads") || b.has_attr("kv_num_heads")))
      b.fail("q_num_heads and kv_num_heads must not be given with 4-D Q, K and V");
    s.q_heads = qd[1];
    s.kv_heads = kd[1];
    s.q_len = qd[2];
    s.kv_len = kd[2];
    s.head = qd[3];
    s.v_head = vd[3];
    if (kd[3] != s.head) b.fail("K's head size differs from Q's");
    if (vd[1] != s.kv_heads || vd[2] != s.kv_len) b.fail("K " + b.type(k).str() + " and V " + b.type(v).str() + " do not match");
  }
  if (b.type(k).shape[0] != s.batch || b.type(v).shape[0] != s.batch) b.fail("Q, K and V have different batch sizes");
  if (s.q_heads % s.kv_heads != 0)
    b.fail(std::to_string(s.q_heads) + " query heads are not a multiple of " + std::to_string(s.kv_heads) +
           " key/value heads");
  if (rank == 3) {
    q4 = split_heads(b, q, s.q_len, s.q_heads, s.head);
    k4 = split_heads(b, k, s.kv_len, s.kv_heads, s.head);
    v4 = split_heads(b, v, s.kv_len, s.kv_heads, s.v_head);
  }

  // The key/value cache: present = Concat(past, new) along the sequence.
  if (!past_k.empty()) {
    Shape pk = b.dims_but_batch(past_k, "past_key"), pv = b.dims_but_batch(past_v, "past_value");
    if (pk.size() != 4 || pv.size() != 4 || b.type(past_k).shape[0] != s.batch || pk[1] != s.kv_heads ||
        pk[3] != s.head || b.type(past_v).shape[0] != s.batch || pv[1] != s.kv_heads || pv[2] != pk[2] || pv[3] != s.v_head)
      b.fail("past_key " + b.type(past_k).str() + " and past_value " + b.type(past_v).str() +
             " do not match K and V");
    s.past = pk[2];
    k4 = b.op("Concat", {past_k, k4}, {{"axis", 2}}, b.output(1));
    v4 = b.op("Concat", {past_v, v4}, {{"axis", 2}}, b.output(2));
  } else {
    if (!b.output(1).empty()) b.im().alias(b.output(1), k4);
    if (!b.output(2).empty()) b.im().alias(b.output(2), v4);
  }

  // f16 and bf16 attention is computed in f32 and rounded once, at the
  // outputs; the cache outputs (present_key, present_value) keep the type.
  DType odt = dt;
  if (dt != DType::F32) {
    dt = DType::F32;
    json to = {{"to", "f32"}};
    q4 = b.op("Cast", {q4}, to);
    k4 = b.op("Cast", {k4}, to);
    v4 = b.op("Cast", {v4}, to);
  }
  // Q and K are each scaled by sqrt(scale) before the product, as the
  // operator's definition does against overflow.
  double scale = b.has_attr("scale") ? b.attr_float("scale", 1) : 1 / std::sqrt(static_cast<double>(s.head));
  std::string root = b.scalar("scale", dt, std::sqrt(scale));
  std::string qs = b.op("Mul", {q4, root});
  std::string kt = b.transpose(b.op("Mul", {k4, root}), {0, 1, 3, 2});
  // Grouped-query attention: query heads g * group .. g * group + group - 1
  // share key/value head g. Instead of repeating K and V, the queries of a
  // group are stacked as rows of one matrix: [batch, kv_heads, group * q_len, head].
  std::int64_t group = s.group();
  if (group > 1) qs = b.reshape(qs, {kBatch, s.kv_heads, group * s.q_len, s.head});
  std::string scores = b.op("MatMul", {qs, kt});
  if (group > 1) scores = b.reshape(scores, {kBatch, s.q_heads, s.q_len, s.total()});
  std::string raw = scores;

  double softcap = b.attr_float("softcap", 0);
  if (softcap > 0) {
    std::string cap = b.scalar("softcap", dt, softcap);
    scores = b.op("Mul", {b.op("Tanh", {b.op("Div", {scores, cap})}), cap});
  }
  std::string capped = scores;

  Bias bias = attention_bias(b, s, dt);
  if (!bias.name.empty()) scores = b.op("Add", {scores, bias.name});
  std::string biased = scores;

  DType sdt = b.has_attr("softmax_precision") ? precision_dtype(b, b.attr_int("softmax_precision", 1)) : dt;
  if (sdt != dt) scores = b.op("Cast", {scores}, {{"to", dtype_name(sdt)}});
  std::string probs = b.op("Softmax", {scores}, {{"axis", -1}});
  if (bias.guard) {
    // A row whose bias is -inf everywhere attends no key: its softmax is NaN,
    // and it is zero instead (decided on the bias, not on the scores).
    int br = b.type(bias.name).rank();
    std::string row_max = b.op("ReduceMax", {bias.name}, {{"axes", {br - 1}}, {"keepdims", 1}});
    std::string dead = b.op("Equal", {row_max, b.scalar("neg_inf", dt, kNegInf)});
    probs = b.op("Where", {dead, b.scalar("zero", sdt, 0), probs});
  }
  if (sdt != dt) probs = b.op("Cast", {probs}, {{"to", dtype_name(dt)}});

  if (!b.output(3).empty()) {
    std::int64_t mode = b.attr_int("qk_matmul_output_mode", 0);
    const std::string *which = mode == 0 ? &raw : mode == 1 ? &capped : mode == 2 ? &biased : mode == 3 ? &probs : nullptr;
    if (!which) b.fail("qk_matmul_output_mode " + std::to_string(mode) + " is not one of 0, 1, 2, 3");
    if (odt != dt) b.op("Cast", {*which}, {{"to", dtype_name(odt)}}, b.output(3));
    else b.im().alias(b.output(3), *which);
  }

  std::string p = group > 1 ? b.reshape(probs, {kBatch, s.kv_heads, group * s.q_len, s.total()}) : probs;
  // The last step writes the output Y.
  bool cast_out = odt != dt, heads3 = rank == 3, regroup = group > 1;
  std::string y = b.op("MatMul", {p, v4}, {}, !regroup && !heads3 && !cast_out ? b.output(0) : "");
  if (regroup)
    y = b.reshape(y, {kBatch, s.q_heads, s.q_len, s.v_head}, !heads3 && !cast_out ? b.output(0) : "");
  if (heads3)
    y = b.reshape(b.transpose(y, {0, 2, 1, 3}), {kBatch, s.q_len, s.q_heads * s.v_head},
                  !cast_out ? b.output(0) : "");
  if (cast_out) b.op("Cast", {y}, {{"to", dtype_name(odt)}}, b.output(0));
}

// --- losses ------------------------------------------------------------------------

namespace {

/// NegativeLogLikelihoodLoss of `logp` [N, C, d1...] (log-probabilities)
/// at the run-time classes `target` [N, d1...], into `out`.
void nll_loss(const Builder &b, const std::string &logp, const std::string &out) {
  std::string target = b.input(1), weight = b.input(2);
  const TensorType &xt = b.type(logp), &tt = b.type(target);
  DType dt = xt.dtype;
  if (!is_float(dt)) b.fail("the input must be a floating-point tensor, not " + xt.str());
  if (tt.dtype != DType::I64 && tt.dtype != DType::I32) b.fail("target must be an integer tensor, not " + tt.str());
  if (xt.rank() < 2 || tt.rank() != xt.rank() - 1)
    b.fail("input " + xt.str() + " must be [N, C, d1...] and target " + tt.str() + " [N, d1...]");
  std::string reduction = b.attr_string("reduction", "mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean")
    b.fail("reduction '" + reduction + "' is not none, sum or mean");
  bool has_ii = b.has_attr("ignore_index");
  std::int64_t ii = b.attr_int("ignore_index", 0);

  // An ignored target may be any integer (out of range too): it reads class 0
  // instead, and its loss is set to 0 afterwards.
  std::string cls = target, ignored;
  if (has_ii) {
    ignored = b.op("Equal", {target, b.scalar("ignore_index", tt.dtype, double(ii))});
    cls = b.op("Where", {ignored, b.scalar("class0", tt.dtype, 0), target});
  }
  std::string picked = b.op("GatherElements", {logp, b.op("Unsqueeze", {cls}, {{"axes", {1}}})}, {{"axis", 1}});
  std::string loss = b.op("Neg", {b.op("Squeeze", {picked}, {{"axes", {1}}})});
  std::string w;  // the weight of each element's class, where a weight is given
  if (!weight.empty()) {
    const TensorType &wt = b.type(weight);
    if (wt.rank() != 1 || wt.dtype != dt) b.fail("weight " + wt.str() + " must be a vector of the input's type");
    w = b.op("Gather", {weight, cls}, {{"axis", 0}});
    loss = b.op("Mul", {loss, w});
  }
  std::string zero = has_ii ? b.scalar("zero", dt, 0) : std::string();
  if (reduction == "none") {
    if (has_ii) b.op("Where", {ignored, zero, loss}, {}, out);
    else b.im().alias(out, loss);
    return;
  }
  if (has_ii) loss = b.op("Where", {ignored, zero, loss});
  json all = {{"keepdims", 0}};
  if (reduction == "sum") {
    b.op("ReduceSum", {loss}, all, out);
    return;
  }
  // mean: the sum over the sum of the weights that applied (each 1 without
  // a weight input; 0 where the target is ignored).
  if (w.empty() && !has_ii) {
    b.op("ReduceMean", {loss}, all, out);
    return;
  }
  std::string applied = w.empty() ? b.op("Where", {ignored, zero, b.scalar("one", dt, 1)})
                                  : has_ii ? b.op("Where", {ignored, zero, w}) : w;
  b.op("Div", {b.op("ReduceSum", {loss}, all), b.op("ReduceSum", {applied}, all)}, {}, out);
}

}  // namespace

void expand_nll_loss(const ExpandNode &node) {
  Builder b(node);
  if (b.input(0).empty() || b.input(1).empty()) b.fail("input and target are required");
  nll_loss(b, b.input(0), b.output(0));
}

void expand_softmax_cross_entropy_loss(const ExpandNode &node) {
  Builder b(node);
  if (b.input(0).empty() || b.input(1).empty()) b.fail("scores and labels are required");
  if (b.type(b.input(0)).rank() < 2) b.fail("scores must be [N, C, d1...]");
  // The log-probabilities over the classes (axis 1): the optional second output.
  std::string logp = b.op("LogSoftmax", {b.input(0)}, {{"axis", 1}}, b.output(1));
  nll_loss(b, logp, b.output(0));
}

// --- RotaryEmbedding -----------------------------------------------------------------

void expand_rotary_embedding(const ExpandNode &node) {
  Builder b(node);
  std::string x = b.input(0), cos = b.input(1), sin = b.input(2), pos = b.input(3);
  if (x.empty() || cos.empty() || sin.empty()) b.fail("input, cos_cache and sin_cache are required");
  const TensorType &xt = b.type(x);
  if (!is_float(xt.dtype)) b.fail("the input must be a floating-point tensor, not " + xt.str());
  Shape xd = b.dims_but_batch(x, "input");
  if (xd.size() != 3 && xd.size() != 4) b.fail("the input must be 3-D or 4-D, not " + xt.str());
  // 4-D input: [batch, heads, seq, head]; 3-D: [batch, seq, heads * head],
  // rotated as [batch, seq, heads, head].
  bool three = xd.size() == 3;
  std::int64_t seq = three ? xd[1] : xd[2], head;
  std::string h = x;
  if (three) {
    std::int64_t heads = b.attr_int("num_heads", 0);
    if (heads <= 0 || xd[2] % heads != 0) b.fail("a 3-D input needs num_heads dividing its hidden size");
    head = xd[2] / heads;
    h = b.reshape(x, {kBatch, seq, heads, head});
  } else {
    head = xd[3];
  }
  std::int64_t rot = b.attr_int("rotary_embedding_dim", 0);
  if (rot == 0) rot = head;
  if (rot < 0 || rot > head || rot % 2 != 0) b.fail("rotary_embedding_dim " + std::to_string(rot) + " must be even and at most the head size");
  std::int64_t half = rot / 2;

  // The cos and sin of each (batch, position): [batch, seq, rot / 2].
  if (!pos.empty()) {
    cos = b.op("Gather", {cos, pos}, {{"axis", 0}});
    sin = b.op("Gather", {sin, pos}, {{"axis", 0}});
  }
  for (const std::string *c : {&cos, &sin}) {
    const TensorType &ct = b.type(*c);
    if (ct.dtype != xt.dtype) b.fail("cos_cache and sin_cache must have the input's element type");
    SymShape want = {xt.shape[0], Dim(seq), Dim(half)};
    if (ct.shape != want)
      b.fail("the cos/sin cache gives " + ct.str() + " per position, not " + sym_shape_to_string(want));
  }
  // Broadcast over the heads: [batch, 1, seq, half] or [batch, seq, 1, half].
  Shape cs = three ? Shape{kBatch, seq, 1, half} : Shape{kBatch, 1, seq, half};
  cos = b.reshape(cos, cs);
  sin = b.reshape(sin, cs);

  bool interleaved = b.attr_int("interleaved", 0) != 0;
  // The pairs rotated: (x1[k], x2[k]) = (x[2k], x[2k+1]) interleaved, else (x[k], x[k + half]).
  std::string x1 = interleaved ? b.slice(h, 0, rot, 3, 2) : b.slice(h, 0, half, 3);
  std::string x2 = interleaved ? b.slice(h, 1, rot, 3, 2) : b.slice(h, half, rot, 3);
  std::string real = b.op("Sub", {b.op("Mul", {cos, x1}), b.op("Mul", {sin, x2})});
  std::string imag = b.op("Add", {b.op("Mul", {sin, x1}), b.op("Mul", {cos, x2})});
  Shape rd = b.dims_but_batch(h, "input");
  rd[0] = kBatch;
  rd[3] = rot;
  std::string rotated;
  if (interleaved) {
    real = b.op("Unsqueeze", {real}, {{"axes", {4}}});
    imag = b.op("Unsqueeze", {imag}, {{"axes", {4}}});
    rotated = b.reshape(b.op("Concat", {real, imag}, {{"axis", 4}}), rd);
  } else {
    rotated = b.op("Concat", {real, imag}, {{"axis", 3}});
  }
  bool rest = rot < head;
  std::string out = three ? std::string() : b.output(0);
  if (rest) rotated = b.op("Concat", {rotated, b.slice(h, rot, head, 3)}, {{"axis", 3}}, out);
  else if (!three) b.im().alias(out, rotated);
  xd[0] = kBatch;
  if (three) b.reshape(rotated, xd, b.output(0));
}

}  // namespace atl::onnx_import
