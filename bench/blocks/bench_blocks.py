#!/usr/bin/env python3
"""Whole blocks and memory-bound sub-chains: Atoll fused vs Atoll `fuse: none` vs onnxruntime.

For each case (a graph of a batch file): runs Atoll with its default fusion
and with `"schedule": {"fuse": "none"}`, converts the same graph to ONNX
(onnx_convert.py) and runs it in onnxruntime on the CPU with the inputs and
weights Atoll used (`--dump`), checks that all three agree, then times them
side by side at 1 and 2 threads, repeating and keeping medians. Prints one
table per thread count and writes everything as JSON under results/.
See README.md beside this file. Usage: bench_blocks.py --help
"""
import argparse
import copy
import datetime
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

try:
    import numpy as np
except ImportError:  # numpy comes with the benchmark's venv; without it only Atoll times are printed
    np = None

# name, batch file (from the repo root), graph, kind, bench point of symbolic dimensions
CASES = [
    ("resnet50_bottleneck", "samples/resnet50_bottleneck.json", "bottleneck_conv2_x", "block", {}),
    ("bert_encoder_layer", "samples/bert_encoder_layer.json", "encoder_layer", "block", {}),
    ("mobilenetv2_block", "samples/mobilenetv2_block.json", "inverted_residual", "block", {}),
    ("mlp", "samples/mlp.json", "mlp3", "block", {"N": 64}),
    ("attn_scale_softmax", "bench/blocks/attention_softmax.json", "attention_scale_softmax", "sub-chain", {}),
    ("bias_gelu", "bench/blocks/bias_gelu.json", "bias_gelu", "sub-chain", {}),
    ("residual_layernorm", "bench/blocks/residual_layernorm.json", "residual_layernorm", "sub-chain", {}),
    ("depthwise_clip", "bench/blocks/depthwise_clip.json", "depthwise_clip", "sub-chain", {}),
    # The same sub-chains at shapes whose tensors do not fit in L2 (BERT at its longest sequence, 512;
    # MobileNetV2's first block, 32 channels at 112x112): there an unfused intermediate goes through memory.
    ("attn_scale_softmax@s512", "bench/blocks/attention_softmax_s512.json", "attention_scale_softmax", "sub-chain", {}),
    ("bias_gelu@s512", "bench/blocks/bias_gelu_s512.json", "bias_gelu", "sub-chain", {}),
    ("residual_layernorm@s512", "bench/blocks/residual_layernorm_s512.json", "residual_layernorm", "sub-chain", {}),
    ("depthwise_clip@112", "bench/blocks/depthwise_clip_112.json", "depthwise_clip", "sub-chain", {}),
]
# issue 5's targets on fused/unfused (one thread); every block must also be >= 1.0x onnxruntime
SPEEDUP_TARGET = {"mobilenetv2_block": 1.3, "bert_encoder_layer": 1.05}
TOLERANCE = 1e-4  # normwise relative error allowed between any two of the three (f32, as `--verify`)


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def load():
    return os.getloadavg()[0]


class Atoll:
    """Runs the atoll executable and reads its report.json."""

    def __init__(self, exe, work):
        self.exe, self.work = exe, work

    def run(self, batch, params, extra, tag):
        report = os.path.join(self.work, f"{tag}.report.json")
        cmd = [self.exe, "run", batch, "--quiet", "--report", report] + extra
        for k, v in params.items():
            cmd += ["--param", f"{k}={v}"]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            with open(report) as f:
                rep = json.load(f)
        except (OSError, ValueError):
            return None, f"atoll exited {p.returncode} without a report: {p.stderr.strip()[-400:]}"
        if rep.get("error") or not rep.get("graphs"):
            return None, f"batch error: {rep.get('error')}"
        g = rep["graphs"][0]
        if g.get("status") != "ok":
            return g, f"graph error: {g.get('error')}"
        return g, None

    def manifest_io_bytes(self, batch, params, tag):
        """Sum over kernels of the bytes of their input and output arrays (from `atoll compile`'s manifest)."""
        out = os.path.join(self.work, f"{tag}.compile")
        cmd = [self.exe, "compile", batch, "--quiet", "-o", out, "--report", out + ".report.json"]
        for k, v in params.items():
            cmd += ["--param", f"{k}={v}"]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            with open(os.path.join(out, "manifest.json")) as f:
                manifest = json.load(f)
        except (OSError, ValueError):
            return None
        finally:
            if p.returncode != 0:
                log(f"  atoll compile {tag}: exit {p.returncode}: {p.stderr.strip()[-300:]}")
        size = {"f32": 4, "f16": 2, "bf16": 2, "i8": 1, "i32": 4, "i64": 8, "bool": 1}
        total = 0
        graphs = manifest.get("graphs", [manifest]) if isinstance(manifest, dict) else manifest
        for g in graphs:
            for k in g.get("kernels", []):
                for a in k.get("args", []):
                    if a.get("role") not in ("input", "output"):
                        continue
                    n = 1
                    for d in a.get("shape", []):
                        n *= int(params.get(d, 0)) if isinstance(d, str) else int(d)
                    total += n * size.get(a.get("dtype"), 4)
        shutil.rmtree(out, ignore_errors=True)
        return total


def memory_fields(g):
    """(bytes moved, peak arena bytes, sum of intermediates) from a graph's report, None where absent."""
    mem = (g or {}).get("memory") or {}
    stats = (g or {}).get("stats") or {}
    moved = None
    for src in (mem, g or {}, stats):
        for key in ("bytes_moved", "moved_bytes", "traffic_bytes", "bytes"):
            if isinstance(src.get(key), (int, float)):
                moved = src[key]
                break
        if moved is not None:
            break
    return moved, mem.get("peak_bytes"), mem.get("intermediates_bytes")


def compare(a, b):
    """Normwise relative error as `--verify` measures it: max|a-b| / max|b|, and max|a-b|."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        return float("inf"), float("inf"), f"shape {a.shape} vs {b.shape}"
    if not np.array_equal(np.isfinite(a), np.isfinite(b)):
        return float("inf"), float("inf"), "NaN/inf at different places"
    fin = np.isfinite(b)
    if not fin.any():
        return 0.0, 0.0, None
    abs_err = float(np.max(np.abs(a[fin] - b[fin]))) if fin.any() else 0.0
    scale = float(np.max(np.abs(b[fin])))
    return abs_err, (abs_err / scale if scale > 0 else (0.0 if abs_err == 0 else float("inf"))), None


def load_dump(directory):
    out = {}
    if not os.path.isdir(directory):
        return out
    for f in os.listdir(directory):
        if f.endswith(".npy"):
            out[f[:-4]] = np.load(os.path.join(directory, f))
    return out


class Ort:
    """onnxruntime sessions for one model, timed with preallocated inputs and outputs (IO binding)."""

    def __init__(self, ort, model_bytes, feeds, threads):
        so = ort.SessionOptions()
        so.intra_op_num_threads = threads
        so.inter_op_num_threads = 1
        so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        self.sess = ort.InferenceSession(model_bytes, sess_options=so, providers=["CPUExecutionProvider"])
        self.outputs = self.sess.run(None, feeds)
        self.names = [o.name for o in self.sess.get_outputs()]
        self.io = self.sess.io_binding()
        self._keep = []
        for name, value in feeds.items():
            v = ort.OrtValue.ortvalue_from_numpy(np.ascontiguousarray(value))
            self._keep.append(v)
            self.io.bind_ortvalue_input(name, v)
        for name, value in zip(self.names, self.outputs):
            v = ort.OrtValue.ortvalue_from_numpy(np.empty_like(value))
            self._keep.append(v)
            self.io.bind_ortvalue_output(name, v)

    def bench(self):
        """Warm-up, then as many runs as Atoll's --bench makes (10 to 200, about 1 s); median ms."""
        t_end = time.perf_counter() + 0.2
        times = []
        while len(times) < 3 or time.perf_counter() < t_end:
            t0 = time.perf_counter()
            self.sess.run_with_iobinding(self.io)
            times.append((time.perf_counter() - t0) * 1e3)
            if len(times) >= 50:
                break
        runs = int(min(max(1000.0 / max(statistics.median(times), 1e-3), 10), 200))
        times = []
        for _ in range(runs):
            t0 = time.perf_counter()
            self.sess.run_with_iobinding(self.io)
            times.append((time.perf_counter() - t0) * 1e3)
        return statistics.median(times)


def ort_call_overhead_ms(ort):
    """Median time of one run_with_iobinding of a one-element Identity model: the floor under every ORT figure."""
    from onnx import TensorProto, helper
    vi = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [1]) for n in ("x", "y")]
    g = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "identity", [vi[0]], [vi[1]])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 20)])
    m.ir_version = 10
    s = Ort(ort, m.SerializeToString(), {"x": np.zeros(1, np.float32)}, 1)
    return s.bench()


def prepare_case(case, args, atoll, ort, work):
    """Writes the fused and unfused batches, checks all three agree; returns the case's record."""
    name, batch_path, graph_name, kind, params = case
    rec = {"name": name, "kind": kind, "batch": batch_path, "graph": graph_name, "params": params,
           "errors": [], "checks": {}, "fused": {}, "unfused": {}, "ort": {}}
    with open(os.path.join(ROOT, batch_path)) as f:
        batch = json.load(f)
    graph = next((g for g in batch["graphs"] if g["name"] == graph_name), None)
    if graph is None:
        rec["errors"].append(f"{batch_path} has no graph {graph_name}")
        return rec, None
    batch["graphs"] = [graph]
    files = {}
    for variant in ("fused", "unfused"):
        b = copy.deepcopy(batch)
        if variant == "unfused":
            b["graphs"][0].setdefault("schedule", {})["fuse"] = "none"
        files[variant] = os.path.join(work, f"{name}.{variant}.json")
        with open(files[variant], "w") as f:
            json.dump(b, f, indent=1)
    rec["files"] = files

    dumps = {v: os.path.join(work, f"{name}.{v}.dump") for v in files}
    for variant in ("fused", "unfused"):
        extra = ["--verify", "--stats", "--dump", dumps[variant], "--threads", "1"]
        if variant == "unfused":
            extra += ["--inputs", dumps["fused"]]
        g, err = atoll.run(files[variant], params, extra, f"{name}.{variant}.verify")
        r = rec[variant]
        if err:
            rec["errors"].append(f"atoll {variant}: {err}")
            r["error"] = err
            continue
        v = g.get("verify") or {}
        r["kernels"] = g.get("kernels")
        r["verify"] = v
        r["compile_ms"] = g.get("compile_ms")
        r["memory"] = g.get("memory")
        r["stats"] = g.get("stats")
        r["fallbacks"] = g.get("fallbacks")
        r["bytes_moved"], r["peak_bytes"], r["intermediates_bytes"] = memory_fields(g)
        if not v.get("passed"):
            rec["errors"].append(f"atoll {variant} fails --verify against the reference: {v}")
        if not args.no_manifest:
            r["kernel_io_bytes"] = atoll.manifest_io_bytes(files[variant], params, f"{name}.{variant}")

    if np is None:
        rec["checks"]["ort"] = "numpy missing: no output comparison"
        return rec, None
    fused_dump = load_dump(os.path.join(dumps["fused"], graph_name))
    unfused_dump = load_dump(os.path.join(dumps["unfused"], graph_name))
    outs = graph["outputs"]
    if fused_dump and unfused_dump and all(o in unfused_dump for o in outs):
        worst = max((compare(unfused_dump[o], fused_dump[o]) for o in outs), key=lambda e: e[1])
        rec["checks"]["unfused_vs_fused"] = {"max_abs_err": worst[0], "max_rel_err": worst[1]}
        if worst[1] > TOLERANCE or worst[2]:
            rec["errors"].append(f"MISMATCH Atoll unfused vs fused: rel {worst[1]:.2e} {worst[2] or ''}")
    if not fused_dump or not all(o in fused_dump for o in outs):
        rec["errors"].append("no dumped outputs of Atoll fused: nothing to compare onnxruntime with")
        return rec, None
    if ort is None:
        return rec, None
    import onnx_convert
    try:
        model, feeds = onnx_convert.convert_graph(graph, params, fused_dump, {o: fused_dump[o] for o in outs},
                                                  weights_as_inputs=args.ort_weights_as_inputs,
                                                  default_dtype=batch.get("defaults", {}).get("dtype", "f32"))
    except onnx_convert.UnsupportedOp as e:
        rec["ort"]["error"] = f"not converted: {e}"
        rec["errors"].append(f"onnx conversion refused: {e}")
        return rec, None
    model_bytes = model.SerializeToString()
    if args.keep_work:
        with open(os.path.join(work, f"{name}.onnx"), "wb") as f:
            f.write(model_bytes)
    sessions = {}
    try:
        for t in args.threads:
            sessions[t] = Ort(ort, model_bytes, feeds, t)
    except Exception as e:  # onnxruntime's own errors have no common base class
        rec["ort"]["error"] = f"onnxruntime: {e}"
        rec["errors"].append(f"onnxruntime cannot run the model: {str(e)[:300]}")
        return rec, None
    s = sessions[args.threads[0]]
    worst = (0.0, 0.0, None)
    for o, value in zip(s.names, s.outputs):
        e = compare(value, fused_dump[o])
        if e[1] > worst[1] or e[2]:
            worst = e
    rec["checks"]["ort_vs_fused"] = {"max_abs_err": worst[0], "max_rel_err": worst[1]}
    if worst[1] > TOLERANCE or worst[2]:
        rec["errors"].append(f"MISMATCH onnxruntime vs Atoll fused: abs {worst[0]:.2e} rel {worst[1]:.2e} "
                             f"{worst[2] or ''}")
    return rec, sessions


def time_case(rec, sessions, args, atoll):
    """Interleaves fused, unfused and onnxruntime runs `repeats` times per thread count; keeps all medians."""
    name, params = rec["name"], rec["params"]
    for rep in range(args.repeats):
        for t in args.threads:
            for variant in ("fused", "unfused"):
                r = rec[variant]
                if r.get("error"):
                    continue
                g, err = atoll.run(rec["files"][variant], params,
                                   ["--bench", "--threads", str(t), "--inputs",
                                    os.path.join(atoll.work, f"{name}.fused.dump")],
                                   f"{name}.{variant}.bench")
                if err or not (g.get("bench") or {}).get("median_ms"):
                    rec["errors"].append(f"atoll {variant} --bench --threads {t}: {err}")
                    r["error"] = err or "no bench in report"
                    continue
                r.setdefault("ms", {}).setdefault(str(t), []).append(g["bench"]["median_ms"])
                r.setdefault("bench_threads", {})[str(t)] = g["bench"].get("threads")
            if sessions and t in sessions:
                rec["ort"].setdefault("ms", {}).setdefault(str(t), []).append(sessions[t].bench())
        log(f"  {name}: repeat {rep + 1}/{args.repeats} done (load {load():.2f})")


def med(r, t):
    v = (r.get("ms") or {}).get(str(t))
    return statistics.median(v) if v else None


def paired(a, b, t):
    """Per-repeat ratios a[i] / b[i] of two variants timed back to back in repeat i (the machine's slow spells
    hit both sides of a pair alike, so their spread shows how far the medians can be trusted)."""
    va, vb = (a.get("ms") or {}).get(str(t)) or [], (b.get("ms") or {}).get(str(t)) or []
    return [x / y for x, y in zip(va, vb) if x and y]


def fmt_spread(v):
    return "n/a" if not v else f"{min(v):.2f}-{max(v):.2f}"


def fmt_ms(x):
    return "n/a" if x is None else (f"{x:.3f}" if x < 10 else f"{x:.2f}")


def fmt_ratio(a, b):
    return "n/a" if a is None or b is None or b == 0 else f"{a / b:.2f}x"


def fmt_mb(f, u):
    def one(x):
        return "n/a" if x is None else f"{x / 1e6:.2f}"
    return "n/a" if f is None and u is None else f"{one(f)}/{one(u)}"


def table(records, t):
    head = ["case", "kind", "fused ms", "unfused ms", "ORT ms", "ORT/fused", "unf/fused", "unf/f pairs", "kernels f/u",
            "moved MB f/u", "kernel-IO MB f/u", "peak MB f/u", "check"]
    rows = []
    for r in records:
        f, u, o = med(r["fused"], t), med(r["unfused"], t), med(r["ort"], t)
        kf, ku = r["fused"].get("kernels"), r["unfused"].get("kernels")
        check = "FAIL" if any(e.startswith("MISMATCH") or "--verify" in e for e in r["errors"]) else "ok"
        ov = r["checks"].get("ort_vs_fused")
        if ov and check == "ok":
            check = f"ok {ov['max_rel_err']:.0e}"
        elif not ov and check == "ok":
            check = "ok (no ORT)"
        rows.append([r["name"], r["kind"], fmt_ms(f), fmt_ms(u), fmt_ms(o), fmt_ratio(o, f), fmt_ratio(u, f),
                     fmt_spread(paired(r["unfused"], r["fused"], t)),
                     f"{kf if kf is not None else '?'}/{ku if ku is not None else '?'}",
                     fmt_mb(r["fused"].get("bytes_moved"), r["unfused"].get("bytes_moved")),
                     fmt_mb(r["fused"].get("kernel_io_bytes"), r["unfused"].get("kernel_io_bytes")),
                     fmt_mb(r["fused"].get("peak_bytes"), r["unfused"].get("peak_bytes")), check])
    widths = [max(len(str(x)) for x in col) for col in zip(head, *rows)]
    lines = ["  ".join(str(x).ljust(w) if i < 2 else str(x).rjust(w) for i, (x, w) in enumerate(zip(row, widths)))
             for row in [head] + rows]
    return "\n".join(lines)


def targets(records, t):
    out = []
    for r in records:
        f, u, o = med(r["fused"], t), med(r["unfused"], t), med(r["ort"], t)
        if r["kind"] == "block" and f and o:
            out.append(f"  {r['name']}: ORT/fused {o / f:.2f}x (target >= 1.0, aim 1.3): "
                       f"{'met' if o / f >= 1.0 else 'NOT met'}")
        need = 1.3 if r["kind"] == "sub-chain" else SPEEDUP_TARGET.get(r["name"])
        if need and f and u:
            out.append(f"  {r['name']}: unfused/fused {u / f:.2f}x (target >= {need}): "
                       f"{'met' if u / f >= need else 'NOT met'}")
    return "\n".join(out)


def compile_check(args, atoll_exe):
    path = os.path.join(ROOT, "tests", "data", "batch50.json")
    if not os.path.exists(path):
        msg = "compile-time check skipped: tests/data/batch50.json does not exist (yet)"
        print(msg)
        return {"skipped": msg}
    out = tempfile.mkdtemp(prefix="atoll-batch50-")
    report = os.path.join(out, "report.json")
    t0 = time.perf_counter()
    p = subprocess.run([atoll_exe, "compile", path, "-o", os.path.join(out, "code"), "--quiet", "--report", report],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t0
    res = {"wall_s": wall, "exit": p.returncode, "load_after": load()}
    try:
        with open(report) as f:
            rep = json.load(f)
        gs = rep.get("graphs", [])
        res["graphs"] = len(gs)
        res["ok"] = sum(g.get("status") == "ok" for g in gs)
        cms = [g.get("compile_ms") or 0 for g in gs]
        res["sum_compile_ms"] = sum(cms)
        res["max_compile_ms"] = max(cms) if cms else 0
        res["failed"] = [{"graph": g.get("name"), "error": (g.get("error") or "")[:300]}
                         for g in gs if g.get("status") != "ok"]
    except (OSError, ValueError) as e:
        res["error"] = str(e)
    shutil.rmtree(out, ignore_errors=True)
    print(f"compile-time check: atoll compile tests/data/batch50.json: {wall:.1f} s wall "
          f"({res.get('ok', '?')}/{res.get('graphs', '?')} graphs ok, exit {p.returncode}, "
          f"sum of per-graph compile_ms {res.get('sum_compile_ms', 0) / 1e3:.1f} s, "
          f"slowest graph {res.get('max_compile_ms', 0) / 1e3:.1f} s); target < 60 s: "
          f"{'met' if wall < 60 and p.returncode == 0 else 'NOT met'}")
    for f in res.get("failed", [])[:5]:
        print(f"  failed: {f['graph']}: {f['error']}")
    if p.returncode != 0 and not res.get("failed"):
        print("  stderr: " + p.stderr.strip()[-400:])
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--atoll", default=os.path.join(ROOT, "build-blocks", "src", "atoll"), help="atoll executable")
    ap.add_argument("--threads", default="1,2", help="thread counts, the first decides (default 1,2)")
    ap.add_argument("--repeats", type=int, default=3, help="timed repeats per variant and thread count (median)")
    ap.add_argument("--only", default="", help="comma-separated case names (default: all)")
    ap.add_argument("--no-ort", action="store_true", help="skip onnxruntime")
    ap.add_argument("--no-manifest", action="store_true", help="skip `atoll compile` for kernel I/O bytes")
    ap.add_argument("--no-compile-check", action="store_true", help="skip the 50-graph compile-time check")
    ap.add_argument("--ort-weights-as-inputs", action="store_true",
                    help="feed weights to onnxruntime as inputs instead of initializers (no constant pre-packing)")
    ap.add_argument("--results", default=os.path.join(HERE, "results"), help="where the JSON results go")
    ap.add_argument("--keep-work", action="store_true", help="keep batches, dumps, reports and .onnx models")
    args = ap.parse_args()
    args.threads = [int(x) for x in args.threads.split(",") if x]
    if not os.access(args.atoll, os.X_OK):
        sys.exit(f"no atoll executable at {args.atoll} (give --atoll PATH)")

    ort, ort_note = None, None
    if args.no_ort:
        ort_note = "onnxruntime skipped (--no-ort)"
    elif np is None:
        ort_note = "numpy is not installed: onnxruntime and output comparisons skipped"
    else:
        try:
            import onnx  # noqa: F401  (the converter needs it)
            import onnxruntime as ort
            ort.set_default_logger_severity(3)
        except ImportError as e:
            ort_note = f"onnxruntime/onnx not importable ({e}): Atoll-only figures"
    if ort_note:
        print(ort_note)

    ort_overhead = None
    if ort is not None:
        try:
            ort_overhead = ort_call_overhead_ms(ort)
        except Exception as e:  # informative only
            log(f"cannot measure onnxruntime's call overhead: {e}")
    cases = [c for c in CASES if not args.only or c[0] in args.only.split(",")]
    work = tempfile.mkdtemp(prefix="atoll-blocks-")
    atoll = Atoll(args.atoll, work)
    started = datetime.datetime.now(datetime.timezone.utc)
    head = subprocess.run(["git", "-C", ROOT, "log", "--oneline", "-1"], stdout=subprocess.PIPE, text=True).stdout.strip()
    meta = {"started": started.isoformat(timespec="seconds"), "git": head, "atoll": args.atoll,
            "threads": args.threads, "repeats": args.repeats, "load_start": load(), "cpus": os.cpu_count(),
            "onnxruntime": getattr(ort, "__version__", None), "ort_note": ort_note,
            "ort_weights": "inputs" if args.ort_weights_as_inputs else "initializers",
            "ort_call_overhead_ms": ort_overhead}
    records = []
    for case in cases:
        log(f"{case[0]}: verify, dump, convert (load {load():.2f})")
        rec, sessions = prepare_case(case, args, atoll, ort, work)
        if rec["fused"].get("error") is None or rec["unfused"].get("error") is None:
            time_case(rec, sessions, args, atoll)
        records.append(rec)
        for e in rec["errors"]:
            log(f"  ERROR {case[0]}: {e}")
    meta["load_end"] = load()
    meta["finished"] = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")

    print(f"\nAtoll blocks benchmark, {meta['started']}, {head}")
    print(f"medians of {args.repeats} repeats of each tool's median; load average {meta['load_start']:.2f} at start, "
          f"{meta['load_end']:.2f} at end on {meta['cpus']} CPUs (figures taken under load when > 0.5); "
          f"onnxruntime {meta['onnxruntime'] or 'n/a'}, weights as {meta['ort_weights']}"
          + (f", ORT call overhead {ort_overhead * 1e3:.1f} us (Identity model)" if ort_overhead else ""))
    for t in args.threads:
        print(f"\n== {t} thread{'s' if t > 1 else ''}{' (decides)' if t == args.threads[0] else ''} ==")
        print(table(records, t))
        tg = targets(records, t)
        if tg and t == args.threads[0]:
            print("targets (one thread):\n" + tg)
    failed = [r for r in records if r["errors"]]
    for r in failed:
        for e in r["errors"]:
            print(f"ERROR {r['name']}: {e}")
    if not args.no_compile_check:
        print()
        meta["compile_check"] = compile_check(args, args.atoll)

    for r in records:  # the figures of the tables, and the best (min) of the repeats for comparison
        r["summary"] = {}
        for t in args.threads:
            f, u, o = med(r["fused"], t), med(r["unfused"], t), med(r["ort"], t)
            best = {k: min(v) for k, v in (("fused", (r["fused"].get("ms") or {}).get(str(t))),
                                           ("unfused", (r["unfused"].get("ms") or {}).get(str(t))),
                                           ("ort", (r["ort"].get("ms") or {}).get(str(t)))) if v}
            r["summary"][str(t)] = {"fused_ms": f, "unfused_ms": u, "ort_ms": o,
                                    "ort_over_fused": o / f if o and f else None,
                                    "unfused_over_fused": u / f if u and f else None, "best_ms": best,
                                    "unfused_over_fused_per_repeat": paired(r["unfused"], r["fused"], t),
                                    "ort_over_fused_per_repeat": paired(r["ort"], r["fused"], t)}
    os.makedirs(args.results, exist_ok=True)
    stamp = started.strftime("%Y%m%dT%H%M%SZ")
    result = {"meta": meta, "cases": records}
    for path in (os.path.join(args.results, f"blocks-{stamp}.json"), os.path.join(args.results, "latest.json")):
        with open(path, "w") as f:
            json.dump(result, f, indent=1, default=str)
    print(f"\nresults: {os.path.relpath(os.path.join(args.results, f'blocks-{stamp}.json'), os.getcwd())}")
    if args.keep_work:
        print(f"work files kept in {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    mismatch = any(e.startswith("MISMATCH") or "--verify" in e or "atoll fused" in e for r in records for e in r["errors"])
    sys.exit(1 if mismatch else 0)


if __name__ == "__main__":
    main()
