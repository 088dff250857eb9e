// User errors that name the place, and internal assertions that name Atoll's bug.
#pragma once

#include <stdexcept>
#include <string>

namespace atl {

/// Where a user error happened. Every field is optional; the message names
/// the ones that are set, most specific last.
struct Location {
  std::string pointer;  ///< JSON pointer into the batch, e.g. /graphs/2/nodes/5/attrs/pads
  std::string graph;    ///< graph name
  std::string node;     ///< node name
  int line = 0;         ///< 1-based line (JSON text, or a Compute `expr`)
  int column = 0;       ///< 1-based column
  std::string hint;     ///< schedule hint name, e.g. "tile"
};

/// An error in what the user gave Atoll: a bad batch, graph, option or hint.
/// what() is the full message "graph 'g', node 'n': reason"; reason() is the
/// bare reason and where() the place.
class UserError : public std::runtime_error {
public:
  UserError(std::string reason, Location where = {});
  const std::string &reason() const { return reason_; }
  const Location &where() const { return where_; }
  /// The same error with more context filled in where the old one had none.
  UserError with(const Location &outer) const;

private:
  std::string reason_;
  Location where_;
};

/// Formats a location as "graph 'g', node 'n', at /p" (empty when nothing is set).
std::string format_location(const Location &where);

/// A broken invariant inside Atoll: a bug, never the user's fault.
class InternalError : public std::logic_error {
public:
  explicit InternalError(const std::string &what) : std::logic_error("internal error: " + what) {}
};

[[noreturn]] void internal_error(const char *file, int line, const std::string &message);

}  // namespace atl

#define ATOLL_ASSERT(cond, msg)                                  \
  do {                                                           \
    if (!(cond)) ::atl::internal_error(__FILE__, __LINE__, msg); \
  } while (0)
