// Parses, validates, prints and hashes NPU target descriptions; holds the shipped profiles.
#include "backends/npu/target.h"

#include "graph/core/text_keys.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <atoll/diagnostics.h>

namespace atl::npu {
namespace {

const char *const kMemNames[kNumMems] = {"GM", "L1", "L0A", "L0B", "L0C", "UB"};
const char *const kPipeNames[kNumPipes] = {"MTE1", "MTE2", "MTE3", "CUBE", "VEC", "FIX", "SCALAR"};
const char *const kDtypeNames[5] = {"f16", "bf16", "f32", "i8", "i32"};

[[noreturn]] void fail(const std::string &ptr, const std::string &what, const std::string &source) {
  Location loc;
  loc.pointer = ptr.empty() ? "/" : ptr;
  std::string prefix = source.empty() ? "" : "target '" + source + "': ";
  throw UserError(prefix + loc.pointer + ": " + what, loc);
}

/// Walks one JSON object, checking types and rejecting unknown keys.
class Reader {
public:
  Reader(const nlohmann::json &j, std::string ptr, const std::string &source)
      : j_(j), ptr_(std::move(ptr)), source_(source) {
    if (!j_.is_object()) fail(ptr_, "must be an object", source_);
  }
  const nlohmann::json *get(const std::string &key, bool required) {
    seen_.insert(key);
    auto it = j_.find(key);
    if (it == j_.end()) {
      if (required) fail(ptr_ + "/" + key, "missing required field", source_);
      return nullptr;
    }
    return &*it;
  }
  double number(const std::string &key, bool required, double dflt, double lo, double hi) {
    const nlohmann::json *v = get(key, required);
    if (!v) return dflt;
    if (!v->is_number()) fail(ptr_ + "/" + key, "must be a number", source_);
    double d = v->get<double>();
    if (!(d >= lo && d <= hi))
      fail(ptr_ + "/" + key, "must be in [" + fmt(lo) + ", " + fmt(hi) + "], got " + fmt(d), source_);
    return d;
  }
  uint64_t integer(const std::string &key, bool required, uint64_t dflt, uint64_t lo, uint64_t hi) {
    const nlohmann::json *v = get(key, required);
    if (!v) return dflt;
    if (!v->is_number_integer() || (v->is_number_integer() && v->get<int64_t>() < 0 && !v->is_number_unsigned()))
      fail(ptr_ + "/" + key, "must be a non-negative integer", source_);
    uint64_t u = v->get<uint64_t>();
    if (u < lo || u > hi)
      fail(ptr_ + "/" + key, "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " +
                                 std::to_string(u), source_);
    return u;
  }
  std::string child(const std::string &key) const { return ptr_ + "/" + key; }
  void finish() {
    for (auto it = j_.begin(); it != j_.end(); ++it)
      if (!seen_.count(it.key())) fail(ptr_ + "/" + it.key(), "unknown field", source_);
  }

private:
  static std::string fmt(double d) {
    std::ostringstream os;
    os << d;
    return os.str();
  }
  const nlohmann::json &j_;
  std::string ptr_;
  const std::string &source_;
  std::set<std::string> seen_;
};

bool pow2(uint64_t v) { return v && !(v & (v - 1)); }

int find_name(const char *const *names, int n, const std::string &s) {
  for (int i = 0; i < n; ++i)
    if (s == names[i]) return i;
  return -1;
}

npu_dtype parse_dtype_at(const nlohmann::json &v, const std::string &ptr, const std::string &source) {
  if (!v.is_string()) fail(ptr, "must be a dtype name (f16 bf16 f32 i8 i32)", source);
  int i = find_name(kDtypeNames, 5, v.get<std::string>());
  if (i < 0) fail(ptr, "unknown dtype '" + v.get<std::string>() + "' (f16 bf16 f32 i8 i32)", source);
  return static_cast<npu_dtype>(i);
}

const char *kAscendLike = R"({ "name": "ascend-like", "version": 1, "cores": 2, "clock_mhz": 1000,
  "cube":   { "m": 16, "n": 16, "k": 16,
              "types": [["f16","f16","f32",1], ["i8","i8","i32",1], ["f32","f32","f32",4]],
              "startup": 32 },
  "vector": { "repeat_bytes": 256, "block_bytes": 32, "max_repeat": 255,
              "startup": 8, "slow_op_cycles_per_repeat": 4 },
  "memories": { "GM":  {"align": 1},
    "L1":  {"bytes": 1048576, "align": 32}, "UB":  {"bytes": 262144, "align": 32},
    "L0A": {"bytes": 65536,   "align": 512}, "L0B": {"bytes": 65536, "align": 512},
    "L0C": {"bytes": 262144,  "align": 64} },
  "pipes": {
    "MTE2": {"paths": ["GM>L1", "GM>UB"], "bytes_per_cycle": 64, "startup": 100, "per_burst": 2},
    "MTE1": {"paths": ["L1>L0A", "L1>L0B"], "bytes_per_cycle": 256, "startup": 10},
    "CUBE": {}, "VEC": {},
    "FIX":  {"paths": ["L0C>UB", "L0C>GM", "L0C>L1"], "bytes_per_cycle": 128, "startup": 20},
    "MTE3": {"paths": ["UB>GM", "UB>L1"], "bytes_per_cycle": 64, "startup": 100},
    "SCALAR": {"issue_cycles": 1} },
  "events_per_pipe_pair": 8, "gm_bytes_per_cycle": 128 })";

}  // namespace

const char *mem_name(npu_mem m) { return (m >= 0 && m < kNumMems) ? kMemNames[m] : "?"; }
const char *pipe_name(npu_pipe p) { return (p >= 0 && p < kNumPipes) ? kPipeNames[p] : "?"; }
const char *dtype_name(npu_dtype t) { return (t >= 0 && t < 5) ? kDtypeNames[t] : "?"; }
uint32_t dtype_bytes(npu_dtype t) {
  switch (t) {
  case NPU_F16: case NPU_BF16: return 2;
  case NPU_F32: case NPU_I32: return 4;
  case NPU_I8: return 1;
  }
  return 0;
}

int Target::path_owner(npu_mem src, npu_mem dst) const {
  for (int p = 0; p < kNumPipes; ++p)
    for (auto &pr : pipes[p].paths)
      if (pr.first == src && pr.second == dst) return p;
  return -1;
}

const CubeType *Target::cube_type(npu_dtype ab, npu_dtype acc) const {
  for (auto &t : cube.types)
    if (t.a == ab && t.b == ab && t.acc == acc) return &t;
  return nullptr;
}

nlohmann::json Target::to_json() const {
  nlohmann::json j;
  j["name"] = name;
  j["version"] = version;
  j["cores"] = cores;
  j["clock_mhz"] = clock_mhz;
  nlohmann::json types = nlohmann::json::array();
  for (auto &t : cube.types) types.push_back({dtype_name(t.a), dtype_name(t.b), dtype_name(t.acc), t.cycles});
  j["cube"] = {{"m", cube.m}, {"n", cube.n}, {"k", cube.k}, {"types", types}, {"startup", cube.startup}};
  j["vector"] = {{"repeat_bytes", vector.repeat_bytes}, {"block_bytes", vector.block_bytes},
                 {"max_repeat", vector.max_repeat}, {"startup", vector.startup},
                 {"slow_op_cycles_per_repeat", vector.slow_op_cycles_per_repeat}};
  for (int m = 0; m < kNumMems; ++m) {
    nlohmann::json mj = {{"align", memories[m].align}};
    if (m != NPU_GM) mj["bytes"] = memories[m].bytes;
    j["memories"][kMemNames[m]] = mj;
  }
  for (int p = 0; p < kNumPipes; ++p) {
    const PipeDesc &d = pipes[p];
    nlohmann::json pj = nlohmann::json::object();
    if (!d.paths.empty()) {
      nlohmann::json paths = nlohmann::json::array();
      for (auto &pr : d.paths) paths.push_back(std::string(kMemNames[pr.first]) + ">" + kMemNames[pr.second]);
      pj["paths"] = paths;
      pj["bytes_per_cycle"] = d.bytes_per_cycle;
      pj["startup"] = d.startup;
      if (d.per_burst) pj["per_burst"] = d.per_burst;
    }
    if (p == NPU_SCALAR) pj["issue_cycles"] = d.issue_cycles;
    j["pipes"][kPipeNames[p]] = pj;
  }
  j["events_per_pipe_pair"] = events_per_pipe_pair;
  j["gm_bytes_per_cycle"] = gm_bytes_per_cycle;
  return j;
}

std::string Target::hash() const {
  return fnv1a_hex(to_json().dump());  // nlohmann orders object keys: canonical
}

Target parse_target(const nlohmann::json &j, const std::string &source) {
  Target t;
  Reader top(j, "", source);
  const nlohmann::json *name = top.get("name", true);
  if (!name->is_string() || name->get<std::string>().empty()) fail("/name", "must be a non-empty string", source);
  t.name = name->get<std::string>();
  t.version = static_cast<int>(top.integer("version", true, 1, 1, 1));
  t.cores = static_cast<uint32_t>(top.integer("cores", true, 1, 1, 64));
  t.clock_mhz = top.number("clock_mhz", true, 1000, 1e-3, 1e6);

  Reader cube(*top.get("cube", true), "/cube", source);
  t.cube.m = static_cast<uint32_t>(cube.integer("m", true, 16, 16, 1024));
  t.cube.n = static_cast<uint32_t>(cube.integer("n", true, 16, 16, 1024));
  t.cube.k = static_cast<uint32_t>(cube.integer("k", true, 16, 16, 1024));
  for (const char *f : {"m", "n", "k"}) {
    uint32_t v = f[0] == 'm' ? t.cube.m : f[0] == 'n' ? t.cube.n : t.cube.k;
    if (v % 16) fail(std::string("/cube/") + f, "must be a multiple of 16 (the fractal size)", source);
  }
  const nlohmann::json *types = cube.get("types", true);
  if (!types->is_array() || types->empty()) fail("/cube/types", "must be a non-empty array", source);
  for (size_t i = 0; i < types->size(); ++i) {
    std::string p = "/cube/types/" + std::to_string(i);
    const nlohmann::json &row = (*types)[i];
    if (!row.is_array() || row.size() != 4) fail(p, "must be [a, b, accumulator, cycles_per_step]", source);
    CubeType ct{parse_dtype_at(row[0], p + "/0", source), parse_dtype_at(row[1], p + "/1", source),
                parse_dtype_at(row[2], p + "/2", source), 0};
    if (!row[3].is_number_integer() || row[3].get<int64_t>() < 1 || row[3].get<int64_t>() > 1024)
      fail(p + "/3", "cycles per step must be an integer in [1, 1024]", source);
    ct.cycles = row[3].get<uint32_t>();
    if (ct.a != ct.b) fail(p, "a and b must have the same dtype", source);
    if (t.cube_type(ct.a, ct.acc)) fail(p, "duplicate type row", source);
    t.cube.types.push_back(ct);
  }
  t.cube.startup = static_cast<uint32_t>(cube.integer("startup", false, 0, 0, 1u << 20));
  cube.finish();

  Reader vec(*top.get("vector", true), "/vector", source);
  t.vector.repeat_bytes = static_cast<uint32_t>(vec.integer("repeat_bytes", true, 256, 32, 4096));
  t.vector.block_bytes = static_cast<uint32_t>(vec.integer("block_bytes", true, 32, 32, 32));
  if (t.vector.repeat_bytes != 8 * t.vector.block_bytes)
    fail("/vector/repeat_bytes", "must be 8 blocks (8 * block_bytes)", source);
  t.vector.max_repeat = static_cast<uint32_t>(vec.integer("max_repeat", true, 255, 1, 65535));
  t.vector.startup = static_cast<uint32_t>(vec.integer("startup", false, 0, 0, 1u << 20));
  t.vector.slow_op_cycles_per_repeat =
      static_cast<uint32_t>(vec.integer("slow_op_cycles_per_repeat", false, 0, 0, 1u << 20));
  vec.finish();

  Reader mems(*top.get("memories", true), "/memories", source);
  for (int m = 0; m < kNumMems; ++m) {
    Reader mr(*mems.get(kMemNames[m], true), mems.child(kMemNames[m]), source);
    MemDesc &d = t.memories[m];
    d.align = static_cast<uint32_t>(mr.integer("align", true, 1, 1, 1u << 20));
    if (!pow2(d.align)) fail(mr.child("align"), "must be a power of two", source);
    if (m == NPU_GM) {
      d.bytes = 0;
    } else {
      d.bytes = mr.integer("bytes", true, 0, 1, uint64_t(1) << 34);
      if (d.bytes % d.align) fail(mr.child("bytes"), "must be a multiple of align", source);
      if (d.align < 32) fail(mr.child("align"), "on-chip memories align to at least 32 bytes", source);
    }
    mr.finish();
  }
  mems.finish();

  Reader pipes(*top.get("pipes", true), "/pipes", source);
  for (int p = 0; p < kNumPipes; ++p) {
    Reader pr(*pipes.get(kPipeNames[p], true), pipes.child(kPipeNames[p]), source);
    PipeDesc &d = t.pipes[p];
    bool dma = p == NPU_MTE1 || p == NPU_MTE2 || p == NPU_MTE3 || p == NPU_FIX;
    const nlohmann::json *paths = pr.get("paths", false);
    if (paths) {
      if (!dma) fail(pr.child("paths"), "only MTE1, MTE2, MTE3 and FIX own paths", source);
      if (!paths->is_array()) fail(pr.child("paths"), "must be an array of \"SRC>DST\"", source);
      for (size_t i = 0; i < paths->size(); ++i) {
        std::string ptr = pr.child("paths") + "/" + std::to_string(i);
        const nlohmann::json &s = (*paths)[i];
        std::string text = s.is_string() ? s.get<std::string>() : "";
        size_t gt = text.find('>');
        int a = gt == std::string::npos ? -1 : find_name(kMemNames, kNumMems, text.substr(0, gt));
        int b = gt == std::string::npos ? -1 : find_name(kMemNames, kNumMems, text.substr(gt + 1));
        if (a < 0 || b < 0 || a == b) fail(ptr, "must be \"SRC>DST\" with two different memories", source);
        if (t.path_owner(static_cast<npu_mem>(a), static_cast<npu_mem>(b)) >= 0)
          fail(ptr, "path " + text + " is already owned by another pipe", source);
        d.paths.emplace_back(static_cast<npu_mem>(a), static_cast<npu_mem>(b));
      }
      d.bytes_per_cycle = pr.number("bytes_per_cycle", true, 0, 1e-6, 1e9);
      d.startup = static_cast<uint32_t>(pr.integer("startup", false, 0, 0, 1u << 24));
      d.per_burst = static_cast<uint32_t>(pr.integer("per_burst", false, 0, 0, 1u << 20));
    }
    if (p == NPU_SCALAR) d.issue_cycles = static_cast<uint32_t>(pr.integer("issue_cycles", true, 1, 1, 1u << 20));
    pr.finish();
  }
  pipes.finish();
  for (auto [s, d] : {std::pair{NPU_L1, NPU_L0A}, std::pair{NPU_L1, NPU_L0B}})
    if (t.path_owner(s, d) < 0)
      fail("/pipes", std::string("no pipe owns the path ") + kMemNames[s] + ">" + kMemNames[d] +
                         " (needed by npu_load_l0)", source);

  t.events_per_pipe_pair = static_cast<uint32_t>(top.integer("events_per_pipe_pair", true, 8, 1, 64));
  t.gm_bytes_per_cycle = top.number("gm_bytes_per_cycle", true, 128, 1e-6, 1e9);
  top.finish();
  return t;
}

std::vector<std::string> builtin_profiles() { return {"ascend-like", "lite", "tiny"}; }

Target builtin_target(const std::string &profile) {
  nlohmann::json j = nlohmann::json::parse(kAscendLike);
  if (profile == "ascend-like") {
  } else if (profile == "lite") {
    j["name"] = "lite";
    j["cores"] = 1;
    j["memories"]["L1"]["bytes"] = 512 * 1024;
    j["memories"]["L0A"]["bytes"] = 32 * 1024;
    j["memories"]["L0B"]["bytes"] = 32 * 1024;
    j["memories"]["L0C"]["bytes"] = 128 * 1024;
    j["memories"]["UB"]["bytes"] = 120 * 1024;
    for (const char *p : {"MTE1", "MTE2", "MTE3", "FIX"})
      j["pipes"][p]["bytes_per_cycle"] = j["pipes"][p]["bytes_per_cycle"].get<double>() / 2;
  } else if (profile == "tiny") {
    j["name"] = "tiny";
    j["cores"] = 2;
    j["memories"]["L1"]["bytes"] = 32 * 1024;
    j["memories"]["L0A"]["bytes"] = 4 * 1024;
    j["memories"]["L0B"]["bytes"] = 4 * 1024;
    j["memories"]["L0C"]["bytes"] = 8 * 1024;
    j["memories"]["UB"]["bytes"] = 16 * 1024;
  } else {
    throw UserError("unknown NPU profile '" + profile + "' (ascend-like, lite, tiny, or a .json file)");
  }
  return parse_target(j, profile);
}

Target load_target(const std::string &profile_or_file) {
  if (profile_or_file.empty()) return builtin_target("ascend-like");
  bool is_file = profile_or_file.find('/') != std::string::npos ||
                 (profile_or_file.size() > 5 && profile_or_file.substr(profile_or_file.size() - 5) == ".json");
  if (!is_file) return builtin_target(profile_or_file);
  std::error_code ec;
  if (std::filesystem::is_directory(profile_or_file, ec))
    throw UserError("cannot read NPU target description '" + profile_or_file + "': it is a directory");
  std::ifstream in(profile_or_file);
  if (!in) throw UserError("cannot read NPU target description '" + profile_or_file + "'");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error &e) {
    throw UserError("target '" + profile_or_file + "': invalid JSON: " + e.what());
  }
  return parse_target(j, profile_or_file);
}

}  // namespace atl::npu
