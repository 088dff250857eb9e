#!/usr/bin/env python3
"""Runs graphs that `atoll compile --target cuda|opencl` wrote, on a GPU
through the CUDA driver API or on any OpenCL device, with nothing but the
Python standard library (the H200 machine has no Atoll, numpy or pip).

It follows the calling convention of manifest.json (docs/cli.md): each
kernel's arguments live in the arena (an offset), in an input, weight or
output tensor, in a constant the compiler folded (a .npy file) or in a
derived buffer the weight phase fills. The launches of each kernel, with
their grids and blocks, come from GRAPH_gpu.json. Inputs, weights and the
expected outputs are the .npy files of `atoll run --target cpu --verify
--dump` (outputs the CPU code computed and the reference interpreter
checked); the parameter values are the report's. Outputs, the arena and
derived buffers start as 0xff bytes (NaN), so an element no launch writes
fails the comparison.

Usage:
  device_check_cuda.py --backend cuda|opencl --graphs DIR [--bench N]
DIR holds one folder per batch as scripts/device_check_cuda.sh prepare
makes it: code/ (compile --target cuda), opencl/ (compile --target opencl),
data/ (the dump), report.json (the dump's report).
"""
import argparse
import ast
import ctypes
import json
import math
import pathlib
import struct
import sys
import time

# ---- .npy (format 1.0, little-endian, C order) ----------------------------------

NPY_TYPES = {"<f4": ("f", 4), "<f8": ("d", 8), "<i8": ("q", 8), "<i4": ("i", 4), "|i1": ("b", 1),
             "|u1": ("B", 1), "<f2": ("e", 2), "|b1": ("B", 1), "<u2": ("H", 2)}


def read_npy(path):
    data = pathlib.Path(path).read_bytes()
    if data[:6] != b"\x93NUMPY":
        raise ValueError(f"{path}: not a .npy file")
    n = struct.unpack("<H", data[8:10])[0]
    header = ast.literal_eval(data[10:10 + n].decode("latin1"))
    if header["fortran_order"]:
        raise ValueError(f"{path}: Fortran order")
    return header["descr"], tuple(header["shape"]), data[10 + n:]


def values(descr, raw):
    code, size = NPY_TYPES[descr]
    return struct.unpack("<%d%s" % (len(raw) // size, code), raw)


# ---- grid expressions of GRAPH_gpu.json ------------------------------------------

def eval_grid(expr, params):
    if isinstance(expr, int):
        return expr
    env = dict(params)
    env.update({"max": max, "min": min, "floord": lambda a, b: a // b})
    return int(eval(expr, {"__builtins__": {}}, env))  # Atoll's own expressions of the parameters


# ---- backends ---------------------------------------------------------------------

class Cuda:
    """The CUDA driver API through ctypes; the cubin NVRTC wrote for sm_90."""

    def __init__(self):
        self.lib = ctypes.CDLL("libcuda.so.1")
        self.check(self.lib.cuInit(0), "cuInit")
        dev = ctypes.c_int()
        self.check(self.lib.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
        name = ctypes.create_string_buffer(256)
        self.lib.cuDeviceGetName(name, 256, dev)
        self.device = name.value.decode()
        self.ctx = ctypes.c_void_p()
        self.check(self.lib.cuDevicePrimaryCtxRetain(ctypes.byref(self.ctx), dev), "cuDevicePrimaryCtxRetain")
        self.check(self.lib.cuCtxSetCurrent(self.ctx), "cuCtxSetCurrent")
        self.functions = {}

    @staticmethod
    def check(rc, what):
        if rc != 0:
            raise RuntimeError(f"{what} failed: CUDA error {rc}")

    def load(self, graph_dir, graph):
        mod = ctypes.c_void_p()
        cubin = graph_dir / "code" / f"{graph}.cubin"
        self.check(self.lib.cuModuleLoad(ctypes.byref(mod), str(cubin).encode()), f"cuModuleLoad {cubin}")
        self.module = mod

    def function(self, name):
        if name not in self.functions:
            f = ctypes.c_void_p()
            self.check(self.lib.cuModuleGetFunction(ctypes.byref(f), self.module, name.encode()), name)
            self.functions[name] = f
        return self.functions[name]

    def alloc(self, nbytes, data=None):
        p = ctypes.c_uint64()
        self.check(self.lib.cuMemAlloc_v2(ctypes.byref(p), max(nbytes, 1)), "cuMemAlloc")
        if data is not None:
            self.check(self.lib.cuMemcpyHtoD_v2(p, data, len(data)), "cuMemcpyHtoD")
        else:
            self.check(self.lib.cuMemsetD8_v2(p, 0xFF, max(nbytes, 1)), "cuMemsetD8")
        return p.value

    def download(self, ptr, nbytes):
        buf = ctypes.create_string_buffer(nbytes)
        self.check(self.lib.cuMemcpyDtoH_v2(buf, ctypes.c_uint64(ptr), nbytes), "cuMemcpyDtoH")
        return buf.raw

    def alloc_filled(self, nbytes, byte):
        p = ctypes.c_uint64()
        self.check(self.lib.cuMemAlloc_v2(ctypes.byref(p), max(nbytes, 1)), "cuMemAlloc")
        self.check(self.lib.cuMemsetD8_v2(p, byte, max(nbytes, 1)), "cuMemsetD8")
        return p.value

    def free(self, ptr):
        self.lib.cuMemFree_v2(ctypes.c_uint64(ptr))

    def timed(self, fn, reps):
        """Median milliseconds of fn() over reps runs after two warm-ups, by CUDA events."""
        start, stop = ctypes.c_void_p(), ctypes.c_void_p()
        self.lib.cuEventCreate(ctypes.byref(start), 0)
        self.lib.cuEventCreate(ctypes.byref(stop), 0)
        fn(), fn()
        times = []
        for _ in range(reps):
            self.lib.cuEventRecord(start, None)
            fn()
            self.lib.cuEventRecord(stop, None)
            self.check(self.lib.cuEventSynchronize(stop), "cuEventSynchronize")
            ms = ctypes.c_float()
            self.lib.cuEventElapsedTime(ctypes.byref(ms), start, stop)
            times.append(ms.value)
        return sorted(times)[len(times) // 2]

    def baseline(self, spec, moved_bytes, reps):
        """Milliseconds of cuBLAS (sgemm, or GemmEx f16 in / f32 accumulate, no TF32) or of a
        device-to-device copy that moves the same bytes as the graph."""
        if spec["kind"] == "copy":
            half = moved_bytes // 2  # a copy reads and writes each byte
            src, dst = self.alloc_filled(half, 0x3C), self.alloc_filled(half, 0)
            ms = self.timed(lambda: self.check(self.lib.cuMemcpyDtoD_v2(ctypes.c_uint64(dst), ctypes.c_uint64(src),
                                                                       half), "cuMemcpyDtoD"), reps)
            self.free(src), self.free(dst)
            return ms, f"device-to-device copy of {half} bytes"
        blas = None
        for name in ("libcublas.so.13", "libcublas.so.12", "libcublas.so"):
            try:
                blas = ctypes.CDLL(name)
                break
            except OSError:
                continue
        if blas is None:
            return None, "cuBLAS not found"
        handle = ctypes.c_void_p()
        self.check(blas.cublasCreate_v2(ctypes.byref(handle)), "cublasCreate")
        m, n, k = spec["m"], spec["n"], spec["k"]
        half = spec["kind"] == "hgemm_f32acc"
        esize = 2 if half else 4
        a, b, c = self.alloc_filled(m * k * esize, 0x3C), self.alloc_filled(k * n * esize, 0x3C), self.alloc_filled(m * n * 4, 0)
        alpha, beta = ctypes.c_float(1.0), ctypes.c_float(0.0)
        if half:  # CUDA_R_16F = 2, CUDA_R_32F = 0, CUBLAS_COMPUTE_32F = 68, CUBLAS_GEMM_DEFAULT = -1
            call = lambda: self.check(blas.cublasGemmEx(handle, 0, 0, n, m, k, ctypes.byref(alpha), ctypes.c_uint64(b), 2, n,
                                                        ctypes.c_uint64(a), 2, k, ctypes.byref(beta), ctypes.c_uint64(c),
                                                        0, n, 68, -1), "cublasGemmEx")
            what = "cublasGemmEx f16 in, f32 out and accumulation"
        else:
            call = lambda: self.check(blas.cublasSgemm_v2(handle, 0, 0, n, m, k, ctypes.byref(alpha), ctypes.c_uint64(b), n,
                                                          ctypes.c_uint64(a), k, ctypes.byref(beta), ctypes.c_uint64(c), n),
                                      "cublasSgemm")
            what = "cublasSgemm (default math: no TF32)"
        ms = self.timed(call, reps)
        self.free(a), self.free(b), self.free(c)
        blas.cublasDestroy_v2(handle)
        return ms, what

    def run(self, launches, args, params):
        """args: (base pointer, byte offset, bytes, role) per array."""
        vals = [ctypes.c_uint64(base + off) for base, off, _, _ in args] + [ctypes.c_int64(v) for v in params]
        ptrs = (ctypes.c_void_p * len(vals))(*[ctypes.addressof(v) for v in vals])
        for l, grid in launches:
            b = l["block"]
            self.check(self.lib.cuLaunchKernel(self.function(l["name"]), grid[0], grid[1], grid[2], b[0], b[1], b[2],
                                               0, None, ptrs, None), "cuLaunchKernel " + l["name"])
        self.check(self.lib.cuCtxSynchronize(), "cuCtxSynchronize")


class OpenCL:
    """OpenCL 1.2 through ctypes (the dry run on PoCL); memory lives on the
    host and each kernel call copies its arguments in and out."""

    def __init__(self):
        self.lib = ctypes.CDLL("libOpenCL.so.1")
        L = self.lib
        L.clCreateContext.restype = ctypes.c_void_p
        L.clCreateCommandQueue.restype = ctypes.c_void_p
        L.clCreateProgramWithSource.restype = ctypes.c_void_p
        L.clCreateKernel.restype = ctypes.c_void_p
        L.clCreateBuffer.restype = ctypes.c_void_p
        n = ctypes.c_uint()
        L.clGetPlatformIDs(0, None, ctypes.byref(n))
        if n.value == 0:
            raise RuntimeError("no OpenCL platform")
        plats = (ctypes.c_void_p * n.value)()
        L.clGetPlatformIDs(n.value, plats, None)
        dev = ctypes.c_void_p()
        if L.clGetDeviceIDs(ctypes.c_void_p(plats[0]), ctypes.c_uint64(0xFFFFFFFF), 1, ctypes.byref(dev), None) != 0:
            raise RuntimeError("no OpenCL device")
        self.dev = dev
        name = ctypes.create_string_buffer(256)
        L.clGetDeviceInfo(dev, ctypes.c_uint(0x102B), 255, name, None)
        self.device = name.value.decode()
        err = ctypes.c_int()
        self.ctx = ctypes.c_void_p(L.clCreateContext(None, 1, ctypes.byref(dev), None, None, ctypes.byref(err)))
        self.queue = ctypes.c_void_p(L.clCreateCommandQueue(self.ctx, dev, ctypes.c_uint64(0), ctypes.byref(err)))

    def load(self, graph_dir, graph):
        L = self.lib
        src = (graph_dir / "opencl" / f"{graph}.cl").read_bytes()
        err = ctypes.c_int()
        text = ctypes.c_char_p(src)
        self.program = ctypes.c_void_p(L.clCreateProgramWithSource(self.ctx, 1, ctypes.byref(text),
                                                                   (ctypes.c_size_t * 1)(len(src)), ctypes.byref(err)))
        if L.clBuildProgram(self.program, 1, ctypes.byref(self.dev), b"-cl-std=CL1.2 -w", None, None) != 0:
            raise RuntimeError(f"OpenCL cannot build {graph}.cl")
        self.kernels = {}

    def alloc(self, nbytes, data=None):
        return bytearray(data) if data is not None else bytearray(b"\xff" * nbytes)

    def download(self, buf, nbytes):
        return bytes(buf[:nbytes])

    def alloc_filled(self, nbytes, byte):
        return bytearray(bytes([byte]) * nbytes)

    def free(self, buf):
        pass

    def timed(self, fn, reps):
        fn()
        times = []
        for _ in range(reps):
            t0 = time.perf_counter()
            fn()
            times.append((time.perf_counter() - t0) * 1e3)
        return sorted(times)[len(times) // 2]

    def baseline(self, spec, moved_bytes, reps):
        return None, "no baseline on OpenCL (dry run)"

    def run(self, launches, args, params):
        L = self.lib
        err = ctypes.c_int()
        mems = []
        for base, off, nbytes, _ in args:
            chunk = (ctypes.c_char * max(nbytes, 1)).from_buffer_copy(bytes(base[off:off + nbytes]) or b"\0")
            mems.append(ctypes.c_void_p(L.clCreateBuffer(self.ctx, ctypes.c_uint64(1 | 32), max(nbytes, 1), chunk,
                                                         ctypes.byref(err))))
        for l, grid in launches:
            k = self.kernels.get(l["name"])
            if k is None:
                k = self.kernels[l["name"]] = ctypes.c_void_p(L.clCreateKernel(self.program, l["name"].encode(),
                                                                            ctypes.byref(err)))
            for i, m in enumerate(mems):
                L.clSetKernelArg(k, i, ctypes.sizeof(ctypes.c_void_p), ctypes.byref(m))
            for j, v in enumerate(params):
                L.clSetKernelArg(k, len(mems) + j, 8, ctypes.byref(ctypes.c_int64(v)))
            local = (ctypes.c_size_t * 3)(*l["block"])
            glob = (ctypes.c_size_t * 3)(*[g * b for g, b in zip(grid, l["block"])])
            if L.clEnqueueNDRangeKernel(self.queue, k, 3, None, glob, local, 0, None, None) != 0:
                raise RuntimeError("clEnqueueNDRangeKernel " + l["name"])
        L.clFinish(self.queue)
        for (base, off, nbytes, role), m in zip(args, mems):
            if role != "input" and nbytes:
                out = ctypes.create_string_buffer(nbytes)
                L.clEnqueueReadBuffer(self.queue, m, 1, 0, nbytes, out, 0, None, None)
                base[off:off + nbytes] = out.raw
        for m in mems:
            L.clReleaseMemObject(m)


# ---- one graph --------------------------------------------------------------------

DTYPE_BYTES = {"f32": 4, "f16": 2, "bf16": 2, "i8": 1, "i32": 4, "i64": 8, "bool": 1}


def numel(shape, params):
    n = 1
    for d in shape:
        n *= params[d] if isinstance(d, str) else d
    return n


def run_graph(backend, batch_dir, manifest_graph, gpu, params, bench):
    name = manifest_graph["name"]
    data = batch_dir / "data" / name
    backend.load(batch_dir, name)
    buffers, expected = {}, {}
    kernels = manifest_graph["kernels"]
    arena_bytes = max((k["arena_bytes"] for k in kernels), default=0)
    buffers[("arena", None)] = backend.alloc(arena_bytes)
    for k in kernels:
        for a in k["args"]:
            storage = a.get("storage")
            key = (storage, a.get("base"))
            if storage in (None, "arena") or key in buffers:
                continue
            if storage in ("input", "weight"):
                _, _, raw = read_npy(data / f"{a['base']}.npy")
                buffers[key] = backend.alloc(len(raw), raw)
            elif storage == "constant":
                _, _, raw = read_npy(batch_dir / "code" / a["file"])
                buffers[key] = backend.alloc(len(raw), raw)
            elif storage == "output":
                descr, shape, raw = read_npy(data / f"{a['base']}.npy")
                expected[a["base"]] = (descr, raw)
                buffers[key] = backend.alloc(len(raw))
            elif storage == "derived":
                buffers[key] = backend.alloc(a["bytes"])
    launches_of = {k["name"]: k["launches"] for k in gpu["kernels"]}
    calls = []
    for k in kernels:
        args, pvals = [], []
        for a in k["args"]:
            if a["role"] == "param":
                pvals.append(params[a["name"]])
                continue
            storage = a["storage"]
            key = ("arena", None) if storage == "arena" else (storage, a["base"])
            if storage == "arena" and a["offset"] is None:
                raise RuntimeError(f"{k['symbol']}: {a['name']} has no arena place")
            nbytes = numel(a["shape"], params) * DTYPE_BYTES[a["dtype"]]
            args.append((buffers[key], a["offset"], nbytes, a["role"]))
        launches = [(l, [max(1, eval_grid(g, params)) for g in l["grid"]]) for l in launches_of[k["symbol"]]]
        calls.append((launches, args, pvals))
    t0 = time.perf_counter()
    for c in calls:
        backend.run(*c)
    ms = (time.perf_counter() - t0) * 1e3
    worst, failures = 0.0, []
    for out, (descr, raw) in expected.items():
        got = values(descr, backend.download(buffers[("output", out)], len(raw)))
        want = values(descr, raw)
        scale = max((abs(w) for w in want if math.isfinite(w)), default=1.0) or 1.0
        for g, w in zip(got, want):
            if math.isnan(g) != math.isnan(w):
                failures.append(f"{out}: NaN where {w} was expected (an element no launch wrote?)")
                break
            if math.isfinite(w) and abs(g - w) / scale > worst:
                worst = abs(g - w) / scale
    tol = 1e-4 if all(d in ("<f4", "<f8") for d, _ in expected.values()) else 1e-2
    ok = not failures and worst <= tol
    times = []
    for _ in range(bench):
        t0 = time.perf_counter()
        for c in calls:
            backend.run(*c)
        times.append((time.perf_counter() - t0) * 1e3)
    med = sorted(times)[len(times) // 2] if times else ms
    print(f"{name:24s} {'pass' if ok else 'FAIL'} max error {worst:.2e} (scale of the output), "
          f"{len(calls)} kernels, {sum(len(c[0]) for c in calls)} launches, {med:.2f} ms"
          + ("".join("\n  " + f for f in failures)))
    return ok


def time_graph(backend, batch_dir, manifest_graph, gpu, params, entry, reps):
    """Times the call-phase kernels at `params` on inputs made on the device
    (bytes 0x3c: finite in every dtype); prints the ratio to the baseline."""
    name = manifest_graph["name"]
    backend.load(batch_dir, name)
    kernels = manifest_graph["kernels"]
    buffers = {("arena", None): backend.alloc_filled(max((k["arena_bytes"] for k in kernels), default=0), 0)}
    moved = 0
    seen = set()
    for k in kernels:
        for a in k["args"]:
            if a["role"] == "param" or a["storage"] == "arena":
                continue
            key = (a["storage"], a["base"])
            nbytes = a.get("bytes") or numel(a["shape"], params) * DTYPE_BYTES[a["dtype"]]
            if key not in buffers:
                buffers[key] = backend.alloc_filled(nbytes, 0x3C if a["storage"] != "output" else 0)
            if k["phase"] == "call" and a["storage"] in ("input", "weight", "output") and key not in seen:
                seen.add(key)
                moved += nbytes
    launches_of = {k["name"]: k["launches"] for k in gpu["kernels"]}
    calls = {"weights": [], "call": []}
    for k in kernels:
        args = [(buffers[("arena", None) if a["storage"] == "arena" else (a["storage"], a["base"])], a["offset"],
                 (a.get("bytes") or numel(a["shape"], params) * DTYPE_BYTES[a["dtype"]]), a["role"])
                for a in k["args"] if a["role"] != "param"]
        pvals = [params[a["name"]] for a in k["args"] if a["role"] == "param"]
        launches = [(l, [max(1, eval_grid(g, params)) for g in l["grid"]]) for l in launches_of[k["symbol"]]]
        calls[k["phase"]].append((launches, args, pvals))
    for c in calls["weights"]:
        backend.run(*c)

    def once():
        for c in calls["call"]:
            backend.run(*c)

    ms = backend.timed(once, reps)
    base_ms, what = backend.baseline(entry["baseline"], moved, reps)
    shape = ", ".join(f"{k}={v}" for k, v in params.items())
    line = f"{name:14s} {shape:9s} {ms:9.3f} ms"
    if entry["baseline"]["kind"] != "copy":
        line += f"  {2 * params['M'] * params['N'] * params['K'] / ms / 1e6:8.1f} GFLOP/s"
    else:
        line += f"  {moved / ms / 1e6:8.1f} GB/s"
    if base_ms:
        line += f"  baseline {what}: {base_ms:.3f} ms, ratio {base_ms / ms:.2f}x (target {entry['target']}x)"
    else:
        line += f"  ({what})"
    print(line)
    for buf in buffers.values():
        backend.free(buf)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--backend", choices=["cuda", "opencl"], required=True)
    p.add_argument("--graphs", required=True, help="the folder scripts/device_check_cuda.sh prepare wrote")
    p.add_argument("--bench", type=int, default=0, help="timed repetitions of each graph after the check")
    p.add_argument("--timing", help="timing.json (bench/gpu): kernels timed at large shapes against baselines")
    a = p.parse_args()
    backend = Cuda() if a.backend == "cuda" else OpenCL()
    print(f"device: {backend.device} ({a.backend})")
    ok = True
    for batch_dir in sorted(pathlib.Path(a.graphs).iterdir()):
        if not (batch_dir / "code" / "manifest.json").exists():
            continue
        manifest = json.loads((batch_dir / "code" / "manifest.json").read_text())
        report = json.loads((batch_dir / "report.json").read_text())
        params_of = {g["name"]: {n: v[-1] for n, v in g["params"].items()} for g in report["graphs"]}
        for g in manifest["graphs"]:
            gpu = json.loads((batch_dir / "code" / f"{g['name']}_gpu.json").read_text())
            ok &= run_graph(backend, batch_dir, g, gpu, params_of.get(g["name"], {}), a.bench)
    print("all graphs verified" if ok else "some graphs FAILED")
    if a.timing:
        spec = json.loads(pathlib.Path(a.timing).read_text())
        print(f"timing: median of {max(a.bench, 3)} runs" + (", CUDA events" if a.backend == "cuda" else ", host clock"))
        for entry in spec["graphs"]:
            batch_dir = pathlib.Path(a.graphs) / entry["batch"]
            manifest = json.loads((batch_dir / "code" / "manifest.json").read_text())
            g = next(g for g in manifest["graphs"] if g["name"] == entry["graph"])
            gpu = json.loads((batch_dir / "code" / f"{g['name']}_gpu.json").read_text())
            params = entry["params"] if a.backend == "cuda" else entry["dry_params"]
            time_graph(backend, batch_dir, g, gpu, params, entry, max(a.bench, 3))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
