// tile_for_npu: see the header.
#include "polyhedral/transforms/npu/tile_for_npu.h"

#include <atoll/diagnostics.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <set>
#include <sstream>

namespace atl::poly {

namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
std::int64_t round16(std::int64_t v) { return ceil_div(v, 16) * 16; }
std::uint64_t align(std::uint64_t v, std::uint64_t a) { return (v + a - 1) / a * a; }

/// Internal nodes below the root plus broadcast rows read: the
/// temporaries one statement's evaluation takes (npu_ub_tiles).
/// The temporaries the code generator's evaluation of `e` holds at its
/// peak (it mirrors lower_to_npu's): a node writes into the place it is
/// given, or a new temporary; its first operand may be computed in that
/// place when it is a temporary or `early` (the statement's array is not
/// read by it); an operand's temporaries are released after the node's
/// instruction. `result` says whether the value ends in a new temporary.
int peak_temps(const compute::Expr &e, const NpuKernelPlan &plan, bool per_row, bool has_target, bool early,
               int &ops, bool &result) {
  using compute::ExprKind;
  result = false;
  if (e.kind == ExprKind::Read) {
    auto it = plan.operands.find(e.name);
    if (!per_row && it != plan.operands.end() &&
        (it->second.form == NpuOperand::Form::Row || it->second.form == NpuOperand::Form::Col)) {
      ++ops;
      result = !(has_target && early);
      return result ? 1 : 0;
    }
    return 0;
  }
  if (e.kind == ExprKind::Number) return 0;
  const int own = has_target ? 0 : 1;
  result = !has_target;
  const bool inherit = !has_target || early;
  ops += e.kind == ExprKind::Call && e.func == compute::Func::Sigmoid ? 4 : 2;
  if (const int bi = npu_broadcast_operand(e, plan, per_row); bi >= 0) {
    bool other_temp = false;
    ++ops;
    return own + peak_temps(*e.args[1 - bi], plan, per_row, inherit, true, ops, other_temp);
  }
  bool left_temp = false, right_temp = false;
  const int left = peak_temps(*e.args[0], plan, per_row, inherit, true, ops, left_temp);
  int peak = own + left;
  if (e.kind == ExprKind::Call && e.func == compute::Func::Erf) {  // three more while it runs
    ops += 22;
    return std::max(peak, own + (left_temp ? 1 : 0) + 3);
  }
  if (e.args.size() > 1) {
    const int right = peak_temps(*e.args[1], plan, per_row, false, true, ops, right_temp);
    peak = std::max(peak, own + (left_temp ? 1 : 0) + right);
  }
  return peak;
}

const char *kMem[] = {"L1", "L0A", "L0B", "L0C", "UB"};

struct Fit {
  struct Part {
    int mem;
    const char *what;
    std::uint64_t bytes;
    int slots;
  };
  std::uint64_t need[5] = {0, 0, 0, 0, 0};
  std::vector<Part> parts;
  void add(int mem, const char *what, std::uint64_t bytes, int slots) {
    need[mem] += bytes * slots;
    parts.push_back({mem, what, bytes, slots});
  }
  /// The first memory over capacity, or -1.
  int over(const NpuTargetInfo &t) const {
    const std::uint64_t cap[5] = {t.l1, t.l0a, t.l0b, t.l0c, t.ub};
    for (int i = 0; i < 5; ++i)
      if (need[i] > cap[i]) return i;
    return -1;
  }
  std::string message(const NpuKernelPlan &plan, const NpuTargetInfo &t, int mem) const {
    const std::uint64_t cap[5] = {t.l1, t.l0a, t.l0b, t.l0c, t.ub};
    std::ostringstream os;
    os << "--target npu: cluster '" << plan.cluster << "': " << kMem[mem] << " needs " << need[mem] << " B (";
    bool first = true;
    for (const Part &p : parts)
      if (p.mem == mem) {
        os << (first ? "" : ", ") << p.what << " " << p.slots << " x " << p.bytes << " B";
        first = false;
      }
    os << ") but target '" << t.name << "' has " << cap[mem] << " B";
    return os.str();
  }
};

Fit cube_fit(const NpuKernelPlan &plan, const NpuUbTiles &ub, std::int64_t mc, std::int64_t nc, std::int64_t kc,
             std::int64_t k0, int panel_chunks = 0) {
  const std::uint64_t eb = dtype_size(plan.dtype);
  Fit f;
  f.add(0, panel_chunks ? "A panel chunk" : "A chunk", align(mc * kc * eb, 32), panel_chunks ? panel_chunks : 2);
  f.add(0, "B chunk", align(kc * nc * eb, 32), 2);
  f.add(1, "A step", align(mc * k0 * eb, 512), 2);
  f.add(2, "B step", align(k0 * nc * eb, 512), 2);
  f.add(3, "C tile", align(mc * nc * 4, 64), 2);
  const std::uint64_t tile = align(mc * nc * eb, 32);
  if (ub.full - ub.temps > 0) f.add(4, "tiles", tile, 2 * (ub.full - ub.temps));
  if (ub.temps) f.add(4, "temporaries", tile, ub.temps);
  if (ub.rows) f.add(4, "rows", align((nc + 256) * eb, 32), 2 * ub.rows);
  if (ub.cols) f.add(4, "row values", mc * 32, ub.cols);
  if (ub.col_loads) f.add(4, "row values loaded", align((mc + 256) * eb, 32), 2 * ub.col_loads);
  // A masked vector instruction's footprint is checked as whole repeats.
  f.add(4, "vector slack", 256, 1);
  return f;
}

Fit vector_fit(const NpuUbTiles &ub, std::int64_t tr, std::int64_t tc, int slots, std::uint64_t eb) {
  const std::uint64_t tile = align(tr * tc * eb, 32);
  Fit f;
  if (ub.cols) f.add(4, "row values", tr * 32, ub.cols);
  if (ub.col_loads) f.add(4, "row values loaded", align((tr + 256) * eb, 32), slots * ub.col_loads);
  if (ub.full - ub.temps > 0) f.add(4, "tiles", tile, slots * (ub.full - ub.temps));
  if (ub.temps) f.add(4, "temporaries", tile, ub.temps);
  if (ub.rows) f.add(4, "rows", align((tc + 256) * eb, 32), slots * ub.rows);
  f.add(4, "vector slack", 256, 1);
  return f;
}

/// Cycles of one tile's vector stage on rows x cols (load, ops, store).
struct Pipes {
  double mte2 = 0, mte1 = 0, cube = 0, fix = 0, vec = 0, mte3 = 0;
  double max() const { return std::max({mte2, mte1, cube, fix, vec, mte3}); }
  double sum() const { return mte2 + mte1 + cube + fix + vec + mte3; }
};

void add_tile_stage(Pipes &p, const NpuTargetInfo &t, const NpuUbTiles &ub, double rows, double cols, double eb) {
  const double bytes = rows * cols * eb;
  p.mte2 += ub.loads * (t.mte2_startup + t.mte2_per_burst * rows + bytes / t.mte2_bytes_per_cycle);
  p.vec += ub.vec_ops * (t.vec_startup + std::ceil(bytes / t.repeat_bytes));
  p.mte3 += ub.stores * (t.mte3_startup + t.mte2_per_burst * rows + bytes / t.mte3_bytes_per_cycle);
}

double kernel_cycles(const Pipes &p, double tiles, const NpuTargetInfo &t, double per_core = -1) {
  if (per_core < 0) per_core = std::ceil(tiles / t.cores);
  return per_core * p.max() + (p.sum() - p.max());
}

double cube_cost(const NpuKernelPlan &plan, const NpuTargetInfo &t, const NpuUbTiles &ub, std::int64_t M,
                 std::int64_t N, std::int64_t K, std::int64_t batch, std::int64_t mc, std::int64_t nc,
                 std::int64_t kc, std::int64_t k0, bool panel = false) {
  const double eb = static_cast<double>(dtype_size(plan.dtype));
  const std::int64_t nk = ceil_div(K, kc), steps = kc / k0;
  // Real sizes of the tiles: the last tile of each dim is partial.
  const double m = std::min(mc, round16(M)), n = std::min(nc, round16(N)), k = std::min(kc, round16(K));
  Pipes p;
  const double rows_a = plan.a_transposed ? k : m, rows_b = plan.b_transposed ? n : k;
  const double a_load = t.mte2_startup + t.mte2_per_burst * rows_a + m * k * eb / t.mte2_bytes_per_cycle;
  const double b_load = t.mte2_startup + t.mte2_per_burst * rows_b + k * n * eb / t.mte2_bytes_per_cycle;
  const double tn = static_cast<double>(ceil_div(N, nc));
  // With an A panel, A is loaded once a row of tiles.
  p.mte2 = nk * (b_load + (panel ? a_load / tn : a_load));
  const double calls_a = plan.a_transposed ? k0 / 16.0 : 1, calls_b = n / 16;
  p.mte1 = nk * steps *
           ((calls_a + calls_b) * t.mte1_startup + (m * k0 + k0 * n) * eb / t.mte1_bytes_per_cycle);
  p.cube = nk * steps * (t.cube_startup + (m / 16) * (n / 16) * (k0 / 16.0) *
                           (plan.dtype == DType::F16 ? t.cube_f16_cycles : t.cube_f32_cycles));
  p.fix = 20 + m * n * 4 / t.fix_bytes_per_cycle;
  add_tile_stage(p, t, ub, m, n, eb);
  const double tiles = double(batch) * ceil_div(M, mc) * ceil_div(N, nc);
  if (panel) return kernel_cycles(p, tiles, t, std::ceil(double(batch) * ceil_div(M, mc) / t.cores) * tn);
  return kernel_cycles(p, tiles, t);
}

std::vector<std::int64_t> multiples16(std::int64_t hi, std::int64_t cap) {
  std::vector<std::int64_t> v;
  for (std::int64_t x = 16; x <= std::min(hi, cap); x += 16) v.push_back(x);
  if (v.empty()) v.push_back(16);
  return v;
}

void check_hint(const std::vector<long> &hint, std::size_t n, const char *names, const NpuKernelPlan &plan) {
  if (hint.size() < n - (n == 4 ? 1 : 0) || hint.size() > n)
    throw UserError("--target npu: cluster '" + plan.cluster + "': the tile hint takes " + names);
  for (long v : hint)
    if (v <= 0 || v % 16)
      throw UserError("--target npu: cluster '" + plan.cluster + "': tile sizes must be positive multiples of 16 (" +
                      names + ")");
}

}  // namespace

int npu_broadcast_operand(const compute::Expr &e, const NpuKernelPlan &plan, bool per_row) {
  using compute::ExprKind;
  const bool binary = e.kind == ExprKind::Binary ||
                      (e.kind == ExprKind::Call && (e.func == compute::Func::Max || e.func == compute::Func::Min));
  if (per_row || !binary || e.args.size() != 2) return -1;
  auto form = [&](const compute::Expr &a) -> int {  // 1 broadcast leaf, 2 constant, 0 else
    if (a.kind == ExprKind::Number) return 2;
    if (a.kind != ExprKind::Read) return 0;
    auto it = plan.operands.find(a.name);
    if (it == plan.operands.end()) return 0;
    if (it->second.form == NpuOperand::Form::Scalar) return 2;
    return it->second.form == NpuOperand::Form::Row || it->second.form == NpuOperand::Form::Col ? 1 : 0;
  };
  const int f0 = form(*e.args[0]), f1 = form(*e.args[1]);
  if (f0 == 1 && f1 == 0) return 0;
  if (f1 == 1 && f0 == 0) return 1;
  return -1;
}

bool npu_reads(const compute::Expr &e, const std::string &array) {
  if (e.kind == compute::ExprKind::Read && e.name == array) return true;
  for (const auto &a : e.args)
    if (npu_reads(*a, array)) return true;
  return false;
}

std::int64_t npu_extent(const Dim &d, std::int64_t guess) { return d.is_symbolic() ? guess : d.value; }

NpuUbTiles npu_ub_tiles(const NpuKernelPlan &plan) {
  NpuUbTiles u;
  std::set<std::string> written;
  for (const NpuStatement &s : plan.statements) written.insert(s.array);
  for (const auto &[name, o] : plan.operands) {
    if (o.form == NpuOperand::Form::Full) {
      if (!plan.tile_alias.count(name)) ++u.full;
      if (!written.count(name) && name != plan.c) ++u.loads;
    } else if (o.form == NpuOperand::Form::Row) {
      ++u.rows;
      ++u.loads;
    } else if (o.form == NpuOperand::Form::Col) {
      ++u.cols;
      if (o.loaded_col) ++u.col_loads, ++u.loads, u.vec_ops += 1;
    }
    if (o.output) ++u.stores;
  }
  for (const NpuStatement &s : plan.statements) {
    if (s.alias) continue;
    int temps = 0, ops = 0;
    // A reduction evaluates into a temporary, then folds its columns and rows.
    const bool reduction = s.op != compute::AssignOp::Assign;
    bool in_temp = false;
    temps = (reduction ? 1 : 0) +  // the reduced tile
            peak_temps(*s.rhs, plan, s.per_row, true, reduction || !npu_reads(*s.rhs, s.array), ops, in_temp);
    if (reduction) ops += 4;
    u.temps = std::max(u.temps, temps);
    u.vec_ops += ops / 2 + (ops % 2);
  }
  u.full += u.temps;
  return u;
}

void tile_for_npu(NpuKernelPlan &plan, const NpuTargetInfo &t, const std::vector<long> &hint) {
  const NpuUbTiles ub = npu_ub_tiles(plan);
  // Vector instructions cover at most max_repeat repeats; tiles are kept
  // within that many per call by the code generator's loops, not here.
  if (plan.kind == NpuKernelPlan::Kind::Cube) {
    const std::int64_t M = plan.m >= 0 ? npu_extent(plan.space[plan.m]) : 1;
    const std::int64_t N = npu_extent(plan.space[plan.n]);
    const std::int64_t K = npu_extent(plan.k_extent);
    std::int64_t batch = 1;
    for (int d : plan.batch) batch *= npu_extent(plan.space[d], 8);
    // An A panel needs a constant k of at most events - 2 chunks (one
    // event pair a chunk beside the B ring's), panels for every core, and
    // L1 room for the panel and two B chunks.
    auto panel_possible = [&](std::int64_t mc, std::int64_t nc, std::int64_t kc, std::int64_t k0) {
      const std::int64_t chunks = ceil_div(K, kc);
      if (plan.k_extent.is_symbolic() || chunks + 2 > static_cast<std::int64_t>(t.events_per_pipe_pair)) return false;
      for (int d : plan.batch)
        if (plan.space[d].is_symbolic()) return false;
      if (plan.m >= 0 && plan.space[plan.m].is_symbolic()) return false;
      if (batch * ceil_div(M, mc) < static_cast<std::int64_t>(t.cores)) return false;
      return cube_fit(plan, ub, mc, nc, kc, k0, static_cast<int>(chunks)).over(t) < 0;
    };
    if (!hint.empty()) {
      check_hint(hint, 4, "mc, nc, kc[, k0]", plan);
      plan.mc = hint[0];
      plan.nc = hint[1];
      plan.kc = hint[2];
      plan.k0 = hint.size() > 3 ? hint[3] : std::min<std::int64_t>(plan.kc, 64);
      if (plan.kc % plan.k0)
        throw UserError("--target npu: cluster '" + plan.cluster + "': kc must be a multiple of k0");
      Fit f = cube_fit(plan, ub, plan.mc, plan.nc, plan.kc, plan.k0);
      if (int mem = f.over(t); mem >= 0) throw UserError(f.message(plan, t, mem) + " (the tile hint)");
      plan.a_panel = panel_possible(plan.mc, plan.nc, plan.kc, plan.k0) &&
                     cube_cost(plan, t, ub, M, N, K, batch, plan.mc, plan.nc, plan.kc, plan.k0, true) <
                         cube_cost(plan, t, ub, M, N, K, batch, plan.mc, plan.nc, plan.kc, plan.k0, false);
      plan.estimated_cycles =
          cube_cost(plan, t, ub, M, N, K, batch, plan.mc, plan.nc, plan.kc, plan.k0, plan.a_panel);
      plan.tiles_from = "tile hint";
      return;
    }
    double best = std::numeric_limits<double>::infinity();
    for (std::int64_t mc : multiples16(round16(M), 512))
      for (std::int64_t nc : multiples16(round16(N), 512))
        for (std::int64_t k0 : {16, 32, 64, 128}) {
          if (k0 > round16(K) && k0 != 16) continue;
          for (std::int64_t kc = k0; kc <= std::max<std::int64_t>(k0, std::min<std::int64_t>(round16(K), 2048));
               kc += k0) {
            if (cube_fit(plan, ub, mc, nc, kc, k0).over(t) >= 0) break;  // larger kc only needs more
            for (bool panel : {false, true}) {
              if (panel && !panel_possible(mc, nc, kc, k0)) continue;
              double c = cube_cost(plan, t, ub, M, N, K, batch, mc, nc, kc, k0, panel);
              // Ties go to the larger tile (fewer instructions, fewer startups).
              if (c < best * (1 - 1e-9) ||
                  (c <= best * (1 + 1e-9) && mc * nc * kc > plan.mc * plan.nc * plan.kc)) {
                best = c;
                plan.mc = mc, plan.nc = nc, plan.kc = kc, plan.k0 = k0, plan.a_panel = panel;
              }
            }
          }
        }
    if (!std::isfinite(best)) {
      Fit f = cube_fit(plan, ub, 16, 16, 16, 16);
      throw UserError(f.message(plan, t, std::max(0, f.over(t))) + " even with 16 x 16 x 16 tiles");
    }
    plan.estimated_cycles = best;
    plan.tiles_from = "cost model";
    return;
  }
  // Vector: rows are the leading dims flattened, columns the last dim.
  const std::uint64_t eb = dtype_size(plan.dtype);
  // (Batched rows: the rows are dim R-2, tiles repeat per index of the dims before it.)
  std::int64_t R = 1, batches = 1;
  const std::size_t rank = plan.space.size();
  for (std::size_t d = 0; d + 1 < rank; ++d)
    (plan.batched_rows && d + 2 != rank ? batches : R) *= npu_extent(plan.space[d], 64);
  const std::int64_t C = plan.space.empty() ? 1 : npu_extent(plan.space.back());
  if (!hint.empty()) {
    check_hint(hint, 2, "tr, tc", plan);
    plan.tr = hint[0];
    plan.tc = hint[1];
    if (vector_fit(ub, plan.tr, plan.tc, 2, eb).over(t) >= 0 && vector_fit(ub, plan.tr, plan.tc, 1, eb).over(t) < 0)
      plan.ub_slots = 1;
    if (plan.whole_rows && plan.tc < round16(C))
      throw UserError("--target npu: cluster '" + plan.cluster + "': its row reductions need whole rows: tc must be at least " +
                      std::to_string(round16(C)));
    Fit f = vector_fit(ub, plan.tr, plan.tc, plan.ub_slots, eb);
    if (int mem = f.over(t); mem >= 0) throw UserError(f.message(plan, t, mem) + " (the tile hint)");
    plan.tiles_from = "tile hint";
    return;
  }
  double best = std::numeric_limits<double>::infinity();
  // Row reductions need whole rows in a tile.
  std::vector<std::int64_t> tcs = multiples16(round16(C), 4096);
  if (plan.whole_rows) tcs = {round16(C)};
  // Double buffering where the smallest tile allows it, else one slot.
  plan.ub_slots = vector_fit(ub, 16, tcs.front(), 2, eb).over(t) < 0 ? 2 : 1;
  for (std::int64_t tc : tcs)
    for (std::int64_t tr : multiples16(round16(R), 4096)) {
      if (vector_fit(ub, tr, tc, plan.ub_slots, eb).over(t) >= 0) break;
      Pipes p;
      add_tile_stage(p, t, ub, std::min(tr, R), std::min(tc, C), static_cast<double>(eb));
      double c = kernel_cycles(p, double(batches) * ceil_div(R, tr) * ceil_div(C, tc), t);
      if (c < best * (1 - 1e-9) || (c <= best * (1 + 1e-9) && tr * tc > plan.tr * plan.tc)) {
        best = c;
        plan.tr = tr, plan.tc = tc;
      }
    }
  if (!std::isfinite(best)) {
    Fit f = vector_fit(ub, 16, plan.whole_rows ? round16(C) : 16, 1, eb);
    throw UserError(f.message(plan, t, std::max(0, f.over(t))) +
                    (plan.whole_rows ? " even with 16 rows a tile; its row reductions need whole rows of " +
                                           std::to_string(C) + " elements in UB"
                                     : std::string(" even with 16 x 16 tiles")));
  }
  plan.estimated_cycles = best;
  plan.tiles_from = "cost model";
}

void print_npu_plan(std::ostream &os, const NpuKernelPlan &plan) {
  auto dims = [](const std::vector<int> &v) {
    std::string s;
    for (int d : v) s += (s.empty() ? "" : ", ") + (d == kNpuK ? std::string("k") : d < 0 ? std::string("-") : "d" + std::to_string(d));
    return "[" + s + "]";
  };
  os << "npu kernel " << plan.cluster << ": " << (plan.kind == NpuKernelPlan::Kind::Cube ? "cube" : "vector")
     << ", space " << sym_shape_to_string(plan.space) << "\n";
  if (plan.kind == NpuKernelPlan::Kind::Cube) {
    os << "  contraction " << plan.contraction << ": " << plan.c << " += " << plan.a.array << dims(plan.a.dims)
       << (plan.a_transposed ? " (stored k x m)" : "") << " * " << plan.b.array << dims(plan.b.dims)
       << (plan.b_transposed ? " (stored n x k)" : "") << ", m = " << (plan.m < 0 ? "-" : "d" + std::to_string(plan.m))
       << ", n = d" << plan.n << ", k extent " << plan.k_extent.str() << "\n";
  }
  for (const auto &[name, o] : plan.operands)
    os << "  " << name << dims(o.dims) << " "
       << (o.form == NpuOperand::Form::Full  ? "full"
           : o.form == NpuOperand::Form::Row ? "row"
           : o.form == NpuOperand::Form::Col ? "per row"
                                             : "scalar")
       << (o.output ? ", written back" : "") << "\n";
  for (const NpuStatement &s : plan.statements)
    os << "  statement " << s.name << " -> " << s.array
       << (s.op == compute::AssignOp::Assign ? "" : std::string(" (row reduction ") + compute::assign_op_name(s.op) + ")")
       << "\n";
  if (plan.kind == NpuKernelPlan::Kind::Cube && plan.mc)
    os << "  tiles: mc " << plan.mc << ", nc " << plan.nc << ", kc " << plan.kc << ", k0 " << plan.k0
       << (plan.a_panel ? ", A panel in L1" : "") << " ("
       << plan.tiles_from << ", estimated " << static_cast<long long>(plan.estimated_cycles) << " cycles)\n";
  if (plan.kind == NpuKernelPlan::Kind::Vector && plan.tr)
    os << "  tiles: tr " << plan.tr << ", tc " << plan.tc << ", " << plan.ub_slots << " slots (" << plan.tiles_from
       << ", estimated "
       << static_cast<long long>(plan.estimated_cycles) << " cycles)\n";
}

}  // namespace atl::poly
