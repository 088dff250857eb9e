// User errors with their location, and internal assertion failures.
#include <atoll/diagnostics.h>

namespace atl {

std::string format_location(const Location &w) {
  std::string out;
  auto add = [&](const std::string &part) {
    if (!out.empty()) out += ", ";
    out += part;
  };
  if (!w.graph.empty()) add("graph '" + w.graph + "'");
  if (!w.node.empty()) add("node '" + w.node + "'");
  if (!w.hint.empty()) add("hint '" + w.hint + "'");
  if (!w.pointer.empty()) add("at " + w.pointer);
  if (w.line > 0) add("line " + std::to_string(w.line) + ", column " + std::to_string(w.column));
  return out;
}

static std::string compose(const std::string &reason, const Location &where) {
  std::string loc = format_location(where);
  return loc.empty() ? reason : loc + ": " + reason;
}

UserError::UserError(std::string reason, Location where)
    : std::runtime_error(compose(reason, where)), reason_(std::move(reason)), where_(std::move(where)) {}

UserError UserError::with(const Location &outer) const {
  Location w = where_;
  if (w.graph.empty()) w.graph = outer.graph;
  if (w.node.empty()) w.node = outer.node;
  if (w.hint.empty()) w.hint = outer.hint;
  if (w.pointer.empty()) w.pointer = outer.pointer;
  if (w.line == 0) {
    w.line = outer.line;
    w.column = outer.column;
  }
  return UserError(reason_, w);
}

void internal_error(const char *file, int line, const std::string &message) {
  throw InternalError(message + " (" + file + ":" + std::to_string(line) + ")");
}

}  // namespace atl
