// Outlined parallel loops in LLVM IR: the body function, its trampoline and the call into the runtime thread pool.
#pragma once

#include <llvm/IR/IRBuilder.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace atl::cpu {

/// What a parallel loop takes from the function it leaves: every array and
/// every scalar in scope (i64), by value.
struct ParallelCapture {
  std::string name;                       ///< NAME: trampoline NAME, body NAME_body
  std::vector<std::string> array_names;   ///< in kernel order
  std::vector<llvm::Value *> arrays;      ///< their pointers in the caller
  std::vector<std::string> scalar_names;
  std::vector<llvm::Value *> scalars;     ///< their i64 values in the caller
  std::string iterator;                   ///< the loop's iterator (names the start argument)
};

/// The outlined body `void NAME_body(ptr noalias arrays..., i64 scalars..., i64 start, i64 begin, i64 end)`,
/// run over the iteration numbers [begin, end) of a loop whose first value is start.
struct ParallelWorker {
  llvm::Function *fn = nullptr;
  std::vector<llvm::Value *> arrays;
  std::vector<llvm::Value *> scalars;
  llvm::Value *start = nullptr, *begin = nullptr, *end = nullptr;
};

/// Iterations of `for (i = start; i <= last; i += step)` (0 when empty), step > 0.
llvm::Value *parallel_trip_count(llvm::IRBuilderBase &b, llvm::Value *start, llvm::Value *last, std::int64_t step);

/// Outlines a parallel loop of `trip` iterations starting at `start`:
/// creates NAME_body and calls `emit_body` with the builder at the end of its
/// entry block (it emits the loop and leaves the builder in an unterminated
/// block, where a return is added); creates the trampoline
/// `void NAME(ptr ctx, i64 begin, i64 end)` that unpacks ctx (an i64 array:
/// arrays, scalars, start) and calls NAME_body; then, back at the builder's
/// original insertion point in `caller`, fills ctx (an entry-block alloca) and
/// calls `atoll_parallel_for(NAME, ctx, 0, trip)`.
void emit_parallel_for(llvm::IRBuilder<> &b, llvm::Module &m, llvm::Function *caller, const ParallelCapture &capture,
                       llvm::Value *start, llvm::Value *trip, const std::function<void(const ParallelWorker &)> &emit_body);

}  // namespace atl::cpu
