// Whole files as text: read with a located error, written through a
// temporary file and a rename so that no reader sees half a file.
#pragma once

#include <string>

namespace atl {

/// The bytes of `path`. UserError "cannot read WHAT 'PATH'" (and ": it is a
/// directory") when it cannot be read; `what` names the file's role
/// ("batch file", "ONNX model").
std::string read_file_text(const std::string &path, const std::string &what);

/// The directory of `path` ("." for a bare file name): where files that it
/// names relatively are looked for.
std::string file_directory(const std::string &path);

/// Writes `text` to `path` through PATH.tmp and a rename. UserError naming
/// the path when it cannot be written; the temporary file is removed.
void write_file_atomically(const std::string &path, const std::string &text);

}  // namespace atl
