// Forwards what a register tile stores (its `_init`'s constants, its accumulators' results) to the accumulators and the epilogue that read it next.
#include "backends/cpu/forward_inits.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/Instruction.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Operator.h>

#include <cstdint>
#include <iterator>
#include <map>
#include <set>

namespace atl::cpu {

namespace {

/// A value as sum(coefficient * atom) + constant, in bytes for pointers.
struct Linear {
  std::map<const llvm::Value *, std::int64_t> atoms;
  std::int64_t constant = 0;

  void add(const Linear &o, std::int64_t scale) {
    for (const auto &[v, c] : o.atoms) atoms[v] += c * scale;
    constant += o.constant * scale;
  }
};

const llvm::ConstantInt *as_int(const llvm::Value *v) { return llvm::dyn_cast<llvm::ConstantInt>(v); }

/// Adds, subtractions, multiplications and shifts by constants, disjoint
/// ors and one-index GEPs are looked through; anything else is an atom.
Linear decompose(const llvm::Value *v, int depth) {
  Linear out;
  if (const auto *c = as_int(v)) {
    out.constant = c->getSExtValue();
    return out;
  }
  if (depth > 0) {
    if (const auto *op = llvm::dyn_cast<llvm::BinaryOperator>(v)) {
      const llvm::Value *a = op->getOperand(0), *b = op->getOperand(1);
      switch (op->getOpcode()) {
      case llvm::Instruction::Add:
        out.add(decompose(a, depth - 1), 1), out.add(decompose(b, depth - 1), 1);
        return out;
      case llvm::Instruction::Sub:
        out.add(decompose(a, depth - 1), 1), out.add(decompose(b, depth - 1), -1);
        return out;
      case llvm::Instruction::Or:
        if (!llvm::cast<llvm::PossiblyDisjointInst>(op)->isDisjoint()) break;
        out.add(decompose(a, depth - 1), 1), out.add(decompose(b, depth - 1), 1);
        return out;
      case llvm::Instruction::Mul:
        if (const auto *c = as_int(b)) return out.add(decompose(a, depth - 1), c->getSExtValue()), out;
        if (const auto *c = as_int(a)) return out.add(decompose(b, depth - 1), c->getSExtValue()), out;
        break;
      case llvm::Instruction::Shl:
        if (const auto *c = as_int(b); c && c->getZExtValue() < 32)
          return out.add(decompose(a, depth - 1), std::int64_t{1} << c->getZExtValue()), out;
        break;
      default: break;
      }
    }
    if (const auto *g = llvm::dyn_cast<llvm::GetElementPtrInst>(v); g && g->getNumIndices() == 1) {
      const llvm::DataLayout &dl = g->getModule()->getDataLayout();
      auto size = static_cast<std::int64_t>(dl.getTypeAllocSize(g->getSourceElementType()).getFixedValue());
      out.add(decompose(g->getPointerOperand(), depth - 1), 1);
      out.add(decompose(g->getOperand(1), depth - 1), size);
      return out;
    }
  }
  out.atoms[v] = 1;
  return out;
}

}  // namespace

std::int64_t store_size(const llvm::Type *t, const llvm::DataLayout &dl) {
  return static_cast<std::int64_t>(dl.getTypeStoreSize(const_cast<llvm::Type *>(t)).getFixedValue());
}

std::optional<std::int64_t> byte_difference(const llvm::Value *a, const llvm::Value *b) {
  Linear d = decompose(a, 32);
  d.add(decompose(b, 32), -1);
  for (const auto &[v, c] : d.atoms)
    if (c != 0) return std::nullopt;
  return d.constant;
}

void StoresAtDepth::leave() {
  --depth_;
  // The scope's stores are forgotten, and so is what is known outside it of
  // the arrays it stored to: it may have run any number of times, and it
  // may have read an element (a promoted loop's start) before storing it, so
  // an earlier store can neither be forwarded (stale) nor erased (read).
  std::set<std::string> written;
  for (const Entry &e : stores_)
    if (e.depth > depth_) written.insert(e.array);
  std::erase_if(stores_, [&](const Entry &e) { return e.depth > depth_ || written.count(e.array); });
}

void PendingInits::keep_only(const std::set<std::string> &arrays) {
  std::erase_if(stores_, [&](const Entry &e) { return !arrays.count(e.array); });
}

namespace {

/// The newest of `stores` at `depth` that writes the element of `array` at
/// `ptr` with type `ty` exactly; end() when none does, or when a newer
/// store may overlap it or is not comparable. Other arrays are other
/// buffers (noalias arguments, locals of their own).
template <typename Entries>
auto exact_store(Entries &stores, llvm::Value *ptr, llvm::Type *ty, const std::string &array, int depth) {
  auto none = stores.end();
  if (stores.empty()) return none;
  const llvm::DataLayout &dl = stores.front().store->getModule()->getDataLayout();
  const std::int64_t want = store_size(ty, dl);
  for (auto it = stores.rbegin(); it != stores.rend(); ++it) {
    if (it->array != array) continue;
    llvm::StoreInst *st = it->store;
    std::optional<std::int64_t> d = byte_difference(st->getPointerOperand(), ptr);
    if (!d) return none;
    const std::int64_t has = store_size(st->getValueOperand()->getType(), dl);
    if (*d >= want || *d + has <= 0) continue;  // disjoint bytes
    if (*d != 0 || st->getValueOperand()->getType() != ty || it->depth != depth) return none;
    return std::next(it).base();
  }
  return none;
}

}  // namespace

llvm::Value *PendingInits::take(llvm::Value *ptr, llvm::Type *ty, const std::string &array) {
  // From the last store back: the first one that may touch the element
  // decides (an exact match at this loop depth is taken; any other overlap,
  // or an address not comparable, forwards nothing).
  auto it = exact_store(stores_, ptr, ty, array, depth_);
  if (it == stores_.end()) return nullptr;
  llvm::StoreInst *st = it->store;
  llvm::Value *v = st->getValueOperand();
  stores_.erase(it);
  st->eraseFromParent();
  return v;
}

void ForwardedResults::forget(const std::string &array) {
  std::erase_if(stores_, [&](const Entry &e) { return e.array == array; });
}

void ForwardedResults::overwrite(llvm::Value *ptr, llvm::Type *ty, const std::string &array) {
  if (stores_.empty()) return;
  const llvm::DataLayout &dl = stores_.front().store->getModule()->getDataLayout();
  const std::int64_t size = store_size(ty, dl);
  std::erase_if(stores_, [&](const Entry &e) {
    if (e.array != array) return false;
    std::optional<std::int64_t> d = byte_difference(e.store->getPointerOperand(), ptr);
    return !d || (*d < size && *d + store_size(e.store->getValueOperand()->getType(), dl) > 0);
  });
}

llvm::Value *ForwardedResults::find(llvm::Value *ptr, llvm::Type *ty, const std::string &array) const {
  auto it = exact_store(stores_, ptr, ty, array, depth_);
  return it == stores_.end() ? nullptr : it->store->getValueOperand();
}

}  // namespace atl::cpu
