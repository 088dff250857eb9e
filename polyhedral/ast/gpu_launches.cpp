// GPU mapping marks and the printing of a cluster's launches.
#include "polyhedral/ast/gpu_launches.h"

#include <regex>

namespace atl::poly {

namespace {
const char kDims[] = {'x', 'y', 'z'};
}

std::string gpu_mark_name(const GpuMark &m) {
  return std::string(m.thread ? "thread_" : "block_") + kDims[m.dim] + "_" + std::to_string(m.kernel);
}

std::optional<GpuMark> parse_gpu_mark(const std::string &name) {
  static const std::regex re(R"((block|thread)_([xyz])_([0-9]+))");
  std::smatch m;
  if (!std::regex_match(name, m, re)) return std::nullopt;
  GpuMark g;
  g.thread = m[1].str() == "thread";
  g.dim = m[2].str()[0] - 'x';
  g.kernel = std::stoi(m[3].str());
  return g;
}

std::optional<GpuMark> gpu_mark_of(const LStmt &loop) {
  if (loop.kind != LStmtKind::For) return std::nullopt;
  for (const std::string &m : loop.marks)
    if (auto g = parse_gpu_mark(m)) return g;
  return std::nullopt;
}

void print_gpu_program(std::ostream &os, const LKernel &kernel, const GpuProgram &program) {
  os << "kernel " << kernel.name << ": " << program.launches.size() << " launch"
     << (program.launches.size() == 1 ? "" : "es") << "\n";
  for (const GpuLaunch &l : program.launches) {
    os << "launch " << l.name << " grid(";
    for (int d = 0; d < 3; ++d) os << (d ? ", " : "") << (l.grid[static_cast<std::size_t>(d)] ? print_loop_expr(*l.grid[static_cast<std::size_t>(d)]) : "1");
    os << ") block(" << l.block[0] << ", " << l.block[1] << ", " << l.block[2] << ")"
       << (l.mapped ? "" : " one thread: no parallel band") << " {\n";
    if (l.body) print_loop_stmt(os, *l.body, 1);
    os << "}\n";
  }
}

}  // namespace atl::poly
