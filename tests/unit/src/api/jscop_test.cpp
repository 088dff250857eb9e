// `atoll jscop` below the CLI: the JSCoP reader and writer, the memory-based
// dependences, the scheduling (tiling, loop order, legality of the flat
// maps) and the errors, on JSCoP files as Polly 19 writes them.
#include <atoll/jscop.h>

#include "polyhedral/isl/isl_context.h"
#include "polyhedral/jscop/jscop_scop.h"
#include "src/frontend/jscop_file.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace atl;

namespace {

// What clang-19 -O3 -mllvm -polly -mllvm -polly-position=early
// -mllvm -polly-optimizer=none -mllvm -polly-export wrote for
// samples/loops/gemm.c, at smaller sizes, byte for byte.
const char *kGemm = R"({
   "arrays": [
      {
         "name": "MemRef0",
         "sizes": [
            "*",
            "110"
         ],
         "type": "double"
      },
      {
         "name": "MemRef2",
         "sizes": [
            "*",
            "120"
         ],
         "type": "double"
      },
      {
         "name": "MemRef3",
         "sizes": [
            "*",
            "110"
         ],
         "type": "double"
      }
   ],
   "context": "{  :  }",
   "name": "%2---%4",
   "statements": [
      {
         "accesses": [
            {
               "kind": "read",
               "relation": "{ Stmt1[i0, i1] -> MemRef0[i0, i1] }"
            },
            {
               "kind": "write",
               "relation": "{ Stmt1[i0, i1] -> MemRef0[i0, i1] }"
            }
         ],
         "domain": "{ Stmt1[i0, i1] : 0 <= i0 <= 99 and 0 <= i1 <= 109 }",
         "name": "Stmt1",
         "schedule": "{ Stmt1[i0, i1] -> [i0, i1, 0, 0] }"
      },
      {
         "accesses": [
            {
               "kind": "read",
               "relation": "{ Stmt2[i0, i1, i2] -> MemRef0[i0, i1] }"
            },
            {
               "kind": "read",
               "relation": "{ Stmt2[i0, i1, i2] -> MemRef2[i0, i2] }"
            },
            {
               "kind": "read",
               "relation": "{ Stmt2[i0, i1, i2] -> MemRef3[i2, i1] }"
            },
            {
               "kind": "write",
               "relation": "{ Stmt2[i0, i1, i2] -> MemRef0[i0, i1] }"
            }
         ],
         "domain": "{ Stmt2[i0, i1, i2] : 0 <= i0 <= 99 and 0 <= i1 <= 109 and 0 <= i2 <= 119 }",
         "name": "Stmt2",
         "schedule": "{ Stmt2[i0, i1, i2] -> [i0, i1, 1, i2] }"
      }
   ]
})";

// A running sum: A[i] = A[i - 1] + A[i], one loop that carries its only
// dependence. Nothing can be tiled or reordered.
const char *kPrefixSum = R"({
   "context": "[n] -> {  : 2 <= n <= 1000000 }",
   "name": "%1---%3",
   "statements": [
      {
         "accesses": [
            { "kind": "read", "relation": "[n] -> { Stmt0[i0] -> MemRef0[i0] }" },
            { "kind": "read", "relation": "[n] -> { Stmt0[i0] -> MemRef0[1 + i0] }" },
            { "kind": "write", "relation": "[n] -> { Stmt0[i0] -> MemRef0[1 + i0] }" }
         ],
         "domain": "[n] -> { Stmt0[i0] : 0 <= i0 <= -2 + n }",
         "name": "Stmt0",
         "schedule": "[n] -> { Stmt0[i0] -> [i0] }"
      }
   ]
})";

// A two-array Jacobi stencil with a time loop: only skewing makes it tileable.
const char *kJacobi = R"({
   "context": "{  :  }",
   "name": "%3---%9",
   "statements": [
      {
         "accesses": [
            { "kind": "read", "relation": "{ Stmt1[i0, i1] -> MemRef0[i1] }" },
            { "kind": "read", "relation": "{ Stmt1[i0, i1] -> MemRef0[1 + i1] }" },
            { "kind": "read", "relation": "{ Stmt1[i0, i1] -> MemRef0[2 + i1] }" },
            { "kind": "write", "relation": "{ Stmt1[i0, i1] -> MemRef1[1 + i1] }" }
         ],
         "domain": "{ Stmt1[i0, i1] : 0 <= i0 <= 49 and 0 <= i1 <= 397 }",
         "name": "Stmt1",
         "schedule": "{ Stmt1[i0, i1] -> [i0, 0, i1] }"
      },
      {
         "accesses": [
            { "kind": "read", "relation": "{ Stmt3[i0, i1] -> MemRef1[i1] }" },
            { "kind": "read", "relation": "{ Stmt3[i0, i1] -> MemRef1[1 + i1] }" },
            { "kind": "read", "relation": "{ Stmt3[i0, i1] -> MemRef1[2 + i1] }" },
            { "kind": "write", "relation": "{ Stmt3[i0, i1] -> MemRef0[1 + i1] }" }
         ],
         "domain": "{ Stmt3[i0, i1] : 0 <= i0 <= 49 and 0 <= i1 <= 397 }",
         "name": "Stmt3",
         "schedule": "{ Stmt3[i0, i1] -> [i0, 1, i1] }"
      }
   ]
})";

/// Reads the written text back and checks, on the flat maps, that every
/// schedule has one number of outputs and respects the input's dependences.
void check_legal(const std::string &input, const std::string &output) {
  frontend::JscopFile in = frontend::read_jscop(input), out = frontend::read_jscop(output);
  REQUIRE(out.scop.statements.size() == in.scop.statements.size());
  poly::IslContext ctx;
  poly::jscop::Parsed original = poly::jscop::parse(ctx, in.scop);
  poly::Dependences deps = poly::jscop::memory_dependences(original);
  std::vector<isl::map> maps;
  for (std::size_t s = 0; s < out.scop.statements.size(); ++s) {
    CHECK(out.scop.statements[s].name == in.scop.statements[s].name);
    CHECK(out.scop.statements[s].domain == in.scop.statements[s].domain);
    CHECK(out.scop.statements[s].accesses.size() == in.scop.statements[s].accesses.size());
    // The new schedule is defined on the whole domain of its statement.
    isl::map written(ctx.get(), out.scop.statements[s].schedule);
    CHECK(written.intersect_domain(original.domains[s]).domain().is_equal(original.domains[s]));
    maps.push_back(written.intersect_domain(original.domains[s]));
    CHECK(maps.back().range_tuple_dim() == maps.front().range_tuple_dim());
  }
  const int n = static_cast<int>(maps.front().range_tuple_dim());
  CHECK(poly::jscop::lex_positive(poly::jscop::schedule_deltas(maps, deps.all()), n));
}

}  // namespace

TEST_SUITE("src") {
TEST_CASE("jscop: a Polly file is written back byte for byte when nothing changes") {
  frontend::JscopFile f = frontend::read_jscop(kGemm);
  std::vector<std::string> same;
  for (const auto &s : f.scop.statements) same.push_back(s.schedule);
  CHECK(frontend::write_jscop(f, same) == kGemm);
  JscopOptions o;
  o.identity = true;
  JscopFileResult info;
  CHECK(schedule_jscop_text(kGemm, o, &info) == kGemm);
  CHECK(info.ok);
  CHECK_FALSE(info.changed);
  CHECK(info.algorithm == "identity");
}

TEST_CASE("jscop: the reader keeps arrays, context and accesses") {
  frontend::JscopFile f = frontend::read_jscop(kGemm);
  REQUIRE(f.scop.arrays.size() == 3);
  CHECK(f.scop.arrays[1].name == "MemRef2");
  CHECK(f.scop.arrays[1].sizes == std::vector<std::string>{"*", "120"});
  CHECK(f.scop.arrays[1].type == "double");
  CHECK(f.scop.context == "{  :  }");
  REQUIRE(f.scop.statements.size() == 2);
  CHECK(f.scop.statements[1].accesses.size() == 4);
  CHECK(f.scop.statements[1].accesses[3].write);
  CHECK_FALSE(f.scop.statements[1].accesses[0].write);
}

TEST_CASE("jscop: memory-based dependences treat every write as a may-write") {
  frontend::JscopFile f = frontend::read_jscop(kPrefixSum);
  poly::IslContext ctx;
  poly::jscop::Parsed p = poly::jscop::parse(ctx, f.scop);
  poly::Dependences d = poly::jscop::memory_dependences(p);
  // The write of A[i + 1] at i reaches the read of A[i'] at i' = i + 1 ...
  isl::union_map flow(ctx.get(), "[n] -> { Stmt0[i] -> Stmt0[i + 1] : 0 <= i <= n - 3 }");
  CHECK(d.flow.is_equal(flow));
  // ... and no write kills another (no must-writes), none repeats an element.
  CHECK(d.output.is_empty());
  // The read of A[i + 1] at i comes before the write of A[i + 1] at i: same instance, no anti dependence.
  CHECK(d.anti.is_empty());
}

/// The schedule dimension that advances by one when `step` moves a
/// statement instance and nothing else changes (inside a tile), or -1.
int dimension_stepped(isl::ctx ctx, const isl::map &schedule, const std::string &step) {
  isl::set d = isl::map(ctx, step).apply_domain(schedule).apply_range(schedule).deltas();
  const int n = static_cast<int>(d.tuple_dim());
  for (int k = 0; k < n; ++k) {
    std::string unit = "{ [";
    for (int j = 0; j < n; ++j) unit += (j ? ", " : "") + std::string(j == k ? "1" : "0");
    if (!d.intersect(isl::set(ctx, unit + "] }")).is_empty()) return k;
  }
  return -1;
}

TEST_CASE("jscop: a GEMM is tiled, its point loops end with the stride-1 loop, and Polly's rules hold") {
  JscopOptions o;
  o.cache_bytes = 32 * 1024;  // so that 100 x 110 x 120 needs tiles
  JscopFileResult info;
  std::string out = schedule_jscop_text(kGemm, o, &info);
  CHECK(info.ok);
  CHECK(info.changed);
  CHECK(info.algorithm == "isl");
  REQUIRE_FALSE(info.tiles.empty());
  CHECK(info.tiles.back().size() == 3);
  CHECK(info.tiles.back()[0] > 0);
  CHECK(info.outer_parallel);
  check_legal(kGemm, out);
  // Stmt2's vector loop is i1 (MemRef0[i0, i1] and MemRef3[i2, i1] step by
  // one element); i0 and i2 are unrolled by 4 and jammed inside it (MemRef3
  // is shared by the copies of i0, MemRef0 by those of i2): a step of 1 in
  // them moves a dimension after i1's, a step of 4 one before it.
  frontend::JscopFile f = frontend::read_jscop(out);
  poly::IslContext ctx;
  isl::map s2(ctx.get(), f.scop.statements[1].schedule);
  int i0 = dimension_stepped(ctx.get(), s2, "{ Stmt2[i0, i1, i2] -> Stmt2[i0 + 1, i1, i2] }");
  int i1 = dimension_stepped(ctx.get(), s2, "{ Stmt2[i0, i1, i2] -> Stmt2[i0, i1 + 1, i2] }");
  int i2 = dimension_stepped(ctx.get(), s2, "{ Stmt2[i0, i1, i2] -> Stmt2[i0, i1, i2 + 1] }");
  CHECK(i0 > i1);
  CHECK(i2 > i1);
  auto strip_of = [&](const isl::map &m, const char *step) {
    isl::set d = isl::map(ctx.get(), step).apply_domain(m).apply_range(m).deltas();
    // the first dimension that moves, for a step inside one tile and strip
    const int n = static_cast<int>(d.tuple_dim());
    for (int k = 0; k < n; ++k) {
      std::string unit = "{ [";
      for (int j = 0; j < n; ++j) unit += (j ? ", " : "") + std::string(j < k ? "0" : j == k ? "1" : "d" + std::to_string(j));
      if (!d.intersect(isl::set(ctx.get(), unit + "] }")).is_empty()) return k;
    }
    return -1;
  };
  CHECK(strip_of(s2, "{ Stmt2[i0, i1, i2] -> Stmt2[i0 + 4, i1, i2] : i0 % 4 = 0 }") < i1);
  CHECK(strip_of(s2, "{ Stmt2[i0, i1, i2] -> Stmt2[i0, i1, i2 + 4] : i2 % 4 = 0 }") < i1);
  // Untiled (the whole GEMM fits the default budget), the same loop order.
  out = schedule_jscop_text(kGemm, JscopOptions{}, &info);
  check_legal(kGemm, out);
  isl::map u2(ctx.get(), frontend::read_jscop(out).scop.statements[1].schedule);
  const int u1 = dimension_stepped(ctx.get(), u2, "{ Stmt2[i0, i1, i2] -> Stmt2[i0, i1 + 1, i2] }");
  CHECK(dimension_stepped(ctx.get(), u2, "{ Stmt2[i0, i1, i2] -> Stmt2[i0 + 1, i1, i2] }") > u1);
  CHECK(dimension_stepped(ctx.get(), u2, "{ Stmt2[i0, i1, i2] -> Stmt2[i0, i1, i2 + 1] }") > u1);
}

TEST_CASE("jscop: tile sizes given on the command line are used") {
  JscopOptions o;
  o.tile = "16,8";
  JscopFileResult info;
  std::string out = schedule_jscop_text(kGemm, o, &info);
  REQUIRE_FALSE(info.tiles.empty());
  CHECK(info.tiles.back()[0] == 16);
  CHECK(info.tiles.back()[1] == 8);
  check_legal(kGemm, out);
  o.tile = "none";
  out = schedule_jscop_text(kGemm, o, &info);
  CHECK(info.tiles.empty());
  check_legal(kGemm, out);
}

TEST_CASE("jscop: a stencil keeps its order unless skewing is allowed; skewed and tiled, it stays legal") {
  JscopOptions o;
  JscopFileResult info;
  CHECK(schedule_jscop_text(kJacobi, o, &info) == kJacobi);
  CHECK(info.reason.find("skewed schedule not used") != std::string::npos);
  for (const char *scheduler : {"pluto", "isl", "feautrier"}) {
    CAPTURE(scheduler);
    o.scheduler = scheduler;
    o.allow_skew = true;
    std::string out = schedule_jscop_text(kJacobi, o, &info);
    CHECK(info.ok);
    if (info.changed) check_legal(kJacobi, out);
    if (std::string(scheduler) == "pluto") CHECK_FALSE(info.tiles.empty());
  }
}

TEST_CASE("jscop: a loop that cannot change gets its schedule back with the reason") {
  JscopOptions o;
  JscopFileResult info;
  std::string out = schedule_jscop_text(kPrefixSum, o, &info);
  CHECK(out == kPrefixSum);
  CHECK_FALSE(info.changed);
  CHECK_FALSE(info.reason.empty());
  o.scheduler = "original";
  CHECK(schedule_jscop_text(kGemm, o, &info) == kGemm);
  CHECK(info.reason.find("original") != std::string::npos);
}

TEST_CASE("jscop: bad input is a UserError with its JSON pointer") {
  auto error_of = [](const std::string &text, const JscopOptions &o = {}) -> std::string {
    try {
      schedule_jscop_text(text, o);
    } catch (const UserError &e) {
      return e.what();
    }
    return "no error";
  };
  std::string bad = kPrefixSum;
  bad.replace(bad.find("0 <= i0 <= -2 + n"), 17, "0 <= i0 <=");
  CHECK(error_of(bad).find("/statements/0/domain") != std::string::npos);
  bad = kPrefixSum;
  bad.replace(bad.find("\"kind\": \"write\""), 15, "\"kind\": \"store\"");
  CHECK(error_of(bad).find("/statements/0/accesses/2/kind") != std::string::npos);
  bad = kPrefixSum;
  bad.replace(bad.find("[n] -> { Stmt0[i0] -> [i0] }"), 28, "[n] -> { Stmt0[i0, i1] -> [i0] }");
  CHECK(error_of(bad).find("/statements/0/schedule") != std::string::npos);
  bad = kPrefixSum;
  bad.replace(bad.find("\"context\": \"[n] -> {  : 2 <= n <= 1000000 }\""), 44, "\"context\": \"[n] -> { X[i] }\"");
  CHECK(error_of(bad).find("/context") != std::string::npos);
  CHECK(error_of("[1, 2]").find("one JSON object") != std::string::npos);
  CHECK(error_of("{\"context\": 3}").find("/context") != std::string::npos);
  JscopOptions o;
  o.tile = "8,,8";
  CHECK(error_of(kGemm, o).find("--tile") != std::string::npos);
  o = {};
  o.scheduler = "polly";
  CHECK(error_of(kGemm, o).find("--scheduler") != std::string::npos);
}

TEST_CASE("jscop: a directory is processed file by file; a bad file is copied and reported") {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / "atoll-jscop-dir-test";
  fs::remove_all(dir);
  fs::create_directories(dir / "in");
  auto write = [](const fs::path &p, const std::string &text) { std::ofstream(p, std::ios::binary) << text; };
  write(dir / "in" / "kernel___%2---%4.jscop", kGemm);
  write(dir / "in" / "main___%1---%3.jscop", kPrefixSum);
  write(dir / "in" / "bad___%1---%2.jscop", "{ \"statements\": 3 }");
  write(dir / "in" / "notes.txt", "not a JSCoP");
  JscopRunResult r = run_jscop((dir / "in").string(), (dir / "out").string(), JscopOptions{});
  REQUIRE(r.files.size() == 3);
  CHECK(r.exit_status() == 1);
  CHECK(r.files[0].file == "bad___%1---%2.jscop");
  CHECK_FALSE(r.files[0].ok);
  CHECK(r.files[1].changed);
  CHECK_FALSE(r.files[2].changed);
  CHECK(fs::exists(dir / "out" / "bad___%1---%2.jscop"));
  CHECK(fs::exists(dir / "out" / "main___%1---%3.jscop"));
  CHECK_FALSE(fs::exists(dir / "out" / "notes.txt"));
  CHECK(r.report_json.find("\"errors\": 1") != std::string::npos);
  CHECK_THROWS_AS(run_jscop((dir / "missing").string(), (dir / "out").string(), JscopOptions{}), UserError);
  fs::remove_all(dir);
}

TEST_CASE("jscop: explain prints statements, dependences and the schedule") {
  namespace fs = std::filesystem;
  fs::path file = fs::temp_directory_path() / "atoll-explain-test.jscop";
  std::ofstream(file, std::ios::binary) << kJacobi;
  std::string text = explain_jscop_file(file.string(), JscopOptions{});
  CHECK(text.find("statement Stmt1") != std::string::npos);
  CHECK(text.find("flow") != std::string::npos);
  CHECK(text.find("# schedule: original (unchanged: skewed schedule not used") != std::string::npos);
  CHECK(text.find("# flat schedules") != std::string::npos);
  fs::remove(file);
}
}
