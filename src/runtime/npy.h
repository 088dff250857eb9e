// NumPy .npy files (format 1.0, little-endian, C order) for --inputs and --dump.
#pragma once

#include <atoll/tensor.h>

#include <string>

namespace atl {

/// Writes a tensor as .npy with its dtype's NumPy type (<f4, <f2, <i4, |i1,
/// <i8, |b1; bf16 is written as <f4 since NumPy has no bfloat16). Atomic:
/// written to a temporary file, then renamed.
void write_npy(const std::string &path, const Tensor &tensor);

/// Reads a .npy file (format 1.0, C order, little-endian or 1-byte types;
/// f4, f2, f8, i1, i4, i8, b1; the header parsed strictly, the data exactly
/// as long as the shape says). `descr`, when given, receives the file's
/// element type in little-endian spelling ("<f8", "|b1"), so that the caller
/// can refuse a file of another type than the tensor's. Throws UserError
/// naming the file.
Tensor read_npy(const std::string &path, std::string *descr = nullptr);

/// A tensor's or graph's name as one safe path component for --inputs and
/// --dump: bytes outside [A-Za-z0-9_.-], and a leading '.', as %XX ("y/z" ->
/// "y%2Fz", ".." -> "%2E."), so that no name leaves DIR or clashes.
std::string npy_file_name(const std::string &name);

/// The NumPy type write_npy uses for `dtype` ("<f4" for f32 and bf16).
const char *npy_type(DType dtype);

}  // namespace atl
