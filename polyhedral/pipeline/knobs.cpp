// The tuning knobs of a cluster (see knobs.h).
#include "polyhedral/pipeline/knobs.h"

#include "graph/core/text_keys.h"

#include "polyhedral/pipeline/cluster_state.h"
#include "polyhedral/scop/scop.h"
#include "polyhedral/transforms/schedule/gemm_tile_sizes.h"

#include <atoll/diagnostics.h>

#include <algorithm>
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

std::string scop_key(const Scop &scop) { return fnv1a_hex(canonical_scop_text(scop)); }

KnobSpace knob_space(const ClusterState &state) {
  KnobSpace space;
  space.key = state.tuning_key.empty() ? scop_key(state.scop) : state.tuning_key;
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
