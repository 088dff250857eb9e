// JSON text to nlohmann::json with line/column errors and a depth limit.
#include "src/frontend/json_text.h"

#include "src/frontend/batch.h"
#include <atoll/diagnostics.h>

namespace atl::frontend {

namespace {

Location line_column(std::string_view text, std::size_t byte) {
  Location loc;
  loc.line = 1;
  loc.column = 1;
  for (std::size_t i = 0; i < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++loc.line;
      loc.column = 1;
    } else {
      ++loc.column;
    }
  }
  return loc;
}

/// Finds the first place where arrays/objects nest deeper than the limit.
void check_depth(std::string_view text) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth)
        throw UserError("not JSON Atoll accepts: nested deeper than " + std::to_string(kMaxJsonDepth) + " levels",
                        line_column(text, i));
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
}

}  // namespace

nlohmann::json parse_json(std::string_view text) {
  check_depth(text);
  try {
    return nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error &e) {
    std::size_t byte = e.byte > 0 ? e.byte - 1 : 0;
    std::string what = e.what();
    // nlohmann's message: "[json.exception.parse_error.101] parse error at line 1, column 2: syntax error ..."
    std::size_t colon = what.find(": ", what.find("parse error"));
    std::string detail = colon == std::string::npos ? what : what.substr(colon + 2);
    throw UserError("not JSON: " + detail, line_column(text, byte));
  } catch (const nlohmann::json::out_of_range &e) {
    // "[json.exception.out_of_range.406] number overflow parsing '1e400'": no position; find the literal.
    std::string what = e.what();
    std::size_t q = what.find('\'');
    std::string literal = q == std::string::npos ? "" : what.substr(q + 1, what.rfind('\'') - q - 1);
    std::size_t at = literal.empty() ? std::string_view::npos : text.find(literal);
    std::size_t colon = what.find("] ");
    throw UserError("not JSON Atoll accepts: " + (colon == std::string::npos ? what : what.substr(colon + 2)),
                    at == std::string_view::npos ? Location{} : line_column(text, at));
  }
}

std::string pointer_join(const std::string &pointer, const std::string &key) {
  std::string out = pointer + "/";
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

std::string pointer_join(const std::string &pointer, std::size_t index) {
  return pointer + "/" + std::to_string(index);
}

}  // namespace atl::frontend
