// Tests of NPU target descriptions: shipped profiles, validation errors naming the field, files, hashes.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <atoll/diagnostics.h>

#include "backends/npu/target.h"

using namespace atl::npu;

TEST_SUITE("npu") {

TEST_CASE("the three shipped profiles differ from ascend-like as the spec says") {
  Target a = builtin_target("ascend-like"), l = builtin_target("lite"), t = builtin_target("tiny");
  CHECK(a.cores == 2);
  CHECK(a.memories[NPU_L0A].bytes == 65536);
  CHECK(a.memories[NPU_L0A].align == 512);
  CHECK(a.pipes[NPU_MTE2].per_burst == 2);
  CHECK(a.path_owner(NPU_GM, NPU_L1) == NPU_MTE2);
  CHECK(a.path_owner(NPU_L0C, NPU_GM) == NPU_FIX);
  CHECK(a.path_owner(NPU_GM, NPU_L0A) == -1);
  REQUIRE(a.cube_type(NPU_F32, NPU_F32) != nullptr);
  CHECK(a.cube_type(NPU_F32, NPU_F32)->cycles == 4);
  CHECK(l.cores == 1);
  CHECK(l.memories[NPU_UB].bytes == 120 * 1024);
  CHECK(l.pipes[NPU_MTE2].bytes_per_cycle == doctest::Approx(32));
  CHECK(l.pipes[NPU_FIX].bytes_per_cycle == doctest::Approx(64));
  CHECK(t.cores == 2);
  CHECK(t.memories[NPU_L1].bytes == 32 * 1024);
  CHECK(t.memories[NPU_L0C].bytes == 8 * 1024);
  CHECK(t.pipes[NPU_MTE2].bytes_per_cycle == doctest::Approx(64));
}

TEST_CASE("a description round-trips through JSON and its hash is stable and sensitive") {
  Target a = builtin_target("ascend-like");
  Target b = parse_target(a.to_json());
  CHECK(b.to_json() == a.to_json());
  CHECK(a.hash() == b.hash());
  CHECK(a.hash().size() == 16);
  CHECK(a.hash() != builtin_target("tiny").hash());
  nlohmann::json j = a.to_json();
  j["pipes"]["MTE2"]["startup"] = 101;
  CHECK(parse_target(j).hash() != a.hash());
}

TEST_CASE("validation errors name the field by JSON pointer") {
  nlohmann::json base = builtin_target("ascend-like").to_json();
  auto expect = [&](auto edit, const char *text) {
    nlohmann::json j = base;
    edit(j);
    CHECK_THROWS_WITH_AS(parse_target(j), doctest::Contains(text), atl::UserError);
  };
  expect([](nlohmann::json &j) { j["memories"]["L0A"]["align"] = 300; }, "/memories/L0A/align: must be a power of two");
  expect([](nlohmann::json &j) { j["memories"].erase("UB"); }, "/memories/UB: missing required field");
  expect([](nlohmann::json &j) { j["cube"]["types"][1][0] = "i4"; }, "/cube/types/1/0: unknown dtype 'i4'");
  expect([](nlohmann::json &j) { j["cube"]["m"] = 24; }, "/cube/m: must be a multiple of 16");
  expect([](nlohmann::json &j) { j["cores"] = 0; }, "/cores: must be in [1, 64]");
  expect([](nlohmann::json &j) { j["pipes"]["MTE3"]["paths"][0] = "UB>UB"; }, "/pipes/MTE3/paths/0");
  expect([](nlohmann::json &j) { j["pipes"]["MTE3"]["paths"][0] = "GM>L1"; }, "already owned");
  expect([](nlohmann::json &j) { j["pipes"]["VEC"]["paths"] = {"GM>UB"}; }, "/pipes/VEC/paths: only MTE1");
  expect([](nlohmann::json &j) { j["vector"]["colour"] = 1; }, "/vector/colour: unknown field");
  expect([](nlohmann::json &j) { j["gm_bytes_per_cycle"] = "fast"; }, "/gm_bytes_per_cycle: must be a number");
}

TEST_CASE("load_target takes a profile name or a JSON file and reports bad ones") {
  CHECK(load_target("").name == "ascend-like");
  CHECK(load_target("tiny").name == "tiny");
  CHECK_THROWS_WITH_AS(load_target("huge"), doctest::Contains("unknown NPU profile 'huge'"), atl::UserError);
  std::string path = (std::filesystem::temp_directory_path() / "atoll_npu_target_test.json").string();
  nlohmann::json j = builtin_target("lite").to_json();
  j["name"] = "mine";
  j["cores"] = 4;
  std::ofstream(path) << j.dump();
  Target t = load_target(path);
  CHECK(t.name == "mine");
  CHECK(t.cores == 4);
  std::ofstream(path) << "{ not json";
  CHECK_THROWS_WITH_AS(load_target(path), doctest::Contains("invalid JSON"), atl::UserError);
  std::remove(path.c_str());
  CHECK_THROWS_WITH_AS(load_target("/nonexistent/x.json"), doctest::Contains("cannot read"), atl::UserError);
}

}  // TEST_SUITE
