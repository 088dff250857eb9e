// An NPU kernel's program from its plan (polyhedral/transforms/npu):
//
//   cube:   per output tile (round robin over cores) the k chunks go
//           GM -> L1 (ND2NZ, transposed operands as they are stored),
//           the k steps L1 -> L0A/L0B (load_l0, transposing where the
//           operand is stored transposed), mmad into the L0C tile (the
//           first step zeroes it); then fix L0C -> UB, the epilogue on the
//           vector unit, UB -> GM (NZ2ND: exact rows, any width). Without
//           an epilogue on whole 16 x 16 tiles, fix writes GM directly.
//   vector: per tile: GM -> UB (ND2NZ), the statements, UB -> GM.
//
// Every buffer has two slots and each slot a ready/free flag pair between
// its producer and consumer pipes, set before the loop and drained after
// (the hand-written GEMM's rings), so the pipes overlap and the hazard
// checker can prove the order.
#pragma once

#include "backends/npu/codegen/npu_program.h"
#include "backends/npu/target.h"
#include "polyhedral/ast/loop_ast.h"
#include "polyhedral/target/npu_target.h"
#include "polyhedral/transforms/npu/npu_plan.h"

namespace atl::npu {

/// What the polyhedral NPU passes read of a target description.
poly::NpuTargetInfo npu_target_info(const Target &t);

/// The program of `kernel` (its arrays and parameters give the arguments)
/// as `plan` says. Throws UserError when the target's events or buffers
/// cannot hold it.
NpuProgram lower_to_npu(const poly::NpuKernelPlan &plan, const poly::LKernel &kernel, const Target &target);

}  // namespace atl::npu
