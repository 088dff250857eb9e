// API example: hand Atoll a SCoP as another compiler would (isl strings plus
// statement bodies), read back isl's schedule tree, replace it with a legal
// interchanged tree, see an illegal tree refused, then JIT and check the code.
// Only the public header <atoll/scop.h> is used.
#include <atoll/scop.h>

#include <cmath>
#include <cstdint>
#include <iostream>
#include <map>
#include <string>
#include <vector>

namespace {

constexpr int M = 4, N = 5, K = 6;

/// C = A * B with an explicit initialisation statement.
atl::ScopDescription matmul_scop() {
  atl::ScopDescription d;
  d.name = "api_matmul";
  d.arrays = {{"A", atl::DType::F32, {M, K}, atl::ScopRole::Input},
              {"B", atl::DType::F32, {K, N}, atl::ScopRole::Input},
              {"C", atl::DType::F32, {M, N}, atl::ScopRole::Output}};
  atl::ScopStatement init;
  init.domain = "{ S0[i, j] : 0 <= i < 4 and 0 <= j < 5 }";
  init.write = "{ S0[i, j] -> C[i, j] }";
  init.body = "0";  // right-hand side only: C(i, j) = 0
  atl::ScopStatement update;
  update.domain = "{ S1[i, j, k] : 0 <= i < 4 and 0 <= j < 5 and 0 <= k < 6 }";
  update.write = "{ S1[i, j, k] -> C[i, j] }";
  update.reads = {"{ S1[i, j, k] -> A[i, k] }", "{ S1[i, j, k] -> B[k, j] }"};
  update.body = "C(i, j) += A(i, k) * B(k, j)";  // a full Compute statement
  d.statements = {init, update};
  return d;
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
int run_and_check(const atl::ScopKernel &kernel) {
  std::map<std::string, std::vector<float>> data;
  data["A"].resize(M * K);
  data["B"].resize(K * N);
  data["C"].assign(M * N, 123.0f);  // garbage: the init statement must overwrite it
  for (int x = 0; x < M * K; ++x) data["A"][x] = float((x * 7) % 11) - 5.0f;
  for (int x = 0; x < K * N; ++x) data["B"][x] = float((x * 5) % 9) - 4.0f;
  std::map<std::string, void *> buffers;
  for (const atl::ScopArray &a : kernel.arrays()) buffers[a.name] = data.at(a.name).data();
  kernel.run(buffers);
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
    atl::ScopProgram program(matmul_scop());
    std::cout << program.scop_text() << program.dependences_text();

    atl::ScopSchedule isl = program.schedule("isl");
    std::cout << "isl's schedule tree (" << isl.algorithm << "):\n" << isl.tree << "\n";

    // Our own tree: accepted after the legality check (no violation).
    if (!program.violations(kInterchanged).empty()) {
      std::cerr << "the interchanged tree was refused\n";
      return 1;
    }
    std::cout << "own interchanged tree accepted\n";

    // An illegal tree: refused with every violated dependence.
    std::vector<atl::ScheduleViolation> violations = program.violations(kIllegal);
    for (const atl::ScheduleViolation &v : violations)
      std::cout << "illegal tree: " << v.kind << " dependence, source " << v.source << ", target " << v.target
                << ", relation " << v.relation << ", dimension " << v.dimension << "\n";
    bool refused = false;
    try {
      program.compile(kIllegal);
    } catch (const atl::IllegalScheduleError &e) {
      std::cout << "illegal tree refused: " << e.what() << "\n";
      refused = !e.violations().empty() && e.violations().front().source == "S0" &&
                e.violations().front().target == "S1";
    }
    if (!refused || violations.empty()) {
      std::cerr << "the illegal tree was not refused as expected\n";
      return 1;
    }

    int bad = 0;
    for (const std::string &tree : {isl.tree, std::string(kInterchanged)}) {
      atl::ScopKernel kernel = program.compile(tree, "cpu");  // LLVM JIT
      std::cout << kernel.loop_ast();
      bad += run_and_check(kernel);
    }
    return bad ? 1 : 0;
  } catch (const std::exception &e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
