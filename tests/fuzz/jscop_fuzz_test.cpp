// Mutational fuzzing of `atoll jscop`'s reader and scheduler: random edits of
// Polly-written JSCoP files (JSON and the isl text inside it) must give a
// schedule or a UserError, never a crash, a hang or another exception; every
// schedule written must still read back.
#include <atoll/jscop.h>

#include "src/frontend/jscop_file.h"
#include "tests/fuzz/mutate.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace atl;

// isl 0.25's text parser leaks a token when it gives up on some malformed
// strings (isl_stream_eat_if_available reads it, an error path never frees
// it): a few bytes of isl's per rejected string, which this fuzzer makes by
// the hundred. LeakSanitizer is told so here, in this executable only; the
// full unwind is what lets it see isl's frame (isl has no frame pointers).
// Without the sanitizers these functions are never called.
extern "C" const char *__lsan_default_suppressions() { return "leak:isl_stream_eat_if_available\n"; }
extern "C" const char *__asan_default_options() { return "fast_unwind_on_malloc=0"; }

namespace {

const char *kSeeds[] = {
    R"({
   "arrays": [ { "name": "MemRef0", "sizes": [ "*", "40" ], "type": "double" },
               { "name": "MemRef1", "sizes": [ "*", "30" ], "type": "float" } ],
   "context": "{  :  }",
   "name": "%2---%4",
   "statements": [
      { "accesses": [ { "kind": "write", "relation": "{ Stmt1[i0, i1] -> MemRef0[i0, i1] }" } ],
        "domain": "{ Stmt1[i0, i1] : 0 <= i0 <= 19 and 0 <= i1 <= 39 }",
        "name": "Stmt1",
        "schedule": "{ Stmt1[i0, i1] -> [i0, i1, 0, 0] }" },
      { "accesses": [ { "kind": "read", "relation": "{ Stmt2[i0, i1, i2] -> MemRef0[i0, i1] }" },
                      { "kind": "read", "relation": "{ Stmt2[i0, i1, i2] -> MemRef1[i2, i1] }" },
                      { "kind": "write", "relation": "{ Stmt2[i0, i1, i2] -> MemRef0[i0, i1] }" } ],
        "domain": "{ Stmt2[i0, i1, i2] : 0 <= i0 <= 19 and 0 <= i1 <= 39 and 0 <= i2 <= 29 }",
        "name": "Stmt2",
        "schedule": "{ Stmt2[i0, i1, i2] -> [i0, i1, 1, i2] }" } ]
})",
    R"({
   "context": "[n, m] -> {  : 3 <= n <= 1000 and 0 <= m <= 50 }",
   "name": "%3---%9",
   "statements": [
      { "accesses": [ { "kind": "read", "relation": "[n, m] -> { Stmt1[i0, i1] -> MemRef0[i1] }" },
                      { "kind": "read", "relation": "[n, m] -> { Stmt1[i0, i1] -> MemRef0[2 + i1] }" },
                      { "kind": "write", "relation": "[n, m] -> { Stmt1[i0, i1] -> MemRef1[1 + i1] }" },
                      { "kind": "write", "relation": "[n, m] -> { Stmt1[i0, i1] -> MemRef2[] }" } ],
        "domain": "[n, m] -> { Stmt1[i0, i1] : 0 <= i0 < m and 0 <= i1 <= n - 3 }",
        "name": "Stmt1",
        "schedule": "[n, m] -> { Stmt1[i0, i1] -> [i0, 0, i1] }" },
      { "accesses": [ { "kind": "read", "relation": "[n, m] -> { Stmt3[i0, i1] -> MemRef1[1 + i1] }" },
                      { "kind": "read", "relation": "[n, m] -> { Stmt3[i0, i1] -> MemRef2[] }" },
                      { "kind": "write", "relation": "[n, m] -> { Stmt3[i0, i1] -> MemRef0[1 + i1] }" } ],
        "domain": "[n, m] -> { Stmt3[i0, i1] : 0 <= i0 < m and 0 <= i1 <= n - 3 }",
        "name": "Stmt3",
        "schedule": "[n, m] -> { Stmt3[i0, i1] -> [i0, 1, i1] }" } ]
})",
};

const std::vector<std::string> kTokens = {"{", "}", "[", "]", ",", ":", "\"", "0", "-1", "99999999999999999999",
                                          "null", "i0", "i1 + 1", "Stmt1", "MemRef0", " and ", " or ", "->",
                                          "[n] -> ", "floor(", "mod 3", "exists", "*", ">= 2i0", ";", "\\u0000"};

}  // namespace

TEST_SUITE("src") {
TEST_CASE("fuzz: mutated JSCoP files give schedules or located errors") {
  fuzz::Rng rng{0x15c0ffee2026ull};
  int scheduled = 0, errors = 0;
  for (int i = 0; i < 400; ++i) {
    std::string text = fuzz::mutate(kSeeds[i % 2], rng, kTokens);
    INFO("case " << i << ": " << text);
    JscopOptions o;
    o.scheduler = i % 3 == 0 ? "isl" : "pluto";
    o.seconds = 2;
    try {
      JscopFileResult info;
      std::string out = schedule_jscop_text(text, o, &info);
      frontend::JscopFile back = frontend::read_jscop(out);
      CHECK(back.scop.statements.size() == frontend::read_jscop(text).scop.statements.size());
      ++scheduled;
    } catch (const UserError &) {
      ++errors;
    }
  }
  CHECK(scheduled > 0);
  CHECK(errors > 0);
  MESSAGE("scheduled: " << scheduled << ", errors: " << errors);
}
}
