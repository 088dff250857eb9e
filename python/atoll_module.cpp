// The extension module `atoll._atoll` of the Python package (docs/python.md):
// pybind11 bindings of the public C++ API (<atoll/graph.h>, <atoll/module.h>,
// <atoll/driver.h>). atoll/__init__.py builds the public API on top: it
// converts inputs with numpy and allocates outputs, then hands the arrays to
// _Module.run here, which takes their memory through the buffer protocol
// and passes the pointers to atl::Module::run (no copy in or out).
//
// One file holds every binding, so that another entry point of the library
// (an importer returning a GraphBuilder) is one more m.def below.
#include <atoll/diagnostics.h>
#include <atoll/driver.h>
#include <atoll/dtype.h>
#include <atoll/graph.h>
#include <atoll/module.h>
#include <atoll/tune.h>
#include <atoll/onnx.h>
#include <atoll/version.h>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace py = pybind11;
using namespace py::literals;

namespace {

// The exception classes of atoll/errors.py, looked up once when the module
// is imported and kept for the life of the process.
py::handle g_user_error;
py::handle g_option_error;
py::handle g_internal_error;

py::object none_if_empty(const std::string &s) { return s.empty() ? py::object(py::none()) : py::object(py::str(s)); }
py::object none_if_zero(int v) { return v == 0 ? py::object(py::none()) : py::object(py::int_(v)); }

/// Raises `cls` (UserError or OptionError) with the message and the
/// location's fields as keyword arguments (attributes of the exception).
void set_user_error(py::handle cls, const atl::UserError &e) {
  const atl::Location &w = e.where();
  try {
    py::object exc = cls(e.what(), "reason"_a = e.reason(), "pointer"_a = none_if_empty(w.pointer),
                         "graph"_a = none_if_empty(w.graph), "node"_a = none_if_empty(w.node),
                         "line"_a = none_if_zero(w.line), "column"_a = none_if_zero(w.column),
                         "hint"_a = none_if_empty(w.hint));
    PyErr_SetObject(cls.ptr(), exc.ptr());
  } catch (py::error_already_set &failed) {
    failed.restore();  // making the exception failed (out of memory): raise that instead
  }
}

/// "f32" or an ONNX name ("float", "float16"), numpy's names ("float32",
/// "bfloat16" of ml_dtypes), or anything numpy.dtype() takes (np.float32).
atl::DType to_dtype(py::handle obj) {
  std::string name;
  if (py::isinstance<py::str>(obj)) {
    name = obj.cast<std::string>();
    if (auto d = atl::parse_dtype(name)) return *d;
  } else {
    name = py::str(py::module_::import("numpy").attr("dtype")(obj).attr("name"));
  }
  static const std::map<std::string, atl::DType> numpy_names = {
      {"float32", atl::DType::F32}, {"float16", atl::DType::F16}, {"bfloat16", atl::DType::BF16},
      {"int8", atl::DType::I8},     {"int32", atl::DType::I32},   {"int64", atl::DType::I64},
      {"bool", atl::DType::Bool},   {"uint8", atl::DType::U8},    {"float64", atl::DType::F64}};
  if (auto it = numpy_names.find(name); it != numpy_names.end()) return it->second;
  throw atl::UserError("unknown dtype '" + name + "' (expected f32, f16, bf16, i8, i32, i64, bool, u8 or f64)");
}

/// The integer value of an int or a numpy integer; a Python error (as
/// error_already_set) for anything else that claims to be an index.
std::int64_t index_value(py::handle v) {
  PyObject *i = PyNumber_Index(v.ptr());
  if (!i) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(i).cast<std::int64_t>();
}

/// A numpy scalar or array as the Python number or list it holds; anything
/// else as it is.
py::object plain(py::handle v) {
  if (!py::isinstance<py::str>(v) && py::hasattr(v, "tolist")) return v.attr("tolist")();
  return py::reinterpret_borrow<py::object>(v);
}

bool is_int(py::handle v) { return PyLong_Check(v.ptr()); }  // bool is an int too

/// A shape: a sequence of positive integers and parameter names ("N").
atl::SymShape to_shape(py::handle obj) {
  if (py::isinstance<py::str>(obj) || !py::isinstance<py::sequence>(obj))
    throw atl::UserError("a shape is a list of integers and parameter names, got " +
                         std::string(py::str(obj.get_type().attr("__name__"))));
  atl::SymShape shape;
  for (py::handle item : obj) {
    py::object d = plain(item);
    if (py::isinstance<py::str>(d))
      shape.push_back(atl::Dim::sym(d.cast<std::string>()));
    else if (is_int(d))
      shape.push_back(atl::Dim(index_value(d)));
    else
      throw atl::UserError("a dimension is an integer or a parameter name, got " +
                           std::string(py::str(py::repr(d))));
  }
  return shape;
}

py::object from_shape(const atl::SymShape &shape) {
  py::list out;
  for (const atl::Dim &d : shape) {
    if (d.is_symbolic())
      out.append(py::str(d.symbol));
    else
      out.append(py::int_(d.value));
  }
  return py::tuple(out);
}

/// A node attribute: an int, a float, a str, or a list of one of them (a
/// list mixing ints and floats is a list of floats). numpy scalars and
/// arrays count as the Python numbers and lists they hold.
atl::Attr to_attr(const std::string &key, py::handle value) {
  py::object v = plain(value);
  auto bad = [&]() -> atl::UserError {
    return atl::UserError("attribute '" + key + "': expected an int, a float, a str or a list of them, got " +
                          std::string(py::str(py::repr(value))));
  };
  if (py::isinstance<py::str>(v)) return atl::Attr(v.cast<std::string>());
  if (is_int(v)) return atl::Attr(static_cast<long long>(index_value(v)));
  if (PyFloat_Check(v.ptr())) return atl::Attr(v.cast<double>());
  if (!py::isinstance<py::sequence>(v)) throw bad();
  std::vector<py::object> items;
  for (py::handle item : v) items.push_back(plain(item));
  bool all_str = !items.empty(), all_int = true, all_num = true;
  for (const py::object &item : items) {
    bool is_str = py::isinstance<py::str>(item), is_i = is_int(item), is_num = is_i || PyFloat_Check(item.ptr());
    all_str = all_str && is_str;
    all_int = all_int && is_i;
    all_num = all_num && is_num;
  }
  if (all_int) {
    std::vector<std::int64_t> ints;
    for (const py::object &item : items) ints.push_back(index_value(item));
    return atl::Attr(std::move(ints));
  }
  if (all_num) {
    std::vector<double> nums;
    for (const py::object &item : items) nums.push_back(item.cast<double>());
    return atl::Attr(std::move(nums));
  }
  if (all_str) {
    std::vector<std::string> strs;
    for (const py::object &item : items) strs.push_back(item.cast<std::string>());
    return atl::Attr(std::move(strs));
  }
  throw bad();
}

/// A graph object of the batch format as text: a str as it is, a dict (or
/// list) through json.dumps.
std::string graph_text(py::handle obj) {
  if (py::isinstance<py::str>(obj)) return obj.cast<std::string>();
  if (py::isinstance<py::dict>(obj)) return py::str(py::module_::import("json").attr("dumps")(obj));
  throw atl::UserError("a graph is JSON text or a dict, got " + std::string(py::str(obj.get_type().attr("__name__"))));
}

// ---------------------------------------------------------------------------
// Buffers of a call.

/// A Py_buffer held for the duration of a call; the exporter (the numpy
/// array) stays alive and cannot be resized while it is held. Released with
/// the GIL held (the owner's destructor runs after the GIL is taken back).
struct HeldBuffer {
  Py_buffer view{};
  bool held = false;
  HeldBuffer() = default;
  HeldBuffer(const HeldBuffer &) = delete;
  HeldBuffer &operator=(const HeldBuffer &) = delete;
  ~HeldBuffer() {
    if (held) PyBuffer_Release(&view);
  }
};

/// The numpy name of a buffer's element format ("float64"), or the format
/// itself when it has none; `big_endian` tells whether it names a
/// non-native byte order.
std::string format_name(const Py_buffer &v, bool *big_endian = nullptr) {
  std::string f = v.format ? v.format : "B";
  bool foreign = false;
  if (!f.empty() && (f[0] == '@' || f[0] == '=' || f[0] == '<')) f = f.substr(1);
  else if (!f.empty() && (f[0] == '>' || f[0] == '!')) f = f.substr(1), foreign = true;
  if (big_endian) *big_endian = foreign;
  std::string base;
  if (f.size() == 1) {
    switch (f[0]) {
      case 'e': case 'f': case 'd': case 'g': base = "float"; break;
      case 'b': case 'h': case 'i': case 'l': case 'q': case 'n': base = "int"; break;
      case 'B': case 'H': case 'I': case 'L': case 'Q': case 'N': base = "uint"; break;
      case '?': return foreign ? "big-endian bool" : "bool";
      default: break;
    }
  }
  if (base.empty()) return "format '" + std::string(v.format ? v.format : "B") + "'";
  return (foreign ? "big-endian " : "") + base + std::to_string(v.itemsize * 8);
}

/// Whether a buffer's elements are what a tensor of `dtype` holds: f32 =
/// float32, f16 = float16, bf16 = uint16 bits, i8/i32/i64 = int8/int32/int64,
/// bool = bool or uint8 (0 or 1), u8 = uint8, f64 = float64, in the
/// machine's byte order.
bool format_matches(const std::string &dtype, const Py_buffer &v) {
  bool foreign = false;
  std::string name = format_name(v, &foreign);
  if (foreign) return false;
  if (dtype == "f32") return name == "float32";
  if (dtype == "f16") return name == "float16";
  if (dtype == "bf16") return name == "uint16";
  if (dtype == "i8") return name == "int8";
  if (dtype == "i32") return name == "int32";
  if (dtype == "i64") return name == "int64";
  if (dtype == "bool") return name == "bool" || name == "uint8";
  if (dtype == "u8") return name == "uint8";
  if (dtype == "f64") return name == "float64";
  return false;
}

/// The numpy dtype that holds a tensor of `dtype`, for messages.
std::string numpy_name(const std::string &dtype) {
  static const std::map<std::string, std::string> names = {
      {"f32", "float32"}, {"f16", "float16"}, {"bf16", "uint16 (bfloat16 bits)"}, {"i8", "int8"},
      {"i32", "int32"},   {"i64", "int64"},   {"bool", "bool"}, {"u8", "uint8"}, {"f64", "float64"}};
  auto it = names.find(dtype);
  return it == names.end() ? dtype : it->second;
}

std::string shape_text(const std::vector<std::int64_t> &shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

std::string join(const std::vector<std::string> &names) {
  std::string s;
  for (const std::string &n : names) s += (s.empty() ? "" : ", ") + n;
  return s.empty() ? "(none)" : s;
}

/// Takes the buffer of one input or output and checks it against the
/// tensor: the element type, the shape, C-contiguous, aligned to its
/// element, and (outputs) writable. Every refusal is a UserError naming the
/// graph and the tensor.
void take_buffer(const atl::Module &m, const std::string &name, py::handle obj, bool output, HeldBuffer &b) {
  const char *role = output ? "output" : "input";
  const std::string dtype = m.dtype(name);
  const std::vector<std::int64_t> shape = m.shape(name);
  const std::string want = "a C-contiguous " + numpy_name(dtype) + " array of shape " + shape_text(shape);
  const std::string advice =
      output ? " (outputs are written in place: pass such an array, e.g. np.empty(m.shape(name), m.numpy_dtype(name)), or "
               "leave the output out and run allocates it)"
             : " (run(..., convert=True) converts arrays of the same kind and non-contiguous arrays)";
  auto fail = [&](const std::string &reason) {
    atl::Location where;
    where.graph = m.name();
    throw atl::UserError(std::string(role) + " '" + name + "': " + reason, where);
  };
  if (!PyObject_CheckBuffer(obj.ptr()))
    fail("expected " + want + ", got " + std::string(py::str(obj.get_type().attr("__name__"))) + advice);
  if (PyObject_GetBuffer(obj.ptr(), &b.view, PyBUF_RECORDS_RO) != 0) {
    py::error_already_set err;  // takes the BufferError, e.g. a dtype without a buffer format
    fail("its memory cannot be taken (" + std::string(err.what()) + "); expected " + want);
  }
  b.held = true;
  const Py_buffer &v = b.view;
  std::vector<std::int64_t> got(v.shape, v.shape + v.ndim);
  std::string got_text = format_name(v) + " array of shape " + shape_text(got);
  if (!format_matches(dtype, v)) fail("got a " + got_text + ", expected " + want + advice);
  if (got != shape) fail("got a " + got_text + ", expected " + want);
  if (!PyBuffer_IsContiguous(&v, 'C')) fail("the array is not C-contiguous; expected " + want + advice);
  if (reinterpret_cast<std::uintptr_t>(v.buf) % static_cast<std::uintptr_t>(v.itemsize) != 0)
    fail("the array's memory is not aligned to its " + std::to_string(v.itemsize) + "-byte elements" + advice);
  if (output && v.readonly) fail("the array is read-only");
  if (v.len != m.bytes(name))
    fail("the buffer has " + std::to_string(v.len) + " bytes, expected " + std::to_string(m.bytes(name)));
}

/// Module::run on the arrays of `inputs` and `outputs` (lists of (name,
/// array) pairs): every name checked for its role, every buffer taken and
/// checked, outputs checked not to overlap any other buffer, then the
/// kernels run on the arrays' memory with the GIL released.
void run_module(const atl::Module &m, const std::vector<std::pair<std::string, py::object>> &inputs,
                const std::vector<std::pair<std::string, py::object>> &outputs) {
  atl::Location where;
  where.graph = m.name();
  auto contains = [](const std::vector<std::string> &v, const std::string &s) {
    return std::find(v.begin(), v.end(), s) != v.end();
  };
  for (const auto &[name, obj] : inputs) {
    if (contains(m.inputs(), name)) continue;
    if (contains(m.outputs(), name))
      throw atl::UserError("'" + name + "' is an output, not an input: pass it in out=", where);
    if (contains(m.own_weights(), name))
      throw atl::UserError("'" + name + "' is a weight with inline data (the module's own); the inputs: " +
                               join(m.inputs()),
                           where);
    throw atl::UserError("'" + name + "' is not an input; the inputs: " + join(m.inputs()), where);
  }
  for (const auto &[name, obj] : outputs) {
    if (contains(m.outputs(), name)) continue;
    if (contains(m.inputs(), name))
      throw atl::UserError("'" + name + "' is an input, not an output: pass it in the inputs", where);
    throw atl::UserError("'" + name + "' is not an output; the outputs: " + join(m.outputs()), where);
  }
  std::vector<std::string> missing;
  for (const std::string &name : m.inputs()) {
    bool given = false;
    for (const auto &in : inputs) given = given || in.first == name;
    if (!given) missing.push_back(name);
  }
  if (!missing.empty())
    throw atl::UserError(std::string(missing.size() == 1 ? "input " : "inputs ") + join(missing) +
                             (missing.size() == 1 ? " is" : " are") + " missing; the inputs: " + join(m.inputs()),
                         where);

  const std::size_t n = inputs.size() + outputs.size();
  std::unique_ptr<HeldBuffer[]> held(new HeldBuffer[n]);
  std::vector<atl::Binding> bindings(n);
  for (std::size_t i = 0; i < n; ++i) {
    bool output = i >= inputs.size();
    const auto &[name, obj] = output ? outputs[i - inputs.size()] : inputs[i];
    take_buffer(m, name, obj, output, held[i]);
    bindings[i] = {name.c_str(), held[i].view.buf};
  }
  // Module::run requires buffers that do not overlap: inputs are only read,
  // so two inputs may share memory; an output may share none.
  for (std::size_t o = inputs.size(); o < n; ++o)
    for (std::size_t i = 0; i < n; ++i) {
      if (i == o) continue;
      auto lo = [&](std::size_t k) { return static_cast<const char *>(held[k].view.buf); };
      auto hi = [&](std::size_t k) { return lo(k) + held[k].view.len; };
      if (lo(o) < hi(i) && lo(i) < hi(o))
        throw atl::UserError("output '" + std::string(bindings[o].name) + "' overlaps " +
                                 (i < inputs.size() ? "input '" : "output '") + bindings[i].name +
                                 "': every output needs its own memory",
                             where);
    }
  py::gil_scoped_release release;
  m.run(bindings.data(), bindings.size());
}

atl::ModuleOptions module_options(const std::string &target, const std::map<std::string, std::int64_t> &params,
                                  int threads, const std::string &scheduler) {
  atl::ModuleOptions o;
  o.target = target;
  o.params = params;
  o.threads = threads;
  o.scheduler = scheduler;
  return o;
}

}  // namespace

PYBIND11_MODULE(_atoll, m) {
  m.doc() = "Atoll's C++ API for the Python package `atoll` (use `import atoll`; docs/python.md).";

  py::module_ errors = py::module_::import("atoll.errors");
  g_user_error = py::object(errors.attr("UserError")).release();
  g_option_error = py::object(errors.attr("OptionError")).release();
  g_internal_error = py::object(errors.attr("InternalError")).release();
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const atl::OptionError &e) {
      set_user_error(g_option_error, e);
    } catch (const atl::UserError &e) {
      set_user_error(g_user_error, e);
    } catch (const atl::InternalError &e) {
      PyErr_SetString(g_internal_error.ptr(), e.what());
    }
  });

  m.def("version_text", &atl::version_text);

  py::class_<atl::TensorType>(m, "TensorType", "A tensor's element type and (possibly symbolic) shape.")
      .def(py::init([](py::handle shape, py::handle dtype) { return atl::TensorType{to_dtype(dtype), to_shape(shape)}; }),
           "shape"_a, "dtype"_a = "f32")
      .def_property_readonly("dtype", [](const atl::TensorType &t) { return std::string(atl::dtype_name(t.dtype)); },
                             "\"f32\", \"f16\", \"bf16\", \"i8\", \"i32\", \"i64\" or \"bool\"")
      .def_property_readonly("shape", [](const atl::TensorType &t) { return from_shape(t.shape); },
                             "A tuple of ints and parameter names (\"N\").")
      .def_property_readonly("rank", &atl::TensorType::rank)
      .def("__eq__", [](const atl::TensorType &a, const atl::TensorType &b) { return a.dtype == b.dtype && a.shape == b.shape; })
      .def("__str__", &atl::TensorType::str)
      .def("__repr__", [](const atl::TensorType &t) { return "TensorType('" + t.str() + "')"; });

  py::class_<atl::GraphBuilder>(m, "Graph", R"doc(A graph of operators under construction (atl::GraphBuilder).

Declare its parameters, inputs, weights, nodes and outputs, then finalize():
it infers every produced tensor's type and checks the whole graph, raising
atoll.UserError with the graph and node. Graph.from_json reads one graph
object of the batch format (docs/batch-format.md), finalized.)doc")
      .def(py::init<std::string>(), "name"_a)
      .def_static(
          "from_json", [](py::handle text) { return atl::GraphBuilder::from_json(graph_text(text)); }, "graph"_a,
          "One graph object of the batch format (JSON text or a dict), read and finalized. Errors carry the "
          "JSON pointer, or the line and column of a syntax error.")
      .def("add_param", &atl::GraphBuilder::add_param, "name"_a, "min"_a, "max"_a,
           "A symbolic dimension `name` (used in shapes as the string) with its range.")
      .def(
          "add_input",
          [](atl::GraphBuilder &g, const std::string &name, py::handle shape, py::handle dtype, const std::string &init) {
            g.add_input(name, {to_dtype(dtype), to_shape(shape)}, init);
          },
          "name"_a, "shape"_a, "dtype"_a = "f32", "init"_a = "",
          "A run-time input; `init` says how run_batch's verify makes test data (\"uniform(-1,1)\").")
      .def(
          "add_weight",
          [](atl::GraphBuilder &g, const std::string &name, py::handle shape, py::handle dtype, const std::string &init) {
            g.add_weight(name, {to_dtype(dtype), to_shape(shape)}, init);
          },
          "name"_a, "shape"_a, "dtype"_a = "f32", "init"_a = "", "A weight the caller passes at run time.")
      .def(
          "add_weight_data",
          [](atl::GraphBuilder &g, const std::string &name, py::handle data, py::handle dtype, py::handle shape) {
            // The values as a dense float64 array; the module rounds them to the dtype.
            py::module_ np = py::module_::import("numpy");
            py::object values = np.attr("ascontiguousarray")(data, "dtype"_a = np.attr("float64"));
            atl::SymShape s = shape.is_none() ? to_shape(values.attr("shape")) : to_shape(shape);
            py::buffer_info info = py::buffer(values).request();
            const double *p = static_cast<const double *>(info.ptr);
            g.add_weight_data(name, {to_dtype(dtype), std::move(s)}, std::vector<double>(p, p + info.size));
          },
          "name"_a, "data"_a, "dtype"_a = "f32", "shape"_a = py::none(),
          "A weight with its values (an array or nested lists; `shape` defaults to the data's): a compile-time "
          "constant that the module owns.")
      .def(
          "add_node",
          [](atl::GraphBuilder &g, const std::string &op, std::vector<std::string> inputs,
             std::vector<std::string> outputs, std::optional<py::dict> attrs, const std::string &name) {
            std::map<std::string, atl::Attr> a;
            if (attrs)
              for (auto [k, v] : *attrs) {
                std::string key = py::str(k);
                a.emplace(key, to_attr(key, v));
              }
            g.add_node(op, std::move(inputs), std::move(outputs), a, name);
          },
          "op"_a, "inputs"_a, "outputs"_a, "attrs"_a = py::none(), "name"_a = "",
          "An operator application (docs/batch-format.md, \"Operators\"); `name` defaults to \"n<position>\".")
      .def("add_output", &atl::GraphBuilder::add_output, "name"_a)
      .def("finalize", &atl::GraphBuilder::finalize, "Checks the graph and infers its types.")
      .def_property_readonly("finalized", &atl::GraphBuilder::finalized)
      .def_property_readonly("name", &atl::GraphBuilder::name)
      .def_property_readonly("inputs", &atl::GraphBuilder::inputs)
      .def_property_readonly("weights", &atl::GraphBuilder::weights)
      .def_property_readonly("outputs", &atl::GraphBuilder::outputs)
      .def("tensor_type", &atl::GraphBuilder::tensor_type, "tensor"_a,
           "The type of a declared or (once finalized) produced tensor.")
      .def("flops", &atl::GraphBuilder::flops, "params"_a = std::map<std::string, std::int64_t>{},
           "Total FLOPs of the operators (finalized; symbolic dimensions at `params`).")
      .def("text", &atl::GraphBuilder::text, "The graph as `atoll explain --stage graph` prints it (finalized).")
      .def("dot", &atl::GraphBuilder::dot, "Its Graphviz form (finalized).")
      .def("copy", [](const atl::GraphBuilder &g) { return atl::GraphBuilder(g); }, "An independent copy.")
      .def("__copy__", [](const atl::GraphBuilder &g) { return atl::GraphBuilder(g); })
      .def("__deepcopy__", [](const atl::GraphBuilder &g, py::handle) { return atl::GraphBuilder(g); }, "memo"_a)
      .def("__repr__", [](const atl::GraphBuilder &g) {
        return "<atoll.Graph '" + g.name() + "'" + (g.finalized() ? "" : " (not finalized)") + ">";
      });

  py::class_<atl::Module>(m, "_Module", "A compiled graph (atl::Module); atoll.Module wraps it.")
      .def_property_readonly("name", &atl::Module::name)
      .def_property_readonly("target", &atl::Module::target)
      .def_property_readonly("inputs", &atl::Module::inputs)
      .def_property_readonly("outputs", &atl::Module::outputs)
      .def_property_readonly("own_weights", &atl::Module::own_weights)
      .def_property_readonly("params", &atl::Module::params)
      .def_property_readonly("num_kernels", &atl::Module::num_kernels)
      .def_property_readonly("arena_bytes", &atl::Module::arena_bytes)
      .def("has_tensor", &atl::Module::has_tensor, "name"_a)
      .def("shape", &atl::Module::shape, "name"_a)
      .def("dtype", &atl::Module::dtype, "name"_a)
      .def("bytes", &atl::Module::bytes, "name"_a)
      .def("explain", &atl::Module::explain, "stage"_a, py::call_guard<py::gil_scoped_release>())
      .def("write", &atl::Module::write, "dir"_a, py::call_guard<py::gil_scoped_release>())
      .def_static("stages", &atl::Module::stages)
      .def("run", &run_module, "inputs"_a, "outputs"_a,
           "Runs the kernels on the arrays' memory: lists of (name, array) pairs, checked, no conversion.");

  m.def(
      "compile",
      [](py::handle graph, const std::string &target, const std::map<std::string, std::int64_t> &params, int threads,
         const std::string &scheduler) {
        atl::ModuleOptions o = module_options(target, params, threads, scheduler);
        if (py::isinstance<atl::GraphBuilder>(graph)) {
          // A copy, so that no other thread changes the graph while it compiles.
          atl::GraphBuilder g = graph.cast<const atl::GraphBuilder &>();
          py::gil_scoped_release release;
          return atl::compile(g, o);
        }
        std::string text = graph_text(graph);
        py::gil_scoped_release release;
        return atl::compile_graph_json(text, o);
      },
      "graph"_a, "target"_a, "params"_a, "threads"_a, "scheduler"_a);

  m.def(
      "run_batch",
      [](const std::string &batch, bool is_path, const std::string &target, bool verify, bool bench, bool stats,
         int threads, const std::map<std::string, std::int64_t> &params, const std::string &scheduler) {
        atl::PipelineOptions o;
        o.mode = atl::PipelineOptions::Mode::Run;
        o.target = target;
        o.verify = verify;
        o.bench = bench;
        o.stats = stats;
        o.threads = threads;
        o.params = params;
        o.scheduler = scheduler;
        py::gil_scoped_release release;
        atl::BatchResult r = is_path ? atl::run_batch_file(batch, o) : atl::run_batch(batch, o);
        return r.report_json;
      },
      "batch"_a, "is_path"_a, "target"_a, "verify"_a, "bench"_a, "stats"_a, "threads"_a, "params"_a, "scheduler"_a);

  m.def(
      "import_onnx",
      [](const std::string &path, const std::string &graph_name) {
        atl::OnnxImportOptions o;
        o.graph_name = graph_name;
        py::gil_scoped_release release;
        return atl::import_onnx(path, o);
      },
      "path"_a, "graph_name"_a = "",
      "Reads an ONNX model (.onnx) into a finalized Graph (docs/onnx.md).");
  m.def(
      "write_batch",
      [](const std::vector<atl::GraphBuilder> &graphs, const std::string &path, const std::string &batch_name,
         std::int64_t inline_limit) { return atl::write_batch(graphs, path, batch_name, inline_limit); },
      "graphs"_a, "path"_a, "batch_name"_a = "", "inline_limit"_a = 64,
      "Writes graphs as a batch file; weights above inline_limit values as .npy files in STEM.data/.");

  // Tuning (include/atoll/tune.h, docs/tuning.md): spaces, points measured
  // one by one in a child `atoll tune-worker`, points explained, records as
  // JSON lines (atoll/tune.py wraps these).
  m.def(
      "search_spaces",
      [](const std::string &path, const std::string &graph, const std::map<std::string, std::int64_t> &params) {
        std::vector<atl::ClusterSpace> spaces;
        {
          py::gil_scoped_release release;
          spaces = atl::search_spaces(path, graph, params);
        }
        py::list out;
        for (const atl::ClusterSpace &s : spaces) {
          py::list knobs;
          for (const atl::TuneKnob &k : s.knobs)
            knobs.append(py::dict("name"_a = k.name, "type"_a = k.type, "values"_a = k.values,
                                  "default"_a = k.default_value, "description"_a = k.description));
          out.append(py::dict("graph"_a = s.graph, "cluster"_a = s.cluster, "key"_a = s.key, "family"_a = s.family,
                              "shape"_a = s.shape, "knobs"_a = knobs));
        }
        return out;
      },
      "path"_a, "graph"_a = "", "params"_a = std::map<std::string, std::int64_t>{});
  py::class_<atl::PointMeasurer>(m, "_PointMeasurer")
      .def(py::init([](const std::string &worker, double timeout_s, std::int64_t memory_mb,
                       const std::map<std::string, std::int64_t> &params) {
             atl::TuneOptions o;
             o.worker = worker;
             o.timeout_s = timeout_s;
             o.memory_mb = memory_mb;
             o.params = params;
             return std::make_unique<atl::PointMeasurer>(o);
           }),
           "worker"_a, "timeout_s"_a, "memory_mb"_a, "params"_a)
      .def(
          "measure",
          [](atl::PointMeasurer &pm, const std::string &path, const std::string &graph, const std::string &cluster,
             const std::string &key, const std::string &family, const std::vector<long> &shape,
             const std::map<std::string, std::string> &point, const std::string &verify) {
            atl::ClusterSpace s;
            s.graph = graph;
            s.cluster = cluster;
            s.key = key;
            s.family = family;
            s.shape = shape;
            py::gil_scoped_release release;
            return atl::tune_record_json(pm.measure(path, s, point, verify));
          },
          "path"_a, "graph"_a, "cluster"_a, "key"_a, "family"_a, "shape"_a, "point"_a, "verify"_a);
  m.def(
      "explain_point",
      [](const std::string &path, const std::string &graph, const std::string &key,
         const std::map<std::string, std::string> &point, const std::string &stage) {
        py::gil_scoped_release release;
        return atl::explain_point(path, graph, key, point, stage);
      },
      "path"_a, "graph"_a, "key"_a, "point"_a, "stage"_a);
  m.def("read_records", [](const std::string &path) {
    std::vector<std::string> lines;
    for (const atl::TuneRecord &r : atl::read_tune_records(path)) lines.push_back(atl::tune_record_json(r));
    return lines;
  });
  m.def("append_record", [](const std::string &path, const std::string &json_line) {
    atl::append_tune_record(path, atl::parse_tune_record(json_line));
  });
  m.def("tune_machine_id", &atl::tune_machine_id);

  m.def(
      "float_to_bfloat16",
      [](py::buffer src, py::buffer dst) {
        // Elementwise f32 -> bf16 bits, rounded as the library rounds (atl::float_to_bfloat).
        py::buffer_info s = src.request(), d = dst.request(true);
        if (s.format != py::format_descriptor<float>::format() || s.size != d.size || d.itemsize != 2 ||
            !PyBuffer_IsContiguous(s.view(), 'C') || !PyBuffer_IsContiguous(d.view(), 'C'))
          throw atl::UserError("float_to_bfloat16: expected a contiguous float32 array and a uint16 array of its size");
        const float *p = static_cast<const float *>(s.ptr);
        std::uint16_t *q = static_cast<std::uint16_t *>(d.ptr);
        for (py::ssize_t i = 0; i < s.size; ++i) q[i] = atl::float_to_bfloat(p[i]);
      },
      "src"_a, "dst"_a);
}
