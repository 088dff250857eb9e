// API example: hand Atoll a SCoP as another compiler would (isl strings plus
// statement bodies), read back isl's schedule tree, replace it with a legal
// interchanged tree, see an illegal tree refused, then JIT and check the code.
#include "backends/cpu/cpu_backend.h"
#include "polyhedral/ast/build_ast.h"
#include "polyhedral/deps/dependences.h"
#include "polyhedral/isl/isl_context.h"
#include "polyhedral/schedule/schedule.h"
#include "polyhedral/scop/scop_from_text.h"

#include <cmath>
#include <cstdint>
#include <iostream>
#include <map>
#include <vector>

namespace {

constexpr int M = 4, N = 5, K = 6;

/// C = A * B with an explicit initialisation statement.
atl::poly::TextScop matmul_scop() {
  using atl::poly::LArray;
  atl::poly::TextScop t;
  t.name = "api_matmul";
  t.arrays = {{"A", atl::DType::F32, {M, K}, LArray::Role::Input},
              {"B", atl::DType::F32, {K, N}, LArray::Role::Input},
              {"C", atl::DType::F32, {M, N}, LArray::Role::Output}};
  atl::poly::TextStatement init;
  init.domain = "{ S0[i, j] : 0 <= i < 4 and 0 <= j < 5 }";
  init.write = "{ S0[i, j] -> C[i, j] }";
  init.body = "0";  // right-hand side only: C(i, j) = 0
  atl::poly::TextStatement update;
  update.domain = "{ S1[i, j, k] : 0 <= i < 4 and 0 <= j < 5 and 0 <= k < 6 }";
  update.write = "{ S1[i, j, k] -> C[i, j] }";
  update.reads = {"{ S1[i, j, k] -> A[i, k] }", "{ S1[i, j, k] -> B[k, j] }"};
  update.body = "C(i, j) += A(i, k) * B(k, j)";  // a full Compute statement
  t.statements = {init, update};
  return t;
}

// Loops interchanged: j outside i, then the init and the k loop.
const char *kInterchanged = R"(domain: "{ S0[i, j] : 0 <= i < 4 and 0 <= j < 5; S1[i, j, k] : 0 <= i < 4 and 0 <= j < 5 and 0 <= k < 6 }"
child:
  schedule: "[{ S0[i, j] -> [(j)]; S1[i, j, k] -> [(j)] }, { S0[i, j] -> [(i)]; S1[i, j, k] -> [(i)] }]"
  child:
    sequence:
    - filter: "{ S0[i, j] }"
    - filter: "{ S1[i, j, k] }"
      child:
        schedule: "[{ S1[i, j, k] -> [(k)] }]"
)";

// Illegal: every update runs before the initialisation of its element.
const char *kIllegal = R"(domain: "{ S0[i, j] : 0 <= i < 4 and 0 <= j < 5; S1[i, j, k] : 0 <= i < 4 and 0 <= j < 5 and 0 <= k < 6 }"
child:
  sequence:
  - filter: "{ S1[i, j, k] }"
    child:
      schedule: "[{ S1[i, j, k] -> [(i)] }, { S1[i, j, k] -> [(j)] }, { S1[i, j, k] -> [(k)] }]"
  - filter: "{ S0[i, j] }"
    child:
      schedule: "[{ S0[i, j] -> [(i)] }, { S0[i, j] -> [(j)] }]"
)";

/// Runs the kernel on small arrays and compares C with a plain loop.
int run_and_check(const atl::poly::LKernel &kernel) {
  std::map<std::string, std::vector<float>> data;
  data["A"].resize(M * K);
  data["B"].resize(K * N);
  data["C"].assign(M * N, 123.0f);  // garbage: the init statement must overwrite it
  for (int x = 0; x < M * K; ++x) data["A"][x] = float((x * 7) % 11) - 5.0f;
  for (int x = 0; x < K * N; ++x) data["B"][x] = float((x * 5) % 9) - 4.0f;
  std::vector<void *> arrays;
  for (const auto &a : kernel.arrays) arrays.push_back(data.at(a.name).data());
  std::unique_ptr<atl::cpu::CpuExecutable> exe = atl::cpu::jit_kernels({kernel});
  std::int64_t no_params[1] = {0};
  exe->run(kernel.name, arrays.data(), no_params);
  int bad = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float want = 0;
      for (int k = 0; k < K; ++k) want += data["A"][i * K + k] * data["B"][k * N + j];
      if (std::fabs(want - data["C"][i * N + j]) > 1e-4f) ++bad;
    }
  std::cout << (bad ? "MISMATCH: " + std::to_string(bad) + " elements\n" : "result matches the plain loop\n");
  return bad;
}

}  // namespace

int main() {
  try {
    atl::poly::IslContext ctx;
    atl::poly::Scop scop = atl::poly::scop_from_text(ctx, matmul_scop());
    atl::poly::print_scop(std::cout, scop);
    atl::poly::Dependences deps = atl::poly::compute_dependences(scop);
    atl::poly::print_dependences(std::cout, deps);

    atl::poly::ScheduleResult isl = atl::poly::schedule_isl(scop, deps);
    std::cout << "isl's schedule tree (" << isl.algorithm << "):\n" << atl::poly::schedule_to_yaml(isl.schedule) << "\n";

    // Our own tree: accepted after the legality check.
    atl::poly::ScheduleResult mine = atl::poly::schedule_given(scop, deps, kInterchanged);
    std::cout << "own interchanged tree accepted:\n" << atl::poly::schedule_to_yaml(mine.schedule) << "\n";

    // An illegal tree: refused with the violated dependence.
    bool refused = false;
    try {
      atl::poly::schedule_given(scop, deps, kIllegal);
    } catch (const atl::poly::IllegalSchedule &e) {
      const atl::poly::Violation &v = e.violation();
      std::cout << "illegal tree refused: " << v.kind << " dependence, source " << v.source << ", target "
                << v.target << ", relation " << v.relation << ", dimension " << v.dimension << "\n";
      refused = v.source == "S0" && v.target == "S1";
    }
    if (!refused) {
      std::cerr << "the illegal tree was not refused as expected\n";
      return 1;
    }

    int bad = 0;
    for (const auto *s : {&isl.schedule, &mine.schedule}) {
      atl::poly::LKernel kernel = atl::poly::build_ast(scop, deps, *s);
      atl::poly::print_loop_ast(std::cout, kernel);
      bad += run_and_check(kernel);
    }
    return bad ? 1 : 0;
  } catch (const std::exception &e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
