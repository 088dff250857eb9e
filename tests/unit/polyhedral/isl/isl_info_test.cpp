// The isl this process calls is Debian's libisl (GMP), not Polly's copy
// inside libLLVM.so: a wrong link order fails here.
#include "backends/cpu/llvm_host.h"
#include "polyhedral/isl/isl_info.h"

#include <doctest/doctest.h>
#include <isl/cpp.h>

#include <cfenv>

TEST_SUITE("polyhedral") {
TEST_CASE("isl in the process is Debian's GMP build") {
  (void)atl::cpu::host_info();  // make sure LLVM is linked and initialised too
  std::string v = atl::poly::isl_version_string();
  CHECK(v.find("GMP") != std::string::npos);
  CHECK(v.find("isl-0.") == 0);
}

TEST_CASE("isl C++ interface computes a set") {
  isl::ctx ctx(isl_ctx_alloc());
  {
    isl::set s(ctx, "[N] -> { S[i] : 0 <= i < N and N >= 4 }");
    isl::set t(ctx, "[N] -> { S[i] : 0 <= i < N }");
    CHECK(s.is_subset(t));
    CHECK(!t.is_subset(s));
  }
  isl_ctx_free(ctx.release());
}

TEST_CASE("PPL is linked and leaves the rounding mode at nearest") {
  CHECK(!atl::poly::ppl_version_string().empty());
  CHECK(std::fegetround() == FE_TONEAREST);
  volatile double third = 1.0 / 3.0;
  CHECK(static_cast<float>(third) == 0.333333343f);  // round-upward would give 0.333333373f
}
}
