// The NPU target in the driver (npu_codegen.h).
#include "src/pipeline/npu_codegen.h"

#include "backends/npu/codegen/lower_to_npu.h"

#include <atoll/diagnostics.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <sstream>

namespace atl {

bool is_npu_target(const std::string &spec) { return spec == "npu" || spec.rfind("npu:", 0) == 0; }

npu::Target npu_target_of(const std::string &spec) {
  return npu::load_target(spec == "npu" ? std::string() : spec.substr(4));
}

std::vector<npu::NpuProgram> npu_programs(const std::vector<poly::ClusterResult> &clusters, const npu::Target &target) {
  std::vector<npu::NpuProgram> out;
  for (const poly::ClusterResult &c : clusters) {
    if (!c.npu_plan) throw UserError("--target npu: cluster '" + c.name + "' has no NPU plan");
    out.push_back(npu::lower_to_npu(*c.npu_plan, c.kernel, target));
  }
  return out;
}

std::string npu_c_source(const std::vector<npu::NpuProgram> &programs) {
  std::ostringstream os;
  npu::emit_npu_c_preamble(os);
  for (const npu::NpuProgram &p : programs) {
    npu::emit_npu_c(os, p);
    os << "\n";
  }
  return os.str();
}

namespace {

/// The roofline bound of a run: the cube's steps spread over every core at
/// the fastest rate used, or the GM bytes at the shared bandwidth.
double roofline(const npu::Target &t, const npu::Timing &tm) {
  double gm = 0;
  for (const auto &[path, bytes] : tm.bytes_per_path)
    if (path.rfind("GM>", 0) == 0 || path.find(">GM") != std::string::npos) gm += static_cast<double>(bytes);
  const double cube = static_cast<double>(tm.cube_steps) * tm.fastest_cycles_per_step / t.cores;
  return std::max(cube, gm / t.gm_bytes_per_cycle);
}

}  // namespace

std::vector<KernelFunction> npu_functions(const std::vector<poly::ClusterResult> &clusters,
                                          std::vector<npu::NpuProgram> programs, const npu::Target &target,
                                          std::shared_ptr<NpuRunStats> stats) {
  std::vector<KernelFunction> out;
  {
    std::lock_guard<std::mutex> lock(stats->mutex);
    stats->kernels.assign(clusters.size(), {});
  }
  for (std::size_t i = 0; i < clusters.size(); ++i) {
    auto kernel = std::make_shared<const poly::LKernel>(clusters[i].kernel);
    auto program = std::make_shared<const npu::NpuProgram>(std::move(programs[i]));
    out.push_back([kernel, program, target, stats, i](void **arrays, const std::int64_t *params) {
      auto elements = [&](const SymShape &shape) {
        std::int64_t n = 1;
        for (const Dim &d : shape) {
          if (!d.is_symbolic()) {
            n *= d.value;
            continue;
          }
          auto it = std::find(kernel->params.begin(), kernel->params.end(), d.symbol);
          n *= params[it - kernel->params.begin()];
        }
        return n;
      };
      std::vector<npu::HostBuffer> args;
      npu::HostBuffer address(sizeof(void *));
      const npu::NpuProgram *pp = program.get();
      std::memcpy(address.bytes.data(), &pp, sizeof pp);
      args.push_back(std::move(address));
      std::vector<std::size_t> sizes;
      for (std::size_t a = 0; a < kernel->arrays.size(); ++a) {
        const std::size_t bytes = elements(kernel->arrays[a].shape) * dtype_size(kernel->arrays[a].dtype);
        npu::HostBuffer b(std::max<std::size_t>(bytes, 1));
        if (bytes) std::memcpy(b.bytes.data(), arrays[a], bytes);
        sizes.push_back(bytes);
        args.push_back(std::move(b));
      }
      npu::HostBuffer pblock(std::max<std::size_t>(8, kernel->params.size() * 8));
      if (!kernel->params.empty()) std::memcpy(pblock.bytes.data(), params, kernel->params.size() * 8);
      args.push_back(std::move(pblock));
      npu::RunOptions ro;
      bool timed;
      {
        std::lock_guard<std::mutex> lock(stats->mutex);
        timed = stats->timed;
        if (timed && !stats->dump_dir.empty())
          ro.out_dir = (std::filesystem::path(stats->dump_dir) / kernel->name).string();
      }
      npu::RunResult r = npu::run_kernel(target, npu::npu_interpret, std::move(args),
                                         timed ? npu::Mode::Timed : npu::Mode::Functional, ro);
      if (!r.ok) {
        std::string what = "NPU kernel " + kernel->name + " on '" + target.name + "': " + r.error;
        for (std::size_t k = 1; k < r.races.size(); ++k) what += "\n  " + r.races[k];
        throw UserError(what);
      }
      for (std::size_t a = 0; a < kernel->arrays.size(); ++a)
        if (kernel->arrays[a].role != poly::LArray::Role::Input && sizes[a])
          std::memcpy(arrays[a], r.args[1 + a].bytes.data(), sizes[a]);
      std::lock_guard<std::mutex> lock(stats->mutex);
      NpuRunStats::Kernel &k = stats->kernels[i];
      k.name = kernel->name;
      k.analytical = static_cast<double>(r.analytical.cycles);
      if (r.timing) {
        k.cycles = static_cast<double>(r.timing->cycles);
        k.cube_utilisation = r.timing->cube_utilisation;
        k.bound = roofline(target, *r.timing);
        k.stats = r.stats;
      }
    });
  }
  return out;
}

}  // namespace atl
