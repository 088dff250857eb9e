// Convolution cases (ResNet-50, MobileNetV2 depthwise), batch 1, f32: Atoll's Conv in
// NCHW, Atoll on a blocked (nChw16c) tensor comprehension, naive loops, oneDNN in
// NCHW, in nChw16c and in the layouts it picks itself (format_tag::any).
#include "bench/cases.h"

#include "bench/naive_kernels.h"
#include "bench/onednn_kernels.h"

namespace atl::bench {

namespace {

struct ConvCase {
  std::string name;
  naive::ConvShape s;
  bool quick;
};

const ConvCase kCases[] = {
    {"conv/r50-3x3-64", {64, 56, 56, 64, 3, 3, 1, 1, 1}, true},
    {"conv/r50-1x1-256to64", {256, 56, 56, 64, 1, 1, 1, 0, 1}, false},
    {"conv/r50-3x3s2-128", {128, 56, 56, 128, 3, 3, 2, 1, 1}, false},
    {"conv/r50-stem-7x7s2", {3, 224, 224, 64, 7, 7, 2, 3, 1}, false},
    {"conv/mnv2-dw3x3-144", {144, 56, 56, 144, 3, 3, 1, 1, 144}, true},
};

constexpr int kB = 16;  // channel block of the blocked layout

std::string shape_text(const naive::ConvShape &s) {
  std::string t = std::to_string(s.c) + "x" + std::to_string(s.h) + "x" + std::to_string(s.w) + " -> " +
                  std::to_string(s.o) + "x" + std::to_string(s.oh()) + "x" + std::to_string(s.ow()) + ", k" +
                  std::to_string(s.kh) + "x" + std::to_string(s.kw) + " s" + std::to_string(s.stride) + " p" +
                  std::to_string(s.pad);
  if (s.groups > 1) t += " g" + std::to_string(s.groups);
  return t;
}

/// "S * oh + kh - P" without the parts that are no-ops.
std::string in_index(const naive::ConvShape &s, const std::string &o, const std::string &k) {
  std::string t = (s.stride == 1 ? o : std::to_string(s.stride) + " * " + o) + " + " + k;
  if (s.pad) t += " - " + std::to_string(s.pad);
  return t;
}

/// Whether the input is blocked too (the stem's 3 channels stay plain, as in oneDNN).
bool blocked_input(const naive::ConvShape &s) { return s.c % kB == 0; }

/// The blocked convolution as an Atoll tensor comprehension. Layouts: X nChw16c
/// (or NCHW when C % 16 != 0), W [O/16][C/16][KH][KW][16c][16o] (depthwise
/// [C/16][KH][KW][16], stem [O/16][C][KH][KW][16o]), Y nChw16c.
std::string blocked_expr(const naive::ConvShape &s) {
  std::string ih = in_index(s, "oh", "kh"), iw = in_index(s, "ow", "kw");
  std::string ranges = " where n in 0:1, ob in 0:" + std::to_string(s.o / kB) + ", oh in 0:" + std::to_string(s.oh()) +
                       ", ow in 0:" + std::to_string(s.ow()) + ", o in 0:16, kh in 0:" + std::to_string(s.kh) +
                       ", kw in 0:" + std::to_string(s.kw);
  if (s.groups > 1)
    return "Y(n, ob, oh, ow, o) +=! guard(X(n, ob, " + ih + ", " + iw + ", o), 0) * W(ob, kh, kw, o)" + ranges;
  if (!blocked_input(s))
    return "Y(n, ob, oh, ow, o) +=! guard(X(n, c, " + ih + ", " + iw + "), 0) * W(ob, c, kh, kw, o)" + ranges +
           ", c in 0:" + std::to_string(s.c);
  return "Y(n, ob, oh, ow, o) +=! guard(X(n, cb, " + ih + ", " + iw + ", c), 0) * W(ob, cb, kh, kw, c, o)" + ranges +
         ", cb in 0:" + std::to_string(s.c / kB) + ", c in 0:16";
}

/// NCHW activations [C][H][W] -> [C/16][H][W][16].
void to_blocked(const float *x, float *xb, int c, int hw) {
  for (int ch = 0; ch < c; ++ch)
    for (int i = 0; i < hw; ++i) xb[(static_cast<std::int64_t>(ch / kB) * hw + i) * kB + ch % kB] = x[static_cast<std::int64_t>(ch) * hw + i];
}

void from_blocked(const float *xb, float *x, int c, int hw) {
  for (int ch = 0; ch < c; ++ch)
    for (int i = 0; i < hw; ++i) x[static_cast<std::int64_t>(ch) * hw + i] = xb[(static_cast<std::int64_t>(ch / kB) * hw + i) * kB + ch % kB];
}

/// OIHW (or depthwise [C][1][KH][KW]) weights -> the layouts of blocked_expr.
void weights_to_blocked(const float *w, float *wb, const naive::ConvShape &s) {
  const int khw = s.kh * s.kw;
  if (s.groups > 1) {
    for (int o = 0; o < s.o; ++o)
      for (int k = 0; k < khw; ++k) wb[(static_cast<std::int64_t>(o / kB) * khw + k) * kB + o % kB] = w[static_cast<std::int64_t>(o) * khw + k];
    return;
  }
  for (int o = 0; o < s.o; ++o)
    for (int c = 0; c < s.c; ++c)
      for (int k = 0; k < khw; ++k) {
        std::int64_t src = (static_cast<std::int64_t>(o) * s.c + c) * khw + k, dst;
        if (blocked_input(s))
          dst = ((((static_cast<std::int64_t>(o / kB) * (s.c / kB) + c / kB) * khw + k) * kB + c % kB) * kB) + o % kB;
        else
          dst = ((static_cast<std::int64_t>(o / kB) * s.c + c) * khw + k) * kB + o % kB;
        wb[dst] = w[src];
      }
}

}  // namespace

std::vector<CaseResult> run_conv(const Config &config, int threads) {
  std::vector<CaseResult> out;
  for (const ConvCase &cc : kCases) {
    const naive::ConvShape &s = cc.s;
    CaseResult c;
    c.group = "conv";
    c.name = cc.name;
    if ((config.quick && !cc.quick) || !config.selected(c.name)) continue;
    c.shape = shape_text(s);
    c.threads = threads;
    const std::int64_t cg = s.c / s.groups;
    c.work = 2.0 * s.o * s.oh() * s.ow() * cg * s.kh * s.kw;
    c.unit = "GFLOP/s";
    const int hw = s.h * s.w, ohw = s.oh() * s.ow();
    const std::size_t n_out = static_cast<std::size_t>(s.o) * ohw;
    Buffer x(static_cast<std::size_t>(s.c) * hw), w(static_cast<std::size_t>(s.o) * cg * s.kh * s.kw);
    fill_uniform(x, 3);
    fill_uniform(w, 4, -0.1f, 0.1f);
    Buffer y_atoll(n_out), y_atoll_b(n_out), y_atoll_b_nchw(n_out), y_naive(n_out), y_dnnl(n_out), y_dnnl_b(n_out),
        y_dnnl_any(n_out);
    Buffer xb(x.size()), wb(w.size());
    if (blocked_input(s)) to_blocked(x.data(), xb.data(), s.c, hw);
    else std::copy(x.data(), x.data() + x.size(), xb.data());
    weights_to_blocked(w.data(), wb.data(), s);

    std::vector<Impl> impls;
    impls.push_back(atoll_impl(
        "atoll", config,
        [&] {
          Graph g;
          g.name = "conv";
          g.add_input("X", {DType::F32, {1, s.c, s.h, s.w}});
          g.add_input("W", {DType::F32, {s.o, cg, s.kh, s.kw}});
          g.add_node(make_node("Conv", {"X", "W"}, {"Y"},
                               {{"kernel_shape", {s.kh, s.kw}},
                                {"strides", {s.stride, s.stride}},
                                {"pads", {s.pad, s.pad, s.pad, s.pad}},
                                {"group", s.groups}}));
          g.add_output("Y");
          return g;
        },
        {{"X", x.data()}, {"W", w.data()}, {"Y", y_atoll.data()}}, "Y"));
    impls.back().kernel = "Conv (NCHW); " + impls.back().kernel;
    Impl atoll_b = atoll_impl(
        "atoll-blocked", config,
        [&] {
          Graph g;
          g.name = "conv_blocked";
          if (blocked_input(s)) g.add_input("X", {DType::F32, {1, s.c / kB, s.h, s.w, kB}});
          else g.add_input("X", {DType::F32, {1, s.c, s.h, s.w}});
          if (s.groups > 1) g.add_input("W", {DType::F32, {s.o / kB, s.kh, s.kw, kB}});
          else if (blocked_input(s)) g.add_input("W", {DType::F32, {s.o / kB, s.c / kB, s.kh, s.kw, kB, kB}});
          else g.add_input("W", {DType::F32, {s.o / kB, s.c, s.kh, s.kw, kB}});
          g.add_node(make_node("Compute", {"X", "W"}, {"Y"}, {{"expr", blocked_expr(s)}}));
          g.add_output("Y");
          return g;
        },
        {{"X", xb.data()}, {"W", wb.data()}, {"Y", y_atoll_b.data()}}, "Y");
    atoll_b.kernel = "Compute nChw16c (hand-written layout, not chosen by Atoll); " + atoll_b.kernel;
    atoll_b.out = y_atoll_b_nchw.data();
    atoll_b.finish = [&] { from_blocked(y_atoll_b.data(), y_atoll_b_nchw.data(), s.o, ohw); };
    impls.push_back(atoll_b);

    Impl naive{"naive"};
    naive.run = [&] { naive::conv2d(x.data(), w.data(), y_naive.data(), s, threads); };
    naive.out = y_naive.data();
    naive.kernel = "NCHW loops o,c,kh,kw,oh,ow (gcc -O3 -march=native)";
    impls.push_back(naive);
    using dnnl_cases::ConvLayout;
    const std::pair<ConvLayout, const char *> variants[] = {
        {ConvLayout::Plain, "onednn"}, {ConvLayout::Blocked, "onednn-blocked"}, {ConvLayout::Any, "onednn-any"}};
    for (const auto &[layout, lib] : variants) {
      Impl d{lib};
      float *y = layout == ConvLayout::Plain ? y_dnnl.data() : layout == ConvLayout::Blocked ? y_dnnl_b.data()
                                                                                             : y_dnnl_any.data();
      try {
        auto prim = std::shared_ptr<dnnl_cases::Run>(dnnl_cases::conv2d(x.data(), w.data(), y, s, layout));
        d.run = [prim] { prim->run(); };
        d.finish = [prim] { prim->finish(); };
        d.kernel = prim->kernel;
      } catch (const std::exception &e) {
        d.error = e.what();
      }
      d.out = y;
      impls.push_back(d);
    }
    run_impls(config, c, impls, n_out);
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace atl::bench
