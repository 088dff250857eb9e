// Tests write schedule hints as the batch format does (JSON); these give the
// typed hints a graph holds, without the front end's checks (tests of the
// optimizer's own refusals need hints the front end would refuse).
#pragma once

#include "graph/ir/graph.h"

#include <nlohmann/json.hpp>

namespace atl::test {

/// null or "auto": Auto; "none": None; a list of lists of names: Groups.
inline FuseHint fuse_hint(const nlohmann::json &j) {
  FuseHint h;
  if (j.is_string() && j.get<std::string>() == "none") h.mode = FuseHint::Mode::None;
  if (!j.is_array()) return h;
  h.mode = FuseHint::Mode::Groups;
  for (const auto &group : j) h.groups.push_back(group.get<std::vector<std::string>>());
  return h;
}

/// null: none; a string: the tree of the only cluster; an object: trees by cluster.
inline TreeHint tree_hint(const nlohmann::json &j) {
  TreeHint h;
  h.given = !j.is_null();
  if (j.is_string()) h.whole = j.get<std::string>();
  if (j.is_object())
    for (const auto &[cluster, tree] : j.items()) h.by_cluster[cluster] = tree.get<std::string>();
  return h;
}

}  // namespace atl::test
