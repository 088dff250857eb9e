// .npy round trips for every dtype, rejection of bad files, and reproducible
// test data from `init` specs.
#include "src/runtime/init_data.h"
#include "src/runtime/npy.h"

#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

using namespace atl;

TEST_SUITE("src") {
TEST_CASE("npy round trip for every dtype") {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / "atoll_npy_test";
  for (DType t : {DType::F32, DType::F16, DType::I8, DType::I32, DType::I64, DType::Bool}) {
    Tensor a(t, {2, 3});
    for (std::int64_t i = 0; i < a.numel(); ++i) a.set(i, t == DType::Bool ? i % 2 : 1.25 * static_cast<double>(i) - 3);
    std::string p = (dir / (std::string(dtype_name(t)) + ".npy")).string();
    write_npy(p, a);
    Tensor b = read_npy(p);
    CHECK(b.dtype == t);
    CHECK(b.shape == a.shape);
    CHECK(b.data == a.data);
  }
  Tensor s(DType::F32, {});
  s.set(0, 7.5);
  write_npy((dir / "scalar.npy").string(), s);
  Tensor s2 = read_npy((dir / "scalar.npy").string());
  CHECK(s2.shape.empty());
  CHECK(s2.get(0) == 7.5);
  std::ofstream((dir / "bad.npy").string()) << "not numpy";
  CHECK_THROWS_WITH_AS(read_npy((dir / "bad.npy").string()), doctest::Contains("magic"), UserError);
  std::filesystem::remove_all(dir);
}

TEST_CASE("npy headers are read strictly: version 1.0, one dict, exact data length, file names kept in DIR") {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / "atoll_npy_strict_test";
  std::filesystem::create_directories(dir);
  auto file = [&](const std::string &name, int version, std::string header, std::size_t data_bytes) {
    std::size_t total = 10 + header.size() + 1;
    header.append((64 - total % 64) % 64, ' ');
    header += '\n';
    std::string bytes = "\x93NUMPY";
    bytes += static_cast<char>(version);
    bytes += '\0';
    bytes += static_cast<char>(header.size() & 0xff);
    bytes += static_cast<char>(header.size() >> 8);
    bytes += header + std::string(data_bytes, '\0');
    std::string p = (dir / name).string();
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  };
  std::string good = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  std::string descr;
  Tensor t = read_npy(file("good.npy", 1, good, 24), &descr);
  CHECK(t.shape == Shape{2, 3});
  CHECK(descr == "<f4");
  (void)read_npy(file("f8.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", 16), &descr);
  CHECK(descr == "<f8");  // the caller refuses it for an f32 tensor
  CHECK_THROWS_WITH_AS(read_npy(file("v2.npy", 2, good, 24)), doctest::Contains("version 2.0"), UserError);
  CHECK_THROWS_WITH_AS(read_npy(file("long.npy", 1, good, 28)), doctest::Contains("longer"), UserError);
  CHECK_THROWS_WITH_AS(read_npy(file("short.npy", 1, good, 20)), doctest::Contains("shorter"), UserError);
  CHECK_THROWS_WITH_AS(read_npy(file("neg.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (-2, 3), }", 24)),
                       doctest::Contains("non-negative integers"), UserError);
  CHECK_THROWS_WITH_AS(read_npy(file("twice.npy", 1, "{'descr': '<f4', 'shape': (6,), 'fortran_order': False, 'shape': (6,), }", 24)),
                       doctest::Contains("repeated key 'shape'"), UserError);
  CHECK_THROWS_WITH_AS(read_npy(file("junk.npy", 1, "[1, 2]", 24)), doctest::Contains("expected '{'"), UserError);
  CHECK_THROWS_WITH_AS(read_npy(file("huge.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967297, 8), }", 24)),
                       doctest::Contains("shorter"), UserError);  // refused before anything is allocated
  CHECK(npy_file_name("y/z") == "y%2Fz");
  CHECK(npy_file_name("..") == "%2E.");
  CHECK(npy_file_name("conv1.weight") == "conv1.weight");
  std::filesystem::remove_all(dir);
}

TEST_CASE("init specs parse and reject") {
  CHECK(parse_init("").kind == InitSpec::Kind::Uniform);
  InitSpec n = parse_init("normal(0, 2)");
  CHECK(n.kind == InitSpec::Kind::Normal);
  CHECK(n.b == 2);
  CHECK(parse_init("ones").a == 1);
  CHECK_THROWS_WITH_AS(parse_init("uniform(2,1)"), doctest::Contains("lo <= hi"), UserError);
  CHECK_THROWS_WITH_AS(parse_init("uniform(a,1)"), doctest::Contains("not a finite number"), UserError);
  CHECK_THROWS_WITH_AS(parse_init("poisson(3)"), doctest::Contains("unknown generator"), UserError);
}

TEST_CASE("test data is reproducible and in range") {
  TensorDecl d{"w", {DType::F32, {1000}}, TensorRole::Weight, "uniform(-0.5,0.25)", std::nullopt, ""};
  Tensor a = make_tensor_data("g", d, {1000});
  Tensor b = make_tensor_data("g", d, {1000});
  CHECK(a.data == b.data);
  Tensor c = make_tensor_data("h", d, {1000});
  CHECK(a.data != c.data);  // another graph, another stream
  for (double v : a.data) CHECK((v >= -0.5 && v <= 0.25));
  TensorDecl i{"k", {DType::I32, {1000}}, TensorRole::Input, "", std::nullopt, ""};
  Tensor t = make_tensor_data("g", i, {1000});
  double lo = 0, hi = 0;
  for (double v : t.data) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    CHECK(v == static_cast<double>(static_cast<long long>(v)));
  }
  CHECK(lo == -8);
  CHECK(hi == 8);
}
}
