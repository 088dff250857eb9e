// Unit tests of forward_inits: address differences through the lowering's arithmetic, which pending stores an accumulator may take, and which results an epilogue may read from registers.
#include "backends/cpu/forward_inits.h"

#include <doctest/doctest.h>

#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Operator.h>

#include <memory>

namespace {

/// void f(ptr a, ptr b, i64 i, i64 j) with the builder at its entry.
struct Fixture {
  llvm::LLVMContext ctx;
  std::unique_ptr<llvm::Module> m = std::make_unique<llvm::Module>("t", ctx);
  llvm::IRBuilder<> b{ctx};
  llvm::Function *f = nullptr;
  llvm::Value *a = nullptr, *other = nullptr, *i = nullptr, *j = nullptr;
  llvm::Type *vec = llvm::FixedVectorType::get(llvm::Type::getFloatTy(ctx), 16);

  Fixture() {
    auto *ptr = llvm::PointerType::get(ctx, 0);
    auto *i64 = llvm::Type::getInt64Ty(ctx);
    f = llvm::Function::Create(llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr, ptr, i64, i64}, false),
                               llvm::Function::ExternalLinkage, "f", m.get());
    b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", f));
    a = f->getArg(0), other = f->getArg(1), i = f->getArg(2), j = f->getArg(3);
  }
  /// &a[(i * 112 + j) + k], built anew each time, as the lowering does.
  llvm::Value *elem(llvm::Value *base, std::int64_t k) {
    llvm::Value *row = b.CreateNSWMul(i, b.getInt64(112));
    llvm::Value *off = b.CreateNSWAdd(b.CreateNSWAdd(row, j), b.getInt64(k));
    return b.CreateInBoundsGEP(b.getFloatTy(), base, off);
  }
  llvm::StoreInst *store_zero(llvm::Value *p) { return b.CreateAlignedStore(llvm::Constant::getNullValue(vec), p, llvm::Align(4)); }
};

}  // namespace

TEST_SUITE("backends") {

TEST_CASE("forward_inits: byte differences of addresses built twice") {
  Fixture t;
  CHECK(atl::cpu::byte_difference(t.elem(t.a, 0), t.elem(t.a, 0)) == 0);
  CHECK(atl::cpu::byte_difference(t.elem(t.a, 16), t.elem(t.a, 0)) == 64);
  CHECK(atl::cpu::byte_difference(t.elem(t.a, 16), t.elem(t.a, 32)) == -64);
  // A disjoint or (instcombine's form of an add) is an add; other ors are not.
  llvm::Value *sum = t.b.CreateAdd(t.i, t.j);
  llvm::Value *dis = t.b.CreateOr(t.i, t.j);
  llvm::cast<llvm::PossiblyDisjointInst>(dis)->setIsDisjoint(true);
  CHECK(atl::cpu::byte_difference(sum, dis) == 0);
  CHECK_FALSE(atl::cpu::byte_difference(sum, t.b.CreateOr(t.i, t.j)).has_value());
  // Another variable, another base: no constant difference.
  CHECK_FALSE(atl::cpu::byte_difference(t.elem(t.a, 0), t.b.CreateGEP(t.b.getFloatTy(), t.a, t.j)).has_value());
  CHECK_FALSE(atl::cpu::byte_difference(t.elem(t.a, 0), t.elem(t.other, 0)).has_value());
}

TEST_CASE("forward_inits: an accumulator takes the store to its element, at its loop depth") {
  Fixture t;
  atl::cpu::PendingInits p;
  llvm::StoreInst *s0 = t.store_zero(t.elem(t.a, 0));
  llvm::StoreInst *s1 = t.store_zero(t.elem(t.a, 16));
  p.note(s0, "a"), p.note(s1, "a");
  llvm::BasicBlock *bb = t.b.GetInsertBlock();
  CHECK(bb->size() == 2 + 2 * 4);
  llvm::Value *v = p.take(t.elem(t.a, 16), t.vec, "a");
  REQUIRE(v != nullptr);
  CHECK(llvm::isa<llvm::Constant>(v));
  // The store is gone; the other stays and is taken next.
  CHECK(p.take(t.elem(t.a, 16), t.vec, "a") == nullptr);
  CHECK(p.take(t.elem(t.a, 0), t.vec, "a") != nullptr);
  CHECK(p.take(t.elem(t.a, 0), t.vec, "a") == nullptr);
}

TEST_CASE("forward_inits: an overlapping or incomparable later store forwards nothing") {
  Fixture t;
  atl::cpu::PendingInits p;
  p.note(t.store_zero(t.elem(t.a, 0)), "a");
  p.note(t.store_zero(t.elem(t.a, 8)), "a");  // overlaps [0, 16) by half
  CHECK(p.take(t.elem(t.a, 0), t.vec, "a") == nullptr);
  p.clear();
  p.note(t.store_zero(t.elem(t.a, 0)), "a");
  p.note(t.b.CreateAlignedStore(llvm::Constant::getNullValue(t.vec), t.b.CreateGEP(t.b.getFloatTy(), t.a, t.j), llvm::Align(4)), "a");
  CHECK(p.take(t.elem(t.a, 0), t.vec, "a") == nullptr);
  // Another array's store is another buffer: looked past.
  p.clear();
  p.note(t.store_zero(t.elem(t.a, 0)), "a");
  p.note(t.store_zero(t.elem(t.other, 0)), "o");
  CHECK(p.take(t.elem(t.a, 0), t.vec, "a") != nullptr);
  // Scalar accumulator inside a vector store: the types differ.
  p.clear();
  p.note(t.store_zero(t.elem(t.a, 0)), "a");
  CHECK(p.take(t.elem(t.a, 0), t.b.getFloatTy(), "a") == nullptr);
}

TEST_CASE("forward_inits: stores inside a loop body are forgotten at its end; outer ones are not taken inside") {
  Fixture t;
  atl::cpu::PendingInits p;
  p.note(t.store_zero(t.elem(t.a, 0)), "a");
  p.enter();
  CHECK(p.take(t.elem(t.a, 0), t.vec, "a") == nullptr);  // once before the loop, not once per iteration
  p.note(t.store_zero(t.elem(t.a, 16)), "a");
  p.leave();
  CHECK(p.take(t.elem(t.a, 16), t.vec, "a") == nullptr);
  // The loop stored to "a" (and may have read a[0] before: the failed take
  // above is a load): a[0]'s store before it is neither forwarded nor erased.
  CHECK(p.take(t.elem(t.a, 0), t.vec, "a") == nullptr);
  // A loop that stores only to another array leaves "a"'s stores takeable.
  p.note(t.store_zero(t.elem(t.a, 0)), "a");
  p.enter();
  p.note(t.store_zero(t.elem(t.other, 0)), "o");
  p.leave();
  CHECK(p.take(t.elem(t.other, 0), t.vec, "o") == nullptr);
  CHECK(p.take(t.elem(t.a, 0), t.vec, "a") != nullptr);
  // A promoted loop keeps only its own accumulator arrays' stores.
  p.note(t.store_zero(t.elem(t.a, 0)), "a");
  p.note(t.store_zero(t.elem(t.other, 0)), "o");
  p.keep_only({"a"});
  CHECK(p.take(t.elem(t.other, 0), t.vec, "o") == nullptr);
  CHECK(p.take(t.elem(t.a, 0), t.vec, "a") != nullptr);
}

TEST_CASE("forward_inits: an epilogue reads a tile's results, which stay stored, until their array may be written") {
  Fixture t;
  atl::cpu::ForwardedResults r;
  llvm::StoreInst *s0 = t.store_zero(t.elem(t.a, 0));
  llvm::StoreInst *s1 = t.store_zero(t.elem(t.a, 16));
  r.note(s0, "a"), r.note(s1, "a");
  // Read any number of times; nothing is erased.
  CHECK(r.find(t.elem(t.a, 16), t.vec, "a") == s1->getValueOperand());
  CHECK(r.find(t.elem(t.a, 16), t.vec, "a") == s1->getValueOperand());
  CHECK(r.find(t.elem(t.a, 0), t.vec, "a") == s0->getValueOperand());
  CHECK(s0->getParent() != nullptr);
  // Not the element of a store, a partial overlap, another type: nothing.
  CHECK(r.find(t.elem(t.a, 32), t.vec, "a") == nullptr);
  CHECK(r.find(t.elem(t.a, 8), t.vec, "a") == nullptr);
  CHECK(r.find(t.elem(t.a, 0), t.b.getFloatTy(), "a") == nullptr);
  // Another array's results are looked past; a write to "a" forgets a's.
  r.note(t.store_zero(t.elem(t.other, 0)), "o");
  CHECK(r.find(t.elem(t.a, 0), t.vec, "a") != nullptr);
  r.forget("a");
  CHECK(r.find(t.elem(t.a, 0), t.vec, "a") == nullptr);
  CHECK(r.find(t.elem(t.other, 0), t.vec, "o") != nullptr);
  // A store to the array forgets what it may overlap, not what it provably misses
  // (an epilogue that writes in place: Y = max(Y, 0) vector by vector).
  r.clear();
  r.note(t.store_zero(t.elem(t.a, 0)), "a");
  r.note(t.store_zero(t.elem(t.a, 16)), "a");
  r.note(t.store_zero(t.elem(t.a, 32)), "a");
  r.overwrite(t.elem(t.a, 0), t.vec, "a");
  CHECK(r.find(t.elem(t.a, 0), t.vec, "a") == nullptr);
  CHECK(r.find(t.elem(t.a, 16), t.vec, "a") != nullptr);
  r.overwrite(t.elem(t.a, 20), t.b.getFloatTy(), "a");
  CHECK(r.find(t.elem(t.a, 16), t.vec, "a") == nullptr);
  CHECK(r.find(t.elem(t.a, 32), t.vec, "a") != nullptr);
  r.overwrite(t.b.CreateGEP(t.b.getFloatTy(), t.a, t.j), t.vec, "a");
  CHECK(r.find(t.elem(t.a, 32), t.vec, "a") == nullptr);
  // A newer store of unknown address to the array hides the older ones.
  r.note(t.store_zero(t.elem(t.a, 0)), "a");
  r.note(t.b.CreateAlignedStore(llvm::Constant::getNullValue(t.vec), t.b.CreateGEP(t.b.getFloatTy(), t.a, t.j), llvm::Align(4)), "a");
  CHECK(r.find(t.elem(t.a, 0), t.vec, "a") == nullptr);
}

TEST_CASE("forward_inits: results are read only at the loop depth they were stored at") {
  Fixture t;
  atl::cpu::ForwardedResults r;
  r.note(t.store_zero(t.elem(t.a, 0)), "a");
  r.enter();
  CHECK(r.find(t.elem(t.a, 0), t.vec, "a") == nullptr);  // a loop body may run after its own later stores
  r.note(t.store_zero(t.elem(t.a, 16)), "a");
  CHECK(r.find(t.elem(t.a, 16), t.vec, "a") != nullptr);
  r.leave();
  CHECK(r.find(t.elem(t.a, 16), t.vec, "a") == nullptr);
  // The loop wrote "a" (its addresses may move with its iterator): a[0] is not read from a register.
  CHECK(r.find(t.elem(t.a, 0), t.vec, "a") == nullptr);
  r.note(t.store_zero(t.elem(t.a, 0)), "a");
  r.enter();
  r.note(t.store_zero(t.elem(t.other, 0)), "o");
  r.leave();
  CHECK(r.find(t.elem(t.a, 0), t.vec, "a") != nullptr);  // after a sibling loop that did not write "a"
  r.clear();
  CHECK(r.find(t.elem(t.a, 0), t.vec, "a") == nullptr);
}

}  // TEST_SUITE
