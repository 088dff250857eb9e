// Forwards the value a register tile's `_init` (or the previous accumulator loop) stores into the register accumulator that starts from it.
#include "backends/cpu/forward_inits.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/Instruction.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Operator.h>

#include <cstdint>
#include <iterator>
#include <map>

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

std::int64_t store_size(const llvm::Type *t, const llvm::DataLayout &dl) {
  return static_cast<std::int64_t>(dl.getTypeStoreSize(const_cast<llvm::Type *>(t)).getFixedValue());
}

}  // namespace

std::optional<std::int64_t> byte_difference(const llvm::Value *a, const llvm::Value *b) {
  Linear d = decompose(a, 32);
  d.add(decompose(b, 32), -1);
  for (const auto &[v, c] : d.atoms)
    if (c != 0) return std::nullopt;
  return d.constant;
}

void PendingInits::leave() {
  --depth_;
  std::erase_if(stores_, [&](const Pending &p) { return p.depth > depth_; });
}

void PendingInits::keep_only(const std::set<std::string> &arrays) {
  std::erase_if(stores_, [&](const Pending &p) { return !arrays.count(p.array); });
}

llvm::Value *PendingInits::take(llvm::Value *ptr, llvm::Type *ty, const std::string &array) {
  if (stores_.empty()) return nullptr;
  const llvm::DataLayout &dl = stores_.front().store->getModule()->getDataLayout();
  const std::int64_t want = store_size(ty, dl);
  // From the last store back: the first one that may touch the element
  // decides (an exact match at this loop depth is taken; any other overlap,
  // or an address not comparable, forwards nothing). Other arrays are other
  // buffers (noalias arguments, locals of their own).
  for (auto it = stores_.rbegin(); it != stores_.rend(); ++it) {
    if (it->array != array) continue;
    llvm::StoreInst *st = it->store;
    std::optional<std::int64_t> d = byte_difference(st->getPointerOperand(), ptr);
    if (!d) return nullptr;
    const std::int64_t has = store_size(st->getValueOperand()->getType(), dl);
    if (*d >= want || *d + has <= 0) continue;  // disjoint bytes
    if (*d != 0 || st->getValueOperand()->getType() != ty || it->depth != depth_) return nullptr;
    llvm::Value *v = st->getValueOperand();
    stores_.erase(std::next(it).base());
    st->eraseFromParent();
    return v;
  }
  return nullptr;
}

}  // namespace atl::cpu
