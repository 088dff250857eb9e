// Winograd F(2x2, 3x3) convolution as Compute text: weight transform, input transform, batched GEMM, output transform.
#include "graph/passes/winograd_conv.h"

#include "graph/passes/row_bands.h"

#include <algorithm>
#include <functional>
#include <sstream>
#include <utility>
#include <vector>

namespace atl {

namespace {

// F(2x2, 3x3): Y = A^T [(G g G^T) . (B^T d B)] A.
constexpr double kBT[4][4] = {{1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}};
constexpr double kG[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
constexpr double kAT[2][4] = {{1, 1, 1, 0}, {0, 1, -1, -1}};

std::string num(std::int64_t v) { return std::to_string(v); }

/// "a * x" for coefficient a as a Compute literal ("0.25 * x", "x").
std::string scaled(double a, const std::string &x) {
  if (a == 1) return x;
  std::ostringstream os;
  os << a;
  std::string t = os.str();
  if (t.find('.') == std::string::npos) t += ".0";
  return t + " * " + x;
}

/// sum_k coef_k * term_k over the nonzero coefficients, signs folded into + and -.
std::string combination(const std::vector<std::pair<double, std::string>> &terms) {
  std::string s;
  for (const auto &[a, t] : terms) {
    if (a == 0) continue;
    const double mag = a < 0 ? -a : a;
    if (s.empty()) s = (a < 0 ? "-" : "") + scaled(mag, t);
    else s += (a < 0 ? " - " : " + ") + scaled(mag, t);
  }
  return s;
}

/// Element (a, b) of M X M^T for the matrix M (rows x cols) and X(i, j) = term(i, j), as a combination.
template <int Rows, int Cols>
std::string sandwich(const double (&m)[Rows][Cols], int a, int b, const std::function<std::string(int, int)> &term) {
  std::vector<std::pair<double, std::string>> terms;
  for (int i = 0; i < Cols; ++i)
    for (int j = 0; j < Cols; ++j)
      terms.emplace_back(m[a][i] * m[b][j], term(i, j));
  return combination(terms);
}

/// Appends `line` to the program `text`, one statement per line.
void add_line(std::string &text, const std::string &line) { text += (text.empty() ? "" : "\n") + line; }

}  // namespace

WinogradExprs winograd_exprs(const WinogradConv &c) {
  const std::int64_t b = c.block, th = winograd_tiles(c.oh), tw = winograd_tiles(c.ow);
  const bool panels = c.panel > 0 && c.co % c.panel == 0;
  const std::int64_t p = panels ? c.panel : c.co;
  // Tile index t = th * tw * n + tw * th_ + tw_ (tiles of one image in row-major order).
  const std::string tile = num(th * tw) + " * n_ + " + num(tw) + " * th_ + tw_";
  WinogradExprs e;

  // u(e, kb, c, l) = sum_ij G[a][i] G[b][j] w(P kb + l, c, i, j).
  const std::string w_row = panels ? num(p) + " * kb_ + l_" : "k_";
  const std::string w_ranges = panels ? " where kb_ in 0:" + num(c.co / p) + ", c_ in 0:" + num(c.ci) + ", l_ in 0:" + num(p)
                                      : " where c_ in 0:" + num(c.ci) + ", k_ in 0:" + num(c.co);
  for (int a = 0; a < 4; ++a)
    for (int bb = 0; bb < 4; ++bb)
      add_line(e.weights, c.u + "(" + num(4 * a + bb) + (panels ? ", kb_, c_, l_)" : ", c_, k_)") + " = " +
                              sandwich(kG, a, bb, [&](int i, int j) {
                                return c.w + "(" + w_row + ", c_, " + num(i) + ", " + num(j) + ")";
                              }) +
                              w_ranges);

  // v(e, t, B cb + l) = sum_ij BT[a][i] BT[b][j] x(n, cb, x_row + 2 th + i, 2 tw + j, l).
  const std::string in_ranges = " where n_ in 0:" + num(c.n) + ", th_ in 0:" + num(th) + ", tw_ in 0:" + num(tw) +
                                ", cb_ in 0:" + num(c.ci / b) + ", l_ in 0:" + num(b);
  for (int a = 0; a < 4; ++a)
    for (int bb = 0; bb < 4; ++bb)
      add_line(e.input, c.v + "(" + num(4 * a + bb) + ", " + tile + ", " + num(b) + " * cb_ + l_) = " +
                            sandwich(kBT, a, bb, [&](int i, int j) {
                              return c.x + "(n_, cb_, 2 * th_ + " + num(c.x_row + i) + ", 2 * tw_ + " + num(j) + ", l_)";
                            }) +
                            in_ranges);

  // m(e, t, k) +=! v(e, t, c) * u(e, .., c, ..).
  e.product = c.m + "(e_, t_, k_) +=! " + c.v + "(e_, t_, c_) * " + c.u +
              (panels ? "(e_, floor(k_ / " + num(p) + "), c_, k_ % " + num(p) + ")" : "(e_, c_, k_)") +
              " where k_ in 0:" + num(c.co);

  // y(n, kb, 2 th + i, 2 tw + j, l) = sum_ab AT[i][a] AT[j][b] m(4 a + b, t, B kb + l) (+ bias), for the
  // tiles whose pixel (i, j) lies inside the output.
  const std::string bias = c.bias.empty() ? "" : " + " + c.bias + "(" + num(b) + " * kb_ + l_)";
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      add_line(e.output, c.y + "(n_, kb_, 2 * th_ + " + num(i) + ", 2 * tw_ + " + num(j) + ", l_) = " +
                             sandwich(kAT, i, j, [&](int a, int bb) {
                               return c.m + "(" + num(4 * a + bb) + ", " + tile + ", " + num(b) + " * kb_ + l_)";
                             }) +
                             bias + " where n_ in 0:" + num(c.n) + ", kb_ in 0:" + num(c.co / b) +
                             ", th_ in 0:" + num(winograd_tiles(c.oh - i)) + ", tw_ in 0:" +
                             num(winograd_tiles(c.ow - j)) + ", l_ in 0:" + num(b));
  return e;
}

std::string winograd_join(const std::string &y, const std::vector<std::string> &rows,
                          const std::vector<std::int64_t> &shape, std::int64_t band) {
  return join_row_bands(y, rows, {"n_", "kb_", "h_", "w_", "l_"}, 2, shape, band);
}

}  // namespace atl
