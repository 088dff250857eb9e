"""Atoll from Python: build or read a graph, compile it, run it on numpy arrays.

    import atoll, numpy as np
    g = atoll.Graph.from_json(text)                  # or atoll.Graph("name") and its add_* methods
    m = atoll.compile(g, params={"N": 64})           # target "cpu" (LLVM JIT) or "cpu-c"
    out = m.run({"x": x, "w": w})                    # {"y": array}: outputs allocated, written in place
    m.run({"x": x, "w": w}, out={"y": y})            # the caller's output arrays, written in place

No copies: the kernels read the input arrays' memory and write the output
arrays' memory. An input that is not what the tensor holds (another dtype of
the same kind, non-contiguous, unaligned) is converted first, unless
``convert=False``; an output array is used as given or refused. Reference:
docs/python.md.
"""

import json as _json
import os as _os

import numpy as _np

from .errors import Error, InternalError, OptionError, UserError
from . import _atoll

__all__ = [
    "Error", "UserError", "OptionError", "InternalError",
    "Graph", "TensorType", "Module", "BoundCall", "compile", "run_batch", "stages",
    "numpy_dtype", "to_bfloat16", "from_bfloat16", "version_text", "import_onnx", "write_batch",
]

Graph = _atoll.Graph
TensorType = _atoll.TensorType


def import_onnx(path, graph_name=""):
    """Reads an ONNX model file into a finalized :class:`Graph`: initializers
    become weights with their values, shape computations fold, symbolic
    dimensions become parameters (docs/onnx.md). Errors are UserErrors whose
    message starts with the file and names the node."""
    return _atoll.import_onnx(_os.fspath(path), graph_name)


def write_batch(graphs, path, batch_name="", inline_limit=64):
    """Writes Graphs as one batch file; weights with more than
    ``inline_limit`` values go to .npy files in STEM.data/ beside it. Returns
    the files written, the batch file first."""
    if isinstance(graphs, Graph):
        graphs = [graphs]
    return _atoll.write_batch(list(graphs), _os.fspath(path), batch_name, inline_limit)

#: "atoll 0.1.0 (isl-..., PPL ..., LLVM ..., host ...)": the library and what it is bound to.
version_text = _atoll.version_text
__version__ = _atoll.version_text().split()[1]

# The numpy dtype of each tensor dtype's buffers. bf16 has none in numpy: its
# buffers are uint16 arrays of bfloat16 bits (ml_dtypes.bfloat16 arrays are
# taken too, through a uint16 view of their memory).
_NUMPY_DTYPES = {
    "f32": _np.dtype(_np.float32),
    "f16": _np.dtype(_np.float16),
    "bf16": _np.dtype(_np.uint16),
    "i8": _np.dtype(_np.int8),
    "i32": _np.dtype(_np.int32),
    "i64": _np.dtype(_np.int64),
    "bool": _np.dtype(_np.bool_),
    "u8": _np.dtype(_np.uint8),
    "f64": _np.dtype(_np.float64),
}


def numpy_dtype(dtype):
    """The numpy dtype of a tensor dtype's buffers: "f32" -> float32, "f16" ->
    float16, "bf16" -> uint16 (bfloat16 bits), "i8", "i32", "i64" -> int8,
    int32, int64, "bool" -> bool, "u8" -> uint8, "f64" -> float64."""
    try:
        return _NUMPY_DTYPES[dtype]
    except KeyError:
        raise UserError(f"unknown dtype '{dtype}' (expected f32, f16, bf16, i8, i32, i64, bool, u8 or f64)") from None


def to_bfloat16(x):
    """The bfloat16 bits (a uint16 array) of ``x``'s values, rounded to
    nearest even as Atoll rounds (values go through float32 first)."""
    src = _np.ascontiguousarray(x, dtype=_np.float32)
    bits = _np.empty(src.shape, dtype=_np.uint16)
    _atoll.float_to_bfloat16(src, bits)
    return bits


def from_bfloat16(bits):
    """The float32 values of bfloat16 bits (a uint16 array); exact."""
    b = _np.asarray(bits)
    if b.dtype.name == "bfloat16":
        b = b.view(_np.uint16)
    if b.dtype != _np.uint16:
        raise UserError(f"from_bfloat16: expected a uint16 array of bfloat16 bits, got {b.dtype}")
    return (b.astype(_np.uint32) << 16).view(_np.float32)


def _is_bfloat16(array):
    # ml_dtypes.bfloat16 (optional): its arrays export no buffer format, so
    # they are passed as uint16 views of the same memory.
    dtype = getattr(array, "dtype", None)
    return isinstance(dtype, _np.dtype) and dtype.name == "bfloat16" and dtype.itemsize == 2


def _as_input(value, dtype, convert):
    """The array whose memory the kernels read for an input of tensor dtype
    ``dtype``: ``value`` itself when it is a C-contiguous, aligned array of
    the tensor's numpy dtype; else, with ``convert``, a converted copy when
    numpy's "same_kind" casting allows it (float64 -> float32, int64 ->
    int32, float -> bfloat16 bits); else ``value`` as it is, which
    _Module.run refuses with a message."""
    if _is_bfloat16(value):
        value = value.view(_np.uint16)
    if not convert:
        return value
    array = value if isinstance(value, _np.ndarray) else _np.asarray(value)
    target = _NUMPY_DTYPES[dtype]
    if array.dtype != target:
        if dtype == "bool" and array.dtype == _np.uint8:
            pass  # uint8 0/1 is what a bool tensor holds
        elif dtype == "bf16":
            if array.dtype.kind != "f":
                return value
            array = to_bfloat16(array)
        elif _np.can_cast(array.dtype, target, "same_kind"):
            array = array.astype(target, order="C")
        else:
            return value
    if not (array.flags.c_contiguous and array.flags.aligned):
        array = _np.array(array, order="C", copy=True)
    return array


class BoundCall:
    """A module with arrays bound to every input and output: ``run()`` runs
    the kernels on that memory, as often as wanted (change the inputs' values
    in place between runs). Made by ``Module.bind``.

    ``inputs``: name -> the array the kernels read (the caller's array, or
    the converted copy when it had to be converted).
    ``outputs``: name -> the array the kernels write (the caller's array, or
    the one allocated for it).
    """

    __slots__ = ("module", "inputs", "outputs", "_bound_inputs", "_bound_outputs")

    def __init__(self, module, inputs, outputs, bound_inputs, bound_outputs):
        self.module = module
        self.inputs = inputs
        self.outputs = outputs
        self._bound_inputs = bound_inputs
        self._bound_outputs = bound_outputs

    def run(self):
        """Runs the module on the bound arrays (the GIL released while the
        kernels run); returns ``outputs``."""
        self.module._m.run(self._bound_inputs, self._bound_outputs)
        return self.outputs


class Module:
    """A compiled graph (atl::Module): its kernels, its own weights (those
    with inline data) and the values of its symbolic dimensions. Made by
    ``atoll.compile``.

    ``run``, ``bind``, ``explain``, ``write`` and the queries may be called
    from several threads at once; each ``run`` works on its own arrays (the
    GIL is released while the kernels run).
    """

    __slots__ = ("_m", "_dtypes", "inputs", "outputs", "own_weights")

    def __init__(self, module):
        self._m = module
        #: The tensors run() takes besides the outputs: the graph's inputs,
        #: then its weights without inline data.
        self.inputs = tuple(module.inputs)
        #: The graph's outputs, in the graph's order.
        self.outputs = tuple(module.outputs)
        #: The weights with inline data: the module's own, never passed.
        self.own_weights = tuple(module.own_weights)
        self._dtypes = {t: module.dtype(t) for t in self.inputs + self.outputs}

    @property
    def name(self):
        """The graph's name."""
        return self._m.name

    @property
    def target(self):
        """The target: "cpu" or "cpu-c"."""
        return self._m.target

    @property
    def params(self):
        """The symbolic dimensions' values the module was compiled at."""
        return dict(self._m.params)

    @property
    def num_kernels(self):
        return self._m.num_kernels

    @property
    def arena_bytes(self):
        """Bytes of one call's arena (intermediates and temporaries)."""
        return self._m.arena_bytes

    def __contains__(self, name):
        """Whether ``name`` is an input or an output."""
        return name in self._dtypes

    def shape(self, name):
        """The shape of an input or output (a tuple), at the module's parameter values."""
        return tuple(self._m.shape(name))

    def dtype(self, name):
        """The dtype of an input or output: "f32", "f16", "bf16", "i8", "i32", "i64" or "bool"."""
        return self._m.dtype(name)

    def numpy_dtype(self, name):
        """The numpy dtype of an input's or output's array (bf16: uint16)."""
        return _NUMPY_DTYPES[self._m.dtype(name)]

    def bytes(self, name):
        """Bytes of an input's or output's buffer."""
        return self._m.bytes(name)

    def empty(self, name):
        """A new uninitialised array for an input or output, of its shape and numpy dtype."""
        return _np.empty(self.shape(name), dtype=self.numpy_dtype(name))

    def bind(self, inputs=None, out=None, *, convert=True):
        """Binds arrays to the module's inputs and outputs for ``run()``.

        ``inputs``: name -> array (or anything numpy.asarray takes) for every
        input. A C-contiguous, aligned array of the tensor's numpy dtype is
        used as it is: the kernels read its memory. Otherwise, with
        ``convert`` (the default), it is converted into a new array when
        numpy's "same_kind" casting allows it (float64 -> float32, int64 ->
        int32; for bf16, float arrays are rounded to bfloat16 bits) or when
        it is not C-contiguous or aligned; what cannot be converted (float
        -> int, int -> bool) is an atoll.UserError. ``convert=False`` refuses
        every array that would need a conversion.

        ``out``: name -> array for any of the outputs: written in place, so
        it must be a writable, C-contiguous array of the tensor's shape and
        numpy dtype (else atoll.UserError). Outputs left out get new arrays
        (numpy.empty; the kernels write them whole).
        """
        inputs = {} if inputs is None else inputs
        out = {} if out is None else out
        bound_inputs = []
        for name, value in inputs.items():
            dtype = self._dtypes.get(name) if name in self.inputs else None
            bound_inputs.append((name, _as_input(value, dtype, convert) if dtype else value))
        outputs = {}
        bound_outputs = []
        for name, value in out.items():
            if name not in self.outputs:
                bound_outputs.append((name, value))  # refused by _Module.run with a message
                continue
            outputs[name] = value
        for name in self.outputs:
            if name not in outputs:
                outputs[name] = self.empty(name)
        outputs = {name: outputs[name] for name in self.outputs}
        for name, value in outputs.items():
            bound_outputs.append((name, value.view(_np.uint16) if _is_bfloat16(value) else value))
        return BoundCall(self, dict(bound_inputs), outputs, bound_inputs, bound_outputs)

    def run(self, inputs=None, out=None, *, convert=True):
        """Runs the module once: ``inputs`` and ``out`` as for ``bind``.
        Returns a dict of every output (in the graph's order): the arrays of
        ``out`` themselves, and new arrays for the others."""
        return self.bind(inputs, out, convert=convert).run()

    def explain(self, stage):
        """The text of one stage as ``atoll explain`` prints it: "scop",
        "deps", "schedule", "ast", "llvm", "c", or a pass of the CPU pipeline
        (``atoll.stages()``)."""
        return self._m.explain(stage)

    @staticmethod
    def stages():
        """The stages explain() accepts: the six fixed ones, then the passes in order."""
        return _atoll._Module.stages()

    def write(self, dir):
        """Writes the module's code into ``dir`` (created if needed): NAME.o and
        NAME.h (cpu) or NAME.c (cpu-c), and folded constants. Returns the
        files written, relative to ``dir``."""
        return self._m.write(_os.fspath(dir))

    def __repr__(self):
        params = "".join(f", {k}={v}" for k, v in self.params.items())
        return (f"<atoll.Module '{self.name}' target={self.target}{params}: "
                f"inputs {list(self.inputs)}, outputs {list(self.outputs)}>")


def stages():
    """The stages Module.explain accepts."""
    return Module.stages()


def _threads(threads):
    """Checks a thread count: None, 0 (all cores) or 1 to 4096."""
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int)
                                or not 0 <= threads <= 4096):
        raise UserError(f"threads must be None, 0 (all cores) or a count from 1 to 4096, got {threads!r}")
    return threads


def compile(graph, *, target="cpu", params=None, threads=None, scheduler=None):
    """Compiles one graph into a Module.

    ``graph``: an ``atoll.Graph`` (finalized), one graph object of the batch
    format as JSON text or a dict, or the path (os.PathLike) of a file
    holding one. ``target``: "cpu" (LLVM JIT) or "cpu-c" (C99 through the
    system C compiler). ``params``: a value for every symbolic dimension.
    ``threads``: the threads parallel loops use, a setting of the whole
    process made now: None leaves it, 0 is all cores. ``scheduler``:
    "isl", "pluto" or "feautrier" (None: the graph's hint). The GIL is
    released while compiling.
    """
    if isinstance(graph, _os.PathLike):
        with open(graph, encoding="utf-8") as f:
            graph = f.read()
    # ModuleOptions::threads: 0 leaves the setting, -1 is all cores.
    threads = _threads(threads)
    module_threads = 0 if threads is None else -1 if threads == 0 else threads
    return Module(_atoll.compile(graph, target, dict(params or {}), module_threads, scheduler or ""))


def run_batch(batch, *, target="cpu", verify=False, bench=False, stats=False, threads=0, params=None,
              scheduler=None):
    """Runs a batch (docs/batch-format.md) as ``atoll run`` does and returns
    its report (report.json, docs/cli.md) as a dict.

    ``batch``: a path (str or os.PathLike), the batch's JSON text (a str
    starting with "{") or a dict. One failing graph does not stop the
    others: each graph's ``status`` ("ok" or "error") and ``error`` say
    how it went; a batch that cannot be read as a whole has
    ``report["error"]``. ``threads``: 0 (or None) is all cores. A
    parameter that no graph declares raises atoll.OptionError.
    """
    if isinstance(batch, dict):
        text, is_path = _json.dumps(batch), False
    elif isinstance(batch, _os.PathLike):
        text, is_path = _os.fspath(batch), True
    elif isinstance(batch, str):
        is_path = not batch.lstrip().startswith("{")
        text = batch
    else:
        raise UserError(f"run_batch: expected a path, JSON text or a dict, got {type(batch).__name__}")
    report = _atoll.run_batch(text, is_path, target, verify, bench, stats, _threads(threads) or 0,
                              dict(params or {}), scheduler or "")
    return _json.loads(report)
