// Rewrites 2-D f32 convolutions to compute their output in a channel-blocked layout (NCHW16c) where it pays.
#pragma once

#include "graph/ir/graph.h"

#include "graph/passes/pass_stats.h"

#include <cstdint>

namespace atl {

/// Limits of block_conv_layout's cost model.
struct BlockConvOptions {
  int block = 16;                        ///< channel block B (AVX-512 f32 lanes)
  std::int64_t min_macs = 1 << 20;       ///< smaller convs stay in NCHW (conversions would dominate)
  std::int64_t min_reduction = 16;       ///< Ci * Kh * Kw below this: too little work per output element
  double max_padding = 1.5;              ///< padded Co / Co above this: too many wasted lanes
  /// A 1x1 stride-1 conv of an NCHW input that widens the channels (Co > Ci)
  /// or pads its last block stays in NCHW: as a GEMM over contiguous pixels
  /// it was measured faster than blocked with its conversion (MobileNetV2's
  /// 24 -> 144 and 144 -> 24 at 56x56; ResNet's 256 -> 64 stays blocked).
  /// So does one that widens a blocked input: it reads the input's NCHW
  /// conversion (Ci channels converted, not Co), and its epilogue (a
  /// residual Add of an NCHW tensor) stays in registers over the coalesced
  /// pixels (ResNet's conv3, 64 -> 256 on 56x56, was measured faster so).
  bool pointwise_nchw = true;
  /// A 3x3, stride-1, undilated conv of a blocked input with whole blocks in
  /// and out runs as Winograd F(2x2, 3x3) (winograd_conv.h): 2.25x fewer
  /// multiply-adds in its GEMMs, plus two transforms of one pass each.
  /// Off by default for API compatibility; compile_graph turns it on.
  bool winograd = false;
  /// A conv of an NCHW input with whole channel blocks whose window is more
  /// than one pixel or reaches into the padding reads a blocked copy of its
  /// input (one conversion, shared by every conv that reads the same
  /// tensor) instead of the NCHW tensor: read as NCHW, each step of the
  /// micro-kernel's reduction (one input channel) broadcasts from a
  /// different channel plane, a new cache line and often a new page, and
  /// the weights go in steps of Kh x Kw x B floats. A single 3x3 conv of
  /// 256 channels at 56x56 ran at under half of onnxruntime's speed so.
  /// Off by default for API compatibility; compile_graph turns it on.
  bool block_nchw_inputs = false;
  int winograd_panel = 16;  ///< the transformed weights' column panels (the GEMM register tile's width; 0: none)
  /// The Winograd form runs in bands of tile rows whose transformed input and
  /// products take at most this many bytes together (at least one tile row
  /// a band; 0: one band). Each band is its own input transform, GEMMs and
  /// output transform, and one copy joins the bands' rows into the output,
  /// so the arena holds one band's intermediates instead of the whole conv's.
  std::int64_t winograd_band_bytes = std::int64_t{2} << 20;
};

/// Blocked-layout convolution.
///
///   before:  y = Conv(x, W, b)                               x: [N, Ci, H, W] (NCHW)
///   after:   W5 = Compute(W)     "W5(ob, c, kh, kw, o) = W(16 * ob + o, c, kh, kw)"
///            y5 = Compute(x, W5, b)  "y5(n, ob, oh, ow, o) +=! X(n, c, S*oh + kh - P, ...) * W5(ob, c, kh, kw, o)"
///            y  = Compute(y5)    "y(n, 16 * cb + l, h, w) = y5(n, cb, h, w, l)"  (+ one statement for a partial last block)
///
/// y5 is [N, ceil(Co/B), Oh, Ow, B]: output channels in blocks of B lanes (Co
/// padded up with zero weights). X is read in NCHW (one scalar broadcast per
/// multiply-add, so any stride and dilation works), or in blocked form when it
/// is the NCHW conversion of another blocked result (or, with
/// BlockConvOptions::block_nchw_inputs, a conversion this pass adds); when the window reaches
/// outside X, a zero-padded copy of X ("x_pad", one more Compute) is read
/// instead, so the micro-kernel has no guarded loads. Elementwise operators
/// (unary, or binary on two blocked tensors of one shape) whose inputs are all
/// conversions of blocked tensors run on the blocked tensors instead, so chains
/// of blocked convs with Relu / residual Add between them stay blocked; the
/// conversion back to NCHW remains only where a consumer needs it
/// (eliminate_dead_nodes drops the others). The weights' reorder is folded by
/// fold_constants when they are constants, a small kernel otherwise.
///
/// With BlockConvOptions::winograd, a 3x3, stride-1, undilated conv of a
/// blocked input whose input and output channels are whole blocks becomes
/// winograd_conv's four Computes instead of y5's contraction (weight
/// transform, input transform of the zero-padded input, 16 GEMMs, output
/// transform writing y5); the rest (conversion, epilogues) is the same.
/// When its transformed input and products exceed winograd_band_bytes, the
/// input transform, GEMMs and output transform are repeated per band of tile
/// rows (stat "Winograd bands") and a Compute copies the bands' rows into y5
/// (winograd_join).
///
/// Only groups = 1, 2 spatial dims, f32, concrete shapes, auto_pad NOTSET or
/// VALID; and only where the cost model says it pays (see BlockConvOptions).
/// Counts: "convs blocked", "convs reading a blocked input", "convs as
/// Winograd F(2x2, 3x3)", "elementwise ops kept blocked", "inputs padded",
/// "NCHW inputs converted to blocked",
/// "conversions to NCHW" and "conversion bytes"
/// (what the run-time conversions read and write: NCHW outputs still read,
/// padded copies, reorders of non-constant weights; not rewrites), and
/// "not blocked: ..." notes.
Graph block_conv_layout(const Graph &graph, PassStats *stats = nullptr, const BlockConvOptions &options = {});

}  // namespace atl
