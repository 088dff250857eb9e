// Whole files as text (files.h).
#include "src/runtime/files.h"

#include <atoll/diagnostics.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace atl {

std::string read_file_text(const std::string &path, const std::string &what) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw UserError("cannot read " + what + " '" + path + "': it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError("cannot read " + what + " '" + path + "'");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw UserError("cannot read " + what + " '" + path + "'");
  return ss.str();
}

std::string file_directory(const std::string &path) {
  std::string dir = std::filesystem::path(path).parent_path().string();
  return dir.empty() ? "." : dir;
}

void write_file_atomically(const std::string &path, const std::string &text) {
  std::string tmp = path + ".tmp";
  std::error_code ec;
  {
    std::ofstream f(tmp, std::ios::binary);
    f << text;
    if (!f) {
      std::filesystem::remove(tmp, ec);
      throw UserError("cannot write '" + path + "'");
    }
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    throw UserError("cannot write '" + path + "': " + ec.message());
  }
}

}  // namespace atl
