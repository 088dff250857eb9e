"""Module queries, explain, write, and runs from several Python threads."""
import pathlib
import tempfile
import sys
import threading
import time
import unittest

import numpy as np

import atoll
from common import matmul_relu_graph, rng


class Queries(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.m = atoll.compile(matmul_relu_graph(), params={"N": 7})

    def test_tensors_and_sizes(self):
        m = self.m
        self.assertEqual((m.name, m.target, m.inputs, m.outputs, m.own_weights),
                         ("mm_relu", "cpu", ("x", "w"), ("y",), ()))
        self.assertEqual((m.shape("x"), m.shape("w"), m.shape("y")), ((7, 8), (8, 4), (7, 4)))
        self.assertEqual((m.dtype("y"), m.numpy_dtype("y"), m.bytes("y")), ("f32", np.dtype(np.float32), 7 * 4 * 4))
        self.assertEqual(m.params, {"N": 7})
        self.assertGreaterEqual(m.num_kernels, 1)
        self.assertGreaterEqual(m.arena_bytes, 0)
        self.assertTrue("x" in m and "y" in m and "h" not in m)
        e = m.empty("y")
        self.assertEqual((e.shape, e.dtype), ((7, 4), np.float32))
        self.assertIn("mm_relu", repr(m))
        with self.assertRaisesRegex(atoll.UserError, "'h' is neither an input nor an output"):
            m.shape("h")


class Explain(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.m = atoll.compile(matmul_relu_graph(), params={"N": 7})

    def test_stages(self):
        stages = atoll.stages()
        self.assertEqual(stages, atoll.Module.stages())
        self.assertEqual(stages[:6], ["scop", "deps", "schedule", "ast", "llvm", "c"])
        self.assertIn("tile_for_cpu", stages)

    def test_fixed_stages(self):
        m = self.m
        self.assertIn("statement", m.explain("scop"))
        self.assertIn("flow:", m.explain("deps"))
        self.assertIn("domain:", m.explain("schedule"))
        self.assertIn("kernel ", m.explain("ast"))
        self.assertIn("define void", m.explain("llvm"))
        self.assertIn("#include <stdint.h>", m.explain("c"))
        self.assertEqual(m.explain("ast"), m.explain("ast"))

    def test_a_pass_stage(self):
        self.assertIn("tile_for_cpu", self.m.explain("tile_for_cpu"))

    def test_unknown_stage(self):
        with self.assertRaisesRegex(atoll.UserError, "unknown stage 'nope'; available stages: scop, deps"):
            self.m.explain("nope")


class Write(unittest.TestCase):
    def test_cpu_writes_object_and_header(self):
        m = atoll.compile(matmul_relu_graph(), params={"N": 2})
        with tempfile.TemporaryDirectory() as d:
            files = m.write(pathlib.Path(d) / "out")
            self.assertEqual(sorted(files), ["mm_relu.h", "mm_relu.o"])
            self.assertTrue((pathlib.Path(d) / "out" / "mm_relu.o").stat().st_size > 0)
            self.assertIn("#ifndef ATOLL_MM_RELU_H", (pathlib.Path(d) / "out" / "mm_relu.h").read_text())

    def test_cpu_c_writes_c(self):
        m = atoll.compile(matmul_relu_graph(), target="cpu-c", params={"N": 2})
        with tempfile.TemporaryDirectory() as d:
            self.assertEqual(m.write(d), ["mm_relu.c"])
            self.assertIn("#include <math.h>", (pathlib.Path(d) / "mm_relu.c").read_text())


class Threads(unittest.TestCase):
    def test_concurrent_runs_of_one_module(self):
        m = atoll.compile(matmul_relu_graph(k=64, n=32), params={"N": 48}, threads=1)
        w = rng(1).standard_normal((64, 32), dtype=np.float32)
        errors = []

        def worker(seed):
            try:
                r = rng(seed)
                for _ in range(25):
                    x = r.standard_normal((48, 64), dtype=np.float32)
                    y = m.run({"x": x, "w": w})["y"]
                    np.testing.assert_allclose(y, np.maximum(x @ w, 0), rtol=1e-4, atol=1e-4)
            except Exception as e:  # reported by the main thread
                errors.append(e)

        threads = [threading.Thread(target=worker, args=(seed,)) for seed in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])

    def test_run_releases_the_gil(self):
        # With a switch interval far longer than the test, CPython never takes
        # the GIL from a thread that holds it: the main thread can run while
        # the worker is inside run() only if run() released the GIL. The main
        # thread waits with sleep(0), which releases the GIL, so the worker
        # gets it back when its call returns.
        m = atoll.compile(matmul_relu_graph(k=2048, n=2048, n_max=1024), params={"N": 1024}, threads=1)
        call = m.bind({"x": np.ones((1024, 2048), np.float32), "w": np.ones((2048, 2048), np.float32)})
        call.run()  # the first call pays for any lazy set-up
        state = {"started": False, "finished": False, "seen_inside": 0}

        def worker():
            state["started"] = True
            call.run()
            state["finished"] = True

        old = sys.getswitchinterval()
        sys.setswitchinterval(1000.0)
        try:
            t = threading.Thread(target=worker)
            t.start()
            while not state["started"]:
                time.sleep(0)
            while not state["finished"]:
                state["seen_inside"] += 1
                time.sleep(0)
            t.join()
        finally:
            sys.setswitchinterval(old)
        self.assertGreater(state["seen_inside"], 0, "the main thread never ran while run() was in progress")
        np.testing.assert_array_equal(call.outputs["y"][::97, ::89], 2048.0)

    def test_concurrent_compiles(self):
        results = {}

        def worker(n):
            results[n] = atoll.compile(matmul_relu_graph(), params={"N": n}).shape("y")

        threads = [threading.Thread(target=worker, args=(n,)) for n in (1, 2, 3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(results, {1: (1, 4), 2: (2, 4), 3: (3, 4)})


if __name__ == "__main__":
    unittest.main()
