// The SCoP-level API (include/atoll/scop.h): legal and illegal schedule
// trees (every violated dependence listed), kernels run against plain
// loops (the schedulers' trees, a tree of our own, a parameter at two
// values, a temporary, the cpu-c target), threads, and the errors.
#include <atoll/scop.h>

#include "tests/unit/src/api/api_test_data.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <thread>
#include <vector>

using namespace atl;

namespace {

constexpr int M = 4, N = 5, K = 6;

/// C = A * B with an explicit initialisation statement S0 and the update S1.
ScopDescription matmul() {
  ScopDescription d;
  d.name = "matmul";
  d.arrays = {{"A", DType::F32, {M, K}, ScopRole::Input},
              {"B", DType::F32, {K, N}, ScopRole::Input},
              {"C", DType::F32, {M, N}, ScopRole::Output}};
  ScopStatement init;
  init.domain = "{ S0[i, j] : 0 <= i < 4 and 0 <= j < 5 }";
  init.write = "{ S0[i, j] -> C[i, j] }";
  init.body = "0";
  ScopStatement update;
  update.domain = "{ S1[i, j, k] : 0 <= i < 4 and 0 <= j < 5 and 0 <= k < 6 }";
  update.write = "{ S1[i, j, k] -> C[i, j] }";
  update.reads = {"{ S1[i, j, k] -> A[i, k] }", "{ S1[i, j, k] -> B[k, j] }"};
  update.body = "C(i, j) += A(i, k) * B(k, j)";
  d.statements = {init, update};
  return d;
}

const char *kMatmulDomain =
    R"(domain: "{ S0[i, j] : 0 <= i < 4 and 0 <= j < 5; S1[i, j, k] : 0 <= i < 4 and 0 <= j < 5 and 0 <= k < 6 }")";

// Legal: j outside i, then the init and the k loop.
const std::string kInterchanged = std::string(kMatmulDomain) + R"(
child:
  schedule: "[{ S0[i, j] -> [(j)]; S1[i, j, k] -> [(j)] }, { S0[i, j] -> [(i)]; S1[i, j, k] -> [(i)] }]"
  child:
    sequence:
    - filter: "{ S0[i, j] }"
    - filter: "{ S1[i, j, k] }"
      child:
        schedule: "[{ S1[i, j, k] -> [(k)] }]"
)";

// Legal although the original order is i, j, k: k outermost reorders the
// reduction (re-association is allowed) but keeps every init first.
const std::string kReductionOutside = std::string(kMatmulDomain) + R"(
child:
  sequence:
  - filter: "{ S0[i, j] }"
    child:
      schedule: "[{ S0[i, j] -> [(i)] }, { S0[i, j] -> [(j)] }]"
  - filter: "{ S1[i, j, k] }"
    child:
      schedule: "[{ S1[i, j, k] -> [(k)] }, { S1[i, j, k] -> [(i)] }, { S1[i, j, k] -> [(j)] }]"
)";

// Illegal: every update runs before the initialisation of its element.
const std::string kUpdateFirst = std::string(kMatmulDomain) + R"(
child:
  sequence:
  - filter: "{ S1[i, j, k] }"
    child:
      schedule: "[{ S1[i, j, k] -> [(i)] }, { S1[i, j, k] -> [(j)] }, { S1[i, j, k] -> [(k)] }]"
  - filter: "{ S0[i, j] }"
    child:
      schedule: "[{ S0[i, j] -> [(i)] }, { S0[i, j] -> [(j)] }]"
)";

/// A chain b = a + 1; c = 2 * b; d = c - a over 8 elements: three statements
/// with flow dependences S0 -> S1 and S1 -> S2 (and S0 -> S2 through nothing:
/// S2 reads a, an input).
ScopDescription chain() {
  ScopDescription d;
  d.name = "chain";
  d.arrays = {{"a", DType::F32, {8}, ScopRole::Input},
              {"b", DType::F32, {8}, ScopRole::Temporary},
              {"c", DType::F32, {8}, ScopRole::Temporary},
              {"d", DType::F32, {8}, ScopRole::Output}};
  d.statements = {{"{ S0[i] : 0 <= i < 8 }", "{ S0[i] -> b[i] }", {"{ S0[i] -> a[i] }"}, "a(i) + 1"},
                  {"{ S1[i] : 0 <= i < 8 }", "{ S1[i] -> c[i] }", {"{ S1[i] -> b[i] }"}, "c(i) = 2 * b(i)"},
                  {"{ S2[i] : 0 <= i < 8 }", "{ S2[i] -> d[i] }", {"{ S2[i] -> c[i] }", "{ S2[i] -> a[i] }"},
                   "c(i) - a(i)"}};
  return d;
}

/// The chain's statements in reverse order: violates S0 -> S1 and S1 -> S2.
const char *kChainReversed = R"(domain: "{ S0[i] : 0 <= i < 8; S1[i] : 0 <= i < 8; S2[i] : 0 <= i < 8 }"
child:
  sequence:
  - filter: "{ S2[i] }"
    child:
      schedule: "[{ S2[i] -> [(i)] }]"
  - filter: "{ S1[i] }"
    child:
      schedule: "[{ S1[i] -> [(i)] }]"
  - filter: "{ S0[i] }"
    child:
      schedule: "[{ S0[i] -> [(i)] }]"
)";

/// The chain fused into one loop, statements in order in its body: legal.
const char *kChainFused = R"(domain: "{ S0[i] : 0 <= i < 8; S1[i] : 0 <= i < 8; S2[i] : 0 <= i < 8 }"
child:
  schedule: "[{ S0[i] -> [(i)]; S1[i] -> [(i)]; S2[i] -> [(i)] }]"
  child:
    sequence:
    - filter: "{ S0[i] }"
    - filter: "{ S1[i] }"
    - filter: "{ S2[i] }"
)";

/// y(i) = sum_k x(i, k) * w(k) + bias over N rows, N a parameter in 1..64.
ScopDescription matvec() {
  ScopDescription d;
  d.name = "matvec";
  d.context = "[N] -> { : 1 <= N <= 64 }";
  d.arrays = {{"x", DType::F32, {"N", 8}, ScopRole::Input},
              {"w", DType::F32, {8}, ScopRole::Input},
              {"y", DType::F32, {"N"}, ScopRole::Output}};
  ScopStatement init{"[N] -> { S0[i] : 0 <= i < N }", "{ S0[i] -> y[i] }", {}, "0.5"};
  ScopStatement update{"[N] -> { S1[i, k] : 0 <= i < N and 0 <= k < 8 }",
                       "{ S1[i, k] -> y[i] }",
                       {"{ S1[i, k] -> x[i, k] }", "{ S1[i, k] -> w[k] }"},
                       "x(i, k) * w(k)",
                       ScopAssign::Add};
  d.statements = {init, update};
  return d;
}

using api_test::close;
using api_test::filled;

/// Runs a matmul kernel on fresh inputs; true when C equals the plain loop.
bool matmul_matches(const ScopKernel &kernel, unsigned seed) {
  std::vector<float> a = filled(M * K, seed), b = filled(K * N, seed + 1), c(M * N, 123.0f);
  kernel.run({{"A", a.data()}, {"B", b.data()}, {"C", c.data()}});
  std::vector<float> want(M * N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float s = 0;
      for (int k = 0; k < K; ++k) s += a[i * K + k] * b[k * N + j];
      want[i * N + j] = s;
    }
  return close(c, want);
}

/// Runs a matvec kernel at N = n; true when y equals the plain loop.
bool matvec_matches(const ScopKernel &kernel, int n, unsigned seed) {
  std::vector<float> x = filled(static_cast<std::size_t>(n) * 8, seed), w = filled(8, seed + 1);
  std::vector<float> y(static_cast<std::size_t>(n), -7.0f);
  kernel.run({{"x", x.data()}, {"w", w.data()}, {"y", y.data()}}, {{"N", n}});
  std::vector<float> want(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    float s = 0.5f;
    for (int k = 0; k < 8; ++k) s += x[i * 8 + k] * w[k];
    want[i] = s;
  }
  return close(y, want);
}

using api_test::error_of;
using api_test::has;

}  // namespace

TEST_SUITE("src") {

TEST_CASE("scop api: the SCoP, its dependences and the schedulers' trees") {
  ScopProgram p(matmul());
  CHECK(p.name() == "matmul");
  CHECK(p.params().empty());
  CHECK(p.statements() == std::vector<std::string>{"S0", "S1"});
  std::string scop = p.scop_text(), deps = p.dependences_text();
  CHECK(has(scop, "S0"));
  CHECK(has(scop, "S1"));
  CHECK(has(scop, "A(i, k) * B(k, j)"));
  CHECK(has(deps, "S0"));
  CHECK(has(deps, "S1"));
  CHECK(has(p.original_tree(), "S1[i, j, k]"));
  for (const char *scheduler : {"isl", "feautrier", "original", "pluto"}) {
    INFO(scheduler);
    ScopSchedule s = p.schedule(scheduler);
    CHECK(has(s.tree, "domain"));
    CHECK(!s.algorithm.empty());
    CHECK(p.violations(s.tree).empty());
    CHECK(matmul_matches(p.compile(s.tree), 3));
  }
  CHECK(p.schedule("original").algorithm == "original");
  CHECK(p.schedule("isl").algorithm.rfind("isl", 0) == 0);
}

TEST_CASE("scop api: a legal tree of our own runs as the plain loop") {
  ScopProgram p(matmul());
  for (const std::string &tree : {kInterchanged, kReductionOutside, p.original_tree()}) {
    INFO(tree);
    CHECK(p.violations(tree).empty());
    ScopKernel k = p.compile(tree);
    CHECK(k.name() == "matmul");
    CHECK(k.target() == "cpu");
    REQUIRE(k.arrays().size() == 3);
    CHECK(k.arrays()[0].name == "A");
    CHECK(k.arrays()[1].name == "B");
    CHECK(k.arrays()[2].name == "C");
    CHECK(k.arrays()[2].role == ScopRole::Output);
    CHECK(k.arrays()[0].shape.size() == 2);
    CHECK(k.shape("C") == std::vector<std::int64_t>{M, N});
    CHECK(k.bytes("A") == M * K * 4);
    CHECK(matmul_matches(k, 5));
    CHECK(matmul_matches(k, 6));  // again, on other inputs
  }
  // The interchanged tree's loop AST has j outside i.
  std::string ast = p.compile(kInterchanged).loop_ast();
  CHECK(has(ast, "for"));
  CHECK(has(ast, "C["));
}

TEST_CASE("scop api: an illegal tree lists every violated dependence") {
  ScopProgram p(matmul());
  std::vector<ScheduleViolation> v = p.violations(kUpdateFirst);
  REQUIRE(!v.empty());
  // The init's value reaches the updates (flow) and both write C (output).
  bool flow = false, output = false;
  for (const ScheduleViolation &x : v) {
    INFO(x.message);
    CHECK(x.source == "S0");
    CHECK(x.target == "S1");
    CHECK(x.dimension == 0);
    CHECK(!x.simultaneous);
    CHECK(has(x.relation, "S0["));
    CHECK(has(x.message, x.kind));
    flow = flow || x.kind == "flow";
    output = output || x.kind == "output";
  }
  CHECK(flow);
  CHECK(output);
  CHECK(v.front().kind == "flow");  // by kind: flow, anti, output, reduction-order

  // compile refuses it with the same list.
  bool refused = false;
  try {
    p.compile(kUpdateFirst);
  } catch (const IllegalScheduleError &e) {
    refused = true;
    CHECK(has(e.what(), "flow dependence from statement S0 to statement S1"));
    REQUIRE(e.violations().size() == v.size());
    for (std::size_t i = 0; i < v.size(); ++i) CHECK(e.violations()[i].message == v[i].message);
  }
  CHECK(refused);
  // An IllegalScheduleError is a UserError.
  CHECK(has(error_of([&] { p.compile(kUpdateFirst, "cpu-c"); }), "violates"));
}

TEST_CASE("scop api: two violated dependences between different statements are both listed, in order") {
  ScopProgram p(chain());
  CHECK(p.violations(kChainFused).empty());
  std::vector<ScheduleViolation> v = p.violations(kChainReversed);
  REQUIRE(v.size() == 2);
  CHECK(v[0].kind == "flow");
  CHECK(v[0].source == "S0");
  CHECK(v[0].target == "S1");
  CHECK(v[1].kind == "flow");
  CHECK(v[1].source == "S1");
  CHECK(v[1].target == "S2");
  CHECK(v[0].dimension == 0);
  CHECK(v[1].dimension == 0);
  CHECK(has(v[1].relation, "S1["));
  CHECK(has(v[1].relation, "S2["));
  // The order does not depend on the tree's order of the statements.
  std::vector<ScheduleViolation> again = p.violations(kChainReversed);
  REQUIRE(again.size() == 2);
  CHECK(again[0].source == "S0");
  CHECK(again[1].source == "S1");
}

TEST_CASE("scop api: temporaries are allocated when the caller gives none") {
  ScopProgram p(chain());
  ScopKernel k = p.compile(kChainFused);
  REQUIRE(k.arrays().size() == 4);
  CHECK(k.arrays()[3].role == ScopRole::Temporary);
  std::vector<float> a = filled(8, 11), d(8, 99.0f);
  k.run({{"a", a.data()}, {"d", d.data()}});
  std::vector<float> want(8);
  for (int i = 0; i < 8; ++i) want[i] = 2 * (a[i] + 1) - a[i];
  CHECK(close(d, want));
  // Given temporaries are used: b and c hold the intermediate values after the run.
  std::vector<float> b(8, 0.0f), c(8, 0.0f);
  std::fill(d.begin(), d.end(), 99.0f);
  k.run({{"a", a.data()}, {"b", b.data()}, {"c", c.data()}, {"d", d.data()}});
  CHECK(close(d, want));
  for (int i = 0; i < 8; ++i) CHECK(b[i] == doctest::Approx(a[i] + 1));
}

TEST_CASE("scop api: a SCoP with a parameter runs at two values") {
  ScopProgram p(matvec());
  CHECK(p.params() == std::vector<std::string>{"N"});
  ScopSchedule s = p.schedule("isl");
  ScopKernel k = p.compile(s.tree);
  CHECK(k.params() == std::vector<std::string>{"N"});
  CHECK(k.shape("x", {{"N", 3}}) == std::vector<std::int64_t>{3, 8});
  CHECK(k.shape("y", {{"N", 7}}) == std::vector<std::int64_t>{7});
  CHECK(k.bytes("x", {{"N", 7}}) == 7 * 8 * 4);
  CHECK(matvec_matches(k, 3, 21));
  CHECK(matvec_matches(k, 7, 22));
  CHECK(matvec_matches(k, 64, 23));
  CHECK(matvec_matches(p.compile(p.original_tree()), 5, 24));

  std::vector<float> x(8 * 100), w(8), y(100);
  // A value outside the context, a missing and an unknown parameter: nothing runs.
  CHECK(has(error_of([&] { k.run({{"x", x.data()}, {"w", w.data()}, {"y", y.data()}}, {{"N", 100}}); }),
            "outside the SCoP's context"));
  CHECK(has(error_of([&] { k.run({{"x", x.data()}, {"w", w.data()}, {"y", y.data()}}); }), "parameter 'N'"));
  CHECK(has(error_of([&] { k.run({{"x", x.data()}, {"w", w.data()}, {"y", y.data()}}, {{"N", 2}, {"Q", 1}}); }),
            "no parameter 'Q'"));
  CHECK(has(error_of([&] { k.shape("x"); }), "parameter 'N'"));
}

TEST_CASE("scop api: the cpu-c target, the C source and the LLVM IR") {
  ScopProgram p(matvec());
  std::string tree = p.schedule("isl").tree;
  ScopKernel c = p.compile(tree, "cpu-c");
  CHECK(c.target() == "cpu-c");
  CHECK(matvec_matches(c, 4, 31));
  CHECK(matvec_matches(c, 9, 32));
  std::string src = c.c_source();
  CHECK(has(src, "matvec"));
  CHECK(has(src, "for"));
  CHECK(has(c.llvm_ir(), "define"));
  CHECK(has(c.loop_ast(), "y["));
  // The same texts from the JIT kernel.
  ScopKernel j = p.compile(tree, "cpu");
  CHECK(j.c_source() == src);
  CHECK(j.loop_ast() == c.loop_ast());
}

TEST_CASE("scop api: programs on two threads, and one kernel run by two threads") {
  bool ok[2] = {false, false};
  auto job = [&](int t) {
    ScopProgram p(matvec());
    ScopKernel k = p.compile(p.schedule(t ? "feautrier" : "isl").tree);
    bool good = true;
    for (int i = 0; i < 5; ++i) good = good && matvec_matches(k, 3 + i + t, static_cast<unsigned>(40 + i + 10 * t));
    ok[t] = good;
  };
  std::thread a(job, 0), b(job, 1);
  a.join();
  b.join();
  CHECK(ok[0]);
  CHECK(ok[1]);

  ScopProgram p(matvec());
  const ScopKernel k = p.compile(p.original_tree());
  auto runs = [&](int t) {
    bool good = true;
    for (int i = 0; i < 20; ++i) good = good && matvec_matches(k, 1 + (i + t) % 16, static_cast<unsigned>(i + 100 * t));
    ok[t] = good;
  };
  std::thread c(runs, 0), d(runs, 1);
  c.join();
  d.join();
  CHECK(ok[0]);
  CHECK(ok[1]);
}

TEST_CASE("scop api: a kernel outlives its program") {
  ScopKernel k;
  {
    ScopProgram p(matmul());
    k = p.compile(kInterchanged);
  }
  CHECK(matmul_matches(k, 9));
}

TEST_CASE("scop api: errors in the description") {
  {
    ScopDescription d = matmul();
    d.statements[1].domain = "{ S1[i, j, k] : 0 <= i < }";
    CHECK(has(error_of([&] { ScopProgram p(d); }), "not valid isl text"));
  }
  {
    ScopDescription d = matmul();
    d.statements[1].reads[1] = "{ S1[i, j, k] -> Z[k, j] }";
    std::string e = error_of([&] { ScopProgram p(d); });
    CHECK(has(e, "'Z'"));
    CHECK(has(e, "not an array of the SCoP"));
  }
  {
    ScopDescription d = matmul();
    d.statements[1].body = "C(i, j) += A(i, k) * Q(k, j)";
    CHECK(has(error_of([&] { ScopProgram p(d); }), "'Q'"));
  }
  {
    ScopDescription d = matmul();
    d.arrays[0].shape = {"N N", K};
    CHECK(has(error_of([&] { ScopProgram p(d); }), "not a C identifier"));
  }
  {
    ScopDescription d = matvec();
    d.context = "{ [N] : }";
    CHECK(has(error_of([&] { ScopProgram p(d); }), "context"));
  }
  ScopProgram p(matmul());
  CHECK(has(error_of([&] { p.schedule("magic"); }), "unknown scheduler 'magic'"));
  CHECK(has(error_of([&] { p.compile(kInterchanged, "gpu"); }), "target 'gpu'"));
}

TEST_CASE("scop api: a tree that is not for the SCoP's instances") {
  ScopProgram p(matmul());
  // Other statements.
  const char *other = R"(domain: "{ T[i] : 0 <= i < 4 }"
child:
  schedule: "[{ T[i] -> [(i)] }]"
)";
  std::string e = error_of([&] { p.violations(other); });
  CHECK(has(e, "hint 'tree'"));
  CHECK(has(e, "S0"));
  CHECK(has(error_of([&] { p.compile(other); }), "hint 'tree'"));
  // Only part of the instances.
  const char *part = R"(domain: "{ S0[i, j] : 0 <= i < 4 and 0 <= j < 5; S1[i, j, k] : 0 <= i < 2 and 0 <= j < 5 and 0 <= k < 6 }"
child:
  sequence:
  - filter: "{ S0[i, j] }"
  - filter: "{ S1[i, j, k] }"
)";
  CHECK(has(error_of([&] { p.violations(part); }), "does not schedule every instance"));
  // Not isl YAML at all.
  CHECK(has(error_of([&] { p.violations("this is not a tree"); }), "tree"));
}

TEST_CASE("scop api: wrong, missing and null buffers") {
  ScopProgram p(matmul());
  ScopKernel k = p.compile(kInterchanged);
  std::vector<float> a(M * K, 1.0f), b(K * N, 1.0f), c(M * N, -1.0f);
  std::string e = error_of([&] { k.run({{"A", a.data()}, {"B", b.data()}, {"C", c.data()}, {"D", c.data()}}); });
  CHECK(has(e, "no array 'D'"));
  CHECK(has(e, "A, B, C"));
  CHECK(has(error_of([&] { k.run({{"A", a.data()}, {"B", b.data()}}); }), "output array 'C'"));
  CHECK(has(error_of([&] { k.run({{"A", a.data()}, {"C", c.data()}}); }), "input array 'B'"));
  CHECK(has(error_of([&] { k.run({{"A", nullptr}, {"B", b.data()}, {"C", c.data()}}); }),
            "array 'A' is a null pointer"));
  for (float x : c) CHECK(x == -1.0f);  // nothing ran
  CHECK(has(error_of([&] { k.run({{"A", a.data()}, {"B", b.data()}, {"C", c.data()}}, {{"N", 3}}); }),
            "no parameter 'N'"));
  CHECK(has(error_of([&] { k.shape("Z"); }), "no array 'Z'"));
  // An empty kernel, a moved-from program.
  ScopKernel empty;
  CHECK(has(error_of([&] { empty.run({}); }), "empty"));
  ScopProgram q = std::move(p);
  CHECK(q.statements().size() == 2);
  CHECK(has(error_of([&] { p.scop_text(); }), "moved from"));  // NOLINT: use after move is the point
}

}  // TEST_SUITE
