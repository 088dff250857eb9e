// The builder of an NPU program (lower_to_npu): variables, loops and calls,
// rings of events, the kernel's arrays as GM addresses, UB tiles and the
// vector instructions over them. Internal to backends/npu/codegen: the
// statements' instruction selection (select_vector_ops.cpp) and the two
// kernel shapes (lower_vector.cpp, lower_cube.cpp) are its members.
#pragma once

#include "backends/npu/codegen/npu_program.h"
#include "backends/npu/target.h"
#include "polyhedral/ast/loop_ast.h"
#include "polyhedral/transforms/npu/npu_plan.h"
#include "polyhedral/transforms/npu/tile_for_npu.h"

#include <atoll/diagnostics.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace atl::npu::codegen {

// Tiles in UB are NZ (16 x 16 fractals, fractal (i, j) at j * rows16 + i):
// what fix writes, what ND2NZ makes of ragged rows, and what NZ2ND writes
// back exactly. Operands of the same tile share the layout, so elementwise
// statements are contiguous vector instructions over the whole tile.

using poly::NpuKernelPlan;
using poly::NpuOperand;

inline std::uint64_t align_up(std::uint64_t v, std::uint64_t a) { return (v + a - 1) / a * a; }

struct Gen {
  const NpuKernelPlan &plan;
  const poly::LKernel &kernel;
  const Target &target;
  NpuProgram p;
  std::vector<std::vector<NS> *> blocks;
  std::map<std::pair<int, int>, int> events;  // (from, to) -> next free event

  // The kernel's element type (f32 or f16): its bytes, a fractal's bytes,
  // the blocks of one 16-element row of a fractal, and the NPU dtype.
  std::int64_t kEb = 4, kFrac = 1024;
  std::uint16_t row_blocks = 2;
  npu_dtype nd = NPU_F32;

  Gen(const NpuKernelPlan &pl, const poly::LKernel &k, const Target &t) : plan(pl), kernel(k), target(t) {
    if (pl.dtype == DType::F16) kEb = 2, nd = NPU_F16;
    kFrac = 256 * kEb;
    row_blocks = static_cast<std::uint16_t>(16 * kEb / 32);
    p.name = k.name;
    for (const std::string &s : k.params) p.vars.push_back("p_" + s);
    p.num_params = static_cast<int>(k.params.size());
    p.num_arrays = static_cast<int>(k.arrays.size());
    p.body = std::make_shared<NStmt>();
    blocks.push_back(&p.body->body);
  }

  // ---- building ----
  int new_var(const std::string &name) {
    p.vars.push_back(name);
    return static_cast<int>(p.vars.size()) - 1;
  }
  NS add(NS s) {
    blocks.back()->push_back(s);
    return s;
  }
  void set(int v, NE e, const std::string &comment = {}) {
    auto s = std::make_shared<NStmt>();
    s->kind = NStmtKind::Set;
    s->var = v;
    s->value = std::move(e);
    s->comment = comment;
    add(s);
  }
  void loop(int v, NE lo, NE hi, NE step, const std::function<void()> &body, const std::string &comment = {}) {
    auto s = std::make_shared<NStmt>();
    s->kind = NStmtKind::For;
    s->var = v;
    s->lo = std::move(lo);
    s->hi = std::move(hi);
    s->step = std::move(step);
    s->comment = comment;
    add(s);
    blocks.push_back(&s->body);
    body();
    blocks.pop_back();
  }
  void when(NE cond, const std::function<void()> &body) {
    std::int64_t c;
    if (constant(cond, c)) {
      if (c) body();
      return;
    }
    auto s = std::make_shared<NStmt>();
    s->kind = NStmtKind::If;
    s->cond = std::move(cond);
    add(s);
    blocks.push_back(&s->body);
    body();
    blocks.pop_back();
  }
  void call(NCall c, const std::string &comment = {}) {
    auto s = std::make_shared<NStmt>();
    s->kind = NStmtKind::Call;
    s->call = std::move(c);
    s->comment = comment;
    add(s);
  }
  void flag(bool set_it, npu_pipe from, npu_pipe to, NE ev) {
    NCall c;
    c.kind = set_it ? NCallKind::SetFlag : NCallKind::WaitFlag;
    c.from = from;
    c.to = to;
    c.ints = {std::move(ev)};
    call(c);
  }

  /// A ring of two events from `from` to `to`.
  struct Ring {
    npu_pipe from, to;
    int base;
  };
  Ring ring(npu_pipe from, npu_pipe to, int n = 2) {
    int &next = events[{from, to}];
    if (next + n > static_cast<int>(target.events_per_pipe_pair))
      throw UserError("--target npu: kernel " + kernel.name + ": more than " +
                      std::to_string(target.events_per_pipe_pair) + " events from " + pipe_name(from) + " to " +
                      pipe_name(to));
    Ring r{from, to, next};
    next += n;
    return r;
  }
  void set_ring(const Ring &r, NE slot) { flag(true, r.from, r.to, lit(r.base) + slot); }
  void wait_ring(const Ring &r, NE slot) { flag(false, r.from, r.to, lit(r.base) + slot); }
  /// Sets the first n events of a "free" ring before the loop (every slot
  /// starts free); drain_presets waits them all after it.
  std::vector<std::pair<Ring, int>> presets;
  void preset(const Ring &r, int n = 2) {
    for (int s = 0; s < n; ++s) flag(true, r.from, r.to, lit(r.base + s));
    presets.emplace_back(r, n);
  }
  void drain_presets() {
    for (const auto &[r, n] : presets)
      for (int s = 0; s < n; ++s) flag(false, r.from, r.to, lit(r.base + s));
  }

  // ---- arrays ----
  int arg_of(const std::string &array) const {
    for (std::size_t i = 0; i < kernel.arrays.size(); ++i)
      if (kernel.arrays[i].name == array) return static_cast<int>(i);
    throw UserError("--target npu: kernel " + kernel.name + " has no array '" + array + "'");
  }
  NE extent(const Dim &d) const {
    if (!d.is_symbolic()) return lit(d.value);
    for (std::size_t i = 0; i < kernel.params.size(); ++i)
      if (kernel.params[i] == d.symbol) return var(static_cast<int>(i));
    throw UserError("--target npu: kernel " + kernel.name + ": unknown size '" + d.symbol + "'");
  }
  /// Element strides of a row-major array.
  std::vector<NE> strides(const SymShape &shape) const {
    std::vector<NE> s(shape.size());
    NE acc = lit(1);
    for (std::size_t i = shape.size(); i-- > 0;) {
      s[i] = acc;
      acc = acc * extent(shape[i]);
    }
    return s;
  }
  NAddr gm(const std::string &array, NE elem_offset) const { return {NPU_GM, arg_of(array), elem_offset * lit(kEb)}; }
  static NAddr at(npu_mem m, NE off) { return {m, -1, std::move(off)}; }

  // ---- copies ----
  /// A rows x cols matrix between row-major (rows `pitch` elements apart)
  /// and NZ: ND2NZ into `dst`, or NZ2ND out of `src`.
  void nz_copy(NAddr dst, NAddr src, NE rows, NE cols, NE pitch, npu_layout layout) {
    NCall c;
    c.kind = NCallKind::Copy;
    c.dst = dst;
    c.src0 = src;
    c.op = layout;
    const NE gap = (pitch - cols) * lit(kEb);
    c.ints = {rows, cols * lit(kEb), layout == NPU_ND2NZ ? gap : lit(0), layout == NPU_ND2NZ ? lit(0) : gap,
              rows, cols, lit(kEb)};
    call(c);
  }
  /// GM (rows x cols, `pitch` elements apart) -> NZ in `dst`.
  void load_nz(NAddr dst, NAddr src, NE rows, NE cols, NE pitch) { nz_copy(dst, src, rows, cols, pitch, NPU_ND2NZ); }
  /// `n` contiguous elements of GM -> UB compact: n / 16 rows of 16 (their
  /// NZ is row-major), then the tail as one row (NZ pads it to a fractal).
  void load_row(NE ub, NAddr src, NE n) {
    const NE whole = n / lit(16), rest = n % lit(16);
    when(lt(lit(0), whole), [&] { load_nz(at(NPU_UB, ub), src, whole, lit(16), lit(16)); });
    when(lt(lit(0), rest), [&] {
      NAddr tail = src;
      tail.off = src.off + whole * lit(16 * kEb);
      load_nz(at(NPU_UB, ub + whole * lit(16 * kEb)), tail, lit(1), rest, rest);
    });
  }

  /// NZ in `src` -> GM rows x cols, `pitch` elements apart.
  void store_nd(NAddr dst, NAddr src, NE rows, NE cols, NE pitch) { nz_copy(dst, src, rows, cols, pitch, NPU_NZ2ND); }

  // ---- the tile stage: UB tiles, vector statements ----
  struct Tile {
    NE base;                 ///< UB byte offset of slot 0
    std::uint64_t slot = 0;  ///< bytes between slots (0: one slot)
  };
  std::map<std::string, Tile> tiles;  // full operands
  std::map<std::string, Tile> rows;   // broadcast rows
  std::map<std::string, NE> cols;     // per-row values: a block of copies a row
  std::map<std::string, Tile> col_stage;  // loaded per-row values, compact
  std::vector<NE> temps;
  std::uint64_t tile_bytes = 0, row_bytes = 0;
  std::int64_t tile_rows = 0, tile_cols = 0;  // the plan's tile (tr x tc or mc x nc)
  int slots = 2;                              // of the UB tiles

  void allocate_ub() {
    tile_bytes = align_up(tile_rows * tile_cols * kEb, 32);
    // A broadcast row, compact: its whole 16-element pieces, then the tail
    // (ND2NZ pads the tail's fractal to 16 x 16).
    row_bytes = align_up((tile_cols + 256) * kEb, 32);
    const poly::NpuUbTiles want = poly::npu_ub_tiles(plan);
    std::uint64_t off = 0;
    for (const auto &[name, o] : plan.operands) {
      if (o.form == NpuOperand::Form::Full) {
        if (plan.tile_alias.count(name)) continue;
        tiles[name] = {lit(off), tile_bytes};
        off += slots * tile_bytes;
      } else if (o.form == NpuOperand::Form::Row) {
        rows[name] = {lit(off), row_bytes};
        off += slots * row_bytes;
      } else if (o.form == NpuOperand::Form::Col) {
        cols[name] = lit(off);
        off += align_up(tile_rows * 32, 32);
        if (o.loaded_col) {
          const std::uint64_t b = align_up((tile_rows + 256) * kEb, 32);
          col_stage[name] = {lit(off), b};
          off += slots * b;
        }
      }
    }
    for (const auto &[name, to] : plan.tile_alias) tiles[name] = tiles.at(to);
    for (int t = 0; t < want.temps; ++t) {
      temps.push_back(lit(off));
      off += tile_bytes;
    }
    // A masked vector instruction's footprint is checked as whole repeats
    // (a broadcast row's last repeat reaches past its 16 lanes).
    off += target.vector.repeat_bytes;
    if (off > target.memories[NPU_UB].bytes)
      throw UserError("--target npu: kernel " + kernel.name + ": UB needs " + std::to_string(off) + " B but target '" +
                      target.name + "' has " + std::to_string(target.memories[NPU_UB].bytes) + " B");
  }
  NE tile_at(const std::string &name, const NE &slot) const {
    const Tile &t = tiles.at(name);
    return t.base + slot * lit(static_cast<std::int64_t>(t.slot));
  }
  NE stage_at(const std::string &name, const NE &slot) const {
    const Tile &t = col_stage.at(name);
    return t.base + slot * lit(static_cast<std::int64_t>(t.slot));
  }
  /// Loaded per-row values (compact) spread into blocks of copies: per row,
  /// a reduction of its one lane over as many repeats as a block holds.
  void expand_cols(const NE &slot, const NE &rows16, int rvar) {
    const std::int64_t per_block = 32 / kEb;
    for (const auto &[name, stage] : col_stage) {
      (void)stage;
      loop(rvar, lit(0), rows16, lit(1), [&] {
        NCall c;
        c.kind = NCallKind::VReduce;
        c.op = NPU_RSUM;
        c.dt = nd;
        c.dst = at(NPU_UB, cols.at(name) + var(rvar) * lit(32));
        c.src0 = at(NPU_UB, stage_at(name, slot) + var(rvar) / lit(per_block) * lit(32));
        c.shape.repeat = lit(per_block);
        c.shape.src0_rep = 0;
        c.shape.lane_bit = var(rvar) % lit(per_block);
        call(c);
      }, "'" + name + "' a block of copies a row");
    }
  }

  NE row_at(const std::string &name, const NE &slot) const {
    const Tile &t = rows.at(name);
    return t.base + slot * lit(static_cast<std::int64_t>(t.slot));
  }

  /// A vector instruction over a whole NZ tile of `elems` elements,
  /// split into calls of at most max_repeat repeats.
  void vec_whole(NCall c, NE dst, NE src0, NE src1, NE elems) {
    c.dt = nd;
    const std::int64_t lanes = target.vector.repeat_bytes / kEb, maxr = target.vector.max_repeat;
    const NE reps = elems / lit(lanes);
    const std::int64_t chunks = (tile_rows * tile_cols / lanes + maxr - 1) / maxr;
    for (std::int64_t ch = 0; ch < chunks; ++ch) {
      const NE done = lit(ch * maxr);
      when(lt(done, reps), [&] {
        NCall k = c;
        const NE off = lit(ch * maxr * target.vector.repeat_bytes);
        k.dst = at(NPU_UB, dst + off);
        k.src0 = at(NPU_UB, src0 + off);
        if (src1) k.src1 = at(NPU_UB, src1 + off);
        k.shape.repeat = min(lit(maxr), reps - done);
        call(k);
      });
    }
  }
  void vbin(int op, NE dst, NE a, NE b, NE elems) {
    NCall c;
    c.kind = NCallKind::VBin;
    c.op = op;
    vec_whole(c, dst, a, b, elems);
  }
  void vun(int op, NE dst, NE a, NE elems) {
    NCall c;
    c.kind = NCallKind::VUn;
    c.op = op;
    vec_whole(c, dst, a, nullptr, elems);
  }
  void vscalar(int op, NE dst, NE a, double s, NE elems) {
    NCall c;
    c.kind = NCallKind::VScalar;
    c.op = op;
    c.scalar = s;
    vec_whole(c, dst, a, nullptr, elems);
  }
  void vdup(NE dst, double s, NE elems) {
    NCall c;
    c.kind = NCallKind::VDup;
    c.scalar = s;
    vec_whole(c, dst, dst, nullptr, elems);
  }

  /// An operation of a full tile with a broadcast operand, 16 lanes (one
  /// row of a column fractal) a repeat, per column fractal of the tile:
  ///   row operand (compact: column fractal j's 16 values at j * 64 B):
  ///     source repeat stride 0, the same 16 values for every row;
  ///   per-row operand (a block of 8 copies a row): block stride 0.
  /// With `x` null it copies the broadcast (`dst = b`), else `dst = x op b`.
  void broadcast_op(int op, NE dst, NE x, NE b, bool per_row, NE rows16, NE cols16, int jvar) {
    const std::int64_t maxr = target.vector.max_repeat;
    const std::int64_t chunks = (tile_rows + maxr - 1) / maxr;
    loop(jvar, lit(0), cols16 / lit(16), lit(1), [&] {
      const NE j = var(jvar);
      for (std::int64_t ch = 0; ch < chunks; ++ch) {
        const NE done = lit(ch * maxr);
        when(lt(done, rows16), [&] {
          NCall c;
          const NE rows_at = (j * rows16 * lit(16) + done * lit(16)) * lit(kEb);
          const NAddr bsrc = at(NPU_UB, per_row ? b + done * lit(32) : b + j * lit(16 * kEb));
          const std::uint16_t b_blk = per_row ? 0 : 1, b_rep = per_row ? 1 : 0;
          c.dst = at(NPU_UB, dst + rows_at);
          c.shape.repeat = min(lit(maxr), rows16 - done);
          c.shape.dst_blk = 1, c.shape.dst_rep = row_blocks;
          c.dt = nd;
          c.shape.lanes = 16;
          if (!x) {
            c.kind = NCallKind::VScalar;
            c.op = NPU_ADD;
            c.scalar = 0;
            c.src0 = bsrc;
            c.shape.src0_blk = b_blk, c.shape.src0_rep = b_rep;
          } else {
            c.kind = NCallKind::VBin;
            c.op = op;
            c.src0 = at(NPU_UB, x + rows_at);
            c.src1 = bsrc;
            c.shape.src0_blk = 1, c.shape.src0_rep = row_blocks;
            c.shape.src1_blk = b_blk, c.shape.src1_rep = b_rep;
          }
          call(c);
        });
      }
    });
  }

  /// 16-lane-a-row binary op over the rows of one column fractal (the
  /// first `lanes` lanes of each row): dst and a at `dst`, b at `b`.
  void vbin_rows(int op, NE dst, NE b, NE rows16, int lanes) {
    const std::int64_t maxr = target.vector.max_repeat;
    const std::int64_t chunks = (tile_rows + maxr - 1) / maxr;
    for (std::int64_t ch = 0; ch < chunks; ++ch) {
      const NE done = lit(ch * maxr);
      when(lt(done, rows16), [&] {
        NCall c;
        c.kind = NCallKind::VBin;
        c.op = op;
        const NE off = done * lit(16 * kEb);
        c.dst = at(NPU_UB, dst + off);
        c.src0 = at(NPU_UB, dst + off);
        c.src1 = at(NPU_UB, b + off);
        c.shape.repeat = min(lit(maxr), rows16 - done);
        c.shape.dst_rep = row_blocks, c.shape.src0_rep = row_blocks, c.shape.src1_rep = row_blocks;
        c.dt = nd;
        c.shape.lanes = lanes;
        call(c);
      });
    }
  }

  /// A row reduction of the full tile `e` (NZ, rows16 x cols16, cc valid
  /// columns, a compile-time count) into `col`: the column fractals fold
  /// into the first one (the last one by its valid lanes), then each row's
  /// 16 lanes reduce into 8 copies of the result.
  void reduce_rows(compute::AssignOp op, NE e, NE col, NE rows16, std::int64_t cc, int rvar) {
    const int vop = op == compute::AssignOp::Add ? NPU_ADD : op == compute::AssignOp::Max ? NPU_MAX : NPU_MIN;
    const int rop = op == compute::AssignOp::Add ? NPU_RSUM : op == compute::AssignOp::Max ? NPU_RMAX : NPU_RMIN;
    const std::int64_t full = cc / 16, rest = cc % 16;
    const NE frac_col = rows16 * lit(16 * kEb);  // bytes of one column fractal of the tile
    for (std::int64_t jf = 1; jf < full; ++jf) vbin(vop, e, e, e + lit(jf) * frac_col, rows16 * lit(16));
    if (full >= 1 && rest) vbin_rows(vop, e, e + lit(full) * frac_col, rows16, static_cast<int>(rest));
    const int lanes = full >= 1 ? 16 : static_cast<int>(rest);
    loop(rvar, lit(0), rows16, lit(1), [&] {
      NCall c;
      c.kind = NCallKind::VReduce;
      c.op = rop;
      c.dst = at(NPU_UB, col + var(rvar) * lit(32));
      c.src0 = at(NPU_UB, e + var(rvar) * lit(16 * kEb));
      c.shape.repeat = lit(32 / kEb);  // a block of copies
      c.dt = nd;
      c.shape.src0_rep = 0;
      c.shape.lanes = lanes;
      call(c);
    }, "each row's result, 8 copies (a block the column broadcasts read)");
  }

  NE broadcast_of(const compute::Expr &leaf) const {
    return plan.operands.at(leaf.name).form == NpuOperand::Form::Col ? cols.at(leaf.name) : row_at(leaf.name, cur_slot);
  }
  NE cur_slot;  // the slot of the tile being computed (statements())

  struct Val {
    bool is_const = false;
    double c = 0;
    NE tile;  ///< UB byte offset
  };

  /// Emits the vector instructions of every statement on the current tile
  /// (select_vector_ops.cpp).
  void statements(const NE &slot, const NE &rows16, const NE &cols16);

  /// Space offsets: the element offset of `o` at the tile origin, given the
  /// index of each space dim (null for the tile's own rows and columns).
  NE origin(const NpuOperand &o, const std::vector<NE> &index) const {
    NE off = lit(0);
    std::vector<NE> st = strides(o.shape);
    for (std::size_t p = 0; p < o.dims.size(); ++p)
      if (o.dims[p] >= 0 && index[o.dims[p]]) off = off + index[o.dims[p]] * st[p];
    return off;
  }
  bool written(const std::string &name) const {
    for (const poly::NpuStatement &s : plan.statements)
      if (s.array == name) return true;
    return name == plan.c && plan.kind == NpuKernelPlan::Kind::Cube;
  }

  /// The vector kernel (lower_vector.cpp) and the cube kernel (lower_cube.cpp).
  void vector_kernel();
  void cube_kernel();
};

}  // namespace atl::npu::codegen
