// The NPU target in the driver: its description from the --target spec,
// each cluster's program (backends/npu/codegen), the kernels as functions
// that run the program on the simulator with every check on, and the C
// file `compile --target npu` writes.
#pragma once

#include "backends/npu/codegen/npu_program.h"
#include "backends/npu/launcher.h"
#include "backends/npu/target.h"
#include "polyhedral/compile_cluster.h"
#include "src/pipeline/compile_graph.h"

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace atl {

/// "npu" or "npu:PROFILE_OR_FILE.json".
bool is_npu_target(const std::string &spec);
/// The description of an NPU target spec (npu::load_target).
npu::Target npu_target_of(const std::string &spec);

/// What the NPU kernels of a graph did when they last ran (simulated).
struct NpuRunStats {
  struct Kernel {
    std::string name;
    double cycles = 0;             ///< timed runs only
    double cube_utilisation = 0;
    double analytical = 0;         ///< the analytical model's cycles
    double bound = 0;              ///< the roofline bound: max(cube, GM bytes) cycles
    nlohmann::json stats;          ///< stats.json of the last timed run
  };
  std::mutex mutex;
  std::vector<Kernel> kernels;     ///< one per kernel, call order
  bool timed = false;              ///< run the timing model (bench)
  std::string dump_dir;            ///< write each kernel's stats.json, trace.json and timeline.svg here
};

/// The programs of the compiled clusters, in order.
std::vector<npu::NpuProgram> npu_programs(const std::vector<poly::ClusterResult> &clusters, const npu::Target &target);

/// Kernel functions that run the programs on the simulator (functional,
/// or timed when stats->timed), fail with a UserError on any rule, race,
/// read of unwritten memory or flag problem, and record into `stats`.
std::vector<KernelFunction> npu_functions(const std::vector<poly::ClusterResult> &clusters,
                                          std::vector<npu::NpuProgram> programs, const npu::Target &target,
                                          std::shared_ptr<NpuRunStats> stats);

/// The C99 file of the programs: the preamble, then each kernel.
std::string npu_c_source(const std::vector<npu::NpuProgram> &programs);

}  // namespace atl
