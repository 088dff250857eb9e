"""The arrays of a call: outputs written in place, inputs read in place (no
copy), which inputs are converted, which arrays are refused and how."""
import tracemalloc
import unittest

import numpy as np

import atoll
from common import matmul_relu_graph, relu_graph, rng

try:
    import ml_dtypes
except ImportError:  # optional: scripts/test.sh installs it into the test venv
    ml_dtypes = None


class ZeroCopy(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.m = atoll.compile(matmul_relu_graph(), params={"N": 3})
        cls.x = rng(1).standard_normal((3, 8), dtype=np.float32)
        cls.w = rng(2).standard_normal((8, 4), dtype=np.float32)
        cls.want = np.maximum(cls.x @ cls.w, 0)

    def test_output_array_is_written_in_place(self):
        y = np.full((3, 4), np.nan, dtype=np.float32)
        out = self.m.run({"x": self.x, "w": self.w}, out={"y": y})
        self.assertIs(out["y"], y)
        np.testing.assert_allclose(y, self.want, rtol=1e-5, atol=1e-5)

    def test_output_into_a_contiguous_view_of_a_larger_array(self):
        big = np.full((5, 4), -7.0, dtype=np.float32)
        self.m.run({"x": self.x, "w": self.w}, out={"y": big[1:4]})
        np.testing.assert_allclose(big[1:4], self.want, rtol=1e-5, atol=1e-5)
        np.testing.assert_array_equal(big[[0, 4]], -7.0)  # nothing written outside the view

    def test_allocated_outputs(self):
        out = self.m.run({"x": self.x, "w": self.w})
        self.assertEqual(list(out), ["y"])
        self.assertEqual((out["y"].dtype, out["y"].shape), (np.float32, (3, 4)))
        self.assertTrue(out["y"].flags.c_contiguous and out["y"].flags.owndata)

    def test_contiguous_inputs_are_bound_as_they_are(self):
        call = self.m.bind({"x": self.x, "w": self.w})
        self.assertIs(call.inputs["x"], self.x)
        self.assertIs(call.inputs["w"], self.w)

    def test_bound_call_reads_the_callers_memory_at_each_run(self):
        x = self.x.copy()
        y = np.empty((3, 4), dtype=np.float32)
        call = self.m.bind({"x": x, "w": self.w}, out={"y": y})
        call.run()
        np.testing.assert_allclose(y, self.want, rtol=1e-5, atol=1e-5)
        x *= -1  # changed in place: the next run reads the new values
        self.assertIs(call.run()["y"], y)
        np.testing.assert_allclose(y, np.maximum(-self.x @ self.w, 0), rtol=1e-5, atol=1e-5)

    def test_run_allocates_no_copy_of_contiguous_inputs(self):
        # numpy reports its array allocations to tracemalloc: a copy of the
        # 4 MiB input (or of the output) would show in the peak.
        m = atoll.compile(relu_graph(shape=(1024, 1024)))
        x = rng(3).standard_normal((1024, 1024), dtype=np.float32)
        y = np.empty_like(x)
        tracemalloc.start()
        try:
            m.run({"x": x}, out={"y": y})
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.reset_peak()
            m.run({"x": np.asfortranarray(x)}, out={"y": y})  # converted: a copy
            _, peak_converted = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        self.assertLess(peak, 64 * 1024)
        self.assertGreaterEqual(peak_converted, x.nbytes)
        np.testing.assert_array_equal(y, np.maximum(x, 0))


class InputConversion(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.m = atoll.compile(matmul_relu_graph(), params={"N": 6})
        cls.x = rng(4).standard_normal((6, 8), dtype=np.float32)
        cls.w = rng(5).standard_normal((8, 4), dtype=np.float32)
        cls.want = np.maximum(cls.x @ cls.w, 0)

    def check(self, feeds, **kw):
        np.testing.assert_allclose(self.m.run(feeds, **kw)["y"], self.want, rtol=1e-5, atol=1e-5)

    def test_non_contiguous_input_is_copied_contiguous(self):
        xt = np.ascontiguousarray(self.x.T).T  # Fortran order
        strided = np.repeat(self.w, 2, axis=1)[:, ::2]
        self.assertFalse(xt.flags.c_contiguous or strided.flags.c_contiguous)
        call = self.m.bind({"x": xt, "w": strided})
        self.assertIsNot(call.inputs["x"], xt)
        self.assertTrue(call.inputs["x"].flags.c_contiguous and call.inputs["w"].flags.c_contiguous)
        self.check({"x": xt, "w": strided})

    def test_same_kind_dtypes_and_lists_are_converted(self):
        self.check({"x": self.x.astype(np.float64), "w": self.w.tolist()})
        self.check({"x": self.x.astype(">f4"), "w": self.w})  # big-endian
        ints = np.arange(48).reshape(6, 8)
        np.testing.assert_allclose(self.m.run({"x": ints, "w": self.w})["y"],
                                   np.maximum(ints @ self.w.astype(np.float64), 0), rtol=1e-5)

    def test_unaligned_input_is_copied(self):
        raw = np.zeros(self.x.nbytes + 1, dtype=np.uint8)
        unaligned = raw[1:].view(np.float32).reshape(6, 8)
        unaligned[...] = self.x
        self.assertFalse(unaligned.flags.aligned)
        self.check({"x": unaligned, "w": self.w})

    def test_other_kinds_are_refused(self):
        m = atoll.compile({"name": "k", "inputs": [{"name": "k", "shape": [4], "dtype": "i32"}],
                           "outputs": ["y"], "nodes": [{"op": "Neg", "inputs": ["k"], "outputs": ["y"]}]})
        with self.assertRaises(atoll.UserError) as e:
            m.run({"k": np.ones(4, dtype=np.float32)})
        self.assertIn("input 'k': got a float32 array of shape (4,), expected a C-contiguous int32 array", str(e.exception))
        self.assertEqual(e.exception.graph, "k")
        np.testing.assert_array_equal(m.run({"k": np.arange(4, dtype=np.int64)})["y"], [0, -1, -2, -3])

    def test_convert_false_refuses_what_needs_a_conversion(self):
        with self.assertRaisesRegex(atoll.UserError, r"input 'x': got a float64 array of shape \(6, 8\), "
                                                     r"expected a C-contiguous float32 array"):
            self.m.run({"x": self.x.astype(np.float64), "w": self.w}, convert=False)
        with self.assertRaisesRegex(atoll.UserError, "input 'x': the array is not C-contiguous"):
            self.m.run({"x": np.asfortranarray(self.x), "w": self.w}, convert=False)
        with self.assertRaisesRegex(atoll.UserError, "input 'w': expected .* got list"):
            self.m.run({"x": self.x, "w": self.w.tolist()}, convert=False)
        self.check({"x": self.x, "w": self.w}, convert=False)

    @unittest.skipIf(ml_dtypes is None, "ml_dtypes is not installed")
    def test_ml_dtypes_bfloat16_arrays(self):
        m = atoll.compile({"name": "bf", "inputs": [{"name": "a", "shape": [3], "dtype": "bf16"}],
                           "outputs": ["y"], "nodes": [{"op": "Add", "inputs": ["a", "a"], "outputs": ["y"]}]})
        a = np.array([1.5, -2, 0.25], dtype=ml_dtypes.bfloat16)
        y = np.zeros(3, dtype=ml_dtypes.bfloat16)
        out = m.run({"a": a}, out={"y": y})
        self.assertIs(out["y"], y)
        np.testing.assert_array_equal(y.astype(np.float32), [3, -4, 0.5])
        np.testing.assert_array_equal(m.run({"a": a})["y"], a.view(np.uint16) + 0x80)  # 2x: exponent + 1


class Refusals(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.m = atoll.compile(matmul_relu_graph(), params={"N": 2})
        cls.feeds = {"x": np.ones((2, 8), dtype=np.float32), "w": np.ones((8, 4), dtype=np.float32)}

    def refused(self, pattern, inputs=None, out=None):
        with self.assertRaisesRegex(atoll.UserError, pattern) as e:
            self.m.run(self.feeds if inputs is None else inputs, out=out)
        self.assertEqual(e.exception.graph, "mm_relu")
        self.assertTrue(str(e.exception).startswith("graph 'mm_relu': "), str(e.exception))
        return e.exception

    def test_output_of_another_dtype(self):
        self.refused(r"output 'y': got a float64 array of shape \(2, 4\), expected a C-contiguous float32 array "
                     r"of shape \(2, 4\) \(outputs are written in place",
                     out={"y": np.empty((2, 4))})

    def test_non_contiguous_output(self):
        self.refused("output 'y': the array is not C-contiguous",
                     out={"y": np.empty((4, 2), dtype=np.float32).T})

    def test_output_of_another_shape(self):
        self.refused(r"output 'y': got a float32 array of shape \(8,\), expected .* of shape \(2, 4\)",
                     out={"y": np.empty(8, dtype=np.float32)})

    def test_read_only_output(self):
        y = np.empty((2, 4), dtype=np.float32)
        y.flags.writeable = False
        self.refused("output 'y': the array is read-only", out={"y": y})

    def test_output_that_is_not_an_array(self):
        self.refused("output 'y': expected a C-contiguous float32 array of shape .* got list", out={"y": [0] * 8})

    def test_output_overlapping_an_input(self):
        m = atoll.compile(relu_graph())
        x = np.ones((4, 8), dtype=np.float32)
        with self.assertRaisesRegex(atoll.UserError, "output 'y' overlaps input 'x'"):
            m.run({"x": x}, out={"y": x})

    def test_missing_input(self):
        e = self.refused("input w is missing; the inputs: x, w", inputs={"x": self.feeds["x"]})
        self.assertEqual(e.reason, "input w is missing; the inputs: x, w")

    def test_unknown_names(self):
        self.refused("'z' is not an input; the inputs: x, w", inputs={**self.feeds, "z": self.feeds["x"]})
        self.refused("'q' is not an output; the outputs: y", out={"q": np.empty((2, 4), dtype=np.float32)})
        self.refused("'y' is an output, not an input", inputs={**self.feeds, "y": np.empty((2, 4), np.float32)})
        self.refused("'x' is an input, not an output", out={"x": self.feeds["x"]})

    def test_weight_with_data_is_not_passed(self):
        g = atoll.Graph("own")
        g.add_input("x", [3])
        g.add_weight_data("b", [1, 2, 3])
        g.add_node("Add", ["x", "b"], ["y"])
        g.add_output("y")
        g.finalize()
        m = atoll.compile(g)
        with self.assertRaisesRegex(atoll.UserError, "'b' is a weight with inline data"):
            m.run({"x": np.zeros(3, np.float32), "b": np.zeros(3, np.float32)})

    def test_a_refused_call_writes_nothing(self):
        y = np.full((2, 4), 5.0, dtype=np.float32)
        self.refused("input 'x'", inputs={"x": np.ones((3, 8), np.float32), "w": self.feeds["w"]}, out={"y": y})
        np.testing.assert_array_equal(y, 5.0)


if __name__ == "__main__":
    unittest.main()
