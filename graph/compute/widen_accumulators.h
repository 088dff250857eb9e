// Reductions into f16/bf16 outputs accumulate in an f32 temporary and round once (sums would otherwise stall at 8 or 11 bits).
#pragma once

#include "graph/compute/ast.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace atl::compute {

/// `program` with each initialising reduction (`+=!` and friends) into a
/// tensor of `low_precision` rewritten to reduce into a temporary
/// `NAME_acc` (analysis keeps temporaries of f16/bf16 programs in f32),
/// together with the in-place updates that follow it (ReduceMean's
/// `Y(i) = Y(i) / n`), and one statement `NAME(i, ...) = NAME_acc(i, ...)`
/// appended at the end (so statement k keeps its name NODE_k). Applies where
/// the reduction's left-hand side subscripts are distinct indices or
/// constants and every other statement that names NAME comes after it and
/// updates that same element; returns `program` itself when nothing applies.
/// `low_precision` maps each such tensor to its extents, as numbers or
/// parameter names ("64", "N"): the copy's `where` clause (its indices may
/// appear nowhere else alone, as a convolution's output rows).
std::shared_ptr<const Program> widen_accumulators(const std::shared_ptr<const Program> &program,
                                                  const std::map<std::string, std::vector<std::string>> &low_precision);

}  // namespace atl::compute
