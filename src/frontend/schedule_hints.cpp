// Validates schedule hints: fuse groups, tile sizes, flags, scheduler, trees.
#include "src/frontend/schedule_hints.h"

#include "src/frontend/json_text.h"

#include "polyhedral/isl/isl_info.h"

#include <set>

namespace atl::frontend {

namespace {

[[noreturn]] void hint_error(const std::string &ptr, const std::string &hint, const Graph &g, const std::string &why) {
  Location loc{ptr, g.name};
  loc.hint = hint;
  throw UserError(why, loc);
}

std::set<std::string> node_names(const Graph &g) {
  std::set<std::string> names;
  for (NodeId v : g.order()) names.insert(g.node(v).name);
  return names;
}

/// Checks that isl can read a schedule tree in its YAML notation.
void check_tree_text(const std::string &text, const std::string &ptr, const Graph &g) {
  if (!poly::isl_reads_schedule(text))
    hint_error(ptr, "tree", g, "isl cannot read this schedule tree (expected isl's YAML notation)");
}

}  // namespace

ScheduleHints read_schedule_hints(const nlohmann::json &j, const std::string &ptr, const Graph &g) {
  ScheduleHints h;
  if (!j.is_object()) hint_error(ptr, "schedule", g, "expected an object of schedule hints");
  std::set<std::string> nodes = node_names(g);
  for (const auto &[key, v] : j.items()) {
    std::string p = pointer_join(ptr, key);
    if (key == "fuse") {
      if (v.is_string()) {
        std::string s = v.get<std::string>();
        if (s != "auto" && s != "none") hint_error(p, key, g, "expected \"auto\", \"none\" or a list of node groups");
        h.fuse.mode = s == "none" ? FuseHint::Mode::None : FuseHint::Mode::Auto;
      } else if (v.is_array()) {
        h.fuse.mode = FuseHint::Mode::Groups;
        std::set<std::string> seen;
        for (std::size_t i = 0; i < v.size(); ++i) {
          const auto &group = v[i];
          std::string gp = pointer_join(p, i);
          if (!group.is_array() || group.empty()) hint_error(gp, key, g, "expected a non-empty list of node names");
          h.fuse.groups.emplace_back();
          for (std::size_t k = 0; k < group.size(); ++k) {
            std::string np = pointer_join(gp, k);
            if (!group[k].is_string()) hint_error(np, key, g, "expected a node name");
            std::string n = group[k].get<std::string>();
            if (!nodes.count(n)) hint_error(np, key, g, "unknown node '" + n + "'");
            if (!seen.insert(n).second) hint_error(np, key, g, "node '" + n + "' is in more than one group");
            h.fuse.groups.back().push_back(n);
          }
        }
      } else {
        hint_error(p, key, g, "expected \"auto\", \"none\" or a list of node groups");
      }
    } else if (key == "tile") {
      if (!v.is_object()) hint_error(p, key, g, "expected an object: node name -> tile sizes");
      for (const auto &[node, sizes] : v.items()) {
        std::string np = pointer_join(p, node);
        if (!nodes.count(node)) hint_error(np, key, g, "unknown node '" + node + "'");
        if (!sizes.is_array() || sizes.empty()) hint_error(np, key, g, "expected a list of tile sizes");
        std::vector<std::int64_t> list;
        for (std::size_t i = 0; i < sizes.size(); ++i) {
          if (!sizes[i].is_number_integer() || sizes[i].get<std::int64_t>() < 0)
            hint_error(pointer_join(np, i), key, g, "expected a tile size >= 0 (0 = do not tile)");
          list.push_back(sizes[i].get<std::int64_t>());
        }
        h.tile[node] = list;
      }
    } else if (key == "vectorize" || key == "parallel") {
      if (!v.is_boolean()) hint_error(p, key, g, "expected true or false");
      (key == "vectorize" ? h.vectorize : h.parallel) = v.get<bool>();
    } else if (key == "unroll") {
      if (v.is_boolean()) {
        h.unroll = v.get<bool>() ? 0 : 1;  // true: the optimizer chooses; false: no unrolling
      } else if (v.is_number_integer() && v.get<std::int64_t>() >= 1 && v.get<std::int64_t>() <= 16) {
        h.unroll = v.get<std::int64_t>();
      } else {
        hint_error(p, key, g, "expected an unroll factor between 1 and 16 (register-tile rows), or a boolean");
      }
    } else if (key == "scheduler") {
      if (!v.is_string()) hint_error(p, key, g, "expected \"isl\", \"pluto\" or \"feautrier\"");
      std::string s = v.get<std::string>();
      if (s != "isl" && s != "pluto" && s != "feautrier")
        hint_error(p, key, g, "unknown scheduler '" + s + "' (expected \"isl\", \"pluto\" or \"feautrier\")");
      h.scheduler = s;
    } else if (key == "tree") {
      h.tree.given = true;
      if (v.is_string()) {
        check_tree_text(v.get<std::string>(), p, g);
        h.tree.whole = v.get<std::string>();
      } else if (v.is_object()) {
        for (const auto &[cluster, text] : v.items()) {
          std::string cp = pointer_join(p, cluster);
          if (!text.is_string()) hint_error(cp, key, g, "expected a schedule tree string");
          check_tree_text(text.get<std::string>(), cp, g);
          h.tree.by_cluster[cluster] = text.get<std::string>();
        }
      } else {
        hint_error(p, key, g, "expected a schedule tree string, or an object keyed by cluster name");
      }
    } else {
      hint_error(p, key, g,
                 "unknown schedule hint '" + key + "' (expected fuse, tile, vectorize, parallel, unroll, scheduler, tree)");
    }
  }
  return h;
}

}  // namespace atl::frontend
