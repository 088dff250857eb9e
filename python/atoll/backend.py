"""ONNX's backend interface (onnx.backend.base) over Atoll, so that ONNX's
own conformance suite runs against it::

    import onnx.backend.test, atoll.backend
    globals().update(onnx.backend.test.BackendTest(atoll.backend, __name__).test_cases)

A model Atoll cannot take (an operator, an attribute value, a dtype it does
not have) is skipped with the reader's reason, found when the model is
prepared; a wrong result or any other error is a failure.
"""
import os
import re
import tempfile
import unittest

import numpy as np

import atoll

try:
    from onnx.backend.base import Backend, BackendRep
except ImportError:  # the package works without onnx; the backend needs it
    Backend, BackendRep = object, object

# Reasons of the reader that say Atoll lacks something (skip), as opposed to
# a model it reads wrongly (fail).
_UNSUPPORTED = re.compile(
    r"not supported|does not support|has element type|Atoll has no|is not supported|"
    r"needs fixed|Atoll needs|no empty tensors|an empty tensor|is empty|must be positive|strings|"
    r"must be a constant|compiles inference")


def _as_onnx_dtype(array, dtype):
    """bf16 outputs (uint16 bits in the package) as ml_dtypes.bfloat16, the
    type onnx gives bfloat16 tensors, when ml_dtypes is there."""
    if dtype == "bf16":
        try:
            import ml_dtypes
            return array.view(ml_dtypes.bfloat16)
        except ImportError:
            pass
    return array


class AtollRep(BackendRep):
    def __init__(self, module):
        self.module = module

    def run(self, inputs, **kwargs):
        if isinstance(inputs, dict):
            feeds = dict(inputs)
        else:
            if not isinstance(inputs, (list, tuple)):
                inputs = [inputs]
            feeds = dict(zip(self.module.inputs, inputs))
        feeds = {k: np.asarray(v) for k, v in feeds.items()}
        out = self.module.run(feeds)
        return tuple(_as_onnx_dtype(out[name], self.module.dtype(name)) for name in self.module.outputs)


class AtollBackend(Backend):
    @classmethod
    def is_compatible(cls, model, device="CPU", **kwargs):
        return device == "CPU"

    @classmethod
    def supports_device(cls, device):
        return device == "CPU"

    @classmethod
    def prepare(cls, model, device="CPU", **kwargs):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "model.onnx")
            with open(path, "wb") as f:
                f.write(model.SerializeToString())
            try:
                graph = atoll.import_onnx(path)
            except atoll.UserError as e:
                if _UNSUPPORTED.search(str(e)):
                    raise unittest.SkipTest(str(e).replace(path + ": ", ""))
                raise
        params = {}
        for name in graph.inputs:
            for dim in graph.tensor_type(name).shape:
                if isinstance(dim, str):
                    params[dim] = 1
        return AtollRep(atoll.compile(graph, params=params or None, threads=1))

    @classmethod
    def run_model(cls, model, inputs, device="CPU", **kwargs):
        return cls.prepare(model, device, **kwargs).run(inputs)

    @classmethod
    def run_node(cls, node, inputs, device="CPU", outputs_info=None, **kwargs):
        raise unittest.SkipTest("run_node: Atoll compiles whole models (the node tests come as models)")


prepare = AtollBackend.prepare
run_model = AtollBackend.run_model
run_node = AtollBackend.run_node
supports_device = AtollBackend.supports_device
is_compatible = AtollBackend.is_compatible
