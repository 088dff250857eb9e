// Non-temporal stores: large outputs written for the last time in a vector loop bypass the caches.
#include "tests/unit/backends/cpu/test_kernels.h"

#include "backends/cpu/vector_analysis.h"

#include <doctest/doctest.h>

#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/Triple.h>

namespace atl::cpu::test {
namespace {

using namespace poly::build;
using compute::BinOp;
using Role = poly::LArray::Role;

/// Y[i, j] = X[i, j] * 2 (j marked kVector) over constant [rows, cols]; with `reread`,
/// then Z[i] = Y[i, 0] (Y read after its store).
poly::LKernel scale(const std::string &name, std::int64_t rows, std::int64_t cols, bool reread) {
  std::vector<poly::LStmtPtr> body{loop_to(
      "i", integer(rows),
      loop_to("j", integer(cols), store("Y", {var("i"), var("j")}, binary(BinOp::Mul, load("X", {var("i"), var("j")}), real(2))),
              {poly::mark::kVector}))};
  if (reread) body.push_back(loop_to("i", integer(rows), store("Z", {var("i")}, load("Y", {var("i"), integer(0)}))));
  auto k = kernel(name, {array("X", DType::F32, {rows, cols}, Role::Input), array("Y", DType::F32, {rows, cols}, Role::Output),
                         array("Z", DType::F32, {rows}, Role::Output)},
                  {}, block(body));
  k.vector_lanes = 16;
  return k;
}

TEST_SUITE("backends") {

TEST_CASE("cpu streaming stores: only the last write of a large output is non-temporal") {
  CHECK(streaming_stores(scale("big", 1100, 4099, false), 16 << 20).size() == 1);  // 18 MB
  CHECK(streaming_stores(scale("small", 64, 64, false), 16 << 20).empty());
  CHECK(streaming_stores(scale("reread", 1100, 4099, true), 16 << 20).empty());
  if (!llvm::Triple(llvm::sys::getProcessTriple()).isX86()) return;
  std::string ir = emit_llvm_ir({scale("big", 1100, 4099, false)});
  CHECK(ir.find("!nontemporal") != std::string::npos);
  CHECK(ir.find("call void @llvm.x86.sse.sfence()") != std::string::npos);
  CHECK(emit_llvm_ir({scale("small", 64, 64, false)}).find("!nontemporal") == std::string::npos);
}

TEST_CASE("cpu streaming stores: results are exact whatever the output's alignment") {
  const std::int64_t rows = 1100, cols = 4099;
  auto exes = both_paths({scale("big", rows, cols, false)});
  std::vector<float> x(static_cast<std::size_t>(rows * cols)), y(static_cast<std::size_t>(rows * cols + 16)), z(rows);
  for (std::size_t e = 0; e < x.size(); ++e) x[e] = static_cast<float>(e % 1000) - 500;
  for (const auto &[path, exe] : exes)
    for (std::size_t shift : {0, 1, 5, 15}) {  // the peel before the aligned vector stores
      std::fill(y.begin(), y.end(), -1.0f);
      void *arrays[] = {x.data(), y.data() + shift, z.data()};
      exe->run("big", arrays, nullptr);
      std::size_t bad = 0;
      for (std::size_t e = 0; e < x.size(); ++e)
        if (y[e + shift] != 2 * x[e]) ++bad;
      CHECK_MESSAGE(bad == 0, path << " shift " << shift);
      CHECK(y[shift + x.size()] == -1.0f);  // nothing written past the end
      if (shift > 0) CHECK(y[shift - 1] == -1.0f);
    }
}
}

}  // namespace
}  // namespace atl::cpu::test
