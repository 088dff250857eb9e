// Mutational fuzzing of the batch reader: random edits of valid batches must
// give a graph or a UserError, never a crash, a hang or another exception.
#include "src/frontend/batch.h"
#include "src/pipeline/pipeline.h"

#include <doctest/doctest.h>

#include "tests/fuzz/mutate.h"

#include <cstdint>
#include <string>
#include <vector>

using namespace atl;
using fuzz::Rng;

namespace {

const char *kSeeds[] = {
    R"J({"atoll": 1, "name": "f", "graphs": [{"name": "g", "params": {"N": {"min": 1, "max": 3}},
      "inputs": [{"name": "x", "shape": ["N", 3, 4, 4]}],
      "weights": [{"name": "w", "shape": [2, 3, 3, 3]}, {"name": "s", "shape": [2], "dtype": "i64", "data": [0, -1]}],
      "outputs": ["y"],
      "nodes": [{"op": "Conv", "name": "c", "inputs": ["x", "w"], "outputs": ["c1"], "attrs": {"pads": [1, 1, 1, 1]}},
                {"op": "Relu", "inputs": ["c1"], "outputs": ["r"]},
                {"op": "Reshape", "inputs": ["r", "s"], "outputs": ["y"]}],
      "schedule": {"fuse": "auto", "vectorize": true}}]})J",
    R"J({"atoll": 1, "graphs": [{"name": "h", "inputs": [{"name": "A", "shape": [4, 5]}, {"name": "B", "shape": [5, 6]}],
      "outputs": ["C", "D"],
      "nodes": [{"op": "Compute", "name": "mm", "inputs": ["A", "B"], "outputs": ["C"],
                 "attrs": {"expr": "C(i, j) +=! A(i, k) * B(k, j)"}},
                {"op": "Softmax", "inputs": ["C"], "outputs": ["D"], "attrs": {"axis": 1}}]}]})J",
};

const std::vector<std::string> kTokens = {"{", "}", "[", "]", ",", ":", "\"", "0", "-1", "1e9", "99999999999999999999",
                                          "null", "true", "\"N\"", "\"x\"", "\"Add\"", "\"f16\"", "[]", "{}", "\\u0000",
                                          "(", "+=!", "i * i"};

}  // namespace

TEST_SUITE("src") {
TEST_CASE("fuzz: mutated batches give graphs or located errors") {
  Rng rng{0x5eed1234abcdull};
  int graphs = 0, errors = 0, verified = 0;
  for (int i = 0; i < 1500; ++i) {
    std::string text = fuzz::mutate(kSeeds[i % 2], rng, kTokens);
    INFO("seed case " << i << ": " << text);
    try {
      Batch b = read_batch(text);
      for (const BatchGraph &g : b.graphs) {
        if (g.graph) ++graphs;
        else ++errors;
      }
      if (i % 50 == 0) {  // now and then run what was read
        PipelineOptions o;
        o.verify = true;
        o.definitions_only = true;  // definition-vs-reference: no code generation involved
        BatchRun r = run_pipeline(b, o);
        for (const GraphRun &g : r.graphs) verified += g.verify.has_value();
      }
    } catch (const UserError &) {
      ++errors;
    }
  }
  CHECK(graphs > 0);
  CHECK(errors > 0);
  MESSAGE("graphs read: " << graphs << ", errors: " << errors << ", verified: " << verified);
}
}
