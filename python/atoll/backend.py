"""ONNX's backend interface (onnx.backend.base) over Atoll, so that ONNX's
own conformance suite runs against it::

    import onnx.backend.test, atoll.backend
    globals().update(onnx.backend.test.BackendTest(atoll.backend, __name__).test_cases)

A model Atoll cannot take (an operator, an attribute value, a dtype it does
not have) is skipped with the reader's reason, found when the model is
prepared; a wrong result or any other error is a failure.

Atoll compiles shapes, axes, pads and the like as constants. A model that
gives one of them as a graph input (a Reshape's shape, a ReduceSum's axes,
a Clip's bounds fed at run time) is compiled when it runs, with the values of
those inputs made initializers: the smallest set of inputs that lets the
model be read, found by dropping inputs from the set one at a time. One
module is compiled for each distinct set of such values and kept.
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
# The reasons that a run-time value would remove.
_NEEDS_CONSTANT = re.compile(r"must be a constant")


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


def _feeds(names, inputs):
    """The inputs as a dict by name (a list is in the model's input order)."""
    if isinstance(inputs, dict):
        feeds = dict(inputs)
    else:
        if not isinstance(inputs, (list, tuple)):
            inputs = [inputs]
        feeds = dict(zip(names, inputs))
    return {k: np.asarray(v) for k, v in feeds.items()}


def _import(model):
    """atoll.import_onnx of an in-memory model (the reader takes files)."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "model.onnx")
        with open(path, "wb") as f:
            f.write(model.SerializeToString())
        try:
            return atoll.import_onnx(path)
        except atoll.UserError as e:
            raise atoll.UserError(str(e).replace(path + ": ", "")) from None


def _compile(graph):
    params = {}
    for name in graph.inputs:
        for dim in graph.tensor_type(name).shape:
            if isinstance(dim, str):
                params[dim] = 1
    return atoll.compile(graph, params=params or None, threads=1)


def _skip_or_raise(error):
    if _UNSUPPORTED.search(str(error)):
        raise unittest.SkipTest(str(error))
    raise error


class AtollRep(BackendRep):
    def __init__(self, module):
        self.module = module

    def run(self, inputs, **kwargs):
        feeds = _feeds(self.module.inputs, inputs)
        out = self.module.run(feeds)
        return tuple(_as_onnx_dtype(out[name], self.module.dtype(name)) for name in self.module.outputs)


class SpecializingRep(BackendRep):
    """A model that needs some graph inputs as constants: each run makes
    them initializers with the values given, and compiles (once per distinct
    values) the model that results."""

    def __init__(self, model):
        self.model = model
        init = {t.name for t in model.graph.initializer}
        self.inputs = [i.name for i in model.graph.input if i.name not in init]
        self.outputs = [o.name for o in model.graph.output]
        self.fixed = None  # the inputs made constant, found at the first run
        self.modules = {}

    def _with_constants(self, feeds, names):
        from onnx import numpy_helper
        m = type(self.model)()
        m.CopyFrom(self.model)
        keep = [i for i in m.graph.input if i.name not in names]
        del m.graph.input[:]
        m.graph.input.extend(keep)
        for name in names:
            m.graph.initializer.append(numpy_helper.from_array(np.ascontiguousarray(feeds[name]), name))
        if m.ir_version < 4:  # initializers that are not inputs came with IR version 4
            m.ir_version = 4
        return m

    def _find_fixed(self, feeds):
        """The smallest set of inputs (by dropping one at a time from all of
        them) whose values let the model be read."""
        names = [n for n in self.inputs if n in feeds]
        try:
            _import(self._with_constants(feeds, names))
        except atoll.UserError as e:
            _skip_or_raise(e)
        for name in list(reversed(names)):
            trial = [n for n in names if n != name]
            try:
                _import(self._with_constants(feeds, trial))
                names = trial
            except atoll.UserError:
                pass
        return names

    def run(self, inputs, **kwargs):
        feeds = _feeds(self.inputs, inputs)
        if self.fixed is None:
            self.fixed = self._find_fixed(feeds)
        key = tuple((n, feeds[n].dtype.str, feeds[n].shape, feeds[n].tobytes()) for n in self.fixed)
        module = self.modules.get(key)
        if module is None:
            try:
                graph = _import(self._with_constants(feeds, self.fixed))
            except atoll.UserError as e:
                _skip_or_raise(e)
            module = self.modules[key] = _compile(graph)
        rest = {n: v for n, v in feeds.items() if n not in self.fixed}
        out = module.run(rest)
        # An output that is a fixed input itself is not an output of the module.
        return tuple(_as_onnx_dtype(out[n], module.dtype(n)) if n in out else feeds[n] for n in self.outputs)


class AtollBackend(Backend):
    @classmethod
    def is_compatible(cls, model, device="CPU", **kwargs):
        return device == "CPU"

    @classmethod
    def supports_device(cls, device):
        return device == "CPU"

    @classmethod
    def prepare(cls, model, device="CPU", **kwargs):
        try:
            graph = _import(model)
        except atoll.UserError as e:
            if _NEEDS_CONSTANT.search(str(e)):
                return SpecializingRep(model)
            _skip_or_raise(e)
        return AtollRep(_compile(graph))

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
