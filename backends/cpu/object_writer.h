// Ahead-of-time output for `atoll compile --target cpu`: a host object file and its C header.
#pragma once

#include "polyhedral/ast/loop_ast.h"

#include <map>
#include <string>
#include <vector>

namespace atl::cpu {

/// Lowers and optimizes the kernels for the host CPU and writes them as one
/// relocatable object (PIC) to `path_o`. Kernels with parallel loops call
/// atoll_parallel_for, so link Atoll's runtime with it. Throws UserError when
/// a kernel is malformed or the file cannot be written. `aliases` (name ->
/// a kernel of `kernels`) adds NAME and NAME_entry as aliases of that
/// kernel's functions: kernels with the same body under other names.
void write_object_file(const std::vector<poly::LKernel> &kernels, const std::string &path_o, int opt_level = 3,
                       const std::map<std::string, std::string> &aliases = {});

/// A C header (C and C++) declaring every kernel's typed function, with a
/// comment per argument (name, shape, dtype, role), and its NAME_entry.
std::string c_header(const std::vector<poly::LKernel> &kernels, const std::string &guard = "ATOLL_KERNELS_H");

/// Writes c_header() to `path_h`, guarded by ATOLL_<FILE STEM>_H (g1.h:
/// ATOLL_G1_H); throws UserError when it cannot.
void write_c_header(const std::vector<poly::LKernel> &kernels, const std::string &path_h);

}  // namespace atl::cpu
