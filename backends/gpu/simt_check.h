// A checker of GPU launches that PoCL cannot be: it executes a launch's
// loop nest for every thread of every block at a small shape, with the
// printers' semantics (grid- and block-stride loops over the block and
// thread indices), and records which thread touches which element.
//
// Reported, with the statement, the array, the element and both threads:
//   - races: two different threads of one launch touch one element and at
//     least one writes (the launches have no barrier yet, so a launch is one
//     epoch: the order in which the checker runs the threads does not matter);
//   - out-of-bounds accesses (guarded loads excepted: they do not access
//     memory outside the array).
// What it does not evaluate: values. Indices that depend on loaded values
// (a Gather's subscript) and guards on values are not followed; such an
// access counts as unchecked.
#pragma once

#include "polyhedral/ast/gpu_launches.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace atl::gpu {

struct SimtReport {
  std::int64_t threads = 0;      ///< threads run, over all launches
  std::int64_t accesses = 0;     ///< element accesses recorded
  std::int64_t unchecked = 0;    ///< accesses whose index depends on a loaded value
  bool truncated = false;        ///< the access budget ran out: the launches were checked in part
  std::vector<std::string> problems;  ///< races and out-of-bounds accesses, one a line (the first few)
  std::int64_t races = 0, out_of_bounds = 0;
  bool clean() const { return races == 0 && out_of_bounds == 0; }
};

/// Checks every launch of `program` (a cluster's kernel `kernel`) at the
/// parameter values `params` (LKernel::params order). Stops after
/// `max_accesses` recorded accesses (the report says truncated).
SimtReport simt_check(const poly::LKernel &kernel, const poly::GpuProgram &program, const std::int64_t *params,
                      std::int64_t max_accesses = 20'000'000);

}  // namespace atl::gpu
