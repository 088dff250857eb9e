// NumPy .npy files (format 1.0, little-endian, C order) for --inputs and --dump.
#pragma once

#include <atoll/tensor.h>

#include <string>

namespace atl {

/// Writes a tensor as .npy with its dtype's NumPy type (<f4, <f2, <i4, |i1,
/// <i8, |b1; bf16 is written as <f4 since NumPy has no bfloat16). Atomic:
/// written to a temporary file, then renamed.
void write_npy(const std::string &path, const Tensor &tensor);

/// Reads a .npy file (format 1.x or 2.x, C order; little-endian or 1-byte
/// types; f4, f2, f8, i1, i4, i8, u1, b1). Throws UserError naming the file.
Tensor read_npy(const std::string &path);

}  // namespace atl
