// Winograd F(2x2, 3x3) convolution as Compute text: weight transform, input transform, batched GEMM, output transform.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace atl {

/// A 3x3, stride-1, undilated, ungrouped f32 convolution of a channel-blocked
/// input, and the names its Winograd form uses.
struct WinogradConv {
  std::string x;     ///< input [N, Ci/B, Hp, Wp, B], zero padded: output pixel (h, w) reads rows h..h+2, columns w..w+2
  std::string w;     ///< weights [Co, Ci, 3, 3]
  std::string bias;  ///< [Co], or empty
  std::string u, v, m, y;  ///< transformed weights, transformed input, products, blocked output [N, Co/B, Oh, Ow, B]
  std::int64_t n = 1, ci = 0, co = 0, oh = 0, ow = 0;
  /// First row of x that output row 0 reads: a band of output rows of a
  /// larger convolution, whose y holds only the band's oh rows.
  std::int64_t x_row = 0;
  int block = 16;  ///< B: the channel block of x and y (Ci and Co are multiples of it)
  int panel = 16;  ///< u's column panel width (the GEMM register tile's); 0 or one not dividing Co: no panels
};

/// The four Computes' `expr` texts.
struct WinogradExprs {
  std::string weights;  ///< u from w: weight phase when w is a weight
  std::string input;    ///< v from x
  std::string product;  ///< m from v and u
  std::string output;   ///< y from m (and bias)
};

/// Rows (and columns) of 2 x 2 output tiles: ceil(Oh / 2), ceil(Ow / 2).
inline std::int64_t winograd_tiles(std::int64_t out) { return (out + 1) / 2; }

/// Rows of x the input transform reads: 2 * tiles + 2 (x must have at least
/// that many rows and columns; a partial last tile reads zeros past the end).
inline std::int64_t winograd_input_extent(std::int64_t out) { return 2 * winograd_tiles(out) + 2; }

/// Winograd's minimal filtering (Lavin and Gray, 2016) over 4 x 4 input tiles
/// that overlap by 2, with T = N * ceil(Oh/2) * ceil(Ow/2) tiles:
///
///   u(e, ..)         = (G g G^T)[e / 4][e % 4]     per (Co, Ci) filter g; [16, Co/P, Ci, P] in panels
///   v(e, t, c)       = (B^T d B)[e / 4][e % 4]     per tile d of channel c; [16, T, Ci]
///   m(e, t, k)      +=! v(e, t, c) * u(e, .., c, .., k)   16 GEMMs T x Ci x Co
///   y(n, kb, 2 th + i, 2 tw + j, l) = (A^T M A)[i][j] (+ bias)
///
/// Each transform is one statement per matrix element with its nonzero
/// coefficients written out (4 terms for B^T d B, 9 for A^T M A, up to 9 for
/// G g G^T), vectorised along the channel lanes, which are contiguous in
/// every tensor. The GEMMs do 16 multiply-adds per tile and channel pair
/// where the direct convolution does 36 (2.25x fewer); rounding differs
/// from the direct sum by a few ulps of its magnitude.
WinogradExprs winograd_exprs(const WinogradConv &c);

/// The Compute text that copies the bands `rows` (each [N, CB, R, W, B] with
/// R = `band` rows, the last one what remains of shape[2]) into `y` of
/// `shape` [N, CB, H, W, B], one statement per band: the output of a
/// Winograd conv run in bands of output rows.
std::string winograd_join(const std::string &y, const std::vector<std::string> &rows,
                          const std::vector<std::int64_t> &shape, std::int64_t band);

}  // namespace atl
