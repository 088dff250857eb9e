// Forwards what a register tile stores to the code that reads it next: its `_init`'s constants (or the previous accumulator loop's results) into the accumulators that start from them, its results into its epilogue, so the tile's accumulators never go through memory.
#pragma once

#include <llvm/IR/DataLayout.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Value.h>

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace atl::cpu {

/// a - b (in bytes for addresses) when the two values differ by a
/// constant: both are decomposed into sums of the same atoms (adds, subs,
/// multiplications and shifts by constants, disjoint ors, one-index GEPs
/// looked through). The lowering builds an element's address anew at every
/// use, from the same subscripts and loop values, so two addresses of one
/// tile compare here even where LLVM's alias analysis cannot tell them
/// apart (an `or disjoint` of two variables after instcombine).
std::optional<std::int64_t> byte_difference(const llvm::Value *a, const llvm::Value *b);

/// Bytes a store of type `t` writes.
std::int64_t store_size(const llvm::Type *t, const llvm::DataLayout &dl);

/// Stores the lowering just emitted, with the loop depth each was made at:
/// what PendingInits and ForwardedResults keep.
class StoresAtDepth {
public:
  /// `st` stored into `array` at the current loop depth.
  void note(llvm::StoreInst *st, const std::string &array) { stores_.push_back({st, array, depth_}); }
  /// Everything is forgotten.
  void clear() { stores_.clear(); }
  /// A loop's or a branch's body begins / ends (its stores are forgotten at its end).
  void enter() { ++depth_; }
  void leave();

protected:
  struct Entry {
    llvm::StoreInst *store;
    std::string array;
    int depth;
  };
  std::vector<Entry> stores_;
  int depth_ = 0;
};

/// Stores just emitted whose values the next loop of promoted accumulators
/// may start from: a register tile's `_init` (`C[i, j] = 0` for every
/// accumulator of the tile), or the final stores of the promoted loop
/// before it (a window tile in input-row order runs one such loop per input
/// row, each over the output rows that read it).
///
///   before:  store 0, p0; store 0, p1; ...      ; the init, unrolled
///            acc0 = load p0; acc1 = load p1      ; the accumulators' start
///            loop k { acc0 += ...; acc1 += ... }
///            store acc0, p0; store acc1, p1
///   after:   acc0 = 0; acc1 = 0; loop k { ... }; store acc0, p0; store acc1, p1
///
/// LLVM leaves the first form alone when it cannot prove two tile addresses
/// apart; the accumulators then start with a store and a load each (and a
/// load of the input that shares the output's 4 KiB page offset waits on
/// the store). Taking a store is sound when nothing read the element since:
/// the lowering forgets every store (clear) when it emits anything else that
/// may read memory, a promoted loop keeps only the stores to its own
/// accumulator arrays (which it does not read from memory), and a store is
/// taken only at the loop depth it was made at (in the same straight-line
/// code, or after sibling loops: its block dominates, and it ran once).
class PendingInits : public StoresAtDepth {
public:
  /// A promoted loop over these accumulator arrays was collected: the
  /// stores to other arrays (which its body may read) are forgotten.
  void keep_only(const std::set<std::string> &arrays);
  /// The value last stored at `ptr` of `array` with type `ty` at the
  /// current loop depth, its store erased (the accumulator's final store
  /// writes the element); nullptr when there is none, or when a later
  /// store to the array may overlap the element. (Noted: constants and
  /// promoted loops' results; cleared when anything else is emitted.)
  llvm::Value *take(llvm::Value *ptr, llvm::Type *ty, const std::string &array);
};

/// The results a promoted loop just stored, for the epilogue that reads
/// them in the same tile (a bias, a BatchNormalization, an activation: the
/// companions of tile_for_cpu, unrolled into straight-line code):
///
///   before:  store acc0, p0; store acc1, p1     ; the promoted loop's end
///            y0 = f(load p0); y1 = f(load p1)    ; the epilogue
///   after:   store acc0, p0; store acc1, p1; y0 = f(acc0); y1 = f(acc1)
///
/// (LLVM cannot forward these for the reason PendingInits gives; when every
/// load of a local tile buffer is forwarded, its stores die with it). Unlike
/// PendingInits nothing is erased, so reads in between do not matter: an
/// entry is forgotten when its array may be written (forget, or clear for
/// code that writes arrays it does not name), and is read only at the loop
/// depth it was made at (straight-line code after the loop, or after sibling
/// loops, none of which wrote its array).
class ForwardedResults : public StoresAtDepth {
public:
  /// `array` may be written from here on.
  void forget(const std::string &array);
  /// A store of type `ty` at `ptr` of `array` follows: the entries it may
  /// overlap are forgotten (those provably disjoint from it stay).
  void overwrite(llvm::Value *ptr, llvm::Type *ty, const std::string &array);
  /// The value last stored at `ptr` of `array` with type `ty` at the current
  /// loop depth; nullptr when there is none, or when a later store to the
  /// array may overlap the element.
  llvm::Value *find(llvm::Value *ptr, llvm::Type *ty, const std::string &array) const;
};

}  // namespace atl::cpu
