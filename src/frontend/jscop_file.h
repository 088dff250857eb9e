// Polly's JSCoP files: reading one into poly::Jscop (every problem a
// UserError with the file and the JSON pointer), and writing it back with
// new schedules and every other key kept as it was, in its order.
#pragma once

#include "polyhedral/jscop/jscop.h"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace atl::frontend {

/// A JSCoP file as read: the JSON (its keys in file order) and the SCoP.
struct JscopFile {
  nlohmann::ordered_json json;
  poly::Jscop scop;
};

/// Reads JSCoP text. Errors: not JSON (line and column), a missing key or a
/// value of the wrong type (its JSON pointer), an access kind other than
/// read or write.
JscopFile read_jscop(std::string_view text);

/// The file with statement k's "schedule" replaced by schedules[k], printed
/// as Polly prints JSCoP (three-space indentation, no final newline), so
/// that unchanged schedules give the input back byte for byte.
std::string write_jscop(const JscopFile &file, const std::vector<std::string> &schedules);

}  // namespace atl::frontend
