"""atoll.tune: spaces, points explained and measured in a child process,
records, and the random-search sample (samples/python/tune_random_search.py)."""
import os
import subprocess
import sys
import tempfile
import unittest

import atoll.tune as tune
from common import ROOT

BATCH = os.path.join(ROOT, "tests", "tune", "tune_small.json")
ATOLL = os.environ.get("ATOLL_EXE", os.path.join(ROOT, "build", "src", "atoll"))


class Tune(unittest.TestCase):
    def test_spaces_and_explain(self):
        spaces = tune.spaces(BATCH)
        self.assertEqual([s.graph for s in spaces], ["gemm_a", "dwconv"])  # gemm_b is gemm_a's cluster
        gemm = spaces[0]
        names = [k["name"] for k in gemm.knobs]
        self.assertIn("band0/cache_tile[0]", names)
        self.assertIn("pack", names)
        point = dict(gemm.default, **{"band0/unroll": "2"})
        text = tune.explain(gemm, point, "apply_tuning", path=BATCH)
        self.assertIn("band0/unroll=2", text)
        with self.assertRaises(Exception):
            tune.explain(gemm, {"band0/nope": "1"}, "schedule", path=BATCH)

    def test_records_give_the_candidates_code(self):
        # compile --records compiles a recorded point into the same LLVM IR as
        # the point applied directly (what the tuner measured).
        gemm = tune.spaces(BATCH, graph="gemm_a")[0]
        point = dict(gemm.default, **{"band0/unroll": "2", "pack": "false"})
        with tempfile.TemporaryDirectory() as d:
            db = os.path.join(d, "db.jsonl")
            tune.append_record(db, {"v": 1, "key": gemm.key, "graph": "gemm_a", "cluster": "mm", "target": "cpu",
                                    "machine": tune.machine_id(), "knobs": point, "status": "ok", "ms": 1.0,
                                    "default_ms": 2.0, "ratio": 2.0, "verified": "reference"})
            via_records = subprocess.run([ATOLL, "explain", BATCH, "--graph", "gemm_a", "--stage", "llvm",
                                          "--records", db], capture_output=True, text=True, check=True).stdout
            untuned = subprocess.run([ATOLL, "explain", BATCH, "--graph", "gemm_a", "--stage", "llvm"],
                                     capture_output=True, text=True, check=True).stdout
        direct = tune.explain(gemm, point, "llvm", path=BATCH)
        self.assertEqual(via_records, direct)
        self.assertNotEqual(via_records, untuned)

    def test_measure_and_records(self):
        gemm = tune.spaces(BATCH, graph="gemm_a")[0]
        m = tune.Measurer(atoll=ATOLL, timeout=60)
        rec = m.measure(BATCH, gemm, dict(gemm.default, pack="false"))
        self.assertEqual(rec["status"], "ok", rec)
        self.assertGreater(rec["ratio"], 0)
        self.assertEqual(rec["key"], gemm.key)
        bad = m.measure(BATCH, gemm, dict(gemm.default, **{"band0/unroll": "99"}))
        self.assertEqual(bad["status"], "error")
        self.assertIn("1 to 16", bad["error"])
        with tempfile.TemporaryDirectory() as d:
            db = os.path.join(d, "db.jsonl")
            tune.append_record(db, rec)
            tune.append_record(db, bad)
            self.assertEqual([r["status"] for r in tune.read_records(db)], ["ok", "error"])

    def test_random_search_sample(self):
        with tempfile.TemporaryDirectory() as d:
            db = os.path.join(d, "db.jsonl")
            env = dict(os.environ, ATOLL_EXE=ATOLL)
            out = subprocess.run([sys.executable, os.path.join(ROOT, "samples", "python", "tune_random_search.py"),
                                  BATCH, "dwconv", "4", db, "7"], env=env, capture_output=True, text=True)
            self.assertEqual(out.returncode, 0, out.stderr)
            self.assertIn("Space(dwconv/dw", out.stdout)
            self.assertGreaterEqual(len(tune.read_records(db)), 1)


if __name__ == "__main__":
    unittest.main()
