"""Compile and run: results against numpy, graphs built in code and read
from JSON, symbolic dimensions, the samples, every dtype, both CPU targets."""
import json
import unittest

import numpy as np

import atoll
from common import ROOT, batch_norm, conv2d, matmul_relu_graph, rng


class GraphsAgainstNumpy(unittest.TestCase):
    def test_graph_built_in_code(self):
        g = atoll.Graph("mm_relu")
        g.add_param("N", 1, 64)
        g.add_input("x", ["N", 8])
        g.add_weight("w", [8, 4], dtype=np.float32)
        g.add_node("MatMul", ["x", "w"], ["h"], name="mm")
        g.add_node("Relu", ["h"], ["y"])
        g.add_output("y")
        g.finalize()
        self.assertEqual(g.tensor_type("y").shape, ("N", 4))
        self.assertEqual(str(g.tensor_type("h")), "f32[N, 4]")
        self.assertEqual(g.flops({"N": 5}), atoll.Graph.from_json(matmul_relu_graph()).flops({"N": 5}))
        self.assertIn("node mm = MatMul(x, w)", g.text())
        m = atoll.compile(g, params={"N": 5})
        x = rng(1).standard_normal((5, 8), dtype=np.float32)
        w = rng(2).standard_normal((8, 4), dtype=np.float32)
        y = m.run({"x": x, "w": w})["y"]
        self.assertEqual((y.dtype, y.shape), (np.float32, (5, 4)))
        np.testing.assert_allclose(y, np.maximum(x @ w, 0), rtol=1e-5, atol=1e-5)

    def test_json_text_dict_and_file_compile_alike(self):
        x = rng(3).standard_normal((3, 8), dtype=np.float32)
        w = rng(4).standard_normal((8, 4), dtype=np.float32)
        want = np.maximum(x @ w, 0)
        import tempfile, pathlib
        with tempfile.TemporaryDirectory() as d:
            path = pathlib.Path(d) / "g.json"
            path.write_text(json.dumps(matmul_relu_graph()))
            for graph in (matmul_relu_graph(), json.dumps(matmul_relu_graph()),
                          atoll.Graph.from_json(json.dumps(matmul_relu_graph())), path):
                m = atoll.compile(graph, params={"N": 3})
                np.testing.assert_allclose(m.run({"x": x, "w": w})["y"], want, rtol=1e-5, atol=1e-5)

    def test_symbolic_dimension_at_two_values(self):
        g = atoll.Graph.from_json(matmul_relu_graph())
        for n in (1, 17):
            m = atoll.compile(g, params={"N": n})
            self.assertEqual(m.params, {"N": n})
            self.assertEqual(m.shape("x"), (n, 8))
            self.assertEqual(m.shape("y"), (n, 4))
            x = rng(n).standard_normal((n, 8), dtype=np.float32)
            w = rng(5).standard_normal((8, 4), dtype=np.float32)
            np.testing.assert_allclose(m.run({"x": x, "w": w})["y"], np.maximum(x @ w, 0), rtol=1e-5, atol=1e-5)
        with self.assertRaisesRegex(atoll.UserError, "N"):
            atoll.compile(g)  # no value for N

    def test_conv_relu_of_the_readme(self):
        graph = {
            "name": "conv_relu",
            "params": {"N": {"min": 1, "max": 8}},
            "inputs": [{"name": "x", "shape": ["N", 16, 28, 28]}],
            "weights": [{"name": "w", "shape": [32, 16, 3, 3], "init": "uniform(-0.1,0.1)"}],
            "outputs": ["y"],
            "nodes": [
                {"op": "Conv", "name": "conv1", "inputs": ["x", "w"], "outputs": ["c"], "attrs": {"pads": [1, 1, 1, 1]}},
                {"op": "Relu", "inputs": ["c"], "outputs": ["y"]},
            ],
            "schedule": {"fuse": "auto"},
        }
        m = atoll.compile(graph, params={"N": 2})
        x = rng(6).standard_normal((2, 16, 28, 28), dtype=np.float32)
        w = rng(7).uniform(-0.1, 0.1, (32, 16, 3, 3)).astype(np.float32)
        y = m.run({"x": x, "w": w})["y"]
        np.testing.assert_allclose(y, np.maximum(conv2d(x, w, pads=(1, 1, 1, 1)), 0), rtol=1e-4, atol=1e-4)

    def test_mobilenetv2_block_sample(self):
        # Conv 1x1, depthwise Conv 3x3 and Conv 1x1, each with BatchNormalization,
        # ReLU6 clips and the residual Add.
        graph = json.loads((ROOT / "samples" / "mobilenetv2_block.json").read_text())["graphs"][0]
        m = atoll.compile(graph)
        r = rng(15)
        feeds = {}
        for name in m.inputs:
            low, high = (0.5, 1.5) if name.endswith("_var") or name.endswith("_gamma") else (-0.5, 0.5)
            feeds[name] = r.uniform(low, high, m.shape(name)).astype(np.float32)
        y = m.run(feeds)["y"]
        f = feeds

        def bn(t, prefix):
            return batch_norm(t, *(f[f"{prefix}_{p}"] for p in ("gamma", "beta", "mean", "var")), 1e-5)

        e = np.clip(bn(conv2d(f["x"], f["w_expand"]), "bn_e"), 0, 6)
        d = np.clip(bn(conv2d(e, f["w_dw"], pads=(1, 1, 1, 1), group=144), "bn_d"), 0, 6)
        want = bn(conv2d(d, f["w_project"]), "bn_p") + f["x"]
        np.testing.assert_allclose(y, want, rtol=1e-4, atol=1e-4)

    def test_mlp_sample(self):
        graph = json.loads((ROOT / "samples" / "mlp.json").read_text())["graphs"][0]
        m = atoll.compile(graph, params={"N": 4})
        r = rng(8)
        feeds = {name: r.uniform(-0.1, 0.1, m.shape(name)).astype(np.float32) for name in m.inputs}
        y = m.run(feeds)[m.outputs[0]]
        f = {k: v.astype(np.float64) for k, v in feeds.items()}
        h = np.maximum(f["x"] @ f["w1"] + f["b1"], 0)
        h = np.maximum(h @ f["w2"] + f["b2"], 0)
        z = h @ f["w3"] + f["b3"]
        e = np.exp(z - z.max(axis=-1, keepdims=True))
        np.testing.assert_allclose(y, e / e.sum(axis=-1, keepdims=True), rtol=1e-4, atol=1e-6)

    def test_weights_with_data_are_the_modules_own(self):
        g = atoll.Graph("bias")
        g.add_input("x", [2, 3])
        g.add_weight_data("b", [[1, 2, 3]], shape=[3])  # nested list, reshaped
        g.add_weight_data("s", np.float64(0.5), shape=[])  # a scalar
        g.add_node("Add", ["x", "b"], ["t"])
        g.add_node("Mul", ["t", "s"], ["y"])
        g.add_output("y")
        g.finalize()
        m = atoll.compile(g)
        self.assertEqual(m.inputs, ("x",))
        self.assertEqual(m.own_weights, ("b", "s"))
        x = np.arange(6, dtype=np.float32).reshape(2, 3)
        np.testing.assert_array_equal(m.run({"x": x})["y"], (x + [1, 2, 3]) * 0.5)

    def test_node_attributes_from_python_and_numpy_values(self):
        g = atoll.Graph("attrs")
        g.add_input("x", [2, 3, 4])
        g.add_node("Transpose", ["x"], ["t"], attrs={"perm": np.array([2, 0, 1])})
        g.add_node("LeakyRelu", ["t"], ["l"], attrs={"alpha": np.float32(0.25)})
        g.add_node("Gelu", ["l"], ["y"], attrs={"approximate": "tanh"})
        g.add_output("y")
        g.finalize()
        m = atoll.compile(g)
        x = rng(9).standard_normal((2, 3, 4), dtype=np.float32)
        t = x.transpose(2, 0, 1).astype(np.float64)
        l = np.where(t < 0, 0.25 * t, t)
        want = 0.5 * l * (1 + np.tanh(np.sqrt(2 / np.pi) * (l + 0.044715 * l ** 3)))
        np.testing.assert_allclose(m.run({"x": x})["y"], want, rtol=1e-5, atol=1e-6)

    def test_cpu_c_target_gives_the_same_results(self):
        x = rng(10).standard_normal((6, 8), dtype=np.float32)
        w = rng(11).standard_normal((8, 4), dtype=np.float32)
        m = atoll.compile(matmul_relu_graph(), target="cpu-c", params={"N": 6}, scheduler="pluto")
        self.assertEqual(m.target, "cpu-c")
        np.testing.assert_allclose(m.run({"x": x, "w": w})["y"], np.maximum(x @ w, 0), rtol=1e-5, atol=1e-5)


class GraphBuilding(unittest.TestCase):
    def test_queries_of_a_read_graph(self):
        g = atoll.Graph.from_json(matmul_relu_graph())
        self.assertEqual((g.name, g.inputs, g.weights, g.outputs, g.finalized), ("mm_relu", ["x"], ["w"], ["y"], True))
        self.assertEqual(g.flops({"N": 5}), 2 * 5 * 8 * 4 + 5 * 4)  # MatMul, then Relu
        self.assertIn('label="mm_relu"', g.dot())
        self.assertEqual(g.tensor_type("w"), atoll.TensorType([8, 4]))
        self.assertEqual(g.tensor_type("x").rank, 2)

    def test_copies_are_independent(self):
        g = atoll.Graph("g")
        g.add_input("x", [4])
        c = g.copy()
        c.add_node("Relu", ["x"], ["y"])
        c.add_output("y")
        c.finalize()
        self.assertTrue(c.finalized)
        self.assertFalse(g.finalized)
        g.add_node("Neg", ["x"], ["z"])
        g.add_output("z")
        g.finalize()
        self.assertEqual((g.outputs, c.outputs), (["z"], ["y"]))
        with self.assertRaises(atoll.UserError):
            g.add_output("x")  # a finalized graph is read-only


class Dtypes(unittest.TestCase):
    def test_f16_matmul(self):
        m = atoll.compile(matmul_relu_graph("mm_f16", k=64, n=20, dtype="f16"), params={"N": 6})
        self.assertEqual((m.dtype("x"), m.numpy_dtype("x")), ("f16", np.dtype(np.float16)))
        x = rng(12).uniform(-1, 1, (6, 64)).astype(np.float16)
        w = rng(13).uniform(-1, 1, (64, 20)).astype(np.float16)
        y = m.run({"x": x, "w": w})["y"]
        self.assertEqual(y.dtype, np.float16)
        want = np.maximum(x.astype(np.float64) @ w.astype(np.float64), 0)
        np.testing.assert_allclose(y.astype(np.float64), want, rtol=2e-2, atol=2e-2)
        # float32 inputs are rounded to float16 first: the same result.
        y32 = m.run({"x": x.astype(np.float32), "w": w.astype(np.float32)})["y"]
        np.testing.assert_array_equal(y32, y)

    def test_bf16_bits_in_and_out(self):
        graph = {"name": "bf16_sum", "inputs": [{"name": "a", "shape": [4, 512], "dtype": "bf16"}],
                 "outputs": ["c"], "nodes": [{"op": "ReduceSum", "inputs": ["a"], "outputs": ["c"], "attrs": {"axes": [1]}}]}
        m = atoll.compile(graph)
        self.assertEqual(m.numpy_dtype("a"), np.dtype(np.uint16))
        values = rng(14).uniform(0, 1, (4, 512)).astype(np.float32)
        bits = atoll.to_bfloat16(values)
        c = m.run({"a": bits})["c"]
        self.assertEqual((c.dtype, c.shape), (np.uint16, (4, 1)))
        want = atoll.from_bfloat16(bits).astype(np.float64).sum(axis=1, keepdims=True)
        np.testing.assert_allclose(atoll.from_bfloat16(c), want, rtol=1e-2)
        # float arrays given for a bf16 input are rounded to bfloat16 bits.
        np.testing.assert_array_equal(m.run({"a": values})["c"], c)

    def test_bfloat16_rounding_is_to_nearest_even(self):
        values = np.array([1.0, 1 + 2 ** -8, 1 + 3 * 2 ** -8, -2.5, np.inf, 3.4e38], dtype=np.float32)
        bits = atoll.to_bfloat16(values)
        self.assertEqual(bits.tolist(), [0x3F80, 0x3F80, 0x3F82, 0xC020, 0x7F80, 0x7F80])
        self.assertTrue(np.isnan(atoll.from_bfloat16(atoll.to_bfloat16(np.float32(np.nan)))))
        np.testing.assert_array_equal(atoll.from_bfloat16(bits[:4]), [1.0, 1.0, 1 + 2 ** -6, -2.5])

    def test_integer_and_bool_tensors(self):
        graph = {
            "name": "ints",
            "inputs": [{"name": "c", "shape": [5], "dtype": "bool"}, {"name": "a", "shape": [5]},
                       {"name": "k", "shape": [5], "dtype": "i32"}],
            "outputs": ["sel", "ai", "gt", "k2", "a8"],
            "nodes": [
                {"op": "Neg", "inputs": ["a"], "outputs": ["na"]},
                {"op": "Where", "inputs": ["c", "a", "na"], "outputs": ["sel"]},
                {"op": "Cast", "inputs": ["a"], "outputs": ["ai"], "attrs": {"to": "i64"}},
                {"op": "Greater", "inputs": ["a", "na"], "outputs": ["gt"]},
                {"op": "Add", "inputs": ["k", "k"], "outputs": ["k2"]},
                {"op": "Cast", "inputs": ["a"], "outputs": ["a8"], "attrs": {"to": "i8"}},
            ],
        }
        m = atoll.compile(graph)
        self.assertEqual([m.dtype(t) for t in ("c", "a", "k", "ai", "gt", "k2", "a8")],
                         ["bool", "f32", "i32", "i64", "bool", "i32", "i8"])
        a = np.array([-2.5, -1, 0, 1.5, 3.75], dtype=np.float32)
        c = np.array([True, False, True, False, True])
        k = np.array([1, -2, 3, -4, 2 ** 30], dtype=np.int32)
        out = m.run({"c": c, "a": a, "k": k})
        np.testing.assert_array_equal(out["sel"], np.where(c, a, -a))
        self.assertEqual(out["ai"].dtype, np.int64)
        np.testing.assert_array_equal(out["ai"], [-2, -1, 0, 1, 3])
        self.assertEqual(out["gt"].dtype, np.bool_)
        np.testing.assert_array_equal(out["gt"], a > -a)
        np.testing.assert_array_equal(out["k2"], (k.astype(np.int64) * 2).astype(np.int32))
        self.assertEqual(out["a8"].dtype, np.int8)
        np.testing.assert_array_equal(out["a8"], [-2, -1, 0, 1, 3])
        # A bool tensor also takes uint8 0/1 as it is.
        np.testing.assert_array_equal(m.run({"c": c.astype(np.uint8), "a": a, "k": k})["sel"], out["sel"])

    def test_f64_is_computed_in_double(self):
        graph = {"name": "f64_mm", "inputs": [{"name": "x", "shape": [5, 33], "dtype": "f64"},
                                             {"name": "w", "shape": [33, 7], "dtype": "f64"}],
                 "outputs": ["y", "s"],
                 "nodes": [{"op": "MatMul", "inputs": ["x", "w"], "outputs": ["y"]},
                           {"op": "Add", "inputs": ["x", "x"], "outputs": ["x2"]},
                           {"op": "ReduceSum", "inputs": ["x2"], "outputs": ["s"], "attrs": {"axes": [1]}}]}
        for target in ("cpu", "cpu-c"):
            m = atoll.compile(graph, target=target)
            self.assertEqual((m.dtype("y"), m.numpy_dtype("y")), ("f64", np.dtype(np.float64)))
            # 1 + 1e-12 has no f32 (or f32-accumulated) form: the result shows it
            x = 1 + 1e-12 * rng(20).uniform(1, 2, (5, 33))
            w = rng(21).uniform(-1, 1, (33, 7))
            out = m.run({"x": x, "w": w})
            np.testing.assert_allclose(out["y"], x @ w, rtol=1e-13)
            np.testing.assert_allclose(out["s"], (2 * x).sum(axis=1, keepdims=True), rtol=1e-14)
            self.assertGreater(np.abs(out["s"] - 66).max(), 1e-11)

    def test_u8_wraps_and_converts(self):
        graph = {"name": "u8", "inputs": [{"name": "a", "shape": [6], "dtype": "u8"},
                                         {"name": "b", "shape": [6], "dtype": "u8"}],
                 "outputs": ["s", "d", "f", "back"],
                 "nodes": [{"op": "Add", "inputs": ["a", "b"], "outputs": ["s"]},
                           {"op": "Sub", "inputs": ["a", "b"], "outputs": ["d"]},
                           {"op": "Cast", "inputs": ["a"], "outputs": ["f"], "attrs": {"to": "f32"}},
                           {"op": "Cast", "inputs": ["f"], "outputs": ["back"], "attrs": {"to": "uint8"}}]}
        m = atoll.compile(graph)
        a = np.array([0, 1, 100, 200, 255, 128], dtype=np.uint8)
        b = np.array([0, 255, 100, 100, 255, 129], dtype=np.uint8)
        out = m.run({"a": a, "b": b})
        self.assertEqual(out["s"].dtype, np.uint8)
        np.testing.assert_array_equal(out["s"], a + b)  # numpy wraps as C does
        np.testing.assert_array_equal(out["d"], a - b)
        np.testing.assert_array_equal(out["f"], a.astype(np.float32))
        np.testing.assert_array_equal(out["back"], a)


if __name__ == "__main__":
    unittest.main()
