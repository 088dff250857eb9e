// Parsing JSON text with line/column errors and a nesting-depth limit.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace atl::frontend {

/// Parses JSON. Throws UserError "not JSON: ... at line L, column C" for
/// syntax errors and for nesting deeper than kMaxJsonDepth (checked before
/// parsing, so hostile input cannot exhaust the stack).
nlohmann::json parse_json(std::string_view text);

/// Appends a key or index to a JSON pointer, escaping '~' and '/'.
std::string pointer_join(const std::string &pointer, const std::string &key);
std::string pointer_join(const std::string &pointer, std::size_t index);

}  // namespace atl::frontend
