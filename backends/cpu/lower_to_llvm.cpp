// Lowers loop-AST kernels to LLVM IR with IRBuilder: typed function, _entry, outlined parallel bodies.
#include "backends/cpu/lower_to_llvm.h"

#include "backends/cpu/forward_inits.h"
#include "backends/cpu/hoist_epilogues.h"
#include "backends/cpu/kernel_info.h"
#include "backends/cpu/lower_calls.h"
#include "backends/cpu/lower_elements.h"
#include "backends/cpu/lower_parallel.h"
#include "backends/cpu/lower_shuffles.h"
#include "backends/cpu/transpose_form.h"
#include "backends/cpu/lower_reduction.h"
#include "backends/cpu/vector_analysis.h"
#include "backends/cpu/vector_math.h"
#include "polyhedral/target/cpu_target.h"

#include <atoll/diagnostics.h>
#include <atoll/dtype.h>

#include <llvm/IR/BasicBlock.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/IntrinsicsX86.h>
#include <llvm/IR/Verifier.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/Triple.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <map>

namespace atl::cpu {

namespace {

using compute::BinOp;
using poly::LExpr;
using poly::LExprKind;
using poly::LStmt;
using poly::LStmtKind;
using poly::LType;

/// An array as seen inside one function: base pointer, extents and row-major strides.
struct ArrayView {
  const poly::LArray *decl = nullptr;
  llvm::Value *base = nullptr;
  std::vector<llvm::Value *> extents, strides;
};

/// What one function being generated knows: its arrays and its scalar variables.
struct Frame {
  llvm::Function *fn = nullptr;
  std::map<std::string, ArrayView> arrays;
  std::map<std::string, llvm::Value *> vars;  ///< parameters and enclosing iterators
  bool streamed = false;                      ///< has non-temporal stores: fence before returning
};

bool is_comparison(BinOp op) {
  switch (op) {
  case BinOp::Lt: case BinOp::Le: case BinOp::Gt: case BinOp::Ge: case BinOp::Eq: case BinOp::Ne:
  case BinOp::And: case BinOp::Or: return true;
  case BinOp::Add: case BinOp::Sub: case BinOp::Mul: case BinOp::Div: case BinOp::Mod: return false;
  }
  return false;
}

class KernelLowering {
public:
  KernelLowering(const poly::LKernel &k, llvm::Module &m)
      : k_(k), m_(m), ctx_(m.getContext()), b_(ctx_), i64_(b_.getInt64Ty()), ptr_(b_.getPtrTy()) {
    vt_ = uses_float_values(k) ? b_.getFloatTy() : b_.getDoubleTy();
    lanes_ = std::max(1, k.vector_lanes);
    llvm::FastMathFlags fmf;
    fmf.setAllowContract();
    b_.setFastMathFlags(fmf);
    if (lanes_ >= 4 && vt_->isFloatTy() && llvm::Triple(llvm::sys::getProcessTriple()).isX86())
      streaming_ = streaming_stores(k, kStreamingBytes);
  }

  void run() {
    llvm::Function *typed = build_typed();
    build_entry(typed);
  }

private:
  // ---- functions -------------------------------------------------------------------------------

  llvm::Function *build_typed() {
    std::vector<llvm::Type *> args(k_.arrays.size(), ptr_);
    args.insert(args.end(), k_.params.size(), i64_);
    auto *fty = llvm::FunctionType::get(b_.getVoidTy(), args, false);
    llvm::Function *fn = llvm::Function::Create(fty, llvm::Function::ExternalLinkage, k_.name, m_);
    fn->addFnAttr(llvm::Attribute::NoUnwind);
    std::vector<llvm::Value *> ptrs, params;
    for (std::size_t i = 0; i < fn->arg_size(); ++i) {
      llvm::Argument *a = fn->getArg(static_cast<unsigned>(i));
      if (i < k_.arrays.size()) {
        fn->addParamAttr(static_cast<unsigned>(i), llvm::Attribute::NoAlias);
        a->setName(k_.arrays[i].name);
        ptrs.push_back(a);
      } else {
        a->setName(k_.params[i - k_.arrays.size()]);
        params.push_back(a);
      }
    }
    b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", fn));
    frame_ = Frame{};
    frame_.fn = fn;
    for (std::size_t i = 0; i < params.size(); ++i) frame_.vars[k_.params[i]] = params[i];
    bind_arrays(ptrs);
    stmt(*k_.body);
    fence_streams();
    b_.CreateRetVoid();
    return fn;
  }

  void build_entry(llvm::Function *typed) {
    auto *fty = llvm::FunctionType::get(b_.getVoidTy(), {ptr_, ptr_}, false);
    llvm::Function *fn = llvm::Function::Create(fty, llvm::Function::ExternalLinkage, k_.name + "_entry", m_);
    fn->addFnAttr(llvm::Attribute::NoUnwind);
    fn->getArg(0)->setName("arrays");
    fn->getArg(1)->setName("params");
    b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", fn));
    std::vector<llvm::Value *> args;
    for (std::size_t i = 0; i < k_.arrays.size(); ++i)
      args.push_back(b_.CreateLoad(ptr_, b_.CreateConstInBoundsGEP1_64(ptr_, fn->getArg(0), i), k_.arrays[i].name));
    for (std::size_t i = 0; i < k_.params.size(); ++i)
      args.push_back(b_.CreateLoad(i64_, b_.CreateConstInBoundsGEP1_64(i64_, fn->getArg(1), i), k_.params[i]));
    b_.CreateCall(typed, args);
    b_.CreateRetVoid();
  }

  /// Extents (constants or parameters) and strides of every array, in the current function.
  void bind_arrays(const std::vector<llvm::Value *> &ptrs) {
    for (std::size_t i = 0; i < k_.arrays.size(); ++i) frame_.arrays[k_.arrays[i].name] = array_view(k_.arrays[i], ptrs[i]);
  }

  /// `a` at `base`: its extents (constants or parameters of this function)
  /// and row-major strides (constant-folded when the extents are constants).
  ArrayView array_view(const poly::LArray &a, llvm::Value *base) {
    ArrayView v;
    v.decl = &a;
    v.base = base;
    for (const Dim &d : a.shape) v.extents.push_back(d.is_symbolic() ? frame_.vars.at(d.symbol) : b_.getInt64(d.value));
    v.strides.assign(a.shape.size(), b_.getInt64(1));
    for (std::size_t d = a.shape.size(); d-- > 1;) v.strides[d - 1] = b_.CreateNSWMul(v.strides[d], v.extents[d]);
    return v;
  }

  /// An array in the current function. A local array (contract_arrays) gets
  /// its buffer on first use: an entry-block alloca of this function, so each
  /// outlined parallel body has its own; the contraction guarantees that no
  /// local value lives across functions or across iterations of its loop.
  const ArrayView &view(const std::string &name) {
    auto it = frame_.arrays.find(name);
    if (it != frame_.arrays.end()) return it->second;
    const poly::LArray *local = nullptr;
    for (const poly::LArray &a : k_.locals)
      if (a.name == name) local = &a;
    ATOLL_ASSERT(local, "unknown array " + name);
    std::int64_t size = 1;
    for (const Dim &d : local->shape) size *= d.value;
    llvm::BasicBlock &entry = frame_.fn->getEntryBlock();
    llvm::IRBuilder<> at(&entry, entry.begin());
    auto *buffer = at.CreateAlloca(llvm::ArrayType::get(storage_type(local->dtype), static_cast<std::uint64_t>(size)),
                                   nullptr, name);
    buffer->setAlignment(llvm::Align(64));
    return frame_.arrays.emplace(name, array_view(*local, buffer)).first->second;
  }

  /// Binds a variable of the current frame for a scope; the previous
  /// binding (or none) comes back when the scope ends.
  class ScopedVar {
  public:
    ScopedVar(Frame &f, const std::string &name) : f_(f), name_(name) {
      auto it = f.vars.find(name);
      if (it != f.vars.end()) saved_ = it->second;
    }
    ~ScopedVar() {
      if (saved_) f_.vars[name_] = *saved_;
      else f_.vars.erase(name_);
    }
    ScopedVar(const ScopedVar &) = delete;
    ScopedVar &operator=(const ScopedVar &) = delete;

  private:
    Frame &f_;
    std::string name_;
    std::optional<llvm::Value *> saved_;
  };

  // ---- statements ------------------------------------------------------------------------------

  void stmt(const LStmt &s) {
    if (skipped_.count(&s)) return;
    switch (s.kind) {
    case LStmtKind::Block:
      for (const poly::LStmtPtr &c : s.body)
        if (c) stmt(*c);
      return;
    case LStmtKind::For: return loop(s);
    case LStmtKind::If: {
      forget_stores();
      llvm::Value *c = cond(*s.cond);
      auto *then_bb = llvm::BasicBlock::Create(ctx_, "then", frame_.fn);
      auto *else_bb = s.else_body ? llvm::BasicBlock::Create(ctx_, "else", frame_.fn) : nullptr;
      auto *merge = llvm::BasicBlock::Create(ctx_, "endif", frame_.fn);
      b_.CreateCondBr(c, then_bb, else_bb ? else_bb : merge);
      b_.SetInsertPoint(then_bb);
      enter_scope();
      if (s.then_body) stmt(*s.then_body);
      leave_scope();
      b_.CreateBr(merge);
      if (else_bb) {
        b_.SetInsertPoint(else_bb);
        enter_scope();
        stmt(*s.else_body);
        leave_scope();
        b_.CreateBr(merge);
      }
      b_.SetInsertPoint(merge);
      return;
    }
    case LStmtKind::Store: return store(s);
    }
  }

  void store(const LStmt &s) {
    const ArrayView &a = view(s.array);
    llvm::Value *p = element_ptr(a, offset(a, index_list(s.indices)));
    if (promoted(s)) return promoted_store(s, p, false);
    llvm::Value *v = value(*s.value);
    if (s.op == compute::AssignOp::Assign && a.decl->dtype == DType::F32 && v->getType()->isFloatTy() &&
        llvm::isa<llvm::Constant>(v)) {
      results_.overwrite(p, v->getType(), s.array);
      return inits_.note(b_.CreateStore(v, p), s.array);
    }
    inits_.clear();
    const bool f32 = a.decl->dtype == DType::F32 && v->getType()->isFloatTy();
    llvm::Value *old = nullptr;
    if (s.op != compute::AssignOp::Assign && f32) old = results_.find(p, b_.getFloatTy(), s.array);
    if (a.decl->dtype == DType::F32) results_.overwrite(p, b_.getFloatTy(), s.array);
    else results_.forget(s.array);
    if (s.op != compute::AssignOp::Assign)
      v = combine(s, old ? old : load_element(a.decl->dtype, p), v);
    store_element(a.decl->dtype, p, v);
  }

  /// old OP v for a reduction store (re-associable inside reduction loops);
  /// `keep_nan` false for a nan_insensitive max or min (emit_combine).
  llvm::Value *combine(compute::AssignOp op, llvm::Value *old, llvm::Value *v, bool keep_nan = true) {
    llvm::FastMathFlags saved = b_.getFastMathFlags();
    if (reduction_depth_ > 0) {
      llvm::FastMathFlags fmf = saved;
      fmf.setAllowReassoc();
      b_.setFastMathFlags(fmf);
    }
    v = emit_combine(b_, op, old, v, keep_nan);
    b_.setFastMathFlags(saved);
    return v;
  }
  /// old OP v for reduction store `s`, as its mark says.
  llvm::Value *combine(const LStmt &s, llvm::Value *old, llvm::Value *v) { return combine(s.op, old, v, !s.nan_insensitive); }

  /// The loops around the statement being lowered, outermost first.
  std::vector<const LStmt *> loops_;

  void loop(const LStmt &s) {
    loops_.push_back(&s);
    struct Pop {
      std::vector<const LStmt *> &v;
      ~Pop() { v.pop_back(); }
    } pop{loops_};
    if (s.marks.count(poly::mark::kParallel))
      if (auto ub = loop_upper_bound(s)) return parallel_loop(s, *ub);
    if (!promo_ && !partials_ && lanes_ > 1 && vt_->isFloatTy())
      if (auto t = transpose_form(k_, s, lanes_)) return transposed_loop(*t);
    llvm::Value *start = index(*s.init);
    if (!promo_ && vector_reductions_allowed()) {
      VectorReductionForm form = vector_reductions(k_, s);
      if (!form.reductions.empty()) return reduction_loop(s, start, exclusive_end(*loop_upper_bound(s)), form);
    }
    if (!promo_ && vt_->isFloatTy()) {
      std::set<std::string> arrays = promotable_accumulators(k_, s, lanes_, kMaxUnroll, kMaxAccumulators);
      if (!arrays.empty()) return promoted_loop(s, start, arrays);
    }
    if (auto ub = loop_upper_bound(s)) {
      std::optional<std::int64_t> trip = constant_trip_count(s);
      if (vectorize(s)) return vector_loop(s, start, exclusive_end(*ub), trip);
      if (s.marks.count(poly::mark::kUnroll) && trip && *trip <= kMaxUnroll) return unrolled_loop(s, start, *trip);
    }
    counted_loop(s, start, [&](llvm::Value *) { return cond(*s.cond); });
  }

  // ---- explicit vectors and unrolling ----------------------------------------------------------

  static constexpr std::int64_t kMaxUnroll = 16;
  static constexpr std::int64_t kMaxAccumulators = 40;
  /// Fewest lanes of a vector (SSE width): shorter constant trips stay scalar.
  static constexpr std::int64_t kMinLanes = 4;
  /// Vectors side by side in a loop of long chains (jam_factor): 4. A long
  /// chain (erf, exp, tanh, a division) is latency-bound one vector at a
  /// time; independent vectors emitted together fill the pipes. Since Gelu
  /// and exp lost operations (emit_gelu, exp's one scale), four beat two and
  /// three, and no chain measured was slower with four.
  static constexpr std::int64_t kJamVectors = 4;

  bool vectorize(const LStmt &s) const { return lanes_ > 1 && vt_->isFloatTy() && has_vector_form(k_, s); }

  /// Partial accumulators per reduction in vector reduction loops (4 hide an
  /// add's latency). A loop whose values have long chains (has_long_chain:
  /// Softmax's exp and sum) gets one: its iterations are independent but for
  /// the add, and four copies of the chain spill the 16 AVX2 registers
  /// (scale -> Softmax is faster with one).
  static constexpr std::int64_t kReductionCopies = 4;

  bool vector_reductions_allowed() const { return lanes_ > 1 && (lanes_ & (lanes_ - 1)) == 0 && vt_->isFloatTy(); }

  /// The partial accumulators of the vector reduction loop being emitted:
  /// the reduction stores (vector_reductions) and their current values.
  struct Partials {
    std::vector<const LStmt *> stores;
    std::vector<llvm::Value *> *acc = nullptr;
  };
  Partials *partials_ = nullptr;

  /// Statements stmt() and vector_stmt() skip: the peeled conditions of the
  /// vector reduction loop being emitted (they run once, after it).
  std::set<const LStmt *> skipped_;

  /// A kReduction loop whose reductions stay at one address (vector_reductions):
  /// vector chunks with <lanes x float> partial accumulators (lower_reduction.h),
  /// their fold combined into the stored values, scalar code for the remainder,
  /// then the peeled conditions.
  void reduction_loop(const LStmt &s, llvm::Value *start, llvm::Value *end, const VectorReductionForm &form) {
    forget_stores();
    const std::vector<const LStmt *> &reductions = form.reductions;
    VectorReductionLoop spec;
    spec.lanes = lanes_;
    spec.copies = has_long_chain(s) ? 1 : kReductionCopies;
    spec.name = s.iterator;
    spec.fold = !(deferred_ && deferred_->loops.count(&s));
    for (const LStmt *r : reductions) spec.ops.push_back(r->op), spec.keep_nan.push_back(!r->nan_insensitive);
    ScopedVar bound(frame_, s.iterator);
    std::set<const LStmt *> outer_skipped = skipped_;
    skipped_.insert(form.peeled.begin(), form.peeled.end());
    Partials partials{reductions, nullptr};
    VectorReductionResult res = emit_vector_reduction_loop(b_, start, end, spec, [&](llvm::Value *iv, std::vector<llvm::Value *> &acc) {
      frame_.vars[s.iterator] = iv;
      partials.acc = &acc;
      partials_ = &partials;
      vector_body(s);
      partials_ = nullptr;
    });
    // The addresses do not depend on the iterator; nothing else in the loop reads or writes them.
    ++reduction_depth_;
    for (std::size_t r = 0; r < reductions.size(); ++r) {
      const ArrayView &a = view(reductions[r]->array);
      llvm::Value *p = element_ptr(a, offset(a, index_list(reductions[r]->indices)));
      if (!spec.fold) deferred_->pending.push_back({reductions[r]->op, !reductions[r]->nan_insensitive, p, res.partials[r]});
      else b_.CreateStore(combine(*reductions[r], b_.CreateLoad(b_.getFloatTy(), p), res.totals[r]), p);
    }
    --reduction_depth_;
    LStmt scalar = s;
    scalar.marks.erase(poly::mark::kVector);
    counted_loop(scalar, res.next, [&](llvm::Value *i) { return b_.CreateICmpSLT(i, end); });
    skipped_ = outer_skipped;
    for (const LStmt *p : form.peeled) peeled_condition(*p, s.iterator, start, end);
  }

  /// if (iterator == e) body, taken out of a loop over [start, end):
  /// the body with the iterator at e, when e is one of the loop's iterations.
  void peeled_condition(const LStmt &c, const std::string &iterator, llvm::Value *start, llvm::Value *end) {
    const LExpr &l = *c.cond->args[0], &r = *c.cond->args[1];
    const LExpr &at = l.kind == LExprKind::Var && l.name == iterator ? r : l;
    llvm::Value *e = index(at);
    llvm::Value *inside = b_.CreateAnd(b_.CreateICmpSGE(e, start), b_.CreateICmpSLT(e, end));
    auto *then_bb = llvm::BasicBlock::Create(ctx_, iterator + ".peeled", frame_.fn);
    auto *merge = llvm::BasicBlock::Create(ctx_, iterator + ".peeled.end", frame_.fn);
    b_.CreateCondBr(inside, then_bb, merge);
    b_.SetInsertPoint(then_bb);
    frame_.vars[iterator] = e;
    enter_scope();
    stmt(*c.then_body);
    leave_scope();
    b_.CreateBr(merge);
    b_.SetInsertPoint(merge);
  }

  llvm::Value *exclusive_end(const LoopUpperBound &ub) {
    llvm::Value *e = index(*ub.bound);
    return ub.inclusive ? b_.CreateNSWAdd(e, b_.getInt64(1)) : e;
  }

  /// The body `n` times with the iterator start, start + step, ... (a constant trip count).
  void unrolled_loop(const LStmt &s, llvm::Value *start, std::int64_t n) {
    ScopedVar bound(frame_, s.iterator);
    bool reduction = s.marks.count(poly::mark::kReduction) > 0;
    reduction_depth_ += reduction;
    // Rows' reduction loops (Softmax's max and sum, LayerNorm's moments):
    // their lane folds run together after the last row.
    DeferredFolds folds;
    if (n > 1 && vector_reductions_allowed()) folds.loops = deferrable_folds(k_, s);
    DeferredFolds *outer = deferred_;
    deferred_ = folds.loops.empty() ? nullptr : &folds;
    for (std::int64_t t = 0; t < n; ++t) {
      frame_.vars[s.iterator] = b_.CreateNSWAdd(start, b_.getInt64(t * s.step));
      repeats_ += t > 0;
      for (const poly::LStmtPtr &c : s.body)
        if (c) stmt(*c);
      repeats_ -= t > 0;
    }
    deferred_ = outer;
    reduction_depth_ -= reduction;
    fold_deferred(folds);
  }

  /// Reduction loops whose lane folds wait for the end of the unrolled loop
  /// around them (deferrable_folds), and the folds waiting.
  struct DeferredFolds {
    std::set<const LStmt *> loops;
    struct Fold {
      compute::AssignOp op;
      bool keep_nan;
      llvm::Value *ptr, *partial;
    };
    std::vector<Fold> pending;
  };
  DeferredFolds *deferred_ = nullptr;

  /// The pending folds, up to `lanes` vectors of one operator at a time
  /// (emit_horizontal_group), each total combined into its element.
  void fold_deferred(DeferredFolds &folds) {
    if (folds.pending.empty()) return;
    ++reduction_depth_;
    std::vector<bool> done(folds.pending.size(), false);
    for (std::size_t i = 0; i < folds.pending.size(); ++i) {
      if (done[i]) continue;
      std::vector<std::size_t> group;
      for (std::size_t j = i; j < folds.pending.size() && group.size() < static_cast<std::size_t>(lanes_); ++j)
        if (!done[j] && folds.pending[j].op == folds.pending[i].op && folds.pending[j].keep_nan == folds.pending[i].keep_nan)
          group.push_back(j), done[j] = true;
      std::vector<llvm::Value *> vs;
      for (std::size_t j : group) vs.push_back(folds.pending[j].partial);
      std::vector<llvm::Value *> totals = emit_horizontal_group(b_, folds.pending[i].op, vs, folds.pending[i].keep_nan);
      for (std::size_t g = 0; g < group.size(); ++g) {
        const DeferredFolds::Fold &f = folds.pending[group[g]];
        b_.CreateStore(combine(f.op, b_.CreateLoad(b_.getFloatTy(), f.ptr), totals[g], f.keep_nan), f.ptr);
      }
    }
    --reduction_depth_;
    forget_stores();
  }

  /// A kVector loop as <lanes x float> code over [start, end), then scalar
  /// code for the remainder. A constant trip count gives straight-line code
  /// when short (register micro-tiles), loops otherwise.
  /// `may_jam`: false for the rest of a jammed loop (fewer than jam vectors).
  void vector_loop(const LStmt &s, llvm::Value *start, llvm::Value *end, std::optional<std::int64_t> trip,
                   bool may_jam = true) {
    if (trip && masked_vector_trip(lanes_, *trip, promo_ && promo_->long_loop) && !partials_ && !lane_mask_ &&
        no_memory_accumulation(s)) {
      // 9 to 15 elements with AVX-512 (5 to 15 in a register tile's
      // promoted loop): one vector whose last lanes are masked off in every
      // load and store (an 8-lane vector and up to seven scalar columns
      // otherwise: a 10-way classifier, 14x14 rows).
      // No lane is combined with another here (partials_ is null), so the
      // masked-off lanes' values are never used; an accumulation is only
      // taken in registers (a masked store read back by a masked load in
      // the next iteration waits for the store, which is far slower).
      std::vector<llvm::Constant *> on;
      for (std::int64_t l = 0; l < lanes_; ++l) on.push_back(b_.getInt1(l < *trip));
      ScopedVar bound(frame_, s.iterator);
      frame_.vars[s.iterator] = start;
      lane_mask_ = llvm::ConstantVector::get(on);
      vector_body(s);
      lane_mask_ = nullptr;
      return;
    }
    if (trip && *trip >= kMinLanes && *trip < lanes_) {
      // Shorter than one vector (a register tile of a few columns, a
      // remainder): the widest narrower vectors that fit.
      std::int64_t narrow = kMinLanes;
      while (narrow * 2 <= *trip) narrow *= 2;
      std::int64_t full = lanes_;
      lanes_ = narrow;
      vector_loop(s, start, end, trip);
      lanes_ = full;
      return;
    }
    const std::int64_t w = lanes_;
    LStmt scalar = s;  // the remainder: same body, no vector hint
    scalar.marks.erase(poly::mark::kVector);
    if (trip && *trip / w <= kMaxUnroll && *trip % w <= kMaxUnroll) {
      std::int64_t chunks = *trip / w;
      {
        ScopedVar bound(frame_, s.iterator);
        for (std::int64_t c = 0; c < chunks; ++c) {
          frame_.vars[s.iterator] = b_.CreateNSWAdd(start, b_.getInt64(c * w));
          vector_body(s);
        }
      }
      llvm::Value *rest = b_.CreateNSWAdd(start, b_.getInt64(chunks * w));
      if (*trip % w >= kMinLanes) vector_loop(s, rest, end, *trip % w);
      else if (*trip % w) unrolled_loop(scalar, rest, *trip % w);
      return;
    }
    const LStmt *stream = streaming_store_in(s);
    if (const std::int64_t jam = may_jam ? jam_factor(s) : 1; jam > 1 && !stream && !partials_ && !lane_mask_ &&
                                                              (!trip || *trip >= 2 * jam * w)) {
      // Long dependency chains (erf, exp, a division: 30 to 60 cycles a
      // vector) run `jam` vectors side by side: one vector type `jam` times
      // as wide, which LLVM's type legalisation splits into `jam` native
      // vectors, each operation emitted for all of them together. The
      // out-of-order window no longer has to find the independent work
      // several iterations ahead. The rest runs at the native width.
      // for (v = start; v + jam * w <= end; v += jam * w) wide body
      lanes_ = jam * w;
      LoopShape wide{s.iterator, ".j", s.iterator + ".j", jam * w};
      llvm::Value *rest = emit_loop(
          wide, start, [&](llvm::Value *i) { return b_.CreateICmpSLE(b_.CreateNSWAdd(i, b_.getInt64(jam * w)), end); },
          [&](llvm::Value *) { vector_body(s); });
      lanes_ = w;
      std::optional<std::int64_t> left;
      if (trip) left = *trip % (jam * w);
      if (!left || *left > 0) vector_loop(s, rest, end, left, false);
      return;
    }
    if (stream) start = align_for_stream(scalar, *stream, start, end);
    // for (v = start; v + w <= end; v += w) vector body
    LoopShape shape{s.iterator, ".v", s.iterator + ".v", w};
    llvm::Value *iv = emit_loop(shape, start, [&](llvm::Value *i) { return b_.CreateICmpSLE(b_.CreateNSWAdd(i, b_.getInt64(w)), end); },
                                [&](llvm::Value *) {
                                  streaming_now_ = stream;
                                  vector_body(s);
                                  streaming_now_ = nullptr;
                                });
    counted_loop(scalar, iv, [&](llvm::Value *i) { return b_.CreateICmpSLT(i, end); });
  }

  // ---- in-register transposes (transpose_form.h) ----------------------------------------------

  /// The nest of `t` with its l loop innermost and jammed into vector chunks
  /// of w: per chunk and per group of lanes values of l, lanes rows of X
  /// loaded, transposed, and stored as lanes vectors of Y; the chunk left
  /// over at the end of w (fewer than lanes columns) with masked loads and stores.
  void transposed_loop(const TransposeForm &t) {
    forget_stores();
    const LStmt &l = *t.outer;
    ScopedVar bound(frame_, l.iterator);
    llvm::Value *first = index(*l.init);
    transposed_middle(t, 0, first);
  }

  void transposed_middle(const TransposeForm &t, std::size_t depth, llvm::Value *first) {
    if (depth < t.middle.size()) {
      const LStmt &m = *t.middle[depth];
      LoopShape shape{m.iterator, ".", m.iterator, m.step};
      emit_loop(shape, index(*m.init), [&](llvm::Value *) { return cond(*m.cond); },
                [&](llvm::Value *) { transposed_middle(t, depth + 1, first); });
      return;
    }
    const LStmt &w = *t.inner;
    llvm::Value *start = index(*w.init);
    llvm::Value *end = exclusive_end(*loop_upper_bound(w));
    LoopShape shape{w.iterator, ".t", w.iterator, lanes_};
    llvm::Value *rest = emit_loop(
        shape, start, [&](llvm::Value *i) { return b_.CreateICmpSLE(b_.CreateNSWAdd(i, b_.getInt64(lanes_)), end); },
        [&](llvm::Value *i) { transposed_block(t, first, i, nullptr); });
    llvm::Value *left = b_.CreateNSWSub(end, rest);
    auto *tail = llvm::BasicBlock::Create(ctx_, w.iterator + ".ttail", frame_.fn);
    auto *done = llvm::BasicBlock::Create(ctx_, w.iterator + ".tdone", frame_.fn);
    b_.CreateCondBr(b_.CreateICmpSGT(left, b_.getInt64(0)), tail, done);
    b_.SetInsertPoint(tail);
    enter_scope();
    transposed_block(t, first, rest, left);
    leave_scope();
    b_.CreateBr(done);
    b_.SetInsertPoint(done);
  }

  /// Columns w0 .. w0 + lanes - 1 (only the first `columns` when given) for every l.
  void transposed_block(const TransposeForm &t, llvm::Value *first, llvm::Value *w0, llvm::Value *columns) {
    const LStmt &st = *t.store;
    const std::string &l = t.outer->iterator, &w = t.inner->iterator;
    ScopedVar bound(frame_, w);
    frame_.vars[w] = w0;
    const unsigned n = static_cast<unsigned>(lanes_);
    llvm::Value *lane_mask = nullptr;
    if (columns) {
      std::vector<llvm::Constant *> steps;
      for (unsigned j = 0; j < n; ++j) steps.push_back(b_.getInt64(j));
      lane_mask = b_.CreateICmpSLT(llvm::ConstantVector::get(steps), splat_i64(columns));
    }
    const ArrayView &x = view(st.value->name), &y = view(st.array);
    // One group: lanes values of l from g, lanes rows of X in, lanes vectors of Y out.
    auto group = [&](llvm::Value *g) {
      frame_.vars[l] = b_.CreateNSWAdd(first, g);
      llvm::Value *px = element_ptr(x, offset(x, index_list(st.value->args)));
      std::vector<llvm::Value *> rows;
      for (unsigned r = 0; r < n; ++r) {
        llvm::Value *p = b_.CreateInBoundsGEP(b_.getFloatTy(), px, b_.getInt64(static_cast<std::uint64_t>(r * t.row_stride)));
        if (!columns) {
          rows.push_back(b_.CreateAlignedLoad(vec_ty(), p, llvm::Align(4)));
        } else {
          // Row r is column w0 + r: read only when it exists.
          llvm::Value *has = b_.CreateVectorSplat(n, b_.CreateICmpSLT(b_.getInt64(r), columns));
          rows.push_back(b_.CreateMaskedLoad(vec_ty(), p, llvm::Align(4), has, llvm::Constant::getNullValue(vec_ty())));
        }
      }
      std::vector<llvm::Value *> cols = emit_transpose(b_, rows);
      for (unsigned c = 0; c < n; ++c) {
        frame_.vars[l] = b_.CreateNSWAdd(first, b_.CreateNSWAdd(g, b_.getInt64(c)));
        llvm::Value *p = element_ptr(y, offset(y, index_list(st.indices)));
        if (columns) b_.CreateMaskedStore(cols[c], p, llvm::Align(4), lane_mask);
        else b_.CreateAlignedStore(cols[c], p, llvm::Align(4));
      }
    };
    // A short l loop is unrolled (a blocked layout's lanes-wide block); a
    // long one (a plain 2-D transpose, a row of thousands) stays a loop over
    // groups, which keeps the function small enough for LLVM's loop passes.
    if (t.trip <= kUnrolledTransposeGroups * lanes_) {
      for (std::int64_t g = 0; g < t.trip; g += lanes_) group(b_.getInt64(g));
      return;
    }
    LoopShape shape{l + ".group", ".t", l + ".group", lanes_};
    emit_loop(shape, b_.getInt64(0), [&](llvm::Value *g) { return b_.CreateICmpSLT(g, b_.getInt64(t.trip)); }, group);
  }

  /// Groups of lanes rows that transposed_block unrolls before it makes a loop.
  static constexpr std::int64_t kUnrolledTransposeGroups = 4;

  llvm::Value *splat_i64(llvm::Value *x) { return b_.CreateVectorSplat(static_cast<unsigned>(lanes_), x); }

  // ---- non-temporal stores -----------------------------------------------------------------------
  //
  // A large output written for the last time in a vector loop (streaming_stores)
  // bypasses the caches: no read for ownership, no eviction of the inputs.
  // bench/memory_bench.cpp's memory-bound cases measure the gain.

  /// Outputs of at least this size are streamed (about half a server L3).
  static constexpr std::int64_t kStreamingBytes = std::int64_t(16) << 20;

  std::set<const LStmt *> streaming_;       ///< streaming_stores of the kernel (x86 hosts)
  const LStmt *streaming_now_ = nullptr;   ///< the streaming store of the vector body being emitted

  /// The one streaming store among the stores of a vector loop's body, or null.
  const LStmt *streaming_store_in(const LStmt &loop) const {
    std::vector<const LStmt *> found;
    std::function<void(const LStmt &)> walk = [&](const LStmt &x) {
      if (x.kind == LStmtKind::Store && streaming_.count(&x)) found.push_back(&x);
      for (const poly::LStmtPtr &c : x.body)
        if (c) walk(*c);
    };
    walk(loop);
    return found.size() == 1 ? found[0] : nullptr;
  }

  /// Scalar iterations from `start` until the streaming store's address is
  /// aligned to a whole vector (at most lanes - 1, never past `end`); returns
  /// where the vector loop starts.
  llvm::Value *align_for_stream(const LStmt &scalar, const LStmt &store, llvm::Value *start, llvm::Value *end) {
    llvm::Value *aligned = nullptr;
    {
      ScopedVar bound(frame_, scalar.iterator);
      frame_.vars[scalar.iterator] = start;
      const ArrayView &a = view(store.array);
      llvm::Value *p = element_ptr(a, offset(a, index_list(store.indices)));
      const std::int64_t bytes = lanes_ * 4;
      llvm::Value *misaligned = b_.CreateAnd(b_.CreatePtrToInt(p, i64_), bytes - 1);
      llvm::Value *peel = b_.CreateLShr(b_.CreateAnd(b_.CreateSub(b_.getInt64(bytes), misaligned), bytes - 1), 2);
      aligned = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, b_.CreateNSWAdd(start, peel), end);
    }
    counted_loop(scalar, start, [&](llvm::Value *i) { return b_.CreateICmpSLT(i, aligned); });
    return aligned;
  }

  /// sfence when the function made non-temporal stores: they are weakly
  /// ordered, and other threads read the outputs after the kernel returns.
  void fence_streams() {
    if (frame_.streamed) b_.CreateIntrinsic(llvm::Intrinsic::x86_sse_sfence, {}, {});
  }

  /// A guarded load along the vector: a masked load whose lanes outside the
  /// array's extents take the fallback (no out-of-bounds access happens).
  llvm::Value *vector_guarded_load(const LExpr &e) {
    const LExpr &ld = *e.args[0];
    bool moves = false;
    for (const poly::LExprPtr &x : ld.args)
      if (coefficient(*x, current_vector_iterator_) != 0) moves = true;
    if (!moves) return splat(guarded_load(e));
    const ArrayView &a = view(ld.name);
    std::vector<llvm::Value *> idx = index_list(ld.args);
    llvm::Value *inside = b_.getTrue();
    for (std::size_t d = 0; d + 1 < idx.size(); ++d) inside = b_.CreateAnd(inside, b_.CreateICmpULT(idx[d], a.extents[d]));
    // Lane l reads the last subscript at idx + stride * l (has_vector_form: stride 1..kMaxVectorLoadStride).
    std::int64_t stride = *coefficient(*ld.args.back(), current_vector_iterator_);
    llvm::Value *p = b_.CreateGEP(b_.getFloatTy(), a.base, offset(a, idx));  // not inbounds: lanes before the start are masked off
    if (stride == 1) {
      // The lanes in bounds are one run [lo, hi): the mask is made of two
      // scalar clamps and shifts (a 16-lane i64 compare costs two vector
      // compares and a mask merge per load, and keeps vector registers busy).
      llvm::Value *lo = clamp_lanes(b_.CreateNeg(idx.back()));
      llvm::Value *hi = clamp_lanes(b_.CreateSub(a.extents.back(), idx.back()));
      llvm::Value *one = b_.getInt64(1);
      llvm::Value *bits = b_.CreateAnd(b_.CreateSub(b_.CreateShl(one, hi), one), b_.CreateNot(b_.CreateSub(b_.CreateShl(one, lo), one)));
      bits = b_.CreateSelect(inside, bits, b_.getInt64(0));
      llvm::Type *mask_ty = llvm::FixedVectorType::get(b_.getInt1Ty(), static_cast<unsigned>(lanes_));
      llvm::Value *mask = b_.CreateBitCast(b_.CreateTrunc(bits, b_.getIntNTy(static_cast<unsigned>(lanes_))), mask_ty);
      if (lane_mask_) mask = b_.CreateAnd(mask, lane_mask_);
      return b_.CreateMaskedLoad(vec_ty(), p, llvm::Align(4), mask, vector_value(*e.args[1]));
    }
    std::vector<llvm::Constant *> steps;
    for (std::int64_t l = 0; l < lanes_; ++l) steps.push_back(b_.getInt64(static_cast<std::uint64_t>(stride * l)));
    llvm::Value *lane_idx = b_.CreateAdd(b_.CreateVectorSplat(static_cast<unsigned>(lanes_), idx.back()),
                                         llvm::ConstantVector::get(steps));
    llvm::Value *mask = b_.CreateICmpULT(lane_idx, b_.CreateVectorSplat(static_cast<unsigned>(lanes_), a.extents.back()));
    mask = b_.CreateAnd(mask, b_.CreateVectorSplat(static_cast<unsigned>(lanes_), inside));
    if (lane_mask_) mask = b_.CreateAnd(mask, lane_mask_);
    return emit_strided_load(b_, p, stride, static_cast<unsigned>(lanes_), mask, vector_value(*e.args[1]));
  }

  /// `n` clamped to [0, lanes] (i64).
  llvm::Value *clamp_lanes(llvm::Value *n) {
    llvm::Value *lo = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, n, b_.getInt64(0));
    return b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, lo, b_.getInt64(lanes_));
  }

  void vector_body(const LStmt &s) {
    current_vector_iterator_ = s.iterator;
    bool reduction = s.marks.count(poly::mark::kReduction) > 0;
    reduction_depth_ += reduction;
    for (const poly::LStmtPtr &c : s.body)
      if (c) vector_stmt(*c);
    reduction_depth_ -= reduction;
  }

  llvm::Type *vec_ty() { return llvm::FixedVectorType::get(b_.getFloatTy(), static_cast<unsigned>(lanes_)); }

  void vector_stmt(const LStmt &s) {
    if (s.kind == LStmtKind::Block) {
      for (const poly::LStmtPtr &c : s.body)
        if (c) vector_stmt(*c);
      return;
    }
    if (skipped_.count(&s)) return;
    ATOLL_ASSERT(s.kind == LStmtKind::Store, "vector loop body with a loop or a condition");
    if (partials_)
      for (std::size_t r = 0; r < partials_->stores.size(); ++r)
        if (partials_->stores[r] == &s) {
          llvm::Value *&acc = (*partials_->acc)[r];
          acc = combine(s, acc, vector_value(*s.value));
          return;
        }
    const ArrayView &a = view(s.array);
    llvm::Value *p = element_ptr(a, offset(a, index_list(s.indices)));
    if (promoted(s)) return promoted_store(s, p, true);
    if (s.op == compute::AssignOp::Assign) prefetch_next_tile(s);
    llvm::Value *v = vector_value(*s.value);
    if (s.op == compute::AssignOp::Assign && &s != streaming_now_ && !lane_mask_ && llvm::isa<llvm::Constant>(v)) {
      results_.overwrite(p, vec_ty(), s.array);
      return inits_.note(b_.CreateAlignedStore(v, p, llvm::Align(4)), s.array);
    }
    inits_.clear();
    // An update in place (a bias after the tile's reduction) starts from the
    // value the tile just stored, when it is known.
    llvm::Value *old = nullptr;
    if (s.op != compute::AssignOp::Assign && !lane_mask_) old = results_.find(p, vec_ty(), s.array);
    results_.overwrite(p, vec_ty(), s.array);  // a masked store writes fewer lanes
    if (s.op != compute::AssignOp::Assign) v = combine(s, old ? old : load_vector(p, lane_mask_), v);
    if (&s == streaming_now_) {
      // Aligned by align_for_stream; the fence comes before the function returns.
      llvm::StoreInst *st = b_.CreateAlignedStore(v, p, llvm::Align(lanes_ * 4));
      st->setMetadata(llvm::LLVMContext::MD_nontemporal,
                      llvm::MDNode::get(ctx_, llvm::ConstantAsMetadata::get(b_.getInt32(1))));
      frame_.streamed = true;
      return;
    }
    // What the epilogue stores, the next epilogue statement reads from
    // registers (bias -> activation).
    llvm::StoreInst *st = store_vector(v, p, lane_mask_);
    if (st && !lane_mask_) results_.note(st, s.array);
  }

  /// How many vectors of the loop `s` to run side by side (1: one):
  /// kJamVectors when its body is plain f32 stores (no accumulation) of
  /// values with a long chain (a transcendental function or a division) read
  /// at unit or zero stride.
  /// True when a value computed in `s` has a long chain: a transcendental
  /// function or a division.
  static bool has_long_chain(const LStmt &s) {
    std::function<bool(const LExpr &)> expr = [&](const LExpr &e) {
      if (e.kind == LExprKind::Call && e.func != compute::Func::Abs && e.func != compute::Func::Floor &&
          e.func != compute::Func::Min && e.func != compute::Func::Max)
        return true;
      if (e.kind == LExprKind::Binary && e.type == LType::Value && e.binop == BinOp::Div) return true;
      return std::any_of(e.args.begin(), e.args.end(), [&](const poly::LExprPtr &a) { return a && expr(*a); });
    };
    std::function<bool(const LStmt &)> stmt = [&](const LStmt &t) {
      if (t.value && expr(*t.value)) return true;
      return std::any_of(t.body.begin(), t.body.end(), [&](const poly::LStmtPtr &c) { return c && stmt(*c); });
    };
    return stmt(s);
  }

  std::int64_t jam_factor(const LStmt &s) {
    bool plain = true;
    std::function<void(const LExpr &)> expr = [&](const LExpr &e) {
      if (e.kind == LExprKind::Load && !e.args.empty()) {
        std::optional<std::int64_t> c = coefficient(*e.args.back(), s.iterator);
        if (!c || (*c != 0 && *c != 1)) plain = false;
        for (std::size_t i = 0; i + 1 < e.args.size(); ++i)
          if (coefficient(*e.args[i], s.iterator) != std::optional<std::int64_t>(0)) plain = false;
      }
      if (e.kind == LExprKind::GuardedLoad || e.kind == LExprKind::Select) plain = false;
      for (const poly::LExprPtr &a : e.args)
        if (a) expr(*a);
    };
    std::function<void(const LStmt &)> stmt = [&](const LStmt &t) {
      if (t.kind == LStmtKind::Block) {
        for (const poly::LStmtPtr &c : t.body)
          if (c) stmt(*c);
        return;
      }
      if (t.kind != LStmtKind::Store || t.op != compute::AssignOp::Assign || promoted(t) || skipped_.count(&t)) {
        plain = false;
        return;
      }
      if (view(t.array).decl->dtype != DType::F32) plain = false;
      if (t.value) expr(*t.value);
    };
    for (const poly::LStmtPtr &c : s.body)
      if (c) stmt(*c);
    return plain && vt_->isFloatTy() && has_long_chain(s) ? kJamVectors : 1;
  }

  /// True when every `op=` store in the vector loop `s` is a promoted accumulator.
  bool no_memory_accumulation(const LStmt &s) const {
    if (s.kind == LStmtKind::Store) return s.op == compute::AssignOp::Assign || promoted(s);
    for (const poly::LStmtPtr &c : s.body)
      if (c && !no_memory_accumulation(*c)) return false;
    return true;
  }

  /// A vector load or store of the lanes in `mask` (all when null); masked-off lanes load zero.
  llvm::Value *load_vector(llvm::Value *p, llvm::Value *mask) {
    if (!mask) return b_.CreateAlignedLoad(vec_ty(), p, llvm::Align(4));
    return b_.CreateMaskedLoad(vec_ty(), p, llvm::Align(4), mask, llvm::Constant::getNullValue(vec_ty()));
  }
  /// The store (null when masked).
  llvm::StoreInst *store_vector(llvm::Value *v, llvm::Value *p, llvm::Value *mask) {
    if (mask) {
      b_.CreateMaskedStore(v, p, llvm::Align(4), mask);
      return nullptr;
    }
    return b_.CreateAlignedStore(v, p, llvm::Align(4));
  }

  /// A copy into a local buffer (a packed cache tile) from an argument
  /// array: the element the same copy reads at the next iteration of the
  /// cache-tile loop that moves along the source's rows (the innermost loop
  /// around the buffer's own loop whose iterator is in the second-to-last
  /// subscript: the next k block) is prefetched into L2 now, so that the
  /// next copy does not wait on memory: the transfer overlaps the tiles'
  /// computation in between.
  void prefetch_next_tile(const LStmt &s) {
    auto is_local = [&](const std::string &name) {
      return std::any_of(k_.locals.begin(), k_.locals.end(), [&](const poly::LArray &a) { return a.name == name; });
    };
    if (!is_local(s.array) || !s.value || s.value->kind != LExprKind::Load || is_local(s.value->name)) return;
    const std::size_t rank = view(s.value->name).strides.size();
    if (rank < 2 || s.value->args.size() != rank) return;
    std::size_t owner = loops_.size();
    while (owner > 0 && std::find(loops_[owner - 1]->locals.begin(), loops_[owner - 1]->locals.end(), s.array) ==
                            loops_[owner - 1]->locals.end())
      --owner;
    const LStmt *next = nullptr;
    for (std::size_t l = owner; l-- > 0 && !next;) {
      std::optional<std::int64_t> c = coefficient(*s.value->args[rank - 2], loops_[l]->iterator);
      if (c && *c != 0 && frame_.vars.count(loops_[l]->iterator)) next = loops_[l];
    }
    if (next) prefetch_moved(*s.value, next->iterator, next->step);
  }

  /// Prefetches (into L2: prefetcht1) the element `load` reads with
  /// `iterator` moved by `delta`; not inbounds: past the last tile the
  /// address is outside the array, where a prefetch does nothing.
  void prefetch_moved(const LExpr &load, const std::string &iterator, std::int64_t delta) {
    const ArrayView &src = view(load.name);
    ScopedVar moved(frame_, iterator);
    frame_.vars[iterator] = b_.CreateNSWAdd(frame_.vars[iterator], b_.getInt64(delta));
    prefetch_l2(b_.CreateGEP(storage_type(src.decl->dtype), src.base, offset(src, index_list(load.args))));
  }

  /// A read prefetch of the line at `p` into L2 (prefetcht1).
  void prefetch_l2(llvm::Value *p) {
    b_.CreateIntrinsic(llvm::Intrinsic::prefetch, {p->getType()}, {p, b_.getInt32(0), b_.getInt32(2), b_.getInt32(1)});
  }

  // ---- accumulators in registers ---------------------------------------------------------------
  //
  // A reduction loop whose body is straight-line code (unrolled rows, vector
  // chunks) and whose reduction stores do not move with it keeps those
  // elements in SSA values: loaded before the loop (collect pass over the
  // body, addresses only), carried by phis, stored after it.

  struct Accumulator {
    llvm::Value *ptr = nullptr;
    std::string array;
    bool vector = false;
    llvm::Value *mask = nullptr;  ///< the vector's lanes (null: all)
    llvm::Value *init = nullptr, *current = nullptr;
  };
  struct Promotion {
    std::set<std::string> arrays;
    bool collecting = true;
    std::size_t next = 0;
    std::vector<Accumulator> acc;
    const LStmt *loop = nullptr;  ///< the reduction loop
    bool long_loop = false;       ///< long_promoted_loop(*loop): masked accumulators pay
    std::set<std::string> prefetched;  ///< panel operands prefetched in this body (prefetch_next_panels)
  };
  /// Unrolled iterations after the first around the code being emitted.
  int repeats_ = 0;

  /// In a register tile's reduction loop (k, promoted accumulators), a vector
  /// read of an argument array whose rows move with k (the unpacked column
  /// operand B[k, n]): the element one k block further (k + the block's
  /// length: how the loop's start moves with the cache-tile loop around it)
  /// is prefetched into L2, once per vector of the first unrolled row, so the
  /// next block's operand streams in while this one computes.
  void prefetch_next_block(const LExpr &e) {
    if (!promo_ || promo_->collecting || !promo_->loop || repeats_ > 0) return;
    for (const poly::LArray &a : k_.locals)
      if (a.name == e.name) return;
    const LStmt &k = *promo_->loop;
    const std::size_t rank = e.args.size();
    if (rank < 2) return;
    // A weight in panels (pack_gemm_weights, [N/P, K, P] with P at most a
    // register tile): its k rows are contiguous, one stream that the
    // hardware prefetcher follows; only the next cache tile's panels are
    // prefetched, one line a k step (more would take load slots: two per 8
    // FMAs in a 4 x 16 tile).
    const poly::LArray *decl = view(e.name).decl;
    if (decl && decl->shape.size() == rank && rank == 3 && !decl->shape.back().is_symbolic() &&
        decl->shape.back().value <= 4 * lanes_)
      return prefetch_next_panels(e, decl->shape.back().value);
    std::optional<std::int64_t> moves = coefficient(*e.args[rank - 2], k.iterator);
    if (!moves || *moves == 0) return;
    auto at = std::find(loops_.begin(), loops_.end(), &k);
    std::int64_t delta = 0;
    for (auto l = at; l != loops_.begin() && delta == 0;) {
      --l;
      std::optional<std::int64_t> c = coefficient(*k.init, (*l)->iterator);
      if (c && *c != 0) delta = *c * (*l)->step;
    }
    if (delta != 0) prefetch_moved(e, k.iterator, delta);
  }
  /// A panel operand P[p, k, l] (pack_gemm_weights, `width` columns) read
  /// in a register tile's k loop: the panels' data of the next cache tile
  /// (next_panel_tile) is prefetched into L2, one line a k step, the line of
  /// the k row chosen by the row tile, so that the row tiles of one cache
  /// tile fetch all of its lines between them. The hardware prefetcher
  /// follows each panel's stream but starts again at every page, so without
  /// this the first row tile of each cache tile waits on L3 (BERT's FFN,
  /// 64 x 768 x 3072 and 64 x 3072 x 768 on AVX-512: 7-11% faster).
  void prefetch_next_panels(const LExpr &e, std::int64_t width) {
    if (!promo_->prefetched.insert(e.name).second) return;
    auto at = std::find(loops_.begin(), loops_.end(), promo_->loop);
    if (at == loops_.end()) return;
    std::optional<NextPanelTile> next = next_panel_tile({loops_.begin(), at + 1}, e);
    if (!next || !frame_.vars.count(next->rows->iterator)) return;
    const ArrayView &src = view(e.name);
    // Panels of one line a k row (AVX2's 16-column tiles): every row tile
    // would fetch the same line; not measured, left to the hardware.
    const std::int64_t bytes = static_cast<std::int64_t>(dtype_size(src.decl->dtype));
    if (!poly::panel_row_spans_lines(width, bytes)) return;
    const std::int64_t per_line = 64 / bytes, lines = width / per_line;
    std::vector<llvm::Value *> idx;
    for (std::size_t d = 0; d + 1 < e.args.size(); ++d)
      idx.push_back(b_.CreateNSWAdd(index(*e.args[d]), b_.getInt64(next->delta[d])));
    llvm::Value *tile = b_.CreateSDiv(frame_.vars[next->rows->iterator], b_.getInt64(next->rows->step));
    idx.push_back(b_.CreateMul(b_.CreateSRem(tile, b_.getInt64(lines)), b_.getInt64(per_line)));
    prefetch_l2(b_.CreateGEP(storage_type(src.decl->dtype), src.base, offset(src, idx)));
  }
  Promotion *promo_ = nullptr;
  /// The lanes of the vector being emitted that exist (null: all; vector_loop's 9 to 15 elements).
  llvm::Value *lane_mask_ = nullptr;
  /// Constant stores a promoted loop may start its accumulators from.
  PendingInits inits_;
  /// Promoted loops' results their epilogue may read from registers.
  ForwardedResults results_;

  /// Code that may read or write any array follows (a branch, a loop that
  /// is not lowered statement by statement, another function).
  void forget_stores() {
    inits_.clear();
    results_.clear();
  }
  /// A loop's or a branch's body begins / ends.
  void enter_scope() {
    inits_.enter();
    results_.enter();
  }
  void leave_scope() {
    inits_.leave();
    results_.leave();
  }

  bool promoted(const LStmt &s) const { return promo_ && s.op != compute::AssignOp::Assign && promo_->arrays.count(s.array); }

  void promoted_store(const LStmt &s, llvm::Value *p, bool vector) {
    if (promo_->collecting) {
      Accumulator a;
      a.ptr = p;
      a.array = s.array;
      a.vector = vector;
      a.mask = vector ? lane_mask_ : nullptr;
      // The tile's init (or the previous promoted loop) just stored there: start from that value (forward_inits.h).
      // The element is stored anew after the loop, and take() may erase the store results_ refers to.
      results_.overwrite(p, vector ? vec_ty() : b_.getFloatTy(), s.array);
      if (!a.mask) a.init = inits_.take(p, vector ? vec_ty() : b_.getFloatTy(), s.array);
      if (!a.init) a.init = vector ? load_vector(p, a.mask) : b_.CreateLoad(b_.getFloatTy(), p);
      promo_->acc.push_back(a);
      return;
    }
    ATOLL_ASSERT(promo_->next < promo_->acc.size(), "accumulator sequence differs between passes");
    Accumulator &a = promo_->acc[promo_->next++];
    ATOLL_ASSERT(a.vector == vector, "accumulator kind differs between passes");
    llvm::Value *v = vector ? vector_value(*s.value) : to_float(value(*s.value));
    a.current = combine(s, a.current, v);
  }

  /// A reduction loop with its accumulators promoted (see above).
  void promoted_loop(const LStmt &s, llvm::Value *start, const std::set<std::string> &arrays) {
    Promotion promo;
    promo.loop = &s;
    promo.long_loop = long_promoted_loop(s);
    promo.arrays = arrays;
    Promotion *outer = promo_;
    promo_ = &promo;
    auto body = [&] {
      bool reduction = s.marks.count(poly::mark::kReduction) > 0;
      reduction_depth_ += reduction;
      for (const poly::LStmtPtr &c : s.body)
        if (c) stmt(*c);
      reduction_depth_ -= reduction;
    };
    ScopedVar bound(frame_, s.iterator);
    frame_.vars[s.iterator] = start;  // the addresses do not depend on it
    body();                           // collect: addresses and initial values only
    inits_.keep_only(arrays);
    promo.collecting = false;
    std::vector<llvm::Value *> values;
    for (Accumulator &a : promo.acc) values.push_back(a.init);
    LoopShape shape{s.iterator, ".a", s.iterator, s.step, "acc"};
    emit_loop(shape, start, [&](llvm::Value *) { return cond(*s.cond); },
              [&](llvm::Value *) {
                for (std::size_t i = 0; i < values.size(); ++i) promo.acc[i].current = values[i];
                promo.next = 0;
                body();
                ATOLL_ASSERT(promo.next == promo.acc.size(), "accumulator count differs between passes");
                for (std::size_t i = 0; i < values.size(); ++i) values[i] = promo.acc[i].current;
              },
              &values);
    promo_ = outer;
    // The next promoted loop may start from these values (a window tile's
    // input rows, one promoted loop each, hand their accumulators on).
    for (std::size_t i = 0; i < values.size(); ++i) {
      const Accumulator &a = promo.acc[i];
      if (a.mask) {
        results_.overwrite(a.ptr, values[i]->getType(), a.array);
        store_vector(values[i], a.ptr, a.mask);  // not forwarded (a full store would write lanes past the row)
        continue;
      }
      llvm::StoreInst *st = a.vector ? b_.CreateAlignedStore(values[i], a.ptr, llvm::Align(4)) : b_.CreateStore(values[i], a.ptr);
      inits_.note(st, a.array);
      results_.note(st, a.array);
    }
  }

  llvm::Value *splat(llvm::Value *x) { return b_.CreateVectorSplat(static_cast<unsigned>(lanes_), x); }

  /// The vector of lanes iterator .. iterator + lanes - 1 of a Value expression
  /// (has_vector_form said which kinds occur).
  llvm::Value *vector_value(const LExpr &e) {
    if (e.type == LType::Index) return splat(b_.CreateSIToFP(index(e), vt_));
    switch (e.kind) {
    case LExprKind::Float: return splat(llvm::ConstantFP::get(vt_, e.fval));
    case LExprKind::Unary: return b_.CreateFNeg(vector_value(*e.args[0]));
    case LExprKind::Binary: {
      if (const LExpr *x = gelu_argument(e)) return emit_gelu(b_, vector_value(*x));
      if (e.binop == BinOp::Div && coefficient(*e.args[1], current_vector_iterator_) == 0) {
        // A divisor that does not move: one reciprocal (hoisted), a multiply
        // per lane; within 1.5 ulp of the division (Softmax's normalisation).
        llvm::Value *r = b_.CreateFDiv(llvm::ConstantFP::get(vt_, 1.0), value(*e.args[1]));
        return b_.CreateFMul(vector_value(*e.args[0]), splat(r));
      }
      llvm::Value *a = vector_value(*e.args[0]), *b = vector_value(*e.args[1]);
      switch (e.binop) {
      case BinOp::Add: return b_.CreateFAdd(a, b);
      case BinOp::Sub: return b_.CreateFSub(a, b);
      case BinOp::Mul: return b_.CreateFMul(a, b);
      default: return b_.CreateFDiv(a, b);
      }
    }
    case LExprKind::Min: return pick(vector_value(*e.args[0]), vector_value(*e.args[1]), false);
    case LExprKind::Max: return pick(vector_value(*e.args[0]), vector_value(*e.args[1]), true);
    case LExprKind::Call: {
      // Vector code is f32 only: inline approximations (vector_math.h), no calls once inlined.
      std::vector<llvm::Value *> a;
      for (const poly::LExprPtr &x : e.args) a.push_back(vector_value(*x));
      return emit_vector_call(b_, e.func, a, e.bounded_above);
    }
    case LExprKind::Load: {
      const ArrayView &a = view(e.name);
      llvm::Value *p = element_ptr(a, offset(a, index_list(e.args)));
      bool moves = false;
      for (const poly::LExprPtr &x : e.args)
        if (coefficient(*x, current_vector_iterator_) != 0) moves = true;
      if (!moves) return splat(b_.CreateLoad(b_.getFloatTy(), p));
      std::int64_t stride = *coefficient(*e.args.back(), current_vector_iterator_);
      if (stride != 1)
        return emit_strided_load(b_, p, stride, static_cast<unsigned>(lanes_), lane_mask_,
                                 lane_mask_ ? llvm::Constant::getNullValue(vec_ty()) : nullptr);
      prefetch_next_block(e);
      if (!lane_mask_)
        if (llvm::Value *v = results_.find(p, vec_ty(), e.name)) return v;
      return load_vector(p, lane_mask_);
    }
    case LExprKind::ToValue: return splat(b_.CreateSIToFP(index(*e.args[0]), vt_));
    case LExprKind::GuardedLoad: return vector_guarded_load(e);
    case LExprKind::Select: case LExprKind::ToIndex: case LExprKind::Int:
    case LExprKind::Var: break;
    }
    internal_error(__FILE__, __LINE__, "expression without a vector form");
  }

  /// Names and step of a loop emit_loop builds: blocks ITERATOR + TAG + "header"
  /// / "body" / "exit", the iterator's phi `phi`, carried values' phis `carried`.
  struct LoopShape {
    std::string iterator, tag, phi;
    std::int64_t step = 1;
    std::string carried = "acc";
    const LStmt *marks = nullptr;  ///< latch metadata from this loop's marks
  };

  /// The one loop skeleton of sequential code: a header with the iterator's phi
  /// (from `start`, bound in the frame while the loop is emitted) and one phi per
  /// `carried` value, a branch on cond_of(iv) into the body (`body` emits it and
  /// may replace the carried values), a latch adding the step, and the exit,
  /// where the builder ends and `carried` holds the header's phis. Returns the
  /// iterator's phi (its value at the exit).
  llvm::PHINode *emit_loop(const LoopShape &shape, llvm::Value *start,
                           const std::function<llvm::Value *(llvm::Value *)> &cond_of,
                           const std::function<void(llvm::Value *)> &body, std::vector<llvm::Value *> *carried = nullptr) {
    llvm::BasicBlock *pre = b_.GetInsertBlock();
    auto *header = llvm::BasicBlock::Create(ctx_, shape.iterator + shape.tag + "header", frame_.fn);
    auto *body_bb = llvm::BasicBlock::Create(ctx_, shape.iterator + shape.tag + "body", frame_.fn);
    auto *exit = llvm::BasicBlock::Create(ctx_, shape.iterator + shape.tag + "exit", frame_.fn);
    b_.CreateBr(header);
    b_.SetInsertPoint(header);
    llvm::PHINode *iv = b_.CreatePHI(i64_, 2, shape.phi);
    iv->addIncoming(start, pre);
    std::vector<llvm::PHINode *> phis;
    if (carried)
      for (llvm::Value *&v : *carried) {
        phis.push_back(b_.CreatePHI(v->getType(), 2, shape.carried));
        phis.back()->addIncoming(v, pre);
        v = phis.back();
      }
    ScopedVar bound(frame_, shape.iterator);
    frame_.vars[shape.iterator] = iv;
    b_.CreateCondBr(cond_of(iv), body_bb, exit);
    b_.SetInsertPoint(body_bb);
    enter_scope();
    body(iv);
    leave_scope();
    llvm::Value *next = b_.CreateNSWAdd(iv, b_.getInt64(shape.step), shape.iterator + ".next");
    llvm::BasicBlock *latch_bb = b_.GetInsertBlock();
    iv->addIncoming(next, latch_bb);
    for (std::size_t i = 0; i < phis.size(); ++i) {
      phis[i]->addIncoming((*carried)[i], latch_bb);
      (*carried)[i] = phis[i];
    }
    llvm::BranchInst *latch = b_.CreateBr(header);
    if (shape.marks)
      if (llvm::MDNode *md = loop_metadata(*shape.marks)) latch->setMetadata(llvm::LLVMContext::MD_loop, md);
    b_.SetInsertPoint(exit);
    return iv;
  }

  /// for (iterator = start; cond(iterator); iterator += step) body, with the loop's marks.
  void counted_loop(const LStmt &s, llvm::Value *start, const std::function<llvm::Value *(llvm::Value *)> &cond_of) {
    LoopShape shape{s.iterator, ".", s.iterator, s.step};
    shape.marks = &s;
    emit_loop(shape, start, cond_of, [&](llvm::Value *) {
      bool reduction = s.marks.count(poly::mark::kReduction) > 0;
      reduction_depth_ += reduction;
      for (const poly::LStmtPtr &c : s.body)
        if (c) stmt(*c);
      reduction_depth_ -= reduction;
    });
  }

  llvm::MDNode *loop_metadata(const LStmt &s) {
    std::vector<llvm::Metadata *> ops{nullptr};
    if (s.marks.count(poly::mark::kVector))
      ops.push_back(llvm::MDNode::get(ctx_, {llvm::MDString::get(ctx_, "llvm.loop.vectorize.enable"),
                                              llvm::ConstantAsMetadata::get(b_.getTrue())}));
    if (s.marks.count(poly::mark::kUnroll))
      ops.push_back(llvm::MDNode::get(ctx_, {llvm::MDString::get(ctx_, "llvm.loop.unroll.full")}));
    if (ops.size() == 1) return nullptr;
    llvm::MDNode *md = llvm::MDNode::getDistinct(ctx_, ops);
    md->replaceOperandWith(0, md);
    return md;
  }

  /// A parallel loop: the body becomes NAME_parN_body over iteration numbers,
  /// called through atoll_parallel_for (lower_parallel.h) with every array and
  /// variable in scope.
  void parallel_loop(const LStmt &s, const LoopUpperBound &ub) {
    forget_stores();
    llvm::Value *start = index(*s.init);
    llvm::Value *last = index(*ub.bound);
    if (!ub.inclusive) last = b_.CreateNSWSub(last, b_.getInt64(1));
    llvm::Value *trip = parallel_trip_count(b_, start, last, s.step);
    ParallelCapture cap;
    cap.name = k_.name + "_par" + std::to_string(outlined_++);
    cap.iterator = s.iterator;
    for (const poly::LArray &a : k_.arrays) {
      cap.array_names.push_back(a.name);
      cap.arrays.push_back(frame_.arrays.at(a.name).base);
    }
    for (auto &[n, v] : frame_.vars) cap.scalar_names.push_back(n), cap.scalars.push_back(v);
    Frame outer = frame_;
    emit_parallel_for(b_, m_, frame_.fn, cap, start, trip, [&](const ParallelWorker &w) {
      frame_ = Frame{};
      frame_.fn = w.fn;
      for (std::size_t i = 0; i < w.scalars.size(); ++i) frame_.vars[cap.scalar_names[i]] = w.scalars[i];
      bind_arrays(w.arrays);
      llvm::Value *step = b_.getInt64(s.step);
      llvm::Value *first = b_.CreateNSWAdd(w.start, b_.CreateNSWMul(w.begin, step));
      llvm::Value *stop = b_.CreateNSWAdd(w.start, b_.CreateNSWMul(w.end, step));
      if (vectorize(s)) vector_loop(s, first, stop, std::nullopt);
      else counted_loop(s, first, [&](llvm::Value *iv) { return b_.CreateICmpSLT(iv, stop); });
      fence_streams();
      forget_stores();  // the worker function's stores stay there
    });
    frame_ = outer;
  }

  // ---- memory ----------------------------------------------------------------------------------

  std::vector<llvm::Value *> index_list(const std::vector<poly::LExprPtr> &idx) {
    std::vector<llvm::Value *> out;
    for (const poly::LExprPtr &e : idx) out.push_back(index(*e));
    return out;
  }

  llvm::Value *offset(const ArrayView &a, const std::vector<llvm::Value *> &idx) {
    llvm::Value *off = b_.getInt64(0);
    for (std::size_t d = 0; d < idx.size(); ++d) off = b_.CreateNSWAdd(off, b_.CreateNSWMul(idx[d], a.strides[d]));
    return off;
  }

  // Element formats (lower_elements.h), in this kernel's value type.
  llvm::Type *storage_type(DType t) { return cpu::storage_type(b_, t); }
  llvm::Value *to_float(llvm::Value *v) { return v->getType()->isFloatTy() ? v : b_.CreateFPTrunc(v, b_.getFloatTy()); }
  llvm::Value *load_element(DType t, llvm::Value *p) { return cpu::load_element(b_, t, p, vt_); }
  void store_element(DType t, llvm::Value *p, llvm::Value *v) { cpu::store_element(b_, t, p, v, vt_); }
  llvm::Value *saturating_i64(llvm::Value *v) { return cpu::saturating_i64(b_, v); }

  llvm::Value *element_ptr(const ArrayView &a, llvm::Value *off) {
    return b_.CreateInBoundsGEP(storage_type(a.decl->dtype), a.base, off);
  }

  // ---- expressions -----------------------------------------------------------------------------

  /// c ? then() : otherwise(); with control flow unless both sides may be speculated.
  llvm::Value *lazy(llvm::Value *c, bool speculate, const std::function<llvm::Value *()> &then,
                    const std::function<llvm::Value *()> &otherwise) {
    if (speculate) {
      llvm::Value *t = then();
      llvm::Value *f = otherwise();
      return b_.CreateSelect(c, t, f);
    }
    auto *then_bb = llvm::BasicBlock::Create(ctx_, "sel.then", frame_.fn);
    auto *else_bb = llvm::BasicBlock::Create(ctx_, "sel.else", frame_.fn);
    auto *merge = llvm::BasicBlock::Create(ctx_, "sel.end", frame_.fn);
    b_.CreateCondBr(c, then_bb, else_bb);
    b_.SetInsertPoint(then_bb);
    llvm::Value *t = then();
    llvm::BasicBlock *then_end = b_.GetInsertBlock();
    b_.CreateBr(merge);
    b_.SetInsertPoint(else_bb);
    llvm::Value *f = otherwise();
    llvm::BasicBlock *else_end = b_.GetInsertBlock();
    b_.CreateBr(merge);
    b_.SetInsertPoint(merge);
    llvm::PHINode *phi = b_.CreatePHI(t->getType(), 2);
    phi->addIncoming(t, then_end);
    phi->addIncoming(f, else_end);
    return phi;
  }

  /// NaN-propagating min/max as the evaluator computes it: (isnan(a) || a OP b) ? a : b.
  llvm::Value *pick(llvm::Value *a, llvm::Value *b, bool max) { return emit_pick(b_, a, b, max); }

  llvm::Value *floor_div(llvm::Value *a, llvm::Value *d, bool mod) {
    llvm::Value *q = b_.CreateSDiv(a, d);
    llvm::Value *r = b_.CreateSRem(a, d);
    llvm::Value *adjust = b_.CreateAnd(b_.CreateICmpNE(r, b_.getInt64(0)),
                                       b_.CreateICmpSLT(b_.CreateXor(r, d), b_.getInt64(0)));
    if (mod) return b_.CreateSelect(adjust, b_.CreateAdd(r, d), r);
    return b_.CreateSub(q, b_.CreateZExt(adjust, i64_));
  }

  /// An expression as an i1 condition (nonzero is true).
  llvm::Value *cond(const LExpr &e) {
    if (e.kind == LExprKind::Binary && is_comparison(e.binop)) {
      const LExpr &l = *e.args[0], &r = *e.args[1];
      if (e.binop == BinOp::And || e.binop == BinOp::Or) {
        llvm::Value *a = cond(l);
        bool is_and = e.binop == BinOp::And;
        return lazy(
            a, is_speculatable(r), [&] { return is_and ? cond(r) : b_.getTrue(); },
            [&] { return is_and ? b_.getFalse() : cond(r); });
      }
      if (l.type == LType::Index) {
        llvm::Value *a = index(l), *b = index(r);
        switch (e.binop) {
        case BinOp::Lt: return b_.CreateICmpSLT(a, b);
        case BinOp::Le: return b_.CreateICmpSLE(a, b);
        case BinOp::Gt: return b_.CreateICmpSGT(a, b);
        case BinOp::Ge: return b_.CreateICmpSGE(a, b);
        case BinOp::Eq: return b_.CreateICmpEQ(a, b);
        default: return b_.CreateICmpNE(a, b);
        }
      }
      llvm::Value *a = value(l), *b = value(r);
      switch (e.binop) {
      case BinOp::Lt: return b_.CreateFCmpOLT(a, b);
      case BinOp::Le: return b_.CreateFCmpOLE(a, b);
      case BinOp::Gt: return b_.CreateFCmpOGT(a, b);
      case BinOp::Ge: return b_.CreateFCmpOGE(a, b);
      case BinOp::Eq: return b_.CreateFCmpOEQ(a, b);
      default: return b_.CreateFCmpUNE(a, b);
      }
    }
    if (e.kind == LExprKind::Unary && e.unop == compute::UnOp::Not) return b_.CreateNot(cond(*e.args[0]));
    if (e.type == LType::Index) return b_.CreateICmpNE(index(e), b_.getInt64(0));
    return b_.CreateFCmpUNE(value(e), llvm::ConstantFP::get(vt_, 0.0));
  }

  llvm::Value *index(const LExpr &e) {
    if (e.type == LType::Value) return saturating_i64(value(e));
    switch (e.kind) {
    case LExprKind::Int: return b_.getInt64(static_cast<std::uint64_t>(e.ival));
    case LExprKind::Var: return frame_.vars.at(e.name);
    case LExprKind::Unary:
      if (e.unop == compute::UnOp::Neg) return b_.CreateNSWNeg(index(*e.args[0]));
      return b_.CreateZExt(cond(e), i64_);
    case LExprKind::Binary: {
      if (is_comparison(e.binop)) return b_.CreateZExt(cond(e), i64_);
      llvm::Value *a = index(*e.args[0]), *b = index(*e.args[1]);
      switch (e.binop) {
      case BinOp::Add: return b_.CreateNSWAdd(a, b);
      case BinOp::Sub: return b_.CreateNSWSub(a, b);
      case BinOp::Mul: return b_.CreateNSWMul(a, b);
      case BinOp::Div: return floor_div(a, b, false);
      default: return floor_div(a, b, true);
      }
    }
    case LExprKind::Min:
    case LExprKind::Max: {
      llvm::Value *a = index(*e.args[0]), *b = index(*e.args[1]);
      return e.kind == LExprKind::Min ? b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, a, b)
                                      : b_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, a, b);
    }
    case LExprKind::Select: return select(e);
    case LExprKind::ToIndex: return saturating_i64(value(*e.args[0]));
    case LExprKind::Float:
    case LExprKind::Call:
    case LExprKind::Load:
    case LExprKind::GuardedLoad:
    case LExprKind::ToValue: break;
    }
    internal_error(__FILE__, __LINE__, "value-kind expression typed as an index");
  }

  llvm::Value *select(const LExpr &e) {
    llvm::Value *c = cond(*e.args[0]);
    bool spec = is_speculatable(*e.args[1]) && is_speculatable(*e.args[2]);
    auto side = [&](const LExpr &x) { return e.type == LType::Index ? index(x) : value(x); };
    return lazy(c, spec, [&] { return side(*e.args[1]); }, [&] { return side(*e.args[2]); });
  }

  llvm::Value *call(const LExpr &e) {
    std::vector<llvm::Value *> a;
    for (const poly::LExprPtr &x : e.args) a.push_back(value(*x));
    return emit_call(b_, m_, e.func, a, vt_, e.bounded_above);
  }

  llvm::Value *guarded_load(const LExpr &e) {
    const LExpr &ld = *e.args[0];
    const ArrayView &a = view(ld.name);
    std::vector<llvm::Value *> idx = index_list(ld.args);
    llvm::Value *inside = b_.getTrue();
    bool all_constant_nonempty = true;
    for (std::size_t d = 0; d < idx.size(); ++d) {
      inside = b_.CreateAnd(inside, b_.CreateICmpULT(idx[d], a.extents[d]));  // unsigned: catches negatives
      const Dim &dim = a.decl->shape[d];
      if (dim.is_symbolic() || dim.value <= 0) all_constant_nonempty = false;
    }
    llvm::Value *off = offset(a, idx);
    const LExpr &fallback = *e.args[1];
    if (all_constant_nonempty && is_speculatable(fallback)) {
      // Clamp the address so the load is always in bounds, then select: no branch in the loop.
      llvm::Value *safe = b_.CreateSelect(inside, off, b_.getInt64(0));
      llvm::Value *v = load_element(a.decl->dtype, element_ptr(a, safe));
      return b_.CreateSelect(inside, v, value(fallback));
    }
    return lazy(inside, false, [&] { return load_element(a.decl->dtype, element_ptr(a, off)); },
                [&] { return value(fallback); });
  }

  llvm::Value *value(const LExpr &e) {
    if (e.type == LType::Index) return b_.CreateSIToFP(index(e), vt_);
    switch (e.kind) {
    case LExprKind::Float: return llvm::ConstantFP::get(vt_, e.fval);
    case LExprKind::Unary:
      if (e.unop == compute::UnOp::Neg) return b_.CreateFNeg(value(*e.args[0]));
      return b_.CreateUIToFP(cond(e), vt_);
    case LExprKind::Binary: {
      if (is_comparison(e.binop)) return b_.CreateUIToFP(cond(e), vt_);
      if (const LExpr *x = vt_->isFloatTy() ? gelu_argument(e) : nullptr) return emit_gelu(b_, value(*x));
      llvm::Value *a = value(*e.args[0]), *b = value(*e.args[1]);
      switch (e.binop) {
      case BinOp::Add: return b_.CreateFAdd(a, b);
      case BinOp::Sub: return b_.CreateFSub(a, b);
      case BinOp::Mul: return b_.CreateFMul(a, b);
      case BinOp::Div: return b_.CreateFDiv(a, b);
      default: {
        // Floored modulo a - b * floor(a / b), unfused so it matches the reference.
        llvm::FastMathFlags saved = b_.getFastMathFlags();
        b_.clearFastMathFlags();
        llvm::Value *fl = b_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, b_.CreateFDiv(a, b));
        llvm::Value *r = b_.CreateFSub(a, b_.CreateFMul(b, fl));
        b_.setFastMathFlags(saved);
        return r;
      }
      }
    }
    case LExprKind::Min: return pick(value(*e.args[0]), value(*e.args[1]), false);
    case LExprKind::Max: return pick(value(*e.args[0]), value(*e.args[1]), true);
    case LExprKind::Select: return select(e);
    case LExprKind::Call: return call(e);
    case LExprKind::Load: {
      const ArrayView &a = view(e.name);
      llvm::Value *p = element_ptr(a, offset(a, index_list(e.args)));
      if (a.decl->dtype == DType::F32 && vt_->isFloatTy())
        if (llvm::Value *v = results_.find(p, vt_, e.name)) return v;
      return load_element(a.decl->dtype, p);
    }
    case LExprKind::GuardedLoad: return guarded_load(e);
    case LExprKind::ToValue: return b_.CreateSIToFP(index(*e.args[0]), vt_);
    case LExprKind::Int:
    case LExprKind::Var:
    case LExprKind::ToIndex: break;
    }
    internal_error(__FILE__, __LINE__, "index-kind expression typed as a value");
  }

  const poly::LKernel &k_;
  llvm::Module &m_;
  llvm::LLVMContext &ctx_;
  llvm::IRBuilder<> b_;
  llvm::Type *i64_, *ptr_, *vt_ = nullptr;
  Frame frame_;
  int reduction_depth_ = 0;
  int outlined_ = 0;
  std::int64_t lanes_ = 1;                ///< f32 lanes of explicit vector code
  std::string current_vector_iterator_;  ///< the iterator of the vector loop being emitted
};

}  // namespace

std::unique_ptr<llvm::Module> lower_to_llvm(const std::vector<poly::LKernel> &kernels, llvm::LLVMContext &context,
                                            const std::string &module_name) {
  std::set<std::string> names;
  for (const poly::LKernel &k : kernels) {
    check_kernel(k);
    if (!names.insert(k.name).second) throw UserError("two kernels are named '" + k.name + "'");
  }
  // Optimisation remarks and warnings ("loop not vectorized" when a vector
  // mark cannot be honoured) are not the user's business; errors still print.
  context.setDiagnosticHandlerCallBack(
      [](const llvm::DiagnosticInfo *info, void *) {
        if (info->getSeverity() != llvm::DS_Error) return;
        llvm::DiagnosticPrinterRawOStream printer(llvm::errs());
        info->print(printer);
        llvm::errs() << "\n";
      },
      nullptr);
  auto m = std::make_unique<llvm::Module>(module_name, context);
  for (const poly::LKernel &k : kernels) KernelLowering(k, *m).run();
  for (llvm::Function &f : *m) hoist_epilogues(f);
  std::string err;
  llvm::raw_string_ostream os(err);
  ATOLL_ASSERT(!llvm::verifyModule(*m, &os), "invalid LLVM IR from the loop AST: " + os.str());
  return m;
}

}  // namespace atl::cpu
