// The kernel array descriptor: an array a kernel reads or writes, as the
// polyhedral layer describes it (ScopArray) and the backends receive it
// (LKernel). Part of the vocabulary every layer shares, so that the SCoP
// need not include the loop AST to name its arrays.
#pragma once

#include <atoll/dtype.h>
#include "graph/ir/graph.h"

#include <string>

namespace atl {

/// An array a kernel reads or writes. Every array of LKernel::arrays is a
/// kernel argument; the runtime allocates temporaries (zero-filled) like
/// outputs. Local arrays (LKernel::locals) are the kernel's own storage.
struct KernelArray {
  enum class Role { Input, Output, Temporary, Local };
  std::string name;
  DType dtype = DType::F32;
  SymShape shape;  ///< extents; symbolic dims are kernel parameters
  Role role = Role::Input;
};

}  // namespace atl
