// Parses and validates a graph's `schedule` hints against its nodes.
#pragma once

#include "graph/ir/graph.h"

#include <nlohmann/json.hpp>

#include <string>

namespace atl::frontend {

/// Reads the `schedule` object of a graph. Errors name the hint and its
/// JSON pointer: unknown hint, wrong type, unknown node, unknown scheduler,
/// a `tree` that isl cannot read.
ScheduleHints read_schedule_hints(const nlohmann::json &j, const std::string &pointer, const Graph &graph);

}  // namespace atl::frontend
