// A C++ program outside the Atoll tree that uses an installed Atoll through
// the module API alone (<atoll/module.h>): compile a graph from JSON, run it
// on its own buffers, check. The header must not pull in Boost, nlohmann,
// isl or LLVM.
#include <atoll/module.h>

#if defined(BOOST_VERSION) || defined(NLOHMANN_JSON_VERSION_MAJOR) || defined(ISL_CTX_H) || \
    defined(LLVM_VERSION_MAJOR)
#error "<atoll/module.h> includes a third-party header"
#endif

#include <cstdio>

int main() {
  try {
    atl::Module m = atl::compile_graph_json(
        R"J({"name": "axpy", "inputs": [{"name": "x", "shape": [4]}, {"name": "y", "shape": [4]}],
             "outputs": ["z"], "nodes": [{"op": "Compute", "inputs": ["x", "y"], "outputs": ["z"],
             "attrs": {"expr": "z(i) = 2 * x(i) + y(i)"}}]})J");
    float x[4] = {1, 2, 3, 4}, y[4] = {10, 20, 30, 40}, z[4] = {0, 0, 0, 0};
    m.run({{"x", x}, {"y", y}}, {{"z", z}});
    bool ok = z[0] == 12 && z[1] == 24 && z[2] == 36 && z[3] == 48 && m.bytes("z") == 16;
    std::printf("axpy through the module API: [%g, %g, %g, %g] %s\n", z[0], z[1], z[2], z[3], ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
  } catch (const atl::UserError &e) {
    std::fprintf(stderr, "consumer_module: %s\n", e.what());
    return 1;
  }
}
