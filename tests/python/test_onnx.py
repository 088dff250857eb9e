"""The ONNX import from Python: a model read, compiled and run on numpy
arrays matches onnxruntime; errors carry the file and node; write_batch
gives a batch that compiles to the same results."""
import os
import pathlib
import tempfile
import unittest

import numpy as np
import onnxruntime as ort

import atoll

MODELS = pathlib.Path(__file__).resolve().parent.parent / "onnx" / "models"
ERRORS = pathlib.Path(__file__).resolve().parent.parent / "errors"


class OnnxTest(unittest.TestCase):
    def test_convnet_matches_onnxruntime(self):
        path = MODELS / "convnet.onnx"
        g = atoll.import_onnx(path)
        self.assertEqual(g.name, "convnet")
        self.assertEqual(g.inputs, ["input.1"])
        m = atoll.compile(g, threads=1)
        x = np.random.default_rng(3).uniform(-1, 1, (2, 3, 7, 11)).astype(np.float32)
        got = m.run({"input.1": x})["out"]
        want = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, {"input.1": x})[0]
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)

    def test_symbolic_batch(self):
        path = MODELS / "symbolic.onnx"
        g = atoll.import_onnx(path, graph_name="mlp")
        self.assertEqual(g.name, "mlp")
        sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        for n in (1, 7):
            m = atoll.compile(g, params={"batch": n})
            x = np.random.default_rng(n).standard_normal((n, 16)).astype(np.float32)
            np.testing.assert_allclose(m.run({"x": x})["y"], sess.run(None, {"x": x})[0], rtol=1e-4, atol=1e-5)

    def test_unsupported_operator_is_a_user_error(self):
        with self.assertRaises(atoll.UserError) as cm:
            atoll.import_onnx(ERRORS / "onnx_unsupported_op.onnx")
        self.assertIn("onnx_unsupported_op.onnx: node 'Loop_12' (Loop): operator not supported", str(cm.exception))

    def test_write_batch_round_trip(self):
        g = atoll.import_onnx(MODELS / "transformer_bits.onnx")
        with tempfile.TemporaryDirectory() as d:
            files = atoll.write_batch(g, os.path.join(d, "t.json"), "t", inline_limit=16)
            self.assertTrue(files[0].endswith("t.json"))
            self.assertTrue(any(f.endswith("w1.npy") for f in files))  # 16x12 values: a file
            report = atoll.run_batch(files[0], verify=True)
        graph = report["graphs"][0]
        self.assertEqual(graph["status"], "ok", graph)
        self.assertTrue(graph["verify"]["passed"], graph)


class BackendTest(unittest.TestCase):
    """atoll.backend: inputs that Atoll needs as constants (a Reshape's
    shape, Clip's bounds) are specialized when the model runs."""

    def model(self):
        from onnx import TensorProto, helper
        nodes = [helper.make_node("Reshape", ["x", "shape"], ["r"]),
                 helper.make_node("Clip", ["r", "lo", "hi"], ["y"])]
        graph = helper.make_graph(
            nodes, "g",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 6]),
             helper.make_tensor_value_info("shape", TensorProto.INT64, [2]),
             helper.make_tensor_value_info("lo", TensorProto.FLOAT, []),
             helper.make_tensor_value_info("hi", TensorProto.FLOAT, [])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])

    def test_run_time_shape_and_bounds(self):
        import atoll.backend
        rep = atoll.backend.prepare(self.model())
        self.assertIsInstance(rep, atoll.backend.SpecializingRep)
        x = np.random.default_rng(1).standard_normal((2, 6)).astype(np.float32)
        lo, hi = np.float32(-0.5), np.float32(0.25)
        for shape in ([3, 4], [4, 3], [3, 4]):
            (y,) = rep.run([x, np.array(shape, np.int64), lo, hi])
            np.testing.assert_array_equal(y, np.clip(x.reshape(shape), lo, hi))
        # the smallest set: all three inputs are needed as constants, x is not
        self.assertEqual(rep.fixed, ["shape", "lo", "hi"])
        self.assertEqual(len(rep.modules), 2)  # one module per distinct values

    def test_unreadable_model_is_skipped_with_the_reason(self):
        import atoll.backend
        from onnx import TensorProto, helper
        graph = helper.make_graph([helper.make_node("Loop", ["n", "c"], ["y"])], "g",
                                  [helper.make_tensor_value_info("n", TensorProto.INT64, []),
                                   helper.make_tensor_value_info("c", TensorProto.BOOL, [])],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        with self.assertRaises(unittest.SkipTest) as cm:
            atoll.backend.prepare(model)
        self.assertIn("(Loop): operator not supported", str(cm.exception))


if __name__ == "__main__":
    unittest.main()
