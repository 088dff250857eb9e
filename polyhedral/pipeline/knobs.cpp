// The tuning knobs of a cluster (see knobs.h).
#include "polyhedral/pipeline/knobs.h"

#include "graph/core/text_keys.h"

#include "polyhedral/pipeline/cluster_state.h"
#include "polyhedral/scop/scop.h"
#include "polyhedral/transforms/schedule/gemm_tile_sizes.h"

#include <atoll/diagnostics.h>
#include <atoll/dtype.h>

#include <algorithm>
#include <cmath>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <set>
#include <sstream>

namespace atl::poly {

namespace {

constexpr const char *kCacheTile = "band0/cache_tile[";
constexpr const char *kUnroll = "band0/unroll";

bool parse_long(const std::string &text, long &value) {
  if (text.empty() || text.size() > 12) return false;
  for (char c : text)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  value = std::stol(text);
  return true;
}

bool parse_bool(const std::string &text, bool &value) {
  if (text == "true") return value = true, true;
  if (text == "false") return value = false, true;
  return false;
}

/// The dimension of a `band0/cache_tile[D]` name, or -1.
long cache_tile_dim(const std::string &name) {
  const std::string prefix = kCacheTile;
  if (name.rfind(prefix, 0) != 0 || name.back() != ']') return -1;
  long d = 0;
  if (!parse_long(name.substr(prefix.size(), name.size() - prefix.size() - 1), d) || d > 16) return -1;
  return d;
}

/// Constant extent of dimension `d` of a statement's domain, or -1.
long extent_of(const ScopStatement &s, int d) {
  isl::val lo = s.domain.dim_min_val(d), hi = s.domain.dim_max_val(d);
  if (!lo.is_int() || !hi.is_int()) return -1;
  return hi.get_num_si() - lo.get_num_si() + 1;
}

/// Values for a cache tile of a dimension of extent `ext` whose register
/// tile takes `granule` points: multiples of the granule from one granule to
/// below the extent, within a factor of 8 of the default, the default and 0
/// (untiled).
std::vector<std::string> cache_tile_values(long ext, long granule, long def) {
  std::set<long> v{0, def};
  granule = std::max(1L, granule);
  for (long t = granule; ext < 0 || t < ext; t *= 2) {
    if (t > 4096) break;
    if (def <= 0 || (t * 8 >= def && t <= def * 8)) v.insert(t);
  }
  std::vector<std::string> out;
  for (long t : v) out.push_back(std::to_string(t));
  return out;
}

std::vector<std::string> bools() { return {"false", "true"}; }

}  // namespace

KnobValues KnobSpace::defaults() const {
  KnobValues p;
  for (const KnobDomain &k : knobs) p[k.name] = k.default_value;
  return p;
}

std::string KnobSpace::check(const KnobValues &point) const {
  for (const auto &[name, value] : point) {
    auto k = std::find_if(knobs.begin(), knobs.end(), [&](const KnobDomain &d) { return d.name == name; });
    if (k == knobs.end()) return "knob '" + name + "' is not in the cluster's space";
    long l = 0;
    bool b = false;
    if (k->type == "int" && !parse_long(value, l)) return "knob '" + name + "' takes an integer >= 0, not '" + value + "'";
    if (k->type == "bool" && !parse_bool(value, b)) return "knob '" + name + "' takes true or false, not '" + value + "'";
    if (k->type == "enum" && std::find(k->values.begin(), k->values.end(), value) == k->values.end())
      return "knob '" + name + "' takes one of its listed values, not '" + value + "'";
  }
  return {};
}

std::string canonical_scop_text(const Scop &scop) {
  std::ostringstream os;
  print_scop(os, scop);
  const std::string text = os.str();
  // The names to replace, each by its kind's letter and its order of first
  // appearance in the text: statements S, nodes N, arrays and tensors A,
  // the cluster C.
  std::map<std::string, char> kind;
  kind[scop.name] = 'C';
  for (const ScopStatement &s : scop.statements) {
    kind[s.name] = 'S';
    kind.emplace(s.node, 'N');
  }
  for (const ScopArray &a : scop.arrays) {
    kind[a.array.name] = 'A';
    if (!a.tensor.empty()) kind.emplace(a.tensor, 'A');
  }
  std::map<std::string, std::string> renamed;
  std::map<char, int> count;
  return map_identifiers(text, [&](const std::string &word) {
    auto k = kind.find(word);
    if (k == kind.end()) return word;
    auto [it, added] = renamed.emplace(word, std::string());
    if (added) it->second = std::string(1, k->second) + std::to_string(count[k->second]++);
    return it->second;
  });
}

ScopIdentity scop_identity(const Scop &scop) {
  const std::string text = canonical_scop_text(scop);
  ScopIdentity id;
  id.key = fnv1a_hex(text);
  std::string masked;
  masked.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const bool in_word = i > 0 && (std::isalnum(static_cast<unsigned char>(text[i - 1])) || text[i - 1] == '_' ||
                                   text[i - 1] == '.');
    if (std::isdigit(static_cast<unsigned char>(text[i])) && !in_word) {
      std::size_t j = i;
      while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
      // An integer (not part of a name or of a real number like 1e-05 or 0.5).
      const bool real = j < text.size() && (text[j] == '.' || text[j] == 'e' || text[j] == 'E' ||
                                            std::isalpha(static_cast<unsigned char>(text[j])));
      if (!real && j - i <= 12) {
        id.shape.push_back(std::stol(text.substr(i, j - i)));
        masked += '#';
      } else {
        masked.append(text, i, j - i);
      }
      i = j;
    } else {
      masked += text[i++];
    }
  }
  id.family = fnv1a_hex(masked);
  return id;
}

void TuningTable::add(const std::string &key, const std::string &family, const std::vector<long> &shape,
                      KnobValues point) {
  if (!family.empty()) by_family[family].push_back({key, shape, point});
  exact[key] = std::move(point);
}

const KnobValues *TuningTable::find(const std::string &key, const std::string &family, const std::vector<long> &shape,
                                    std::string *from) const {
  if (auto it = exact.find(key); it != exact.end()) {
    if (from) *from = key;
    return &it->second;
  }
  auto f = by_family.find(family);
  if (f == by_family.end()) return nullptr;
  const Shaped *best = nullptr;
  double best_d = 0;
  for (const Shaped &s : f->second) {
    if (s.shape.size() != shape.size()) continue;
    double d = 0;
    for (std::size_t i = 0; i < shape.size(); ++i)
      d += std::fabs(std::log(static_cast<double>(std::max(0L, s.shape[i]) + 1)) -
                     std::log(static_cast<double>(std::max(0L, shape[i]) + 1)));
    if (!best || d < best_d || (d == best_d && s.key < best->key)) best = &s, best_d = d;
  }
  if (!best) return nullptr;
  if (from) *from = best->key;
  return &best->point;
}

KnobSpace knob_space(const ClusterState &state, const ScopIdentity &identity) {
  KnobSpace space;
  space.key = identity.key;
  space.family = identity.family;
  space.shape = identity.shape;
  const PolyOptions &o = state.options;
  // A given tree is used as is, and the GPU and NPU tables have knobs of
  // their own (their tile hints), not these.
  if (o.scheduler == "given" || o.gpu || o.npu) return space;
  auto add = [&](std::string name, std::string type, std::vector<std::string> values, std::string def,
                 std::string what) {
    if (std::find(values.begin(), values.end(), def) == values.end()) values.push_back(def);
    space.knobs.push_back({std::move(name), std::move(type), std::move(values), std::move(def), std::move(what)});
  };
  const PassRecord *gemm = state.record("tile_for_cpu");
  const PassRecord *window = state.record("tile_window_for_cpu");
  const bool tiled = state.applied("tile_for_cpu") || state.applied("tile_window_for_cpu") ||
                     state.applied("interleave_rows") || state.applied("tile_transpose");
  // The scheduler and fusion matter where there is an order to choose: several
  // statements, or a band that a tiling pass then works on.
  if (state.scop.statements.size() > 1 || tiled)
    add("scheduler", "enum", {"isl", "pluto", "feautrier"}, o.scheduler, "the scheduler (scheduler pass)");
  if (state.scop.statements.size() > 1)
    add("fuse_bands", "bool", bools(), o.fuse_bands ? "true" : "false",
        "sibling loop nests fused where they pass data (fuse_sibling_bands)");
  if (gemm && gemm->result == PassRecord::Result::Changed && state.gemm_tiles &&
      !state.gemm_tiles->statement.empty()) {
    const GemmTiling &t = *state.gemm_tiles;
    const ScopStatement *s = state.scop.statement(t.statement);
    std::string why;
    std::optional<gemm::Roles> roles = s ? gemm::roles_of(*s, why) : std::nullopt;
    for (std::size_t d = 0; s && d < t.cache_sizes.size() && d < s->indices.size(); ++d) {
      const int di = static_cast<int>(d);
      const std::string name = kCacheTile + std::to_string(d) + "]", def = std::to_string(t.cache_sizes[d]);
      const std::string what = "cache tile of " + s->indices[d] + " (tile_for_cpu; 0 = untiled)";
      // Points are complete (apply_knobs sets every size): a dimension whose
      // size does not matter is a knob of one value.
      if (roles && di == roles->u) {  // column blocks: the layout's, not a tile
        add(name, "int", {def}, def, what);
        continue;
      }
      long granule = 1;
      if (roles && di == roles->v) granule = t.nr / std::max(1L, t.nu);
      else if (roles && di == roles->r) granule = t.mr;
      else if (roles && std::find(roles->reductions.begin(), roles->reductions.end(), di) != roles->reductions.end())
        granule = 8;
      const long ext = extent_of(*s, di);
      if (ext >= 0 && ext <= granule) add(name, "int", {def}, def, what);  // one tile whatever the size
      else add(name, "int", cache_tile_values(ext, granule, t.cache_sizes[d]), def, what);
    }
    add(kUnroll, "int", {"1", "2", "3", "4", "6", "8"}, std::to_string(t.mr),
        "register-tile rows (tile_for_cpu's unroll and jam)");
    add("pack", "bool", bools(), o.pack ? "true" : "false", "operand panels copied into local buffers (pack_tiles)");
  } else if (window && window->result == PassRecord::Result::Changed && state.window_rows > 0) {
    add(kUnroll, "int", {"1", "2", "3", "4", "6", "8"}, std::to_string(state.window_rows),
        "register-tile rows of the window tiles (tile_window_for_cpu)");
  } else if (state.applied("interleave_rows") || state.applied("tile_transpose")) {
    add("tile", "bool", bools(), o.tile ? "true" : "false",
        "the CPU tilings (interleave_rows, tile_transpose) on or off");
  }
  return space;
}

std::map<std::string, double> cluster_features(const ClusterState &state, const std::map<std::string, long> &stats) {
  std::map<std::string, double> f;
  const CpuTarget &t = state.options.target;
  f["target.lanes"] = t.vector_lanes;
  f["target.registers"] = t.vector_registers;
  f["target.l1_bytes"] = static_cast<double>(t.l1_bytes);
  f["target.l2_bytes"] = static_cast<double>(t.l2_bytes);
  f["target.l3_bytes"] = static_cast<double>(t.l3_bytes);
  double bytes = 0;
  for (const ScopArray &a : state.scop.arrays) {
    if (a.kind != ScopArray::Kind::Input && a.kind != ScopArray::Kind::Output) continue;
    double n = static_cast<double>(dtype_size(a.array.dtype));
    for (const auto &d : a.array.shape) n *= d.is_symbolic() ? 1.0 : static_cast<double>(d.value);
    bytes += n;
  }
  f["arrays.io_bytes"] = bytes;
  f["scop.statements"] = static_cast<double>(state.scop.statements.size());
  // The main statement: the tiled one, else the one with the most points.
  const ScopStatement *main = nullptr;
  if (state.gemm_tiles && !state.gemm_tiles->statement.empty()) main = state.scop.statement(state.gemm_tiles->statement);
  double points = 0, all_points = 0;
  for (const ScopStatement &s : state.scop.statements) {
    double p = 1;
    for (std::size_t d = 0; d < s.indices.size(); ++d) p *= std::max(1L, extent_of(s, static_cast<int>(d)));
    all_points += p;
    if (!state.gemm_tiles && (!main || p > points)) main = &s, points = p;
  }
  f["scop.points"] = all_points;
  if (main) {
    double p = 1;
    for (std::size_t d = 0; d < main->indices.size(); ++d) {
      long e = extent_of(*main, static_cast<int>(d));
      f["main.extent[" + std::to_string(d) + "]"] = static_cast<double>(e);
      p *= std::max(1L, e);
    }
    f["main.points"] = p;
    f["main.dims"] = static_cast<double>(main->indices.size());
  }
  if (state.gemm_tiles && main && state.applied("tile_for_cpu")) {
    const GemmTiling &g = *state.gemm_tiles;
    f["gemm.mr"] = static_cast<double>(g.mr);
    f["gemm.nr"] = static_cast<double>(g.nr);
    f["gemm.nu"] = static_cast<double>(g.nu);
    std::string why;
    if (auto roles = gemm::roles_of(*main, why)) {
      auto ext = [&](int d) { return d >= 0 ? static_cast<double>(std::max(1L, extent_of(*main, d))) : 1.0; };
      auto tile = [&](int d) {
        if (d < 0 || static_cast<std::size_t>(d) >= g.cache_sizes.size() || g.cache_sizes[static_cast<std::size_t>(d)] <= 0)
          return ext(d);
        return std::min(ext(d), static_cast<double>(g.cache_sizes[static_cast<std::size_t>(d)]));
      };
      double k = 1, kc = 1;
      for (int r : roles->reductions) k *= ext(r), kc *= tile(r);
      f["gemm.m"] = ext(roles->r);
      f["gemm.n"] = ext(roles->v) * (roles->u >= 0 ? ext(roles->u) : 1.0);
      f["gemm.k"] = k;
      f["gemm.mc"] = tile(roles->r);
      f["gemm.nc"] = tile(roles->v) * (roles->u >= 0 ? ext(roles->u) : 1.0);
      f["gemm.kc"] = kc;
    }
  }
  if (state.window_rows > 0 && state.applied("tile_window_for_cpu")) f["window.rows"] = static_cast<double>(state.window_rows);
  for (const auto &[name, n] : stats) f["stats." + name] = static_cast<double>(n);
  return f;
}

double model_ms(const std::map<std::string, double> &f) {
  auto get = [&](const char *k, double d = 0) {
    auto it = f.find(k);
    return it == f.end() ? d : it->second;
  };
  const double ghz = 3.0;  // a nominal clock: the model ranks points, it does not predict wall time
  const double lanes = std::max(1.0, get("target.lanes", 1)), regs = get("target.registers", 16);
  const double l2 = get("target.l2_bytes", 1 << 20);
  const double stream_bytes_per_cycle = 16;  // memory, streaming
  const double l3_bytes_per_cycle = 24;
  if (get("gemm.mr") > 0 && get("gemm.k") > 0) {
    const double mr = get("gemm.mr"), nr = get("gemm.nr"), nv = std::max(1.0, std::ceil(nr / lanes));
    const double m = get("gemm.m"), n = get("gemm.n"), k = get("gemm.k");
    const double mc = get("gemm.mc", m), nc = get("gemm.nc", n), kc = get("gemm.kc", k);
    // The micro-kernel: mr x nv FMAs a k step against mr broadcasts and nv
    // loads, two of each a cycle; a tile that does not fit the registers spills.
    double eff = (mr * nv) / std::max(mr * nv, mr + nv);
    if (mr * nv + nv + 1 > regs) eff *= 0.5;
    // Register tiles cut by the extents run at a third of the rate.
    const double full = (std::floor(m / mr) * mr / m) * (std::floor(n / nr) * nr / std::max(n, 1.0));
    eff = full * eff + (1 - full) * eff / 3;
    // Unpacked operands: strided panel loads, TLB and prefetch misses.
    if (get("stats.arrays_packed") <= 0) eff *= 0.85;
    const double fmas = get("main.points", m * n * k);
    const double compute = fmas / (2 * lanes) / std::max(eff, 1e-3);
    // The cache tile's working set: A (mc x kc), B (kc x nc) and C (mc x nc)
    // floats. Within L2, the operands come from L3 once per cache tile of
    // the other side; beyond it, from memory once per register tile.
    const double ws = 4 * (mc * kc + kc * nc + mc * nc);
    double traffic = 4 * (m * k * std::ceil(n / nc) + k * n * std::ceil(m / mc) + 2 * m * n * std::ceil(k / kc));
    double rate = l3_bytes_per_cycle;
    if (ws > l2) {
      traffic = 4 * (m * k * std::ceil(n / nr) + k * n * std::ceil(m / mr));
      rate = stream_bytes_per_cycle;
    }
    const double cycles = std::max(compute, traffic / rate) + 0.05 * std::min(compute, traffic / rate);
    return cycles / (ghz * 1e6);
  }
  // Other clusters: the bytes they must move, and their points at the
  // vector rate (a scalar loop, or a window tile's rows, change the latter).
  const double bytes = get("arrays.io_bytes");
  double vec = get("stats.loops_vectorized") > 0 ? lanes : 1;
  const double rows = get("window.rows", 0);
  if (rows > 0) vec *= std::min(1.0, (rows * 2) / (rows + 2)) * (rows + 3 > regs ? 0.5 : 1);
  const double points = std::max(get("scop.points"), 1.0);
  const double cycles = std::max(bytes / stream_bytes_per_cycle, points / std::max(vec, 1e-3));
  return cycles / (ghz * 1e6);
}

void apply_knobs(const KnobValues &point, PolyOptions &options) {
  auto bad = [](const std::string &name, const std::string &why) {
    Location where;
    where.hint = "records";
    return UserError("knob '" + name + "': " + why, where);
  };
  std::vector<long> tiles;
  for (const auto &[name, value] : point) {
    long l = 0;
    bool b = false;
    if (name == "scheduler") {
      if (value != "isl" && value != "pluto" && value != "feautrier")
        throw bad(name, "expected isl, pluto or feautrier, not '" + value + "'");
      options.scheduler = value;
    } else if (name == "fuse_bands" || name == "pack" || name == "tile") {
      if (!parse_bool(value, b)) throw bad(name, "expected true or false, not '" + value + "'");
      (name == "fuse_bands" ? options.fuse_bands : name == "pack" ? options.pack : options.tile) = b;
    } else if (name == kUnroll) {
      if (!parse_long(value, l) || l < 1 || l > 16) throw bad(name, "expected 1 to 16, not '" + value + "'");
      options.unroll = l;
    } else if (long d = cache_tile_dim(name); d >= 0) {
      if (!parse_long(value, l)) throw bad(name, "expected an integer >= 0, not '" + value + "'");
      if (tiles.size() <= static_cast<std::size_t>(d)) tiles.resize(static_cast<std::size_t>(d) + 1, 0);
      tiles[static_cast<std::size_t>(d)] = l;
    } else {
      throw bad(name, "no such knob (scheduler, fuse_bands, pack, tile, band0/unroll, band0/cache_tile[D])");
    }
  }
  if (!tiles.empty()) options.tile_sizes = std::move(tiles);
}

std::string point_text(const KnobValues &point) {
  std::string s;
  for (const auto &[name, value] : point) s += (s.empty() ? "" : ",") + name + "=" + value;
  return s;
}

}  // namespace atl::poly
