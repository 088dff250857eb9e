// Moves an in-place epilogue up to the store of the accumulator it reads (each tile row's epilogue runs when the row is final).
#include "backends/cpu/hoist_epilogues.h"

#include "backends/cpu/forward_inits.h"

#include <llvm/Analysis/PostDominators.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <vector>

namespace atl::cpu {

namespace {

/// The address and size an instruction reads or writes; nullopt for an
/// instruction without memory effects; an access with a null pointer when
/// it may touch anything (a call).
struct Access {
  const llvm::Value *ptr = nullptr;
  std::int64_t bytes = 0;
};

std::optional<Access> access_of(const llvm::Instruction &x, const llvm::DataLayout &dl) {
  if (!x.mayReadOrWriteMemory()) return std::nullopt;
  if (const auto *ld = llvm::dyn_cast<llvm::LoadInst>(&x))
    return ld->isVolatile() ? Access{} : Access{ld->getPointerOperand(), store_size(ld->getType(), dl)};
  if (const auto *st = llvm::dyn_cast<llvm::StoreInst>(&x))
    return st->isVolatile() ? Access{}
                            : Access{st->getPointerOperand(), store_size(st->getValueOperand()->getType(), dl)};
  if (const auto *ii = llvm::dyn_cast<llvm::IntrinsicInst>(&x)) {
    switch (ii->getIntrinsicID()) {
    case llvm::Intrinsic::prefetch: return std::nullopt;  // a hint: no value changes
    case llvm::Intrinsic::masked_load: return Access{ii->getArgOperand(0), store_size(ii->getType(), dl)};
    case llvm::Intrinsic::masked_store:
      return Access{ii->getArgOperand(1), store_size(ii->getArgOperand(0)->getType(), dl)};
    default: break;
    }
  }
  return Access{};
}

/// A buffer that nothing else names: a noalias argument or a local.
bool own_object(const llvm::Value *o) {
  if (const auto *a = llvm::dyn_cast<llvm::Argument>(o)) return a->hasNoAliasAttr();
  return llvm::isa<llvm::AllocaInst>(o);
}

/// True when `x` provably leaves the `bytes` bytes at `ptr` alone.
bool leaves_alone(const llvm::Instruction &x, const llvm::Value *ptr, std::int64_t bytes, const llvm::DataLayout &dl) {
  std::optional<Access> a = access_of(x, dl);
  if (!a) return true;
  if (!a->ptr) return false;
  const llvm::Value *oa = llvm::getUnderlyingObject(a->ptr), *ob = llvm::getUnderlyingObject(ptr);
  if (oa != ob) return own_object(oa) && own_object(ob);
  std::optional<std::int64_t> d = byte_difference(a->ptr, ptr);  // a - ptr
  return d && (*d >= bytes || *d + a->bytes <= 0);
}

class Hoister {
public:
  explicit Hoister(llvm::Function &f)
      : f_(f), dl_(f.getParent()->getDataLayout()), dt_(f), pdt_(f) {
    // The buffers the function writes (loads of others may move freely).
    for (llvm::BasicBlock &bb : f)
      for (llvm::Instruction &x : bb) {
        std::optional<Access> a = access_of(x, dl_);
        if (!a || !x.mayWriteToMemory()) continue;
        if (!a->ptr) writes_anything_ = true;
        else written_.insert(llvm::getUnderlyingObject(a->ptr));
      }
  }

  int run() {
    std::vector<llvm::StoreInst *> stores;
    for (llvm::BasicBlock &bb : f_)
      for (llvm::Instruction &x : bb)
        if (auto *st = llvm::dyn_cast<llvm::StoreInst>(&x); st && st->isSimple()) stores.push_back(st);
    int moved = 0;
    for (llvm::StoreInst *s1 : stores) moved += hoist(s1);
    return moved;
  }

private:
  /// S1's value, computed at S0 and stored there; S1 erased.
  bool hoist(llvm::StoreInst *s1) {
    if (s1->getMetadata(llvm::LLVMContext::MD_nontemporal)) return false;
    llvm::StoreInst *s0 = anchor(s1);
    if (!s0) return false;
    std::map<llvm::Value *, llvm::Value *> made;
    // An epilogue already moved to S0: S0 stores its value (bias, then Clip).
    if (auto it = held_by_.find(s0); it != held_by_.end())
      for (llvm::Value *value : it->second) made[value] = s0->getValueOperand();
    int budget = 64;
    std::vector<llvm::Instruction *> clones;
    llvm::Value *v = materialize(s1->getValueOperand(), s0, made, budget, clones);
    if (!v) {
      for (auto it = clones.rbegin(); it != clones.rend(); ++it) (*it)->eraseFromParent();
      return false;
    }
    std::vector<llvm::Value *> &at_s0 = held_by_[s0];
    holds_[s1->getValueOperand()] = s0;
    at_s0.push_back(s1->getValueOperand());
    if (auto it = held_by_.find(s1); it != held_by_.end()) {  // what S1 wrote, S0 writes now
      for (llvm::Value *value : it->second) {
        holds_[value] = s0;
        at_s0.push_back(value);
      }
      held_by_.erase(it);
    }
    s0->setOperand(0, v);
    s0->setAlignment(std::min(s0->getAlign(), s1->getAlign()));
    s1->eraseFromParent();
    return true;
  }

  /// The store S1 can move to: it writes exactly S1's element a value that
  /// S1's computation uses, dominates S1 and is post-dominated by it, and
  /// no path between them touches the element.
  llvm::StoreInst *anchor(llvm::StoreInst *s1) {
    std::set<llvm::Value *> seen;
    std::vector<llvm::Value *> work{s1->getValueOperand()};
    int budget = 64;
    while (!work.empty() && budget-- > 0) {
      llvm::Value *v = work.back();
      work.pop_back();
      if (!seen.insert(v).second) continue;
      std::vector<llvm::StoreInst *> candidates;
      for (llvm::User *u : v->users())
        if (auto *st = llvm::dyn_cast<llvm::StoreInst>(u); st && st->getValueOperand() == v) candidates.push_back(st);
      if (auto it = holds_.find(v); it != holds_.end()) candidates.push_back(it->second);
      for (llvm::StoreInst *s0 : candidates) {
        if (s0 == s1 || !s0->isSimple()) continue;
        if (v->getType() != s1->getValueOperand()->getType()) continue;
        std::optional<std::int64_t> d = byte_difference(s0->getPointerOperand(), s1->getPointerOperand());
        if (!d || *d != 0) continue;
        if (!dt_.dominates(s0, s1) || !pdt_.dominates(s1->getParent(), s0->getParent())) continue;
        if (quiet_between(s0, s1)) return s0;
      }
      if (auto *x = llvm::dyn_cast<llvm::Instruction>(v); x && !llvm::isa<llvm::PHINode>(x))
        for (llvm::Value *op : x->operands()) work.push_back(op);
    }
    return nullptr;
  }

  /// Nothing after S0 and before S1, on any path, touches S1's element; no
  /// path between them passes S0's block again.
  bool quiet_between(llvm::StoreInst *s0, llvm::StoreInst *s1) {
    const llvm::Value *p = s1->getPointerOperand();
    const std::int64_t bytes = store_size(s1->getValueOperand()->getType(), dl_);
    auto range_ok = [&](llvm::BasicBlock::iterator from, llvm::BasicBlock::iterator to) {
      for (auto it = from; it != to; ++it)
        if (!leaves_alone(*it, p, bytes, dl_)) return false;
      return true;
    };
    llvm::BasicBlock *b0 = s0->getParent(), *b1 = s1->getParent();
    if (b0 == b1) return range_ok(std::next(s0->getIterator()), s1->getIterator());
    if (!range_ok(std::next(s0->getIterator()), b0->end()) || !range_ok(b1->begin(), s1->getIterator()))
      return false;
    std::set<llvm::BasicBlock *> seen;
    std::vector<llvm::BasicBlock *> work(llvm::succ_begin(b0), llvm::succ_end(b0));
    while (!work.empty()) {
      llvm::BasicBlock *b = work.back();
      work.pop_back();
      if (b == b1 || !seen.insert(b).second) continue;
      if (b == b0 || seen.size() > 4096) return false;  // a cycle through S0, or too far
      if (!range_ok(b->begin(), b->end())) return false;
      for (llvm::BasicBlock *s : llvm::successors(b)) work.push_back(s);
    }
    return true;
  }

  /// `v` as a value available at `at`: itself when it dominates `at`, else a
  /// copy of its computation inserted before `at` (no phis, no memory
  /// effects except loads of buffers the function never writes).
  llvm::Value *materialize(llvm::Value *v, llvm::Instruction *at, std::map<llvm::Value *, llvm::Value *> &made,
                           int &budget, std::vector<llvm::Instruction *> &clones) {
    auto *x = llvm::dyn_cast<llvm::Instruction>(v);
    if (!x || dt_.dominates(x, at)) return v;
    if (auto it = made.find(v); it != made.end()) return it->second;
    if (--budget < 0 || llvm::isa<llvm::PHINode>(x) || x->isTerminator() || x->mayHaveSideEffects() ||
        x->isEHPad())
      return nullptr;
    if (x->mayReadOrWriteMemory()) {
      auto *ld = llvm::dyn_cast<llvm::LoadInst>(x);
      if (!ld || !ld->isSimple() || writes_anything_ ||
          written_.count(llvm::getUnderlyingObject(ld->getPointerOperand())))
        return nullptr;
    }
    llvm::Instruction *c = x->clone();
    for (unsigned i = 0; i < c->getNumOperands(); ++i) {
      llvm::Value *op = materialize(c->getOperand(i), at, made, budget, clones);
      if (!op) {
        c->deleteValue();
        return nullptr;
      }
      c->setOperand(i, op);
    }
    c->insertBefore(at);
    clones.push_back(c);
    made[v] = c;
    return c;
  }

  llvm::Function &f_;
  const llvm::DataLayout &dl_;
  llvm::DominatorTree dt_;
  llvm::PostDominatorTree pdt_;
  std::set<const llvm::Value *> written_;
  bool writes_anything_ = false;
  /// The values of the epilogue stores moved so far, and the store that now writes each.
  std::map<llvm::Value *, llvm::StoreInst *> holds_;
  /// The same, by store: the values each store now writes.
  std::map<llvm::StoreInst *, std::vector<llvm::Value *>> held_by_;
};

}  // namespace

int hoist_epilogues(llvm::Function &f) {
  if (f.isDeclaration()) return 0;
  return Hoister(f).run();
}

}  // namespace atl::cpu
