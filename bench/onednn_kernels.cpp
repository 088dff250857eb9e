// oneDNN (2.x API) primitives bound to the benchmark's buffers; each reports the
// implementation it chose (impl_info_str) and, for convolutions, the layouts.
#include "bench/onednn_kernels.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <optional>
#include <vector>

#include <string>
#include <unordered_map>
#include <utility>

namespace atl::bench::dnnl_cases {

namespace {

using dnnl::memory;
using tag = memory::format_tag;
using dt = memory::data_type;

dnnl::engine &engine() {
  static dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  return eng;
}

dnnl::stream &stream() {
  static dnnl::stream s(engine());
  return s;
}

memory wrap(const memory::desc &md, const float *p) { return memory(md, engine(), const_cast<float *>(p)); }

/// oneDNN's tag name for a blocked memory descriptor (e.g. aBcd16b = nChw16c).
std::string layout(const memory::desc &md) {
  const dnnl_memory_desc_t &d = md.data;
  if (d.format_kind != dnnl_blocked) return "non-blocked";
  const dnnl_blocking_desc_t &b = d.format_desc.blocking;
  std::string out;
  std::vector<int> order(static_cast<std::size_t>(d.ndims));
  for (int i = 0; i < d.ndims; ++i) order[static_cast<std::size_t>(i)] = i;
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return b.strides[x] > b.strides[y]; });
  for (int i : order) {
    bool blocked = false;
    for (int j = 0; j < b.inner_nblks; ++j) blocked |= b.inner_idxs[j] == i;
    out += static_cast<char>((blocked ? 'A' : 'a') + i);
  }
  for (int j = 0; j < b.inner_nblks; ++j)
    out += std::to_string(b.inner_blks[j]) + static_cast<char>('a' + b.inner_idxs[j]);
  return out;
}

/// One primitive and its arguments; an optional untimed reorder of the output.
class PrimitiveRun : public Run {
public:
  void run() override {
    prim.execute(stream(), args);
    stream().wait();
  }
  void finish() override {
    if (out_reorder) {
      out_reorder->execute(stream(), out_args);
      stream().wait();
    }
  }

  dnnl::primitive prim;
  std::unordered_map<int, memory> args;
  std::optional<dnnl::reorder> out_reorder;
  std::unordered_map<int, memory> out_args;
};

/// A memory of descriptor `want` holding `src` (plain `have`): the user memory itself
/// when the layouts agree, otherwise a reorder done now (untimed).
memory placed(const memory::desc &want, const memory::desc &have, const float *src) {
  memory user = wrap(have, src);
  if (want == have) return user;
  memory m(want, engine());
  dnnl::reorder(user, m).execute(stream(), user, m);
  stream().wait();
  return m;
}

}  // namespace

std::string version() {
  const dnnl_version_t *v = dnnl_version();
  std::string rt = v->cpu_runtime == DNNL_RUNTIME_OMP ? "OpenMP" : v->cpu_runtime == DNNL_RUNTIME_TBB ? "TBB"
                   : v->cpu_runtime == DNNL_RUNTIME_THREADPOOL                                    ? "threadpool"
                   : v->cpu_runtime == DNNL_RUNTIME_SEQ                                           ? "sequential"
                                                                                                  : "other";
  return "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch) + " (" +
         rt + " CPU runtime)";
}

std::unique_ptr<Run> matmul(const float *a, const float *b, float *c, int m, int n, int k) {
  memory::desc amd({m, k}, dt::f32, tag::ab), bmd({k, n}, dt::f32, tag::ab), cmd({m, n}, dt::f32, tag::ab);
  dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(amd, bmd, cmd), engine());
  auto r = std::make_unique<PrimitiveRun>();
  r->prim = dnnl::matmul(pd);
  r->args = {{DNNL_ARG_SRC, wrap(amd, a)}, {DNNL_ARG_WEIGHTS, wrap(bmd, b)}, {DNNL_ARG_DST, wrap(cmd, c)}};
  r->kernel = pd.impl_info_str();
  return r;
}

std::unique_ptr<Run> conv2d(const float *x, const float *w, float *y, const naive::ConvShape &s, ConvLayout mode) {
  memory::dims src_dims = {1, s.c, s.h, s.w}, dst_dims = {1, s.o, s.oh(), s.ow()};
  memory::dims wei_dims = s.groups == 1 ? memory::dims{s.o, s.c, s.kh, s.kw}
                                        : memory::dims{s.groups, s.o / s.groups, s.c / s.groups, s.kh, s.kw};
  memory::desc src_user(src_dims, dt::f32, tag::nchw), dst_user(dst_dims, dt::f32, tag::nchw);
  memory::desc wei_user(wei_dims, dt::f32, s.groups == 1 ? tag::oihw : tag::goihw);
  memory::desc src_md = src_user, dst_md = dst_user, wei_md = wei_user;
  if (mode != ConvLayout::Plain) wei_md = memory::desc(wei_dims, dt::f32, tag::any);
  if (mode == ConvLayout::Any) {
    src_md = memory::desc(src_dims, dt::f32, tag::any);
    dst_md = memory::desc(dst_dims, dt::f32, tag::any);
  } else if (mode == ConvLayout::Blocked) {
    if (s.c % 16 == 0) src_md = memory::desc(src_dims, dt::f32, tag::nChw16c);
    dst_md = memory::desc(dst_dims, dt::f32, tag::nChw16c);
  }
  dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src_md,
                                    wei_md, dst_md, {s.stride, s.stride}, {s.pad, s.pad}, {s.pad, s.pad});
  dnnl::convolution_forward::primitive_desc pd(d, engine());
  auto r = std::make_unique<PrimitiveRun>();
  r->prim = dnnl::convolution_forward(pd);
  memory dst_user_mem = wrap(dst_user, y);
  memory dst = pd.dst_desc() == dst_user ? dst_user_mem : memory(pd.dst_desc(), engine());
  r->args = {{DNNL_ARG_SRC, placed(pd.src_desc(), src_user, x)},
             {DNNL_ARG_WEIGHTS, placed(pd.weights_desc(), wei_user, w)},
             {DNNL_ARG_DST, dst}};
  if (pd.dst_desc() != dst_user) {
    r->out_reorder = dnnl::reorder(dst, dst_user_mem);
    r->out_args = {{DNNL_ARG_FROM, dst}, {DNNL_ARG_TO, dst_user_mem}};
  }
  r->kernel = std::string(pd.impl_info_str()) + " src " + layout(pd.src_desc()) + " wei " + layout(pd.weights_desc()) +
              " dst " + layout(pd.dst_desc());
  return r;
}

std::unique_ptr<Run> add_relu_mul(const float *a, const float *b, const float *c, float *y, long rows, long cols) {
  memory::desc md({rows, cols}, dt::f32, tag::ab);
  dnnl::post_ops ops;
  ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
  ops.append_binary(dnnl::algorithm::binary_mul, md);
  dnnl::primitive_attr attr;
  attr.set_post_ops(ops);
  dnnl::binary::primitive_desc pd(dnnl::binary::desc(dnnl::algorithm::binary_add, md, md, md), attr, engine());
  auto r = std::make_unique<PrimitiveRun>();
  r->prim = dnnl::binary(pd);
  r->args = {{DNNL_ARG_SRC_0, wrap(md, a)},
             {DNNL_ARG_SRC_1, wrap(md, b)},
             {DNNL_ARG_ATTR_MULTIPLE_POST_OP(1) | DNNL_ARG_SRC_1, wrap(md, c)},
             {DNNL_ARG_DST, wrap(md, y)}};
  r->kernel = std::string(pd.impl_info_str()) + " (add, post-ops relu, mul)";
  return r;
}

std::unique_ptr<Run> softmax(const float *x, float *y, long rows, long cols) {
  memory::desc md({rows, cols}, dt::f32, tag::ab);
  dnnl::softmax_forward::primitive_desc pd(
      dnnl::softmax_forward::desc(dnnl::prop_kind::forward_inference, md, 1), engine());
  auto r = std::make_unique<PrimitiveRun>();
  r->prim = dnnl::softmax_forward(pd);
  r->args = {{DNNL_ARG_SRC, wrap(md, x)}, {DNNL_ARG_DST, wrap(md, y)}};
  r->kernel = pd.impl_info_str();
  return r;
}

std::unique_ptr<Run> layernorm(const float *x, const float *scale, const float *bias, float *y, long rows, long cols,
                               float eps) {
  memory::desc md({rows, cols}, dt::f32, tag::ab), vec({cols}, dt::f32, tag::a);
  auto flags = dnnl::normalization_flags::use_scale | dnnl::normalization_flags::use_shift;
  dnnl::layer_normalization_forward::primitive_desc pd(
      dnnl::layer_normalization_forward::desc(dnnl::prop_kind::forward_inference, md, eps, flags), engine());
  auto r = std::make_unique<PrimitiveRun>();
  r->prim = dnnl::layer_normalization_forward(pd);
  r->args = {{DNNL_ARG_SRC, wrap(md, x)},
             {DNNL_ARG_DST, wrap(md, y)},
             {DNNL_ARG_SCALE, wrap(vec, scale)},
             {DNNL_ARG_SHIFT, wrap(vec, bias)}};
  if (pd.mean_desc().get_size() != 0) {
    r->args.emplace(DNNL_ARG_MEAN, memory(pd.mean_desc(), engine()));
    r->args.emplace(DNNL_ARG_VARIANCE, memory(pd.variance_desc(), engine()));
  }
  r->kernel = pd.impl_info_str();
  return r;
}

}  // namespace atl::bench::dnnl_cases
