"""Errors: the exception classes and the location they carry."""
import json
import pickle
import unittest

import numpy as np

import atoll
from common import relu_graph


class Classes(unittest.TestCase):
    def test_hierarchy(self):
        self.assertTrue(issubclass(atoll.UserError, atoll.Error))
        self.assertTrue(issubclass(atoll.OptionError, atoll.UserError))
        self.assertTrue(issubclass(atoll.InternalError, atoll.Error))
        self.assertFalse(issubclass(atoll.InternalError, atoll.UserError))
        self.assertEqual(atoll.UserError.__module__, "atoll")

    def test_pickled_with_its_location(self):
        try:
            atoll.Graph.from_json('{"name": "g",\n  "inputs": [}')
        except atoll.UserError as e:
            copy = pickle.loads(pickle.dumps(e))
            self.assertEqual((type(copy), str(copy), copy.line, copy.column, copy.reason),
                             (atoll.UserError, str(e), 2, e.column, e.reason))


class Locations(unittest.TestCase):
    def test_json_syntax_error_has_line_and_column(self):
        text = '{"name": "g",\n  "inputs": [}'
        for read in (atoll.Graph.from_json, atoll.compile):
            with self.assertRaises(atoll.UserError) as c:
                read(text)
            e = c.exception
            self.assertEqual((e.line, e.column), (2, 14))
            self.assertTrue(str(e).startswith("line 2, column 14: not JSON"), str(e))
            self.assertTrue(e.reason.startswith("not JSON"))
            self.assertIsNone(e.pointer)

    def test_unknown_operator_has_pointer_graph_and_node(self):
        graph = relu_graph("g")
        graph["nodes"].append({"op": "Reluu", "name": "second", "inputs": ["y"], "outputs": ["z"]})
        graph["outputs"] = ["z"]
        for read in (atoll.Graph.from_json, atoll.compile):
            with self.assertRaises(atoll.UserError) as c:
                read(json.dumps(graph))
            e = c.exception
            self.assertEqual((e.pointer, e.graph, e.node, e.line, e.column), ("/nodes/1/op", "g", "second", None, None))
            self.assertEqual(e.reason, "unknown operator 'Reluu'")
            self.assertEqual(str(e), "graph 'g', node 'second', at /nodes/1/op: unknown operator 'Reluu'")

    def test_wrong_field_has_its_pointer(self):
        graph = relu_graph("g")
        graph["inputs"][0]["shape"] = [4, -1]
        with self.assertRaises(atoll.UserError) as c:
            atoll.Graph.from_json(graph)
        self.assertEqual(c.exception.pointer, "/inputs/0/shape/1")

    def test_graph_built_in_code_names_graph_and_node(self):
        g = atoll.Graph("built")
        g.add_input("x", [4])
        g.add_node("Relu", ["q"], ["y"], name="r")
        g.add_output("y")
        with self.assertRaises(atoll.UserError) as c:
            g.finalize()
        self.assertEqual((c.exception.graph, c.exception.node), ("built", "r"))
        self.assertIn("unknown tensor 'q'", c.exception.reason)
        self.assertFalse(g.finalized)
        with self.assertRaisesRegex(atoll.UserError, "finalize"):
            atoll.compile(g)

    def test_builder_arguments(self):
        g = atoll.Graph("args")
        with self.assertRaisesRegex(atoll.UserError, "unknown dtype 'u16'"):
            g.add_input("x", [4], dtype="u16")
        with self.assertRaisesRegex(atoll.UserError, "unknown dtype 'complex64'"):
            g.add_input("x", [4], dtype=np.complex64)
        with self.assertRaisesRegex(atoll.UserError, "a dimension is an integer or a parameter name, got 2.5"):
            g.add_input("x", [2.5])
        with self.assertRaisesRegex(atoll.UserError, "attribute 'perm': expected an int, a float, a str or a list"):
            g.add_node("Transpose", ["x"], ["y"], attrs={"perm": [0, None]})
        g.add_input("x", [4], dtype=np.float16)
        g.add_node("Relu", ["x"], ["y"])
        g.add_output("y")
        g.finalize()
        self.assertEqual(g.tensor_type("y"), atoll.TensorType([4], "f16"))

    def test_compile_options(self):
        with self.assertRaisesRegex(atoll.UserError, "target 'gpu'"):
            atoll.compile(relu_graph(), target="gpu")
        with self.assertRaisesRegex(atoll.UserError, "no symbolic dimension 'N'"):
            atoll.compile(relu_graph(), params={"N": 2})
        with self.assertRaisesRegex(atoll.UserError, "threads must be None, 0"):
            atoll.compile(relu_graph(), threads=-3)
        with self.assertRaisesRegex(atoll.UserError, "scheduler"):
            atoll.compile(relu_graph(), scheduler="magic")


class Batches(unittest.TestCase):
    def batch(self):
        return {"atoll": 1, "name": "b", "graphs": [relu_graph("g1"), relu_graph("g2", shape=(3,))]}

    def test_run_batch_with_verify(self):
        report = atoll.run_batch(self.batch(), verify=True)
        self.assertEqual([g["name"] for g in report["graphs"]], ["g1", "g2"])
        for g in report["graphs"]:
            self.assertEqual(g["status"], "ok", g["error"])
            self.assertTrue(g["verify"]["passed"])

    def test_path_text_and_dict_give_the_same_graphs(self):
        import tempfile, pathlib
        with tempfile.TemporaryDirectory() as d:
            path = pathlib.Path(d) / "b.json"
            path.write_text(json.dumps(self.batch()))
            for batch in (path, str(path), json.dumps(self.batch())):
                report = atoll.run_batch(batch)
                self.assertEqual([g["status"] for g in report["graphs"]], ["ok", "ok"])

    def test_one_failing_graph_and_an_unreadable_batch(self):
        batch = self.batch()
        batch["graphs"][1]["nodes"][0]["op"] = "Nope"
        report = atoll.run_batch(batch)
        self.assertEqual([g["status"] for g in report["graphs"]], ["ok", "error"])
        self.assertIn("unknown operator 'Nope'", report["graphs"][1]["error"])
        self.assertIn("cannot read batch file", atoll.run_batch("/nonexistent/batch.json")["error"])

    def test_parameter_no_graph_declares(self):
        with self.assertRaises(atoll.OptionError) as c:
            atoll.run_batch(self.batch(), params={"N": 3})
        self.assertIn("no graph of the batch declares a parameter 'N'", str(c.exception))


if __name__ == "__main__":
    unittest.main()
