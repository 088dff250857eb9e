// Test helpers for the CPU backend: buffers in every dtype, kernel builders, both paths.
#include "tests/unit/backends/cpu/test_kernels.h"

#include <atoll/dtype.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sys/wait.h>

namespace atl::cpu::test {

Buffer::Buffer(DType dtype, std::size_t n) : dtype_(dtype), n_(n), bytes_(std::max<std::size_t>(n, 1) * dtype_size(dtype)) {}

void Buffer::set(std::size_t i, double v) {
  std::uint8_t *p = bytes_.data() + i * dtype_size(dtype_);
  double r = round_to(dtype_, v);
  switch (dtype_) {
  case DType::F32: { float f = static_cast<float>(r); std::memcpy(p, &f, 4); return; }
  case DType::F16: { std::uint16_t h = float_to_half(static_cast<float>(r)); std::memcpy(p, &h, 2); return; }
  case DType::BF16: { std::uint16_t h = float_to_bfloat(static_cast<float>(r)); std::memcpy(p, &h, 2); return; }
  case DType::I8: { auto x = static_cast<std::int8_t>(r); std::memcpy(p, &x, 1); return; }
  case DType::I32: { auto x = static_cast<std::int32_t>(r); std::memcpy(p, &x, 4); return; }
  case DType::I64: { auto x = static_cast<std::int64_t>(r); std::memcpy(p, &x, 8); return; }
  case DType::Bool: { std::uint8_t x = r != 0 ? 1 : 0; std::memcpy(p, &x, 1); return; }
  case DType::U8: { auto x = static_cast<std::uint8_t>(r); std::memcpy(p, &x, 1); return; }
  case DType::F64: std::memcpy(p, &r, 8); return;
  }
}

double Buffer::get(std::size_t i) const {
  const std::uint8_t *p = bytes_.data() + i * dtype_size(dtype_);
  switch (dtype_) {
  case DType::F32: { float f; std::memcpy(&f, p, 4); return f; }
  case DType::F16: { std::uint16_t h; std::memcpy(&h, p, 2); return half_to_float(h); }
  case DType::BF16: { std::uint16_t h; std::memcpy(&h, p, 2); return bfloat_to_float(h); }
  case DType::I8: { std::int8_t x; std::memcpy(&x, p, 1); return x; }
  case DType::I32: { std::int32_t x; std::memcpy(&x, p, 4); return x; }
  case DType::I64: { std::int64_t x; std::memcpy(&x, p, 8); return static_cast<double>(x); }
  case DType::Bool:
  case DType::U8: return p[0];
  case DType::F64: { double x; std::memcpy(&x, p, 8); return x; }
  }
  return 0;
}

poly::LArray array(const std::string &name, DType dtype, SymShape shape, poly::LArray::Role role) {
  poly::LArray a;
  a.name = name;
  a.dtype = dtype;
  a.shape = std::move(shape);
  a.role = role;
  return a;
}

poly::LKernel kernel(const std::string &name, std::vector<poly::LArray> arrays, std::vector<std::string> params,
                     poly::LStmtPtr body) {
  poly::LKernel k;
  k.name = name;
  k.arrays = std::move(arrays);
  k.params = std::move(params);
  k.body = std::move(body);
  return k;
}

const poly::LStmt *loop_named(const poly::LStmt &s, const std::string &it) {
  if (s.kind == poly::LStmtKind::For && s.iterator == it) return &s;
  for (const auto &b : s.body)
    if (const poly::LStmt *f = b ? loop_named(*b, it) : nullptr) return f;
  return nullptr;
}

std::size_t count(const std::string &text, const std::string &what) {
  std::size_t n = 0;
  for (std::size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

poly::LStmtPtr loop_to(const std::string &it, poly::LExprPtr extent, poly::LStmtPtr body,
                       std::set<std::string> marks) {
  using namespace poly::build;
  return loop(it, integer(0), binary(compute::BinOp::Lt, var(it), std::move(extent)), 1, std::move(body),
              std::move(marks));
}

std::vector<std::pair<std::string, std::unique_ptr<CpuExecutable>>> both_paths(
    const std::vector<poly::LKernel> &kernels) {
  std::vector<std::pair<std::string, std::unique_ptr<CpuExecutable>>> out;
  out.emplace_back("jit", jit_kernels(kernels));
  out.emplace_back("c", build_c_kernels(kernels));
  return out;
}

int shell(const std::string &cmd, std::string *output) {
  FILE *p = ::popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return -1;
  char buf[4096];
  std::size_t n;
  std::string sink;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) (output ? *output : sink).append(buf, n);
  int status = ::pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TempDir::TempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "atoll-cpu-test-XXXXXX").string();
  if (::mkdtemp(tmpl.data())) path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  if (!path_.empty()) std::filesystem::remove_all(path_, ec);
}

}  // namespace atl::cpu::test
