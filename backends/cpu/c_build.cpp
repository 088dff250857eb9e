// Compiles C source with the system compiler into a temporary shared object and dlopens it.
#include "backends/cpu/c_build.h"

#include <atoll/diagnostics.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sys/wait.h>
#include <unistd.h>

#include <dlfcn.h>

namespace atl::cpu {

namespace {

std::string shell_quote(const std::string &s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

/// Runs a shell command, returning its exit status and its stdout+stderr.
int run_command(const std::string &cmd, std::string &output) {
  FILE *p = ::popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return -1;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) output.append(buf, n);
  int status = ::pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

CLibrary::CLibrary(const std::string &source, const CBuildOptions &options) {
  std::string tmpl = (std::filesystem::temp_directory_path() / "atoll-c-XXXXXX").string();
  if (!::mkdtemp(tmpl.data())) throw UserError("cannot create a temporary directory for the C build");
  dir_ = tmpl;
  std::string c_path = dir_ + "/kernels.c", so_path = dir_ + "/kernels.so";
  {
    std::ofstream out(c_path, std::ios::binary);
    out << source;
    if (!out.flush()) {
      std::filesystem::remove_all(dir_);
      throw UserError("cannot write '" + c_path + "'");
    }
  }
  std::string cc = options.compiler;
  if (cc == "cc")
    if (const char *env = std::getenv("CC"); env && *env) cc = env;
  std::string cmd = shell_quote(cc);
  for (const std::string &f : options.flags) cmd += " " + shell_quote(f);
  cmd += " -shared -fPIC -o " + shell_quote(so_path) + " " + shell_quote(c_path) + " -lm";
  std::string output;
  int rc = run_command(cmd, output);
  if (rc != 0) {
    std::filesystem::remove_all(dir_);
    throw UserError("the C compiler failed (exit " + std::to_string(rc) + "): " + cmd + "\n" + output);
  }
  handle_ = ::dlopen(so_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle_) {
    const char *err = ::dlerror();
    std::filesystem::remove_all(dir_);
    throw UserError(std::string("cannot load the compiled C kernels: ") + (err ? err : "?"));
  }
}

CLibrary::~CLibrary() {
  if (handle_) ::dlclose(handle_);
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

void *CLibrary::symbol(const std::string &name) const { return ::dlsym(handle_, name.c_str()); }

KernelEntry CLibrary::entry(const std::string &kernel) const {
  return reinterpret_cast<KernelEntry>(symbol(kernel + "_entry"));
}

}  // namespace atl::cpu
