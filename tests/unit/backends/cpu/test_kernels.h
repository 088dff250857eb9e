// Helpers for the CPU backend tests: typed buffers, hand-built kernels, both execution paths.
#pragma once

#include "backends/cpu/cpu_backend.h"
#include "polyhedral/ast/loop_ast.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace atl::cpu::test {

/// Dense storage of one array in its dtype's element format.
class Buffer {
public:
  Buffer(DType dtype, std::size_t n);
  void set(std::size_t i, double v);  ///< stores round_to(dtype, v)
  double get(std::size_t i) const;
  void *data() { return bytes_.data(); }
  std::size_t size() const { return n_; }

private:
  DType dtype_;
  std::size_t n_;
  std::vector<std::uint8_t> bytes_;
};

poly::LArray array(const std::string &name, DType dtype, SymShape shape, poly::LArray::Role role);
poly::LKernel kernel(const std::string &name, std::vector<poly::LArray> arrays, std::vector<std::string> params,
                     poly::LStmtPtr body);
/// for (it = 0; it < extent; it += 1) body, with marks.
poly::LStmtPtr loop_to(const std::string &it, poly::LExprPtr extent, poly::LStmtPtr body,
                       std::set<std::string> marks = {});

/// The first loop (preorder) of `s` whose iterator is `it`, or null.
const poly::LStmt *loop_named(const poly::LStmt &s, const std::string &it);

/// Occurrences of `what` in `text`.
std::size_t count(const std::string &text, const std::string &what);

/// The kernels compiled both ways: ("jit", ...) and ("c", ...).
std::vector<std::pair<std::string, std::unique_ptr<CpuExecutable>>> both_paths(
    const std::vector<poly::LKernel> &kernels);

/// Runs a shell command; returns its exit status and appends its output.
int shell(const std::string &cmd, std::string *output = nullptr);

/// A fresh temporary directory, removed when the object dies.
class TempDir {
public:
  TempDir();
  ~TempDir();
  const std::string &path() const { return path_; }

private:
  std::string path_;
};

}  // namespace atl::cpu::test
