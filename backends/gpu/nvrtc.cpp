// NVRTC through dlopen: the handful of entry points Atoll calls, declared
// here with NVRTC's C ABI so that no CUDA header is needed to build.
#include "backends/gpu/nvrtc.h"

#include <atoll/diagnostics.h>

#include <dlfcn.h>

#include <mutex>
#include <regex>
#include <sstream>

namespace atl::gpu {

namespace {

using Program = void *;
struct Api {
  void *lib = nullptr;
  int (*version)(int *, int *) = nullptr;
  int (*create)(Program *, const char *, const char *, int, const char *const *, const char *const *) = nullptr;
  int (*compile)(Program, int, const char *const *) = nullptr;
  int (*log_size)(Program, std::size_t *) = nullptr;
  int (*log)(Program, char *) = nullptr;
  int (*ptx_size)(Program, std::size_t *) = nullptr;
  int (*ptx)(Program, char *) = nullptr;
  int (*cubin_size)(Program, std::size_t *) = nullptr;
  int (*cubin)(Program, char *) = nullptr;
  int (*destroy)(Program *) = nullptr;
  const char *(*error)(int) = nullptr;
};

const Api &api() {
  static Api a;
  static std::once_flag once;
  std::call_once(once, [] {
    for (const char *name : {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so", "/usr/local/cuda/lib64/libnvrtc.so.13",
                             "/usr/local/cuda/lib64/libnvrtc.so.12", "/usr/local/cuda/lib64/libnvrtc.so"}) {
      a.lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
      if (a.lib) break;
    }
    if (!a.lib) return;
    auto sym = [&](auto &f, const char *n) { f = reinterpret_cast<std::remove_reference_t<decltype(f)>>(dlsym(a.lib, n)); };
    sym(a.version, "nvrtcVersion");
    sym(a.create, "nvrtcCreateProgram");
    sym(a.compile, "nvrtcCompileProgram");
    sym(a.log_size, "nvrtcGetProgramLogSize");
    sym(a.log, "nvrtcGetProgramLog");
    sym(a.ptx_size, "nvrtcGetPTXSize");
    sym(a.ptx, "nvrtcGetPTX");
    sym(a.cubin_size, "nvrtcGetCUBINSize");
    sym(a.cubin, "nvrtcGetCUBIN");
    sym(a.destroy, "nvrtcDestroyProgram");
    sym(a.error, "nvrtcGetErrorString");
    if (!a.version || !a.create || !a.compile || !a.log_size || !a.log || !a.ptx_size || !a.ptx || !a.cubin_size ||
        !a.cubin || !a.destroy || !a.error)
      a.lib = nullptr;
  });
  return a;
}

}  // namespace

bool nvrtc_available() { return api().lib != nullptr; }

std::map<std::string, PtxasKernel> parse_ptxas_log(const std::string &log) {
  std::map<std::string, PtxasKernel> out;
  static const std::regex entry(R"(Compiling entry function '([A-Za-z_0-9]+)')");
  static const std::regex frame(R"(([0-9]+) bytes stack frame, ([0-9]+) bytes spill stores, ([0-9]+) bytes spill loads)");
  static const std::regex used(R"(Used ([0-9]+) registers)");
  static const std::regex barriers(R"(used ([0-9]+) barriers)");
  static const std::regex smem(R"(([0-9]+) bytes smem)");
  std::istringstream in(log);
  std::string line, current;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, entry)) {
      current = m[1].str();
      out[current];
      continue;
    }
    if (current.empty()) continue;
    PtxasKernel &k = out[current];
    if (std::regex_search(line, m, frame)) {
      k.stack_bytes = std::stol(m[1].str());
      k.spill_store_bytes = std::stol(m[2].str());
      k.spill_load_bytes = std::stol(m[3].str());
    }
    if (std::regex_search(line, m, used)) k.registers = std::stoi(m[1].str());
    if (std::regex_search(line, m, barriers)) k.barriers = std::stoi(m[1].str());
    if (std::regex_search(line, m, smem)) k.shared_bytes = std::stol(m[1].str());
  }
  return out;
}

NvrtcResult compile_cuda(const std::string &source, const std::string &name, int sm) {
  const Api &a = api();
  if (!a.lib) throw UserError("NVRTC not found (libnvrtc.so.13 or .12): install the CUDA toolkit's NVRTC");
  NvrtcResult r;
  a.version(&r.version_major, &r.version_minor);
  Program p = nullptr;
  int rc = a.create(&p, source.c_str(), name.c_str(), 0, nullptr, nullptr);
  if (rc != 0) throw UserError(std::string("NVRTC cannot create a program: ") + a.error(rc));
  const std::string arch = "--gpu-architecture=sm_" + std::to_string(sm);
  const char *opts[] = {arch.c_str(), "--ptxas-options=-v", "--std=c++17"};
  rc = a.compile(p, 3, opts);
  std::size_t n = 0;
  a.log_size(p, &n);
  r.log.assign(n, '\0');
  if (n) a.log(p, r.log.data());
  while (!r.log.empty() && r.log.back() == '\0') r.log.pop_back();
  if (rc != 0) {
    a.destroy(&p);
    throw UserError(name + ": NVRTC failed for sm_" + std::to_string(sm) + " (" + a.error(rc) + "):\n" + r.log);
  }
  a.ptx_size(p, &n);
  r.ptx.assign(n, '\0');
  a.ptx(p, r.ptx.data());
  while (!r.ptx.empty() && r.ptx.back() == '\0') r.ptx.pop_back();
  a.cubin_size(p, &n);
  r.cubin.assign(n, '\0');
  if (n) a.cubin(p, r.cubin.data());
  a.destroy(&p);
  r.kernels = parse_ptxas_log(r.log);
  return r;
}

}  // namespace atl::gpu
