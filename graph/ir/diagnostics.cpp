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

/// `text` with control characters and bytes that are not UTF-8 as \xNN, so
/// that a message prints whole and goes into report.json (names and
/// expressions from the batch may hold anything).
static std::string printable(const std::string &text) {
  static const char *hex = "0123456789abcdef";
  std::string out;
  auto escape = [&](unsigned char c) { out += std::string("\\x") + hex[c >> 4] + hex[c & 15]; };
  for (std::size_t i = 0; i < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    std::size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    bool ok = n > 0 && i + n <= text.size() && !(n == 1 && (c < 0x20 || c == 0x7f) && c != '\n' && c != '\t');
    for (std::size_t k = 1; ok && k < n; ++k) ok = (static_cast<unsigned char>(text[i + k]) >> 6) == 2;
    if (ok && n == 2) ok = c >= 0xc2;  // no overlong encodings
    if (!ok) {
      escape(c);
      ++i;
      continue;
    }
    out.append(text, i, n);
    i += n;
  }
  return out;
}

static std::string compose(const std::string &reason, const Location &where) {
  std::string loc = format_location(where);
  return printable(loc.empty() ? reason : loc + ": " + reason);
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
