// lower_to_npu: see the header. Tiles in UB are NZ (16 x 16 fractals,
// fractal (i, j) at j * rows16 + i): what fix writes, what ND2NZ makes of
// ragged rows, and what NZ2ND writes back exactly. Operands of the same
// tile share the layout, so elementwise statements are contiguous vector
// instructions over the whole tile.
#include "backends/npu/codegen/lower_to_npu.h"

#include "polyhedral/transforms/npu/tile_for_npu.h"

#include <atoll/diagnostics.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>

namespace atl::npu {

poly::NpuTargetInfo npu_target_info(const Target &t) {
  poly::NpuTargetInfo i;
  i.name = t.name;
  i.cores = t.cores;
  i.l1 = t.memories[NPU_L1].bytes;
  i.l0a = t.memories[NPU_L0A].bytes;
  i.l0b = t.memories[NPU_L0B].bytes;
  i.l0c = t.memories[NPU_L0C].bytes;
  i.ub = t.memories[NPU_UB].bytes;
  i.events_per_pipe_pair = t.events_per_pipe_pair;
  i.max_repeat = t.vector.max_repeat;
  i.repeat_bytes = t.vector.repeat_bytes;
  i.cube_startup = t.cube.startup;
  if (const CubeType *r = t.cube_type(NPU_F32, NPU_F32)) i.cube_f32_cycles = r->cycles;
  if (const CubeType *r = t.cube_type(NPU_F16, NPU_F32)) i.cube_f16_cycles = r->cycles;
  const PipeDesc &m2 = t.pipes[NPU_MTE2], &m1 = t.pipes[NPU_MTE1], &fx = t.pipes[NPU_FIX], &m3 = t.pipes[NPU_MTE3];
  i.mte2_bytes_per_cycle = m2.bytes_per_cycle;
  i.mte2_startup = m2.startup;
  i.mte2_per_burst = m2.per_burst;
  i.mte1_bytes_per_cycle = m1.bytes_per_cycle;
  i.mte1_startup = m1.startup;
  i.fix_bytes_per_cycle = fx.bytes_per_cycle;
  i.mte3_bytes_per_cycle = m3.bytes_per_cycle;
  i.mte3_startup = m3.startup;
  i.vec_startup = t.vector.startup;
  return i;
}

namespace {

using poly::NpuKernelPlan;
using poly::NpuOperand;


std::uint64_t align_up(std::uint64_t v, std::uint64_t a) { return (v + a - 1) / a * a; }

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
  void preset(const Ring &r, int n = 2) {
    for (int s = 0; s < n; ++s) flag(true, r.from, r.to, lit(r.base + s));
  }
  void drain(const Ring &r, int n = 2) {
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

  /// Emits the vector instructions of every statement on the current tile.
  void statements(const NE &slot, const NE &rows16, const NE &cols16) {
    const NE full_elems = rows16 * cols16, row_elems = rows16 * lit(32 / kEb);
    cur_slot = slot;
    const int jvar = new_var("j"), rvar = new_var("r");
    expand_cols(slot, rows16, rvar);
    for (const poly::NpuStatement &st : plan.statements) {
      if (st.alias) continue;  // the array shares its source's tile
      std::size_t next_temp = 0;
      // A per-row statement works on the blocks of 8 copies a row.
      const NE elems = st.per_row ? row_elems : full_elems;
      auto temp = [&]() -> NE {
        if (next_temp >= temps.size())
          throw UserError("--target npu: kernel " + kernel.name + ": statement " + st.name +
                          " needs more temporaries than were counted");
        return temps[next_temp++];
      };
      // Mirrors poly::npu_ub_tiles' count: a node writes into `dst`, or a
      // new temporary; its first operand may be computed in that place when
      // it is a temporary or `early` (the statement's array is not read).
      std::function<Val(const compute::Expr &, NE, bool)> eval = [&](const compute::Expr &e, NE dst,
                                                                     bool early) -> Val {
        using compute::ExprKind;
        switch (e.kind) {
          case ExprKind::Number:
            return {true, e.number, nullptr};
          case ExprKind::Read: {
            const NpuOperand &o = plan.operands.at(e.name);
            if (o.form == NpuOperand::Form::Scalar) return {true, *o.constant, nullptr};
            if (o.form == NpuOperand::Form::Full) return {false, 0, tile_at(e.name, slot)};
            if (st.per_row) return {false, 0, cols.at(e.name)};
            NE t = dst && early ? dst : temp();
            broadcast_op(NPU_ADD, t, nullptr, broadcast_of(e), o.form == NpuOperand::Form::Col, rows16, cols16, jvar);
            return {false, 0, t};
          }
          default:
            break;
        }
        const bool inherit = !dst || early;
        NE out = dst ? dst : temp();
        const std::size_t kept = next_temp;  // this node's own temporary stays; its operands' go after it
        struct Release {
          std::size_t &next, kept;
          ~Release() { next = kept; }
        } release{next_temp, kept};
        auto first = [&](const compute::Expr &a) { return eval(a, inherit ? out : nullptr, true); };
        // A broadcast operand (row or per-row) of a binary op is read in place.
        const int bi = poly::npu_broadcast_operand(e, plan, st.per_row);
        auto with_broadcast = [&](int op) -> Val {
          const compute::Expr &leaf = *e.args[bi];
          const Val x = first(*e.args[1 - bi]);
          const bool col = plan.operands.at(leaf.name).form == NpuOperand::Form::Col;
          const NE b = broadcast_of(leaf);
          const bool commutes = op == NPU_ADD || op == NPU_MUL || op == NPU_MAX || op == NPU_MIN;
          if (bi == 1 || commutes) {
            broadcast_op(op, out, x.tile, b, col, rows16, cols16, jvar);
          } else if (op == NPU_SUB) {  // b - x = -(x - b)
            broadcast_op(NPU_SUB, out, x.tile, b, col, rows16, cols16, jvar);
            vun(NPU_NEG, out, out, elems);
          } else {  // b / x = (1 / x) * b
            vun(NPU_RECIP, out, x.tile, elems);
            broadcast_op(NPU_MUL, out, out, b, col, rows16, cols16, jvar);
          }
          return {false, 0, out};
        };
        auto unary = [&](int op, const Val &x) {
          vun(op, out, x.tile, elems);
          return Val{false, 0, out};
        };
        auto binary = [&](int op, const Val &x, const Val &y) -> Val {
          if (x.is_const && y.is_const) {
            double r = op == NPU_ADD ? x.c + y.c : op == NPU_SUB ? x.c - y.c : op == NPU_MUL ? x.c * y.c
                     : op == NPU_DIV ? x.c / y.c : op == NPU_MAX ? std::max(x.c, y.c) : std::min(x.c, y.c);
            return {true, static_cast<double>(static_cast<float>(r)), nullptr};
          }
          if (!x.is_const && !y.is_const) {
            vbin(op, out, x.tile, y.tile, elems);
          } else if (!x.is_const) {  // tile op constant
            if (op == NPU_SUB) vscalar(NPU_ADD, out, x.tile, -y.c, elems);
            else vscalar(op, out, x.tile, y.c, elems);
          } else {  // constant op tile
            if (op == NPU_SUB) {
              vun(NPU_NEG, out, y.tile, elems);
              vscalar(NPU_ADD, out, out, x.c, elems);
            } else if (op == NPU_DIV) {
              vun(NPU_RECIP, out, y.tile, elems);
              vscalar(NPU_MUL, out, out, x.c, elems);
            } else {
              vscalar(op, out, y.tile, x.c, elems);
            }
          }
          return {false, 0, out};
        };
        auto as_tile = [&](Val v) {  // a constant operand of a unary op
          if (v.is_const) {
            vdup(out, v.c, elems);
            v = {false, 0, out};
          }
          return v;
        };
        switch (e.kind) {
          case ExprKind::Unary:
            return unary(NPU_NEG, as_tile(first(*e.args[0])));
          case ExprKind::Binary: {
            int op = e.binop == compute::BinOp::Add ? NPU_ADD : e.binop == compute::BinOp::Sub ? NPU_SUB
                   : e.binop == compute::BinOp::Mul ? NPU_MUL : NPU_DIV;
            if (bi >= 0) return with_broadcast(op);
            Val x = first(*e.args[0]), y = eval(*e.args[1], nullptr, true);
            return binary(op, x, y);
          }
          case ExprKind::Call: {
            if (e.func == compute::Func::Max || e.func == compute::Func::Min) {
              if (bi >= 0) return with_broadcast(e.func == compute::Func::Max ? NPU_MAX : NPU_MIN);
              Val x = first(*e.args[0]), y = eval(*e.args[1], nullptr, true);
              return binary(e.func == compute::Func::Max ? NPU_MAX : NPU_MIN, x, y);
            }
            Val x = as_tile(first(*e.args[0]));
            switch (e.func) {
              case compute::Func::Exp: return unary(NPU_EXP, x);
              case compute::Func::Log: return unary(NPU_LN, x);
              case compute::Func::Sqrt: return unary(NPU_SQRT, x);
              case compute::Func::Tanh: return unary(NPU_TANH, x);
              case compute::Func::Abs: return unary(NPU_ABS, x);
              case compute::Func::Sigmoid:  // 1 / (1 + exp(-x))
                vun(NPU_NEG, out, x.tile, elems);
                vun(NPU_EXP, out, out, elems);
                vscalar(NPU_ADD, out, out, 1.0, elems);
                vun(NPU_RECIP, out, out, elems);
                return {false, 0, out};
              case compute::Func::Erf: {
                // Abramowitz and Stegun 7.1.26 (|error| <= 1.5e-7):
                //   erf(x) = s (1 - (a1 t + ... + a5 t^5) exp(-x^2)), t = 1 / (1 + p |x|),
                // s = x / (|x| + 1e-30): the sign, and 0 where x is 0 (so is the rest).
                // x may be in `out`: it is last read before `out` is written.
                const NE a = temp(), s = temp(), t = temp();
                vun(NPU_ABS, a, x.tile, elems);
                vscalar(NPU_ADD, s, a, 1e-30, elems);
                vbin(NPU_DIV, s, x.tile, s, elems);
                vscalar(NPU_MUL, t, a, 0.3275911, elems);
                vscalar(NPU_ADD, t, t, 1.0, elems);
                vun(NPU_RECIP, t, t, elems);
                const double c[] = {0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429};
                vscalar(NPU_MUL, out, t, c[4], elems);
                for (int i = 3; i >= 0; --i) {
                  vscalar(NPU_ADD, out, out, c[i], elems);
                  vbin(NPU_MUL, out, out, t, elems);
                }
                vbin(NPU_MUL, a, a, a, elems);
                vun(NPU_NEG, a, a, elems);
                vun(NPU_EXP, a, a, elems);
                vbin(NPU_MUL, out, out, a, elems);
                vun(NPU_NEG, out, out, elems);
                vscalar(NPU_ADD, out, out, 1.0, elems);
                vbin(NPU_MUL, out, out, s, elems);
                return {false, 0, out};
              }
              default:
                break;
            }
            break;
          }
          default:
            break;
        }
        throw UserError("--target npu: node '" + st.node + "': an operation without an NPU vector sequence");
      };
      if (st.op != compute::AssignOp::Assign) {
        const NE e = temp();
        Val v = eval(*st.rhs, e, true);
        if (v.is_const) vdup(e, v.c, elems);
        else if (v.tile.get() != e.get()) vscalar(NPU_ADD, e, v.tile, 0.0, elems);
        std::int64_t cc = 1;
        (void)constant(extent(plan.space.back()), cc);
        reduce_rows(st.op, e, cols.at(st.array), rows16, cc, rvar);
        continue;
      }
      const NE dst = st.per_row ? cols.at(st.array) : tile_at(st.array, slot);
      Val v = eval(*st.rhs, dst, !poly::npu_reads(*st.rhs, st.array));
      if (v.is_const) vdup(dst, v.c, elems);
      else if (v.tile.get() != dst.get()) vscalar(NPU_ADD, dst, v.tile, 0.0, elems);  // a plain copy
    }
  }

  /// Space offsets: the element offset of `o` at the tile origin, given the
  /// index of each space dim (null for the tile's own rows and columns).
  NE origin(const NpuOperand &o, const std::vector<NE> &index) const {
    NE off = lit(0);
    std::vector<NE> st = strides(o.shape);
    for (std::size_t p = 0; p < o.dims.size(); ++p)
      if (o.dims[p] >= 0 && index[o.dims[p]]) off = off + index[o.dims[p]] * st[p];
    return off;
  }

  // ---- the vector kernel ----
  void vector_kernel() {
    tile_rows = plan.tr;
    tile_cols = plan.tc;
    slots = plan.ub_slots;
    allocate_ub();
    const int rank = static_cast<int>(plan.space.size());
    // Rows: the leading dims flattened, or (batched rows) dim R-2 per index
    // of the dims before it.
    const bool batched = plan.batched_rows;
    NE R = lit(1), C = rank ? extent(plan.space.back()) : lit(1), batches = lit(1);
    for (int d = 0; d + 1 < rank; ++d)
      if (batched && d + 2 != rank) batches = batches * extent(plan.space[d]);
      else R = R * extent(plan.space[d]);
    std::vector<int> bvars;
    if (batched)
      for (int d = 0; d + 2 < rank; ++d) bvars.push_back(new_var("b" + std::to_string(d)));
    const int core = new_var("core"), ncores = new_var("ncores"), t = new_var("t"), it = new_var("it");
    const int r0 = new_var("r0"), c0 = new_var("c0"), rr = new_var("rr"), cc = new_var("cc"), slot = new_var("slot");
    set(core, core_id());
    set(ncores, core_num());
    const poly::NpuUbTiles ub = poly::npu_ub_tiles(plan);
    const bool loads = ub.loads > 0;
    const Ring in_free = loads ? ring(NPU_VEC, NPU_MTE2) : Ring{}, in_ready = loads ? ring(NPU_MTE2, NPU_VEC) : Ring{};
    const Ring out_ready = ring(NPU_VEC, NPU_MTE3), out_free = ring(NPU_MTE3, NPU_VEC);
    if (loads) preset(in_free, slots);
    preset(out_free, slots);
    const NE tiles_c = ceil_div(C, lit(plan.tc)), tiles_r = ceil_div(R, lit(plan.tr));
    const NE ntiles = batches * tiles_r * tiles_c;
    set(it, lit(0));
    loop(t, var(core), ntiles, var(ncores), [&] {
      set(r0, var(t) / tiles_c % tiles_r * lit(plan.tr));
      set(c0, var(t) % tiles_c * lit(plan.tc));
      NE rest = var(t) / (tiles_c * tiles_r);
      for (std::size_t i = bvars.size(); i-- > 0;) {
        const NE e = extent(plan.space[i]);
        set(bvars[i], rest % e);
        rest = rest / e;
      }
      set(rr, min(lit(plan.tr), R - var(r0)));
      set(cc, min(lit(plan.tc), C - var(c0)));
      set(slot, var(it) % lit(slots));
      const NE s = var(slot), rows16 = round_up(var(rr), lit(16)), cols16 = round_up(var(cc), lit(16));
      // Where an operand's tile starts, and its row pitch. Flattened rows:
      // full operands are contiguous over the rows, broadcast rows depend on
      // the column only, per-row inputs on the row only. Batched rows: the
      // operand's own strides.
      std::vector<NE> index(rank);
      for (std::size_t i = 0; i < bvars.size(); ++i) index[i] = var(bvars[i]);
      if (rank >= 2) index[rank - 2] = var(r0);
      if (rank >= 1) index[rank - 1] = var(c0);
      auto start = [&](const NpuOperand &o) -> NE {
        if (batched) return origin(o, index);
        return o.form == NpuOperand::Form::Row ? var(c0) : o.form == NpuOperand::Form::Col ? var(r0)
                                                                                             : var(r0) * C + var(c0);
      };
      auto pitch = [&](const NpuOperand &o) -> NE {
        if (!batched) return C;
        std::vector<NE> st = strides(o.shape);
        for (std::size_t p = 0; p < o.dims.size(); ++p)
          if (rank >= 2 && o.dims[p] == rank - 2) return st[p];
        return C;  // one row
      };
      if (loads) {
        wait_ring(in_free, s);
        for (const auto &[name, o] : plan.operands) {
          if (o.form == NpuOperand::Form::Full && !written(name))
            load_nz(at(NPU_UB, tile_at(name, s)), gm(name, start(o)), var(rr), var(cc), pitch(o));
          else if (o.form == NpuOperand::Form::Row)
            load_row(row_at(name, s), gm(name, start(o)), var(cc));
          else if (o.loaded_col)
            load_row(stage_at(name, s), gm(name, start(o)), var(rr));
        }
        set_ring(in_ready, s);
        wait_ring(in_ready, s);
      }
      wait_ring(out_free, s);
      statements(s, rows16, cols16);
      if (loads) set_ring(in_free, s);
      set_ring(out_ready, s);
      wait_ring(out_ready, s);
      for (const auto &[name, o] : plan.operands)
        if (o.output) store_nd(gm(name, start(o)), at(NPU_UB, tile_at(name, s)), var(rr), var(cc), pitch(o));
      set_ring(out_free, s);
      set(it, var(it) + lit(1));
    }, "tiles of " + std::to_string(plan.tr) + " x " + std::to_string(plan.tc) + ", round robin over the cores");
    if (loads) drain(in_free, slots);
    drain(out_free, slots);
  }

  bool written(const std::string &name) const {
    for (const poly::NpuStatement &s : plan.statements)
      if (s.array == name) return true;
    return name == plan.c && plan.kind == NpuKernelPlan::Kind::Cube;
  }

  // ---- the cube kernel ----
  void cube_kernel() {
    tile_rows = plan.mc;
    tile_cols = plan.nc;
    const std::int64_t mc = plan.mc, nc = plan.nc, kc = plan.kc, k0 = plan.k0;
    const NE M = plan.m >= 0 ? extent(plan.space[plan.m]) : lit(1), N = extent(plan.space[plan.n]);
    const NE K = extent(plan.k_extent);
    const poly::NpuUbTiles ub = poly::npu_ub_tiles(plan);
    // Vector work: statements other than copies that share C's tile.
    bool has_vec = false;
    for (const poly::NpuStatement &st : plan.statements) has_vec = has_vec || !st.alias;
    // Without it, the one output (C, or its copy: an f16 MatMul's y) on whole
    // 16 x 16 tiles comes straight from fix.
    std::string direct_out;
    for (const auto &[name, o] : plan.operands)
      if (o.output) direct_out = direct_out.empty() && (name == plan.c || (plan.tile_alias.count(name) &&
                                                                           plan.tile_alias.at(name) == plan.c))
                                     ? name
                                     : "-";
    std::int64_t Mc = 0, Nc = 0;
    const bool exact = !has_vec && !direct_out.empty() && direct_out != "-" && constant(M, Mc) && constant(N, Nc) &&
                       Mc % 16 == 0 && Nc % 16 == 0;
    if (!exact) allocate_ub();
    // L1, L0A, L0B, L0C: two slots each.
    const std::uint64_t a_l1 = align_up(mc * kc * kEb, 32), b_l1 = align_up(kc * nc * kEb, 32);
    const std::uint64_t a_l0 = align_up(mc * k0 * kEb, 512), b_l0 = align_up(k0 * nc * kEb, 512);
    const std::uint64_t c_l0 = align_up(mc * nc * 4, 64);
    auto fits = [&](npu_mem m, std::uint64_t need, const char *what) {
      if (need > target.memories[m].bytes)
        throw UserError("--target npu: kernel " + kernel.name + ": " + mem_name(m) + " needs " + std::to_string(need) +
                        " B (" + what + ") but target '" + target.name + "' has " +
                        std::to_string(target.memories[m].bytes) + " B");
    };
    if (plan.a_panel) {
      std::int64_t chunks = 0;
      (void)constant(ceil_div(K, lit(kc)), chunks);
      fits(NPU_L1, chunks * a_l1 + 2 * b_l1, "an A panel and two B chunks");
    } else {
      fits(NPU_L1, 2 * (a_l1 + b_l1), "A and B chunks, two slots each");
    }
    fits(NPU_L0A, 2 * a_l0, "two A steps");
    fits(NPU_L0B, 2 * b_l0, "two B steps");
    fits(NPU_L0C, 2 * c_l0, "two C tiles");

    const int core = new_var("core"), ncores = new_var("ncores"), t = new_var("t");
    const int mt = new_var("mt"), nt = new_var("nt"), bt = new_var("bt"), mr = new_var("mr"), nr = new_var("nr");
    const int m16 = new_var("m16"), n16 = new_var("n16"), kt = new_var("kt"), kf = new_var("kf"), kk = new_var("kk");
    const int kq = new_var("kq"), j = new_var("jj"), ctile = new_var("ctile"), cs = new_var("cs");
    const int l1step = new_var("l1step"), l1s = new_var("l1s"), l0step = new_var("l0step"), l0s = new_var("l0s");
    std::vector<int> bvars;
    for (int d : plan.batch) bvars.push_back(new_var("b" + std::to_string(d)));
    set(core, core_id());
    set(ncores, core_num());

    // The A panel (mc rows over all of k) stays in L1 across the row's
    // output tiles when the plan says so: one slot and one event pair a
    // k chunk; a core then runs whole panels.
    const bool panel = plan.a_panel;
    std::int64_t nk_const = 1;
    if (panel && (!constant(ceil_div(K, lit(kc)), nk_const) || nk_const + 2 > target.events_per_pipe_pair))
      throw UserError("--target npu: kernel " + kernel.name + ": an A panel needs a constant k of few chunks");
    const Ring l1free = ring(NPU_MTE1, NPU_MTE2), l1ready = ring(NPU_MTE2, NPU_MTE1);
    Ring afree{}, aready{};
    if (panel) {
      afree = ring(NPU_MTE1, NPU_MTE2, static_cast<int>(nk_const));
      aready = ring(NPU_MTE2, NPU_MTE1, static_cast<int>(nk_const));
    }
    const Ring l0free = ring(NPU_CUBE, NPU_MTE1), l0ready = ring(NPU_MTE1, NPU_CUBE);
    const Ring cfree = ring(NPU_FIX, NPU_CUBE), cready = ring(NPU_CUBE, NPU_FIX);
    const bool loads = !exact && ub.loads > 0;
    const npu_pipe after_fix = has_vec ? NPU_VEC : NPU_MTE3;
    Ring ubfree{}, fixed{}, ep_free{}, ep_ready{}, out_ready{};
    if (!exact) {
      ubfree = ring(NPU_MTE3, NPU_FIX);
      fixed = ring(NPU_FIX, after_fix);
      if (has_vec) out_ready = ring(NPU_VEC, NPU_MTE3);
      if (loads) ep_free = ring(NPU_VEC, NPU_MTE2), ep_ready = ring(NPU_MTE2, NPU_VEC);
    }
    preset(l1free);
    if (panel) preset(afree, static_cast<int>(nk_const));
    preset(l0free);
    preset(cfree);
    if (!exact) preset(ubfree);
    if (loads) preset(ep_free);

    const NE tm = ceil_div(M, lit(mc)), tn = ceil_div(N, lit(nc));
    NE batches = lit(1);
    for (int d : plan.batch) batches = batches * extent(plan.space[d]);
    const NE ntiles = batches * tm * tn, nk = ceil_div(K, lit(kc));
    set(ctile, lit(0));
    set(l1step, lit(0));
    set(l0step, lit(0));
    auto tile = [&] {
      // Batch indices, the last batch dim fastest.
      NE rest = var(bt);
      for (std::size_t i = plan.batch.size(); i-- > 0;) {
        const NE e = extent(plan.space[plan.batch[i]]);
        set(bvars[i], rest % e);
        rest = rest / e;
      }
      set(mr, min(lit(mc), M - var(mt) * lit(mc)));
      set(nr, min(lit(nc), N - var(nt) * lit(nc)));
      set(m16, ceil_div(var(mr), lit(16)));
      set(n16, ceil_div(var(nr), lit(16)));
      set(cs, var(ctile) % lit(2));
      const NE C_slot = var(cs);
      // The space index of the tile's origin (rows and columns at their starts).
      std::vector<NE> index(plan.space.size());
      for (std::size_t i = 0; i < plan.batch.size(); ++i) index[plan.batch[i]] = var(bvars[i]);
      if (plan.m >= 0) index[plan.m] = var(mt) * lit(mc);
      index[plan.n] = var(nt) * lit(nc);
      // Epilogue operands, loaded while the cube works.
      if (loads) {
        wait_ring(ep_free, C_slot);
        for (const auto &[name, o] : plan.operands) {
          if (o.form == NpuOperand::Form::Full && !written(name))
            load_nz(at(NPU_UB, tile_at(name, C_slot)), gm(name, origin(o, index)), var(mr), var(nr),
                    extent(o.shape.back()));
          else if (o.form == NpuOperand::Form::Row)
            load_row(row_at(name, C_slot), gm(name, origin(o, index)), var(nr));
          else if (o.loaded_col)
            load_row(stage_at(name, C_slot), gm(name, origin(o, index)), var(mr));
        }
        set_ring(ep_ready, C_slot);
      }
      loop(kt, lit(0), nk, lit(1), [&] {
        const int kr = new_var("kr");
        set(kr, min(lit(kc), K - var(kt) * lit(kc)));
        set(kf, ceil_div(var(kr), lit(16)));
        set(l1s, var(l1step) % lit(2));
        const NE s1 = var(l1s);
        // L1: A chunks (two slots, or the panel's nk), then two B chunks.
        const std::int64_t a_slots = panel ? nk_const : 2;
        const NE A1 = (panel ? var(kt) : s1) * lit(a_l1), B1 = lit(a_slots * a_l1) + s1 * lit(b_l1);
        const NE first_of_panel = eq(var(nt), lit(0)), last_of_panel = eq(var(nt), tn - lit(1));
        // GM -> L1: A as stored ([m, k] or [k, m]), B as stored ([k, n] or [n, k]).
        if (panel) {
          when(first_of_panel, [&] { wait_ring(afree, var(kt)); });
          wait_ring(l1free, s1);
        } else {
          wait_ring(l1free, s1);
        }
        {
          const NpuOperand &A = plan.a, &B = plan.b;
          auto base = [&](const NpuOperand &o) {
            std::vector<NE> st = strides(o.shape);
            NE off = lit(0);
            for (std::size_t q = 0; q < o.dims.size(); ++q) {
              if (o.dims[q] == poly::kNpuK) off = off + var(kt) * lit(kc) * st[q];
              else if (o.dims[q] >= 0 && index[o.dims[q]]) off = off + index[o.dims[q]] * st[q];
            }
            return off;
          };
          const NE a_pitch = extent(A.shape.back()), b_pitch = extent(B.shape.back());
          auto load_a = [&] {
            if (plan.a_transposed) load_nz(at(NPU_L1, A1), gm(A.array, base(A)), var(kr), var(mr), a_pitch);
            else load_nz(at(NPU_L1, A1), gm(A.array, base(A)), var(mr), var(kr), a_pitch);
          };
          if (panel) {
            when(first_of_panel, [&] {
              load_a();
              set_ring(aready, var(kt));
            });
          } else {
            load_a();
          }
          if (plan.b_transposed) load_nz(at(NPU_L1, B1), gm(B.array, base(B)), var(nr), var(kr), b_pitch);
          else load_nz(at(NPU_L1, B1), gm(B.array, base(B)), var(kr), var(nr), b_pitch);
        }
        set_ring(l1ready, s1);
        wait_ring(l1ready, s1);
        if (panel) when(first_of_panel, [&] { wait_ring(aready, var(kt)); });
        loop(kk, lit(0), var(kf), lit(k0 / 16), [&] {
          set(kq, min(lit(k0 / 16), var(kf) - var(kk)));
          set(l0s, var(l0step) % lit(2));
          const NE s0 = var(l0s), A0 = s0 * lit(a_l0), B0 = s0 * lit(b_l0);
          wait_ring(l0free, s0);
          auto load = [&](npu_mem mem, NE dst, NE src, NE n, NE stride, bool transpose) {
            NCall c;
            c.kind = NCallKind::LoadL0;
            c.dst = at(mem, dst);
            c.src0 = at(NPU_L1, src);
            c.ints = {n, stride, lit(transpose ? 1 : 0)};
            c.dt = nd;
            call(c);
          };
          // L1 A fractals: (m, k) at k * m16 + m (stored [m, k]) or (k, m) at m * kf + k (stored [k, m]).
          if (!plan.a_transposed) {
            load(NPU_L0A, A0, A1 + var(kk) * var(m16) * lit(kFrac), var(m16) * var(kq), lit(1), false);
          } else {
            loop(j, lit(0), var(kq), lit(1), [&] {
              load(NPU_L0A, A0 + var(j) * var(m16) * lit(kFrac), A1 + (var(kk) + var(j)) * lit(kFrac), var(m16),
                   var(kf), true);
            });
          }
          // L1 B fractals: (k, n) at n * kf + k (stored [k, n]) or (n, k) at k * n16 + n (stored [n, k]).
          loop(j, lit(0), var(n16), lit(1), [&] {
            if (!plan.b_transposed)
              load(NPU_L0B, B0 + var(j) * var(kq) * lit(kFrac), B1 + (var(j) * var(kf) + var(kk)) * lit(kFrac),
                   var(kq), lit(1), false);
            else
              load(NPU_L0B, B0 + var(j) * var(kq) * lit(kFrac), B1 + (var(kk) * var(n16) + var(j)) * lit(kFrac),
                   var(kq), var(n16), true);
          });
          set_ring(l0ready, s0);
          wait_ring(l0ready, s0);
          const NE first = both(eq(var(kt), lit(0)), eq(var(kk), lit(0)));
          when(first, [&] { wait_ring(cfree, C_slot); });
          NCall mm;
          mm.kind = NCallKind::Mmad;
          mm.dst = at(NPU_L0C, C_slot * lit(c_l0));
          mm.src0 = at(NPU_L0A, A0);
          mm.src1 = at(NPU_L0B, B0);
          mm.ints = {var(m16) * lit(16), var(n16) * lit(16), var(kq) * lit(16), lit(1) - first};
          mm.dt = nd;  // f16 operands accumulate in f32
          mm.dt2 = NPU_F32;
          call(mm);
          set_ring(l0free, s0);
          set(l0step, var(l0step) + lit(1));
        });
        set_ring(l1free, s1);
        if (panel) when(last_of_panel, [&] { set_ring(afree, var(kt)); });
        set(l1step, var(l1step) + lit(1));
      }, "k in chunks of " + std::to_string(kc) + " (L1), steps of " + std::to_string(k0) + " (L0)");
      set_ring(cready, C_slot);
      wait_ring(cready, C_slot);
      NCall fx;
      fx.kind = NCallKind::Fix;
      fx.src0 = at(NPU_L0C, C_slot * lit(c_l0));
      fx.dt = NPU_F32;
      fx.dt2 = nd;
      if (exact) {
        const NpuOperand &c = plan.operands.at(direct_out);
        fx.dst = gm(direct_out, origin(c, index));
        fx.op = NPU_NZ2ND;
        fx.ints = {var(m16) * lit(16), var(n16) * lit(16), lit(0), N * lit(kEb)};
        call(fx, "L0C -> GM, row-major");
        set_ring(cfree, C_slot);
      } else {
        wait_ring(ubfree, C_slot);
        fx.dst = at(NPU_UB, tile_at(plan.c, C_slot));
        fx.op = NPU_ND;
        fx.ints = {var(m16) * lit(16), var(n16) * lit(16), lit(0), var(n16) * lit(16 * kEb)};
        call(fx, "L0C -> UB (NZ)");
        set_ring(cfree, C_slot);
        set_ring(fixed, C_slot);
        if (has_vec) {
          wait_ring(fixed, C_slot);
          if (loads) wait_ring(ep_ready, C_slot);
          statements(C_slot, var(m16) * lit(16), var(n16) * lit(16));
          if (loads) set_ring(ep_free, C_slot);
          set_ring(out_ready, C_slot);
          wait_ring(out_ready, C_slot);
        } else {
          wait_ring(fixed, C_slot);
        }
        for (const auto &[name, o] : plan.operands)
          if (o.output)
            store_nd(gm(name, origin(o, index)), at(NPU_UB, tile_at(name, C_slot)), var(mr), var(nr),
                     extent(o.shape.back()));
        set_ring(ubfree, C_slot);
      }
      set(ctile, var(ctile) + lit(1));
    };
    if (panel) {
      // Panels (a batch and a row of tiles) round robin; the row's tiles in order.
      loop(t, var(core), batches * tm, var(ncores), [&] {
        set(mt, var(t) % tm);
        set(bt, var(t) / tm);
        loop(nt, lit(0), tn, lit(1), tile, "the panel's output tiles: A stays in L1");
      }, "A panels of " + std::to_string(mc) + " rows, round robin over the cores");
    } else {
      loop(t, var(core), ntiles, var(ncores), [&] {
        set(nt, var(t) % tn);
        set(mt, var(t) / tn % tm);
        set(bt, var(t) / (tn * tm));
        tile();
      }, "output tiles of " + std::to_string(mc) + " x " + std::to_string(nc) + ", round robin over the cores");
    }
    drain(l1free);
    if (panel) drain(afree, static_cast<int>(nk_const));
    drain(l0free);
    drain(cfree);
    if (!exact) drain(ubfree);
    if (loads) drain(ep_free);
  }
};

}  // namespace

NpuProgram lower_to_npu(const poly::NpuKernelPlan &plan, const poly::LKernel &kernel, const Target &target) {
  Gen g(plan, kernel, target);
  if (plan.kind == NpuKernelPlan::Kind::Cube) g.cube_kernel();
  else g.vector_kernel();
  return std::move(g.p);
}

}  // namespace atl::npu
