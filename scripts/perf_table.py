#!/usr/bin/env python3
"""Markdown table of a blocks benchmark result (bench/run_blocks.sh writes one).

usage: scripts/perf_table.py [RESULT.json] [--threads N] [--short] [--machine TEXT]

RESULT.json defaults to the newest bench/blocks/results/blocks-*.json. Each row:
the median over the repeats of each tool's median time (ms), then ORT / fused
and fuse: none / fused (above 1: Atoll fused is faster), and the lowest and
highest none / fused of single repeats. --short prints only the two ratios of
the cases at the samples' own shapes (no `@` rows). --threads picks the thread
count (default: the first one run). The result file does not record the
machine; --machine TEXT names it in the caption.
"""
import glob
import json
import os
import statistics
import sys

LABELS = {
    "resnet50_bottleneck": "ResNet-50 bottleneck",
    "bert_encoder_layer": "BERT-base layer (seq 64)",
    "mobilenetv2_block": "MobileNetV2 block",
    "mlp": "MLP (N=64)",
    "attn_scale_softmax": "scale -> Softmax (12x64x64)",
    "bias_gelu": "bias -> Gelu (64x3072)",
    "residual_layernorm": "residual Add -> LayerNorm (64x768)",
    "depthwise_clip": "depthwise Conv -> Clip (144ch 56x56)",
    "attn_scale_softmax@s512": "scale -> Softmax @ 12x512x512",
    "bias_gelu@s512": "bias -> Gelu @ 512x3072",
    "residual_layernorm@s512": "residual Add -> LayerNorm @ 512x768",
    "depthwise_clip@112": "depthwise Conv -> Clip @ 32ch 112x112",
}


def newest_result(root):
    files = sorted(glob.glob(os.path.join(root, "bench", "blocks", "results", "blocks-*.json")))
    if not files:
        sys.exit("perf_table.py: no bench/blocks/results/blocks-*.json")
    return files[-1]


def med(variant, t):
    v = ((variant or {}).get("ms") or {}).get(str(t))
    return statistics.median(v) if v else None


def pairs(a, b, t):
    va = ((a or {}).get("ms") or {}).get(str(t)) or []
    vb = ((b or {}).get("ms") or {}).get(str(t)) or []
    return [x / y for x, y in zip(va, vb) if x and y]


def ms(x):
    return "n/a" if x is None else (f"{x:.3f}" if x < 10 else f"{x:.2f}")


def ratio(a, b):
    return "n/a" if a is None or b is None or b == 0 else f"{a / b:.2f}"


def main(argv):
    args = list(argv)
    opts = {"--threads": None, "--machine": None}
    for name in opts:
        if name in args:
            i = args.index(name)
            if i + 1 >= len(args):
                sys.exit(f"perf_table.py: {name} needs a value")
            opts[name] = args[i + 1]
            del args[i:i + 2]
    short = "--short" in args
    args = [a for a in args if a != "--short"]
    if any(a.startswith("-") for a in args) or len(args) > 1:
        print(__doc__, file=sys.stderr)
        return 2
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    path = args[0] if args else newest_result(root)
    with open(path) as f:
        data = json.load(f)
    meta = data["meta"]
    threads = int(opts["--threads"]) if opts["--threads"] else meta["threads"][0]
    commit = meta.get("git", "").split(" ")[0] or "unknown commit"
    machine = f" on {opts['--machine']}" if opts["--machine"] else ""
    print(f"`{os.path.relpath(path, root) if path.startswith(root) else path}`: {meta['started'][:10]}{machine}, "
          f"commit {commit}, {threads} thread{'s' if threads > 1 else ''}, medians of {meta['repeats']} repeats, "
          f"onnxruntime {meta.get('onnxruntime', 'n/a')}, load {meta['load_start']:.1f}-{meta['load_end']:.1f}.\n")
    if short:
        print("| case | ORT / fused | none / fused |")
        print("| --- | --- | --- |")
    else:
        print("| case | fused ms | fuse: none ms | onnxruntime ms | ORT / fused | none / fused | none / fused by repeat |")
        print("| --- | --- | --- | --- | --- | --- | --- |")
    for case in data["cases"]:
        name = case["name"]
        if short and "@" in name:
            continue
        f, u, o = med(case.get("fused"), threads), med(case.get("unfused"), threads), med(case.get("ort"), threads)
        if f is None and u is None and o is None:
            continue
        label = LABELS.get(name, name)
        if short:
            print(f"| {label} | {ratio(o, f)} | {ratio(u, f)} |")
        else:
            p = pairs(case.get("unfused"), case.get("fused"), threads)
            spread = f"{min(p):.2f}-{max(p):.2f}" if p else "n/a"
            print(f"| {label} | {ms(f)} | {ms(u)} | {ms(o)} | {ratio(o, f)} | {ratio(u, f)} | {spread} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
