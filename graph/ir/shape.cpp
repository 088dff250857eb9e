// Symbolic dimensions and tensor types: printing and concretisation.
#include "graph/ir/graph.h"

namespace atl {

std::string Dim::str() const { return is_symbolic() ? symbol : std::to_string(value); }

std::string sym_shape_to_string(const SymShape &shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += shape[i].str();
  }
  return s + "]";
}

bool is_concrete(const SymShape &shape) {
  for (const Dim &d : shape)
    if (d.is_symbolic()) return false;
  return true;
}

Shape concrete_shape(const SymShape &shape) {
  Shape out;
  out.reserve(shape.size());
  for (const Dim &d : shape) {
    if (d.is_symbolic()) throw UserError("dimension '" + d.symbol + "' is symbolic where a concrete size is needed");
    out.push_back(d.value);
  }
  return out;
}

SymShape to_sym_shape(const Shape &shape) { return SymShape(shape.begin(), shape.end()); }

std::string TensorType::str() const { return std::string(dtype_name(dtype)) + sym_shape_to_string(shape); }

}  // namespace atl
