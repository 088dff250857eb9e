// Vector reduction loops in LLVM IR: partial accumulators, copy combination, horizontal folds.
#include "backends/cpu/lower_reduction.h"

#include "backends/cpu/llvm_host.h"

#include <atoll/diagnostics.h>

#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IntrinsicsX86.h>
#include <llvm/IR/Metadata.h>

#include <limits>

namespace atl::cpu {

namespace {

using compute::AssignOp;

/// Phis for every accumulator of every copy, started at the identity or at `init`.
struct Partials {
  std::vector<std::vector<llvm::PHINode *>> phi;      ///< [copy][accumulator]
  std::vector<std::vector<llvm::Value *>> current;    ///< values at the latch
};

Partials make_phis(llvm::IRBuilderBase &b, const VectorReductionLoop &spec, std::int64_t copies, llvm::Type *vty,
                   llvm::BasicBlock *pre, const std::vector<llvm::Value *> *init) {
  Partials p;
  p.phi.resize(static_cast<std::size_t>(copies));
  for (std::int64_t c = 0; c < copies; ++c)
    for (std::size_t r = 0; r < spec.ops.size(); ++r) {
      llvm::PHINode *phi = b.CreatePHI(vty, 2, "vacc");
      phi->addIncoming(init && c == 0 ? (*init)[r] : reduction_identity(spec.ops[r], vty), pre);
      p.phi[static_cast<std::size_t>(c)].push_back(phi);
    }
  return p;
}

/// for (iv = start; iv + lanes * copies <= end; iv += lanes * copies) chunks; the
/// partials of copy 0 start at `init` (when given). Returns the exit's iv and
/// the partials of each copy at the exit.
llvm::Value *chunk_loop(llvm::IRBuilderBase &b, llvm::Value *start, llvm::Value *end, const VectorReductionLoop &spec,
                        std::int64_t copies, const std::vector<llvm::Value *> *init, const VectorChunk &chunk,
                        std::vector<std::vector<llvm::Value *>> &out, const std::string &tag) {
  llvm::Function *fn = b.GetInsertBlock()->getParent();
  llvm::LLVMContext &ctx = b.getContext();
  llvm::Type *vty = llvm::FixedVectorType::get(b.getFloatTy(), static_cast<unsigned>(spec.lanes));
  const std::int64_t step = spec.lanes * copies;
  llvm::BasicBlock *pre = b.GetInsertBlock();
  auto *header = llvm::BasicBlock::Create(ctx, spec.name + tag + ".header", fn);
  auto *body = llvm::BasicBlock::Create(ctx, spec.name + tag + ".body", fn);
  auto *exit = llvm::BasicBlock::Create(ctx, spec.name + tag + ".exit", fn);
  b.CreateBr(header);
  b.SetInsertPoint(header);
  llvm::PHINode *iv = b.CreatePHI(b.getInt64Ty(), 2, spec.name + tag);
  iv->addIncoming(start, pre);
  Partials p = make_phis(b, spec, copies, vty, pre, init);
  b.CreateCondBr(b.CreateICmpSLE(b.CreateNSWAdd(iv, b.getInt64(step)), end), body, exit);
  b.SetInsertPoint(body);
  for (std::int64_t c = 0; c < copies; ++c) {
    std::vector<llvm::Value *> acc(p.phi[static_cast<std::size_t>(c)].begin(), p.phi[static_cast<std::size_t>(c)].end());
    chunk(c == 0 ? static_cast<llvm::Value *>(iv) : b.CreateNSWAdd(iv, b.getInt64(c * spec.lanes)), acc);
    ATOLL_ASSERT(acc.size() == spec.ops.size(), "a vector chunk changed the accumulator count");
    p.current.push_back(acc);
  }
  llvm::BasicBlock *latch = b.GetInsertBlock();
  iv->addIncoming(b.CreateNSWAdd(iv, b.getInt64(step)), latch);
  for (std::size_t c = 0; c < p.phi.size(); ++c)
    for (std::size_t r = 0; r < spec.ops.size(); ++r) p.phi[c][r]->addIncoming(p.current[c][r], latch);
  // Not unrolled by LLVM: the copies already give independent chains, and a
  // fully unrolled row lets GVN keep every loaded vector live into the next
  // pass over the row (LayerNorm then spills and was measured slower).
  llvm::BranchInst *back = b.CreateBr(header);
  llvm::MDNode *md = llvm::MDNode::getDistinct(
      ctx, {nullptr, llvm::MDNode::get(ctx, {llvm::MDString::get(ctx, "llvm.loop.unroll.disable")})});
  md->replaceOperandWith(0, md);
  back->setMetadata(llvm::LLVMContext::MD_loop, md);
  b.SetInsertPoint(exit);
  out.assign(p.phi.size(), {});
  for (std::size_t c = 0; c < p.phi.size(); ++c) out[c].assign(p.phi[c].begin(), p.phi[c].end());
  return iv;
}

/// x86's maxps / minps of two float vectors (a OP c ? a : c, so c when
/// either is NaN) as the target intrinsic, or null when the host has none for
/// this width. The intrinsic keeps InstCombine from merging the NaN test
/// into the compare (select(uno | gt) is four AVX-512 operations; maxps, the
/// NaN test and a blend are three).
bool has_x86_pick(llvm::Type *t) {
  const HostInfo &host = host_info();
  auto *vt = llvm::dyn_cast<llvm::FixedVectorType>(t);
  if (!vt || !vt->getElementType()->isFloatTy() || host.triple.rfind("x86_64", 0) != 0) return false;
  const unsigned n = vt->getNumElements();
  return n == 4 || (n == 8 && host.avx2) || (n == 16 && host.avx512f);
}

llvm::Value *x86_pick(llvm::IRBuilderBase &b, llvm::Value *a, llvm::Value *c, bool max) {
  if (!has_x86_pick(a->getType())) return nullptr;
  switch (llvm::cast<llvm::FixedVectorType>(a->getType())->getNumElements()) {
  case 16:
    return b.CreateIntrinsic(max ? llvm::Intrinsic::x86_avx512_max_ps_512 : llvm::Intrinsic::x86_avx512_min_ps_512, {},
                             {a, c, b.getInt32(4)});
  case 8: return b.CreateIntrinsic(max ? llvm::Intrinsic::x86_avx_max_ps_256 : llvm::Intrinsic::x86_avx_min_ps_256, {}, {a, c});
  default: return b.CreateIntrinsic(max ? llvm::Intrinsic::x86_sse_max_ps : llvm::Intrinsic::x86_sse_min_ps, {}, {a, c});
  }
}

/// a OP c ? a : c (c when either is NaN): x86's maxps / minps, which LLVM
/// selects for this pattern.
llvm::Value *plain_pick(llvm::IRBuilderBase &b, llvm::Value *a, llvm::Value *c, bool max) {
  return b.CreateSelect(max ? b.CreateFCmpOGT(a, c) : b.CreateFCmpOLT(a, c), a, c);
}

/// emit_pick as one select of an or of compares: four AVX-512 operations,
/// but InstCombine folds it away against the identity (-inf for max), as
/// where a reduction's first chunk meets its accumulator's start.
llvm::Value *generic_pick(llvm::IRBuilderBase &b, llvm::Value *a, llvm::Value *c, bool max) {
  llvm::Value *better = max ? b.CreateFCmpOGT(a, c) : b.CreateFCmpOLT(a, c);
  return b.CreateSelect(b.CreateOr(b.CreateFCmpUNO(a, a), better), a, c);
}

/// a OP c ? a : c, either operand when one is NaN: x86's maxps / minps,
/// one operation (plain_pick's compare and select elsewhere).
llvm::Value *any_nan_pick(llvm::IRBuilderBase &b, llvm::Value *a, llvm::Value *c, bool max) {
  if (llvm::Value *m = x86_pick(b, a, c, max)) return m;
  return plain_pick(b, a, c, max);
}

/// Max or min of two partial results: emit_pick's, or one maxps / minps
/// when NaN need not be kept.
llvm::Value *pick_partials(llvm::IRBuilderBase &b, llvm::Value *a, llvm::Value *c, bool max, bool keep_nan) {
  return keep_nan ? emit_pick(b, a, c, max) : any_nan_pick(b, a, c, max);
}

}  // namespace

llvm::Value *emit_pick(llvm::IRBuilderBase &b, llvm::Value *a, llvm::Value *c, bool max) {
  // Against a constant that is not NaN (Clip's bounds, Relu's 0): one
  // compare and select, x86's maxps/minps, keeping a NaN in `a` (only the
  // sign of a zero equal to the bound may differ).
  auto *k = llvm::dyn_cast<llvm::Constant>(c);
  if (k && !llvm::isa<llvm::ConstantExpr>(k)) {
    const llvm::APFloat *v = nullptr;
    if (auto *f = llvm::dyn_cast<llvm::ConstantFP>(k)) v = &f->getValueAPF();
    else if (auto *s = llvm::dyn_cast_or_null<llvm::ConstantFP>(k->getSplatValue())) v = &s->getValueAPF();
    if (v && !v->isNaN()) return plain_pick(b, c, a, max);
  }
  // a if a is NaN, else a OP c ? a : c, which is maxps(a, c).
  if (llvm::Value *m = x86_pick(b, a, c, max)) return b.CreateSelect(b.CreateFCmpUNO(a, a), a, m);
  return generic_pick(b, a, c, max);
}

llvm::Value *emit_combine(llvm::IRBuilderBase &b, AssignOp op, llvm::Value *old, llvm::Value *v, bool keep_nan) {
  // Without NaN to keep: old OP v ? old : v, one maxps / minps, which folds
  // to v against the identity (nothing is above -inf) where a reduction's
  // first chunk meets its accumulator's start.
  switch (op) {
  case AssignOp::Assign: return v;
  case AssignOp::Add: return b.CreateFAdd(old, v);
  case AssignOp::Mul: return b.CreateFMul(old, v);
  case AssignOp::Max: return keep_nan ? generic_pick(b, v, old, true) : plain_pick(b, old, v, true);
  case AssignOp::Min: return keep_nan ? generic_pick(b, v, old, false) : plain_pick(b, old, v, false);
  }
  return v;
}

namespace {

/// x OP y for merging two partial accumulators (neither is the identity
/// unless no chunk ran): emit_pick's x86 form for max and min.
llvm::Value *merge_partials(llvm::IRBuilderBase &b, AssignOp op, llvm::Value *x, llvm::Value *y, bool keep_nan) {
  if (op == AssignOp::Max || op == AssignOp::Min) return pick_partials(b, y, x, op == AssignOp::Max, keep_nan);
  return emit_combine(b, op, x, y);
}

bool keeps_nan(const VectorReductionLoop &spec, std::size_t r) { return r >= spec.keep_nan.size() || spec.keep_nan[r]; }

}  // namespace

llvm::Constant *reduction_identity(AssignOp op, llvm::Type *t) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  switch (op) {
  case AssignOp::Assign: case AssignOp::Add: return llvm::ConstantFP::get(t, 0.0);
  case AssignOp::Mul: return llvm::ConstantFP::get(t, 1.0);
  case AssignOp::Max: return llvm::ConstantFP::get(t, -inf);
  case AssignOp::Min: return llvm::ConstantFP::get(t, inf);
  }
  return llvm::ConstantFP::get(t, 0.0);
}

llvm::Value *emit_horizontal(llvm::IRBuilderBase &b, AssignOp op, llvm::Value *v, bool keep_nan) {
  auto *vty = llvm::cast<llvm::FixedVectorType>(v->getType());
  unsigned n = vty->getNumElements();
  ATOLL_ASSERT(n > 0 && (n & (n - 1)) == 0, "horizontal fold of a vector whose lanes are not a power of two");
  // Max and min: one NaN test of the whole vector, then maxps / minps steps
  // that need not carry NaN (two operations a step instead of four); no
  // test when NaN need not be kept.
  const bool pick = op == AssignOp::Max || op == AssignOp::Min;
  llvm::Value *any_nan = nullptr;
  if (pick && keep_nan && has_x86_pick(vty)) any_nan = b.CreateOrReduce(b.CreateFCmpUNO(v, v));
  while (n > 1) {
    n /= 2;
    std::vector<int> lo, hi;
    for (unsigned i = 0; i < n; ++i) {
      lo.push_back(static_cast<int>(i));
      hi.push_back(static_cast<int>(i + n));
    }
    llvm::Value *l = b.CreateShuffleVector(v, lo), *h = b.CreateShuffleVector(v, hi);
    if (pick && !keep_nan) v = any_nan_pick(b, l, h, op == AssignOp::Max);
    else v = any_nan ? plain_pick(b, l, h, op == AssignOp::Max) : emit_combine(b, op, l, h);
  }
  llvm::Value *r = b.CreateExtractElement(v, b.getInt64(0));
  if (any_nan) r = b.CreateSelect(any_nan, llvm::ConstantFP::getNaN(r->getType()), r);
  return r;
}

std::vector<llvm::Value *> emit_horizontal_group(llvm::IRBuilderBase &b, AssignOp op,
                                                 const std::vector<llvm::Value *> &vs, bool keep_nan) {
  ATOLL_ASSERT(!vs.empty(), "joint fold of no vectors");
  auto *vty = llvm::cast<llvm::FixedVectorType>(vs[0]->getType());
  const unsigned n = vty->getNumElements();
  ATOLL_ASSERT(n > 0 && (n & (n - 1)) == 0 && vs.size() <= n, "joint fold: lanes not a power of two, or more rows than lanes");
  auto fold = [&](llvm::Value *lo, llvm::Value *hi) {
    if (op == AssignOp::Max || op == AssignOp::Min) return pick_partials(b, lo, hi, op == AssignOp::Max, keep_nan);
    return emit_combine(b, op, lo, hi);
  };
  // A vector whose lanes hold rows.size() groups of equal width, group g
  // the partial lanes of input rows[g] (npos: padding, the identity).
  constexpr std::size_t npos = static_cast<std::size_t>(-1);
  struct Part {
    llvm::Value *v;
    std::vector<std::size_t> rows;
  };
  std::vector<Part> parts;
  for (std::size_t i = 0; i < vs.size(); ++i) parts.push_back({vs[i], {i}});
  while (parts.size() & (parts.size() - 1)) parts.push_back({reduction_identity(op, vty), {npos}});
  // Pairs: lanes [first halves of a's groups, of c's groups] OP [second halves].
  while (parts.size() > 1) {
    std::vector<Part> next;
    for (std::size_t k = 0; k < parts.size(); k += 2) {
      const Part &a = parts[k], &c = parts[k + 1];
      const unsigned width = n / static_cast<unsigned>(a.rows.size()), half = width / 2;
      std::vector<int> lo, hi;
      for (unsigned src = 0; src < 2; ++src)
        for (unsigned g = 0; g < a.rows.size(); ++g)
          for (unsigned l = 0; l < half; ++l) {
            lo.push_back(static_cast<int>(src * n + g * width + l));
            hi.push_back(static_cast<int>(src * n + g * width + half + l));
          }
      Part p{fold(b.CreateShuffleVector(a.v, c.v, lo), b.CreateShuffleVector(a.v, c.v, hi)), a.rows};
      p.rows.insert(p.rows.end(), c.rows.begin(), c.rows.end());
      next.push_back(std::move(p));
    }
    parts = std::move(next);
  }
  // One vector left: halve it until each group is one lane.
  Part p = parts[0];
  const unsigned groups = static_cast<unsigned>(p.rows.size());
  for (unsigned lanes = n; lanes > groups; lanes /= 2) {
    const unsigned width = lanes / groups, half = width / 2;
    std::vector<int> lo, hi;
    for (unsigned g = 0; g < groups; ++g)
      for (unsigned l = 0; l < half; ++l) {
        lo.push_back(static_cast<int>(g * width + l));
        hi.push_back(static_cast<int>(g * width + half + l));
      }
    p.v = fold(b.CreateShuffleVector(p.v, lo), b.CreateShuffleVector(p.v, hi));
  }
  std::vector<llvm::Value *> totals(vs.size(), nullptr);
  for (unsigned g = 0; g < groups; ++g)
    if (p.rows[g] != npos) totals[p.rows[g]] = b.CreateExtractElement(p.v, b.getInt64(g));
  return totals;
}

VectorReductionResult emit_vector_reduction_loop(llvm::IRBuilderBase &b, llvm::Value *start, llvm::Value *end,
                                                 const VectorReductionLoop &spec, const VectorChunk &chunk) {
  ATOLL_ASSERT(spec.lanes > 1 && spec.copies >= 1, "vector reduction loop without lanes");
  VectorReductionResult res;
  std::vector<std::vector<llvm::Value *>> parts;
  llvm::Value *iv = start;
  std::vector<llvm::Value *> merged;
  if (spec.copies > 1) {
    iv = chunk_loop(b, start, end, spec, spec.copies, nullptr, chunk, parts, ".vr");
    // Pairwise: copy c with copy c + half, until one is left.
    for (std::size_t live = parts.size(); live > 1;) {
      std::size_t half = (live + 1) / 2;
      for (std::size_t c = 0; c + half < live; ++c)
        for (std::size_t r = 0; r < spec.ops.size(); ++r)
          parts[c][r] = merge_partials(b, spec.ops[r], parts[c][r], parts[c + half][r], keeps_nan(spec, r));
      live = half;
    }
    merged = parts[0];
  }
  iv = chunk_loop(b, iv, end, spec, 1, spec.copies > 1 ? &merged : nullptr, chunk, parts, ".vt");
  res.next = iv;
  if (!spec.fold) return res.partials = parts[0], res;
  for (std::size_t r = 0; r < spec.ops.size(); ++r)
    res.totals.push_back(emit_horizontal(b, spec.ops[r], parts[0][r], keeps_nan(spec, r)));
  return res;
}

}  // namespace atl::cpu
