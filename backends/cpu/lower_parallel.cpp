// Outlined parallel loops: NAME_body (typed, noalias arrays), the trampoline NAME(ctx, begin, end) and atoll_parallel_for.
#include "backends/cpu/lower_parallel.h"

#include <llvm/IR/BasicBlock.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>

namespace atl::cpu {

llvm::Value *parallel_trip_count(llvm::IRBuilderBase &b, llvm::Value *start, llvm::Value *last, std::int64_t step) {
  llvm::Value *span = b.CreateNSWSub(last, start);
  return b.CreateSelect(b.CreateICmpSLT(span, b.getInt64(0)), b.getInt64(0),
                        b.CreateNSWAdd(b.CreateSDiv(span, b.getInt64(step)), b.getInt64(1)));
}

void emit_parallel_for(llvm::IRBuilder<> &b, llvm::Module &m, llvm::Function *caller, const ParallelCapture &cap,
                       llvm::Value *start, llvm::Value *trip, const std::function<void(const ParallelWorker &)> &emit_body) {
  llvm::LLVMContext &ctx = m.getContext();
  llvm::Type *i64 = b.getInt64Ty(), *ptr = b.getPtrTy();
  const std::size_t na = cap.arrays.size(), ns = cap.scalars.size();

  // The worker: typed, noalias arrays, so inlining it into the trampoline keeps alias facts.
  std::vector<llvm::Type *> wargs(na, ptr);
  wargs.insert(wargs.end(), ns + 3, i64);
  llvm::Function *worker = llvm::Function::Create(llvm::FunctionType::get(b.getVoidTy(), wargs, false),
                                                  llvm::Function::InternalLinkage, cap.name + "_body", m);
  worker->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::IRBuilderBase::InsertPoint ip = b.saveIP();
  b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", worker));
  ParallelWorker w;
  w.fn = worker;
  unsigned at = 0;
  for (std::size_t i = 0; i < na; ++i, ++at) {
    worker->addParamAttr(at, llvm::Attribute::NoAlias);
    worker->getArg(at)->setName(cap.array_names[i]);
    w.arrays.push_back(worker->getArg(at));
  }
  for (std::size_t i = 0; i < ns; ++i, ++at) {
    worker->getArg(at)->setName(cap.scalar_names[i]);
    w.scalars.push_back(worker->getArg(at));
  }
  w.start = worker->getArg(at++);
  w.begin = worker->getArg(at++);
  w.end = worker->getArg(at++);
  w.start->setName(cap.iterator + ".start");
  w.begin->setName("begin");
  w.end->setName("end");
  emit_body(w);
  b.CreateRetVoid();

  // The trampoline atoll_parallel_for calls: unpack ctx, call the worker.
  llvm::Type *ctx_ty = llvm::ArrayType::get(i64, na + ns + 1);
  llvm::Function *tramp = llvm::Function::Create(llvm::FunctionType::get(b.getVoidTy(), {ptr, i64, i64}, false),
                                                 llvm::Function::InternalLinkage, cap.name, m);
  tramp->addFnAttr(llvm::Attribute::NoUnwind);
  b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", tramp));
  std::vector<llvm::Value *> call_args;
  for (std::size_t i = 0; i < na + ns + 1; ++i) {
    llvm::Value *slot = b.CreateConstInBoundsGEP2_64(ctx_ty, tramp->getArg(0), 0, i);
    call_args.push_back(b.CreateLoad(i < na ? ptr : i64, slot));
  }
  call_args.push_back(tramp->getArg(1));
  call_args.push_back(tramp->getArg(2));
  b.CreateCall(worker, call_args);
  b.CreateRetVoid();

  // Back in the caller: fill ctx (an entry-block alloca) and call the runtime.
  b.restoreIP(ip);
  llvm::IRBuilder<> entry(&caller->getEntryBlock(), caller->getEntryBlock().begin());
  llvm::Value *c = entry.CreateAlloca(ctx_ty, nullptr, cap.name + ".ctx");
  for (std::size_t i = 0; i < na; ++i) b.CreateStore(cap.arrays[i], b.CreateConstInBoundsGEP2_64(ctx_ty, c, 0, i));
  for (std::size_t i = 0; i < ns; ++i) b.CreateStore(cap.scalars[i], b.CreateConstInBoundsGEP2_64(ctx_ty, c, 0, na + i));
  b.CreateStore(start, b.CreateConstInBoundsGEP2_64(ctx_ty, c, 0, na + ns));
  llvm::FunctionCallee pf = m.getOrInsertFunction(
      "atoll_parallel_for", llvm::FunctionType::get(b.getVoidTy(), {ptr, ptr, i64, i64}, false));
  b.CreateCall(pf, {tramp, c, b.getInt64(0), trip});
}

}  // namespace atl::cpu
