// OpenCL through dlopen: the entry points Atoll calls, declared here with
// the OpenCL 1.2 C ABI so that no OpenCL header is needed to build.
#include "backends/gpu/opencl_runtime.h"

#include "backends/gpu/index_eval.h"

#include <atoll/diagnostics.h>

#include <dlfcn.h>

#include <cstring>
#include <map>
#include <mutex>
#include <set>

namespace atl::gpu {

namespace {

using cl_int = std::int32_t;
using cl_uint = std::uint32_t;
using cl_bitfield = std::uint64_t;
using Handle = void *;

constexpr cl_bitfield kDeviceTypeAll = 0xFFFFFFFF;
constexpr cl_uint kDeviceName = 0x102B;
constexpr cl_uint kProgramBuildLog = 0x1183;
constexpr cl_bitfield kMemReadWrite = 1;

struct Api {
  void *lib = nullptr;
  cl_int (*platforms)(cl_uint, Handle *, cl_uint *) = nullptr;
  cl_int (*devices)(Handle, cl_bitfield, cl_uint, Handle *, cl_uint *) = nullptr;
  cl_int (*device_info)(Handle, cl_uint, std::size_t, void *, std::size_t *) = nullptr;
  Handle (*context)(const std::intptr_t *, cl_uint, const Handle *, void *, void *, cl_int *) = nullptr;
  Handle (*queue)(Handle, Handle, cl_bitfield, cl_int *) = nullptr;
  Handle (*program)(Handle, cl_uint, const char **, const std::size_t *, cl_int *) = nullptr;
  cl_int (*build)(Handle, cl_uint, const Handle *, const char *, void *, void *) = nullptr;
  cl_int (*build_info)(Handle, Handle, cl_uint, std::size_t, void *, std::size_t *) = nullptr;
  Handle (*kernel)(Handle, const char *, cl_int *) = nullptr;
  Handle (*buffer)(Handle, cl_bitfield, std::size_t, void *, cl_int *) = nullptr;
  cl_int (*arg)(Handle, cl_uint, std::size_t, const void *) = nullptr;
  cl_int (*ndrange)(Handle, Handle, cl_uint, const std::size_t *, const std::size_t *, const std::size_t *, cl_uint,
                    const Handle *, Handle *) = nullptr;
  cl_int (*read)(Handle, Handle, cl_uint, std::size_t, std::size_t, void *, cl_uint, const Handle *, Handle *) = nullptr;
  cl_int (*write)(Handle, Handle, cl_uint, std::size_t, std::size_t, const void *, cl_uint, const Handle *,
                  Handle *) = nullptr;
  cl_int (*finish)(Handle) = nullptr;
  cl_int (*release_mem)(Handle) = nullptr;
  cl_int (*release_kernel)(Handle) = nullptr;
  cl_int (*release_program)(Handle) = nullptr;
  cl_int (*release_queue)(Handle) = nullptr;
  cl_int (*release_context)(Handle) = nullptr;
};

const Api &api() {
  static Api a;
  static std::once_flag once;
  std::call_once(once, [] {
    for (const char *name : {"libOpenCL.so.1", "libOpenCL.so"}) {
      a.lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
      if (a.lib) break;
    }
    if (!a.lib) return;
    bool ok = true;
    auto sym = [&](auto &f, const char *n) {
      f = reinterpret_cast<std::remove_reference_t<decltype(f)>>(dlsym(a.lib, n));
      ok = ok && f;
    };
    sym(a.platforms, "clGetPlatformIDs");
    sym(a.devices, "clGetDeviceIDs");
    sym(a.device_info, "clGetDeviceInfo");
    sym(a.context, "clCreateContext");
    sym(a.queue, "clCreateCommandQueue");
    sym(a.program, "clCreateProgramWithSource");
    sym(a.build, "clBuildProgram");
    sym(a.build_info, "clGetProgramBuildInfo");
    sym(a.kernel, "clCreateKernel");
    sym(a.buffer, "clCreateBuffer");
    sym(a.arg, "clSetKernelArg");
    sym(a.ndrange, "clEnqueueNDRangeKernel");
    sym(a.read, "clEnqueueReadBuffer");
    sym(a.write, "clEnqueueWriteBuffer");
    sym(a.finish, "clFinish");
    sym(a.release_mem, "clReleaseMemObject");
    sym(a.release_kernel, "clReleaseKernel");
    sym(a.release_program, "clReleaseProgram");
    sym(a.release_queue, "clReleaseCommandQueue");
    sym(a.release_context, "clReleaseContext");
    if (!ok) a.lib = nullptr;
  });
  return a;
}

/// Calls into OpenCL one at a time: the ICD loader's platform discovery and
/// PoCL's program builds are not safe to race (graphs of a batch compile on
/// several threads).
std::mutex &cl_mutex() {
  static std::mutex m;
  return m;
}

Handle find_device(std::string &why);

/// The first device of the first platform that has one, found once; null with the reason.
Handle first_device(std::string &why) {
  static std::once_flag once;
  static Handle device = nullptr;
  static std::string reason;
  std::call_once(once, [] { device = find_device(reason); });
  why = reason;
  return device;
}

Handle find_device(std::string &why) {
  const Api &a = api();
  if (!a.lib) {
    why = "no OpenCL ICD loader (libOpenCL.so.1)";
    return nullptr;
  }
  cl_uint n = 0;
  if (a.platforms(0, nullptr, &n) != 0 || n == 0) {
    why = "no OpenCL platform (install pocl-opencl-icd)";
    return nullptr;
  }
  std::vector<Handle> ps(n);
  a.platforms(n, ps.data(), nullptr);
  for (Handle p : ps) {
    cl_uint nd = 0;
    if (a.devices(p, kDeviceTypeAll, 0, nullptr, &nd) != 0 || nd == 0) continue;
    std::vector<Handle> ds(nd);
    a.devices(p, kDeviceTypeAll, nd, ds.data(), nullptr);
    return ds[0];
  }
  why = "no OpenCL device";
  return nullptr;
}

void check(cl_int rc, const std::string &what) {
  if (rc != 0) throw UserError("OpenCL: " + what + " failed (error " + std::to_string(rc) + ")");
}

}  // namespace

bool opencl_available() {
  std::string why;
  return first_device(why) != nullptr;
}

std::string opencl_device() {
  std::string why;
  Handle d = first_device(why);
  if (!d) return why;
  char name[256] = {0};
  api().device_info(d, kDeviceName, sizeof name - 1, name, nullptr);
  return name;
}

std::int64_t eval_index(const poly::LExpr &e, const poly::LKernel &kernel, const std::int64_t *params) {
  auto param = [&](const std::string &name) -> std::optional<std::int64_t> {
    for (std::size_t i = 0; i < kernel.params.size(); ++i)
      if (kernel.params[i] == name) return params[i];
    throw UserError("launch size uses '" + name + "', which is not a parameter of kernel " + kernel.name);
  };
  if (std::optional<std::int64_t> v = eval_index_expr(e, param)) return *v;
  throw UserError("a launch size of kernel " + kernel.name + " is not an integer expression of its parameters");
}

struct OpenClProgram::Impl {
  Handle device = nullptr, context = nullptr, queue = nullptr, program = nullptr;
  std::map<std::string, Handle> kernels;
  ~Impl() {
    const Api &a = api();
    std::lock_guard<std::mutex> lock(cl_mutex());
    for (auto &[n, k] : kernels) a.release_kernel(k);
    if (program) a.release_program(program);
    if (queue) a.release_queue(queue);
    if (context) a.release_context(context);
  }
};

OpenClProgram::OpenClProgram(const std::string &source) : impl_(std::make_unique<Impl>()) {
  const Api &a = api();
  std::lock_guard<std::mutex> lock(cl_mutex());
  std::string why;
  impl_->device = first_device(why);
  if (!impl_->device) throw UserError("cannot run OpenCL kernels: " + why);
  cl_int rc = 0;
  impl_->context = a.context(nullptr, 1, &impl_->device, nullptr, nullptr, &rc);
  check(rc, "clCreateContext");
  impl_->queue = a.queue(impl_->context, impl_->device, 0, &rc);
  check(rc, "clCreateCommandQueue");
  const char *text = source.c_str();
  const std::size_t length = source.size();
  impl_->program = a.program(impl_->context, 1, &text, &length, &rc);
  check(rc, "clCreateProgramWithSource");
  rc = a.build(impl_->program, 1, &impl_->device, "-cl-std=CL1.2 -w", nullptr, nullptr);
  if (rc != 0) {
    std::size_t n = 0;
    a.build_info(impl_->program, impl_->device, kProgramBuildLog, 0, nullptr, &n);
    std::string log(n, '\0');
    if (n) a.build_info(impl_->program, impl_->device, kProgramBuildLog, n, log.data(), nullptr);
    throw UserError("OpenCL cannot build the generated program (error " + std::to_string(rc) + "):\n" + log);
  }
}

OpenClProgram::~OpenClProgram() = default;

void OpenClProgram::run(const poly::LKernel &kernel, const poly::GpuProgram &program, void **arrays,
                        const std::int64_t *params) const {
  const Api &a = api();
  std::lock_guard<std::mutex> lock(cl_mutex());
  std::vector<Handle> buffers;
  std::vector<std::size_t> bytes;
  struct Release {
    const Api &a;
    std::vector<Handle> &b;
    ~Release() {
      for (Handle h : b) a.release_mem(h);
    }
  } release{a, buffers};
  for (std::size_t i = 0; i < kernel.arrays.size(); ++i) {
    const poly::LArray &arr = kernel.arrays[i];
    std::size_t n = dtype_size(arr.dtype);
    for (const Dim &d : arr.shape) {
      std::int64_t v = d.value;
      if (d.is_symbolic()) {
        poly::LExprPtr var = poly::build::var(d.symbol);
        v = eval_index(*var, kernel, params);
      }
      n *= static_cast<std::size_t>(std::max<std::int64_t>(v, 0));
    }
    cl_int rc = 0;
    Handle b = a.buffer(impl_->context, kMemReadWrite, std::max<std::size_t>(n, 1), nullptr, &rc);
    check(rc, "clCreateBuffer");
    buffers.push_back(b);
    bytes.push_back(n);
    if (n == 0) continue;
    if (arr.role == poly::LArray::Role::Output || arr.role == poly::LArray::Role::Temporary) {
      std::vector<unsigned char> poison(n, 0xff);
      check(a.write(impl_->queue, b, 1, 0, n, poison.data(), 0, nullptr, nullptr), "clEnqueueWriteBuffer");
    } else {
      check(a.write(impl_->queue, b, 1, 0, n, arrays[i], 0, nullptr, nullptr), "clEnqueueWriteBuffer");
    }
  }
  for (const poly::GpuLaunch &l : program.launches) {
    Handle &k = impl_->kernels[l.name];
    cl_int rc = 0;
    if (!k) {
      k = a.kernel(impl_->program, l.name.c_str(), &rc);
      check(rc, "clCreateKernel " + l.name);
    }
    cl_uint arg = 0;
    for (Handle &b : buffers) check(a.arg(k, arg++, sizeof(Handle), &b), "clSetKernelArg");
    for (std::size_t p = 0; p < kernel.params.size(); ++p)
      check(a.arg(k, arg++, sizeof(std::int64_t), &params[p]), "clSetKernelArg");
    std::size_t global[3], local[3];
    for (std::size_t d = 0; d < 3; ++d) {
      std::int64_t g = l.grid[d] ? eval_index(*l.grid[d], kernel, params) : 1;
      local[d] = static_cast<std::size_t>(l.block[d]);
      global[d] = static_cast<std::size_t>(std::max<std::int64_t>(g, 1)) * local[d];
    }
    check(a.ndrange(impl_->queue, k, 3, nullptr, global, local, 0, nullptr, nullptr), "clEnqueueNDRangeKernel " + l.name);
  }
  check(a.finish(impl_->queue), "clFinish");
  for (std::size_t i = 0; i < kernel.arrays.size(); ++i) {
    if (bytes[i] == 0 || kernel.arrays[i].role == poly::LArray::Role::Input) continue;
    check(a.read(impl_->queue, buffers[i], 1, 0, bytes[i], arrays[i], 0, nullptr, nullptr), "clEnqueueReadBuffer");
  }
}

}  // namespace atl::gpu
