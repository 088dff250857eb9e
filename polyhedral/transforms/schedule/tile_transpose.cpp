// Tiles a copy whose write and read run along different loops (a Transpose) into square blocks, so a block's input lines stay in L1.
#include "polyhedral/transforms/schedule/tile_transpose.h"

#include "graph/compute/ast.h"
#include "polyhedral/transforms/schedule/permute_band.h"
#include "polyhedral/transforms/schedule/tile_bands.h"

#include <algorithm>
#include <vector>

namespace atl::poly {

namespace {

constexpr long kMinLines = 256;  // 64-byte lines: 16 KB, half of L1

/// The position in `indices` of the index that the last subscript of `read`
/// is (exactly, coefficient 1), or -1.
int last_subscript_index(const compute::Expr &read, const std::vector<std::string> &indices) {
  if (read.kind != compute::ExprKind::Read || read.args.empty()) return -1;
  std::optional<compute::QuasiAffine> f = compute::to_quasi_affine(*read.args.back());
  if (!f || !f->is_linear() || f->constant != 0 || f->vars.size() != 1 || f->vars.begin()->second != 1) return -1;
  for (std::size_t k = 0; k < indices.size(); ++k)
    if (indices[k] == f->vars.begin()->first) return static_cast<int>(k);
  return -1;
}

}  // namespace

TransposeTileResult tile_transpose(const Scop &scop, const isl::schedule &schedule, long size) {
  TransposeTileResult r;
  r.schedule = schedule;
  if (scop.statements.size() != 1) {
    r.reason = "not one statement";
    return r;
  }
  const ScopStatement &s = scop.statements[0];
  if (!s.lhs || !s.rhs || s.op != compute::AssignOp::Assign || s.reads.size() != 1 || s.reads[0].guarded ||
      s.reads[0].indirect || s.rhs->kind != compute::ExprKind::Read) {
    r.reason = "not a plain copy";
    return r;
  }
  const int w = last_subscript_index(*s.lhs, s.indices), rd = last_subscript_index(*s.rhs, s.indices);
  if (w < 0 || rd < 0 || w == rd) {
    r.reason = "the write and the read run along the same loop";
    return r;
  }
  // The statement's own band, in loop-nest order (no dependences in a copy
  // of distinct arrays: every member is parallel and the band permutable).
  std::vector<isl::schedule_node_band> bands = collect_bands(scop.original_schedule());
  if (bands.size() != 1) {
    r.reason = "no band";
    return r;
  }
  // One output row of the copy reads `ew` lines of the input: tiles pay
  // when those lines do not stay in L1 (half of 32 KB) from one row to the
  // next.
  const long ew = member_extent(bands[0], w), er = member_extent(bands[0], rd);
  if (ew < kMinLines) {
    r.reason = "the read's lines of one output row fit in L1";
    return r;
  }
  if (er < 2 * size) {
    r.reason = "the read's last index spans fewer than two blocks";
    return r;
  }
  isl::schedule_node node =
      isl::schedule::from_domain(scop.domain()).get_root().child(0).insert_partial_schedule(
          bands[0].get_partial_schedule());
  isl::schedule_node_band band = node.as<isl::schedule_node_band>().set_permutable(true);
  const int n = static_cast<int>(s.indices.size());
  for (int k = 0; k < n; ++k) band = band.member_set_coincident(k, true);
  // The other members outermost (as they were: one block of the two inner
  // dimensions at a time), then the blocks, then the points.
  std::vector<int> order;
  for (int k = 0; k < n; ++k)
    if (k != w && k != rd) order.push_back(k);
  const int outer = static_cast<int>(order.size());
  order.push_back(std::min(w, rd));
  order.push_back(std::max(w, rd));
  isl::schedule sched = permute_band(band.get_schedule(), 0, order);
  int position = 0;
  if (outer > 0) {
    sched = collect_bands(sched)[0].split(outer).get_schedule();
    position = 1;
  }
  r.schedule = tile_band_at(sched, position, {size, size});
  r.applied = true;
  r.size = size;
  return r;
}

}  // namespace atl::poly
