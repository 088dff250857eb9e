// buffer_lifetimes and bytes_moved: live ranges from the kernel call order, aliases, temporaries, externals.
#include "graph/memory/buffer_lifetimes.h"

#include <doctest/doctest.h>

#include <map>
#include <set>

using namespace atl::memory;

namespace {

using A = KernelArg::Access;

KernelArg rd(std::string t, std::int64_t bytes = 100) { return {std::move(t), "a", bytes, A::Read}; }
KernelArg wr(std::string t, std::int64_t bytes = 100) { return {std::move(t), "a", bytes, A::Write}; }
KernelArg tmp(std::string array, std::int64_t bytes) { return {"", std::move(array), bytes, A::Temporary}; }

std::map<std::string, Buffer> by_name(const std::vector<Buffer> &v) {
  std::map<std::string, Buffer> m;
  for (const Buffer &b : v) m[b.name] = b;
  return m;
}

auto externals(std::set<std::string> names) {
  return [names](const std::string &t) { return names.count(t) != 0; };
}
auto sizes(std::int64_t bytes) {
  return [bytes](const std::string &) { return bytes; };
}

}  // namespace

TEST_SUITE("graph") {
TEST_CASE("buffer_lifetimes: a tensor lives from its producer to its last consumer") {
  // k0: x -> a; k1: a -> b; k2: a, b -> c; k3: c -> y
  std::vector<KernelUse> ks = {{"k0", {rd("x"), wr("a")}},
                               {"k1", {rd("a"), wr("b")}},
                               {"k2", {rd("a"), rd("b"), wr("c")}},
                               {"k3", {rd("c"), wr("y")}}};
  auto m = by_name(buffer_lifetimes(ks, {}, externals({"x", "y"}), sizes(100)));
  REQUIRE(m.size() == 3);
  CHECK(m["a"].first == 0);
  CHECK(m["a"].last == 2);
  CHECK(m["b"].first == 1);
  CHECK(m["b"].last == 2);
  CHECK(m["c"].first == 2);
  CHECK(m["c"].last == 3);
  CHECK(!m.count("x"));  // graph input and output are not in the arena
  CHECK(!m.count("y"));
}

TEST_CASE("buffer_lifetimes: an alias is a use of its base and keeps it alive") {
  // k0 writes a; r is a view of a read by k2; k1 does not touch a.
  std::vector<KernelUse> ks = {{"k0", {rd("x"), wr("a", 400)}}, {"k1", {rd("x"), wr("b")}}, {"k2", {rd("r", 100), rd("b"), wr("y")}}};
  std::vector<TensorAlias> aliases = {{"r", "a", 0}};
  auto m = by_name(buffer_lifetimes(ks, aliases, externals({"x", "y"}), sizes(999)));
  REQUIRE(m.count("a"));
  CHECK(!m.count("r"));
  CHECK(m["a"].first == 0);
  CHECK(m["a"].last == 2);
  CHECK(m["a"].bytes == 400);  // the base's own argument, not the view's
}

TEST_CASE("buffer_lifetimes: a base only aliases use is a buffer spanning their uses") {
  // Concat in place: p and q live inside out, which no kernel names.
  std::vector<KernelUse> ks = {{"k0", {rd("x"), wr("p", 40)}}, {"k1", {rd("x"), wr("q", 60)}}, {"k2", {rd("v", 100), wr("y")}}};
  std::vector<TensorAlias> aliases = {{"p", "out", 0}, {"q", "out", 40}, {"v", "out", 0}};  // v: a view of out
  auto m = by_name(buffer_lifetimes(ks, aliases, externals({"x", "y"}), sizes(100)));
  REQUIRE(m.size() == 1);
  CHECK(m["out"].bytes == 100);  // from base_bytes: no kernel names it
  CHECK(m["out"].first == 0);
  CHECK(m["out"].last == 2);
}

TEST_CASE("buffer_lifetimes: the base of an external alias is not in the arena") {
  // y (a graph output) is a view of t: t must outlive the run, so it is external too.
  std::vector<KernelUse> ks = {{"k0", {rd("x"), wr("t")}}, {"k1", {rd("t"), wr("u")}}, {"k2", {rd("u"), wr("z")}}};
  std::vector<TensorAlias> aliases = {{"y", "t", 0}};
  auto m = by_name(buffer_lifetimes(ks, aliases, externals({"x", "y", "z"}), sizes(100)));
  CHECK(!m.count("t"));
  CHECK(m.count("u"));
}

TEST_CASE("buffer_lifetimes: a temporary lives during its kernel only") {
  std::vector<KernelUse> ks = {{"k0", {rd("x"), tmp("T", 32), wr("a")}}, {"k1", {rd("a"), tmp("T", 64), wr("y")}}};
  auto m = by_name(buffer_lifetimes(ks, {}, externals({"x", "y"}), sizes(100)));
  REQUIRE(m.count("k0/T"));
  REQUIRE(m.count("k1/T"));
  CHECK(m["k0/T"].temporary);
  CHECK(m["k0/T"].first == 0);
  CHECK(m["k0/T"].last == 0);
  CHECK(m["k1/T"].first == 1);
  CHECK(m["k1/T"].bytes == 64);
  CHECK(!m["a"].temporary);
}

TEST_CASE("bytes_moved counts every read and written array once, not temporaries") {
  std::vector<KernelUse> ks = {{"k0", {rd("x", 10), tmp("T", 1000), wr("a", 20)}}, {"k1", {rd("a", 20), rd("x", 10), wr("y", 5)}}};
  CHECK(bytes_moved(ks) == 10 + 20 + 20 + 10 + 5);
}
}
