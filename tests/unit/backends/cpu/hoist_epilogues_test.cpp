// Unit tests of hoist_epilogues: an epilogue's store moves up to the accumulator's store it reads, and stays where anything between may see the difference.
#include "backends/cpu/hoist_epilogues.h"

#include <doctest/doctest.h>

#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>

#include <memory>

namespace {

/// void f(ptr noalias y, ptr noalias x, i64 i, i1 c): an accumulator stored
/// to y[i] in block `acc`, other work in `mid`, the epilogue in `epi`.
struct Fixture {
  llvm::LLVMContext ctx;
  std::unique_ptr<llvm::Module> m = std::make_unique<llvm::Module>("t", ctx);
  llvm::IRBuilder<> b{ctx};
  llvm::Function *f = nullptr;
  llvm::Value *y = nullptr, *x = nullptr, *i = nullptr, *c = nullptr;
  llvm::Type *vec = llvm::FixedVectorType::get(llvm::Type::getFloatTy(ctx), 8);
  llvm::BasicBlock *acc = nullptr, *mid = nullptr, *epi = nullptr;
  llvm::Value *v = nullptr;        ///< the accumulator
  llvm::StoreInst *s0 = nullptr;   ///< its store

  Fixture() {
    auto *ptr = llvm::PointerType::get(ctx, 0);
    f = llvm::Function::Create(llvm::FunctionType::get(llvm::Type::getVoidTy(ctx),
                                                       {ptr, ptr, b.getInt64Ty(), b.getInt1Ty()}, false),
                               llvm::Function::ExternalLinkage, "f", m.get());
    f->addParamAttr(0, llvm::Attribute::NoAlias);
    f->addParamAttr(1, llvm::Attribute::NoAlias);
    y = f->getArg(0), x = f->getArg(1), i = f->getArg(2), c = f->getArg(3);
    acc = llvm::BasicBlock::Create(ctx, "acc", f);
    mid = llvm::BasicBlock::Create(ctx, "mid", f);
    epi = llvm::BasicBlock::Create(ctx, "epi", f);
    b.SetInsertPoint(acc);
    llvm::Value *in = b.CreateAlignedLoad(vec, elem(x, 0), llvm::Align(4));
    v = b.CreateFMul(in, in, "acc0");
    s0 = b.CreateAlignedStore(v, elem(y, 0), llvm::Align(4));
    b.CreateBr(mid);
    b.SetInsertPoint(mid);
  }
  /// &base[i + k], built anew each time, as the lowering does.
  llvm::Value *elem(llvm::Value *base, std::int64_t k) {
    return b.CreateInBoundsGEP(b.getFloatTy(), base, b.CreateNSWAdd(i, b.getInt64(k)));
  }
  /// min(max(a, 0), 6) as the lowering writes a Clip.
  llvm::Value *clip(llvm::Value *a) {
    llvm::Constant *zero = llvm::Constant::getNullValue(vec), *six = llvm::ConstantFP::get(vec, 6.0);
    llvm::Value *lo = b.CreateSelect(b.CreateFCmpOGT(zero, a), zero, a);
    return b.CreateSelect(b.CreateFCmpOLT(six, lo), six, lo);
  }
  /// Ends `mid` (branching to `epi`) and `epi` with the epilogue's store.
  llvm::StoreInst *finish_with_epilogue() {
    b.CreateBr(epi);
    b.SetInsertPoint(epi);
    llvm::StoreInst *s1 = b.CreateAlignedStore(clip(v), elem(y, 0), llvm::Align(4));
    b.CreateRetVoid();
    return s1;
  }
  int stores_to(llvm::BasicBlock *bb) {
    int n = 0;
    for (llvm::Instruction &ins : *bb) n += llvm::isa<llvm::StoreInst>(ins);
    return n;
  }
  bool valid() { return !llvm::verifyFunction(*f, &llvm::errs()); }
};

}  // namespace

TEST_SUITE("backends") {

TEST_CASE("hoist_epilogues: the epilogue runs where its accumulator is stored") {
  Fixture t;
  // Between the two: other elements of y, and reads of x.
  t.b.CreateAlignedStore(t.v, t.elem(t.y, 8), llvm::Align(4));
  t.b.CreateAlignedLoad(t.vec, t.elem(t.x, 8), llvm::Align(4));
  t.finish_with_epilogue();
  CHECK(atl::cpu::hoist_epilogues(*t.f) == 1);
  CHECK(t.valid());
  CHECK(t.stores_to(t.epi) == 0);
  CHECK(t.stores_to(t.acc) == 1);
  // The accumulator's store now writes the clipped value.
  auto *sel = llvm::dyn_cast<llvm::SelectInst>(t.s0->getValueOperand());
  REQUIRE(sel != nullptr);
  CHECK(sel->getParent() == t.acc);
}

TEST_CASE("hoist_epilogues: two epilogues of one element (bias, then Clip) both move") {
  Fixture t;
  t.b.CreateBr(t.epi);
  t.b.SetInsertPoint(t.epi);
  llvm::Value *bias = t.b.CreateAlignedLoad(t.vec, t.elem(t.x, 64), llvm::Align(4));  // x is never written
  llvm::Value *sum = t.b.CreateFAdd(t.v, bias);
  t.b.CreateAlignedStore(sum, t.elem(t.y, 0), llvm::Align(4));
  t.b.CreateAlignedStore(t.clip(sum), t.elem(t.y, 0), llvm::Align(4));
  t.b.CreateRetVoid();
  CHECK(atl::cpu::hoist_epilogues(*t.f) == 2);
  CHECK(t.valid());
  CHECK(t.stores_to(t.epi) == 0);
  CHECK(llvm::isa<llvm::SelectInst>(t.s0->getValueOperand()));
}

TEST_CASE("hoist_epilogues: nothing moves past what may see the element") {
  SUBCASE("a read of the element") {
    Fixture t;
    t.b.CreateAlignedLoad(t.vec, t.elem(t.y, 4), llvm::Align(4));  // overlaps y[i .. i + 8)
    t.finish_with_epilogue();
    CHECK(atl::cpu::hoist_epilogues(*t.f) == 0);
  }
  SUBCASE("another write of the element") {
    Fixture t;
    t.b.CreateAlignedStore(t.b.CreateAlignedLoad(t.vec, t.elem(t.x, 32), llvm::Align(4)), t.elem(t.y, 0),
                           llvm::Align(4));
    t.finish_with_epilogue();
    CHECK(atl::cpu::hoist_epilogues(*t.f) == 0);
  }
  SUBCASE("an address not comparable") {
    Fixture t;
    t.b.CreateAlignedStore(t.v, t.b.CreateInBoundsGEP(t.b.getFloatTy(), t.y, t.b.CreateMul(t.i, t.i)),
                           llvm::Align(4));
    t.finish_with_epilogue();
    CHECK(atl::cpu::hoist_epilogues(*t.f) == 0);
  }
  SUBCASE("a call") {
    Fixture t;
    llvm::FunctionCallee g = t.m->getOrInsertFunction("g", t.b.getVoidTy());
    t.b.CreateCall(g);
    t.finish_with_epilogue();
    CHECK(atl::cpu::hoist_epilogues(*t.f) == 0);
  }
  SUBCASE("an epilogue that does not always run") {
    Fixture t;
    llvm::BasicBlock *out = llvm::BasicBlock::Create(t.ctx, "out", t.f);
    t.b.CreateCondBr(t.c, t.epi, out);
    t.b.SetInsertPoint(t.epi);
    t.b.CreateAlignedStore(t.clip(t.v), t.elem(t.y, 0), llvm::Align(4));
    t.b.CreateBr(out);
    t.b.SetInsertPoint(out);
    t.b.CreateRetVoid();
    CHECK(atl::cpu::hoist_epilogues(*t.f) == 0);
  }
  SUBCASE("an epilogue that reads a buffer the function writes") {
    Fixture t;
    t.b.CreateBr(t.epi);
    t.b.SetInsertPoint(t.epi);
    llvm::Value *r = t.b.CreateAlignedLoad(t.vec, t.elem(t.y, 64), llvm::Align(4));
    t.b.CreateAlignedStore(t.b.CreateFAdd(t.v, r), t.elem(t.y, 0), llvm::Align(4));
    t.b.CreateRetVoid();
    CHECK(atl::cpu::hoist_epilogues(*t.f) == 0);
  }
}

}  // TEST_SUITE
