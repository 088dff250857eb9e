"""What the tuning benchmarks share (bench/tune/*.py): a batch timed by
`atoll run --bench`, one thread, with or without tuning records."""
import json
import subprocess


def bench(atoll, batch, records, out):
    """Each graph's median ms, from report.json written to `out`."""
    cmd = [atoll, "run", batch, "--bench", "--threads", "1", "--quiet", "--report", out]
    if records:
        cmd += ["--records", records]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return {g["name"]: g["bench"]["median_ms"] for g in json.load(open(out))["graphs"] if g.get("bench")}
