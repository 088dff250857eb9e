// The C API (include/atoll/atoll.h, docs/c-api.md): one graph object of the
// batch format compiled with compile_graph and run with run_compiled on the
// caller's buffers. No exception leaves this file: each entry point catches
// everything and answers with NULL or non-zero and a malloc'ed message.
#include <atoll/atoll.h>

#include <atoll/batch.h>
#include <atoll/pipeline.h>

#include "backends/cpu/cpu_backend.h"
#include "graph/passes/check_constant_indices.h"
#include "src/frontend/json_text.h"
#include "src/pipeline/compile_graph.h"
#include "src/runtime/init_data.h"

#include <cfenv>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <set>
#include <string>
#include <vector>

/// A compiled graph (opaque to C).
struct atoll_module {
  atl::Graph graph;     ///< as read (symbolic)
  atl::Graph concrete;  ///< at `params`: what run_compiled runs
  std::map<std::string, std::int64_t> params;
  atl::CompiledGraph compiled;
  std::map<std::string, atl::Tensor> own;  ///< weights with inline data
  std::vector<std::string> inputs;         ///< what the caller passes: inputs, then weights without data
  std::vector<std::string> outputs;
  std::mutex explain_mutex;                          ///< guards `explained`
  std::map<std::string, std::string> explained;      ///< stage -> text (node-based: c_str stays valid)
};

namespace {

using nlohmann::json;

/// A malloc'ed copy of a message for the caller (freed by atoll_string_free).
char *dup_message(const std::string &text) {
  char *s = static_cast<char *>(std::malloc(text.size() + 1));
  if (s) std::memcpy(s, text.c_str(), text.size() + 1);
  return s;
}

void set_error(char **error, const std::string &text) {
  if (error) *error = dup_message(text);
}

void clear_error(char **error) {
  if (error) *error = nullptr;
}

/// An error of the API's own checks (bad arguments): reported without context.
struct ApiError {
  std::string message;
};

/// Pointers of errors inside the graph are made relative to the graph object
/// the caller gave: the batch reader and the compiler see it as /graphs/0.
atl::UserError relative_to_graph(const atl::UserError &e) {
  static const std::string prefix = "/graphs/0";
  atl::Location where = e.where();
  if (where.pointer.rfind(prefix, 0) == 0 &&
      (where.pointer.size() == prefix.size() || where.pointer[prefix.size()] == '/'))
    where.pointer = where.pointer.substr(prefix.size());
  return atl::UserError(e.reason(), where);
}

/// Runs `body`, turning every exception into a message. Returns false on failure.
template <typename Body>
bool guarded(char **error, const std::string &context, Body &&body) {
  try {
    body();
    return true;
  } catch (const ApiError &e) {
    set_error(error, e.message);
  } catch (const atl::UserError &e) {
    set_error(error, context + relative_to_graph(e).what());
  } catch (const std::bad_alloc &) {
    set_error(error, context + "out of memory");
  } catch (const std::exception &e) {
    set_error(error, context + e.what());
  } catch (...) {
    set_error(error, context + "unknown error");
  }
  return false;
}

/// Reads one graph object: parsed here (syntax errors with line and column
/// in the caller's text), read and checked as graph 0 of a batch.
atl::Graph read_graph_object(const char *text) {
  json g = atl::frontend::parse_json(text);
  if (!g.is_object()) throw atl::UserError("expected a graph object (batch-format.md), got " + std::string(g.type_name()));
  json batch = {{"atoll", 1}, {"graphs", json::array({std::move(g)})}};
  atl::Batch b = atl::read_batch(batch.dump());
  atl::BatchGraph &entry = b.graphs.at(0);
  if (entry.error) throw *entry.error;
  return std::move(*entry.graph);
}

struct Options {
  std::string target = "cpu";
  std::optional<int> threads;
  std::map<std::string, std::int64_t> params;
  std::string scheduler;
};

Options read_options(const char *text) {
  Options o;
  if (!text || !*text) return o;
  json j;
  try {
    j = atl::frontend::parse_json(text);
  } catch (const atl::UserError &e) {
    throw ApiError{std::string("options: ") + e.what()};
  }
  if (!j.is_object()) throw ApiError{"options: expected a JSON object, got " + std::string(j.type_name())};
  for (const auto &[key, v] : j.items()) {
    if (key == "target") {
      if (!v.is_string()) throw ApiError{"options: \"target\" must be a string"};
      o.target = v.get<std::string>();
    } else if (key == "threads") {
      if (!v.is_number_integer() || v.get<std::int64_t>() < 0 || v.get<std::int64_t>() > 4096)
        throw ApiError{"options: \"threads\" must be an integer from 0 (all cores) to 4096"};
      o.threads = static_cast<int>(v.get<std::int64_t>());
    } else if (key == "params") {
      if (!v.is_object()) throw ApiError{"options: \"params\" must be an object of integers, e.g. {\"N\": 16}"};
      for (const auto &[name, value] : v.items()) {
        if (!value.is_number_integer())
          throw ApiError{"options: params/" + name + " must be an integer, got " + value.dump()};
        o.params[name] = value.get<std::int64_t>();
      }
    } else if (key == "scheduler") {
      if (!v.is_string()) throw ApiError{"options: \"scheduler\" must be a string"};
      o.scheduler = v.get<std::string>();
    } else {
      throw ApiError{"options: unknown option '" + key + "' (expected target, threads, params, scheduler)"};
    }
  }
  if (o.target != "cpu" && o.target != "cpu-c")
    throw ApiError{"options: target '" + o.target + "' cannot run through the C API (expected cpu or cpu-c)"};
  if (!o.scheduler.empty() && o.scheduler != "isl" && o.scheduler != "pluto" && o.scheduler != "feautrier")
    throw ApiError{"options: unknown scheduler '" + o.scheduler + "' (expected isl, pluto or feautrier)"};
  return o;
}

/// The parameter values of the graph's symbolic dimensions: exactly its params.
void check_params(const atl::Graph &g, const std::map<std::string, std::int64_t> &params) {
  std::string declared;
  for (const auto &[name, range] : g.params) declared += (declared.empty() ? "" : ", ") + name;
  for (const auto &[name, value] : params)
    if (!g.params.count(name))
      throw ApiError{"options: params: graph '" + g.name + "' has no symbolic dimension '" + name + "'" +
                     (declared.empty() ? std::string(" (it has none)") : " (it has: " + declared + ")")};
  for (const auto &[name, range] : g.params)
    if (!params.count(name))
      throw ApiError{"options: params: graph '" + g.name + "' has the symbolic dimension '" + name + "' (" +
                     std::to_string(range.min) + ".." + std::to_string(range.max) +
                     "): give its value, e.g. {\"params\": {\"" + name + "\": " + std::to_string(range.max) + "}}"};
}

/// A declared tensor of the module: an input or an output (nullptr otherwise).
const atl::TensorDecl *module_tensor(const atoll_module *m, const char *name) {
  if (!m || !name) return nullptr;
  std::string n = name;
  bool known = false;
  for (const std::string &t : m->inputs) known |= t == n;
  for (const std::string &t : m->outputs) known |= t == n;
  if (!known || !m->concrete.has_tensor(n)) return nullptr;
  return &m->concrete.tensor(n);
}

std::int64_t tensor_bytes(const atl::TensorDecl &d) {
  return atl::shape_numel(atl::concrete_shape(d.type.shape)) * static_cast<std::int64_t>(atl::dtype_size(d.type.dtype));
}

/// A host tensor from the caller's buffer of `d`'s dtype and shape.
atl::Tensor from_buffer(const atl::TensorDecl &d, const void *buffer) {
  atl::Tensor t(d.type.dtype, atl::concrete_shape(d.type.shape));
  const unsigned char *p = static_cast<const unsigned char *>(buffer);
  const std::size_t size = atl::dtype_size(t.dtype);
  for (std::size_t i = 0; i < t.data.size(); ++i, p += size) {
    double v = 0;
    switch (t.dtype) {
    case atl::DType::F32: { float x; std::memcpy(&x, p, 4); v = x; break; }
    case atl::DType::F16: { std::uint16_t x; std::memcpy(&x, p, 2); v = atl::half_to_float(x); break; }
    case atl::DType::BF16: { std::uint16_t x; std::memcpy(&x, p, 2); v = atl::bfloat_to_float(x); break; }
    case atl::DType::I8: { std::int8_t x; std::memcpy(&x, p, 1); v = x; break; }
    case atl::DType::I32: { std::int32_t x; std::memcpy(&x, p, 4); v = x; break; }
    case atl::DType::I64: { std::int64_t x; std::memcpy(&x, p, 8); v = static_cast<double>(x); break; }
    case atl::DType::Bool: { std::uint8_t x; std::memcpy(&x, p, 1); v = x != 0; break; }
    }
    t.data[i] = v;
  }
  return t;
}

/// Writes a host tensor into the caller's buffer in its dtype.
void to_buffer(const atl::Tensor &t, void *buffer) {
  unsigned char *p = static_cast<unsigned char *>(buffer);
  const std::size_t size = atl::dtype_size(t.dtype);
  for (double v : t.data) {
    switch (t.dtype) {
    case atl::DType::F32: { float x = static_cast<float>(v); std::memcpy(p, &x, 4); break; }
    case atl::DType::F16: { std::uint16_t x = atl::float_to_half(static_cast<float>(v)); std::memcpy(p, &x, 2); break; }
    case atl::DType::BF16: { std::uint16_t x = atl::float_to_bfloat(static_cast<float>(v)); std::memcpy(p, &x, 2); break; }
    case atl::DType::I8: { std::int8_t x = static_cast<std::int8_t>(v); std::memcpy(p, &x, 1); break; }
    case atl::DType::I32: { std::int32_t x = static_cast<std::int32_t>(v); std::memcpy(p, &x, 4); break; }
    case atl::DType::I64: { std::int64_t x = static_cast<std::int64_t>(v); std::memcpy(p, &x, 8); break; }
    case atl::DType::Bool: { std::uint8_t x = v != 0; std::memcpy(p, &x, 1); break; }
    }
    p += size;
  }
}

/// The explain text of a stage (the texts `atoll explain` prints).
std::string explain_text(const atoll_module &m, const std::string &stage) {
  std::vector<atl::poly::LKernel> kernels;
  for (const auto &c : m.compiled.clusters) kernels.push_back(c.kernel);
  if (stage == "llvm") return atl::cpu::emit_llvm_ir(kernels);
  if (stage == "c") return atl::cpu::emit_c_source(kernels);
  std::size_t n = m.compiled.clusters.size();
  std::string out = "// graph " + m.graph.name + ": " + std::to_string(n) + (n == 1 ? " kernel\n" : " kernels\n");
  for (const auto &c : m.compiled.clusters) {
    out += "// cluster " + c.name + "\n";
    if (stage == "scop") out += c.scop_text;
    else if (stage == "deps") out += c.deps_text;
    else if (stage == "schedule") out += "// scheduler: " + c.algorithm + "\n" + c.schedule_yaml + "\n";
    else out += c.ast_text;
  }
  return out;
}

}  // namespace

extern "C" {

atoll_module *atoll_compile_json(const char *graph_json, const char *options_json, char **error) {
  clear_error(error);
  atoll_module *result = nullptr;
  guarded(error, "", [&] {
    if (!graph_json) throw ApiError{"atoll_compile_json: graph_json is NULL"};
    Options o = read_options(options_json);
    auto m = std::make_unique<atoll_module>();
    m->graph = read_graph_object(graph_json);
    check_params(m->graph, o.params);
    m->params = o.params;
    m->concrete = m->graph.params.empty() ? m->graph : m->graph.instantiate(m->params);
    atl::check_constant_indices(m->graph);
    if (o.threads) atl::cpu::set_cpu_threads(*o.threads);
    atl::CompileOptions co;
    co.target = o.target;
    co.scheduler = o.scheduler;
    co.keep_text = true;
    co.executable = true;
    m->compiled = atl::compile_graph(m->graph, co);
    for (const std::string &name : m->concrete.inputs) m->inputs.push_back(name);
    for (const std::string &name : m->concrete.weights) {
      const atl::TensorDecl &d = m->concrete.tensor(name);
      if (d.data)
        m->own[name] = atl::make_tensor_data(m->graph.name, d, atl::concrete_shape(d.type.shape));
      else
        m->inputs.push_back(name);
    }
    m->outputs = m->concrete.outputs;
    result = m.release();
  });
  return result;
}

int atoll_module_run(atoll_module *m, int n, const char *const *names, void *const *buffers, char **error) {
  clear_error(error);
  bool ok = guarded(error, "", [&] {
    if (!m) throw ApiError{"atoll_module_run: the module is NULL"};
    const std::string graph = "graph '" + m->graph.name + "': ";
    if (n < 0) throw ApiError{graph + "atoll_module_run: n is negative (" + std::to_string(n) + ")"};
    if (n > 0 && !names) throw ApiError{graph + "atoll_module_run: names is NULL"};
    if (n > 0 && !buffers) throw ApiError{graph + "atoll_module_run: buffers is NULL"};
    std::set<std::string> in(m->inputs.begin(), m->inputs.end()), out(m->outputs.begin(), m->outputs.end());
    std::map<std::string, void *> given;
    for (int i = 0; i < n; ++i) {
      if (!names[i]) throw ApiError{graph + "names[" + std::to_string(i) + "] is NULL"};
      std::string name = names[i];
      if (!in.count(name) && !out.count(name)) {
        std::string list;
        for (const std::string &t : m->inputs) list += (list.empty() ? "" : ", ") + t;
        for (const std::string &t : m->outputs) list += (list.empty() ? "" : ", ") + t;
        bool own = m->own.count(name) != 0;
        throw ApiError{graph + "names[" + std::to_string(i) + "]: '" + name + "' is " +
                       (own ? "a weight with inline data (the module's own)" : "neither an input nor an output") +
                       "; the module takes: " + list};
      }
      if (!buffers[i]) throw ApiError{graph + "buffers[" + std::to_string(i) + "] ('" + name + "') is NULL"};
      if (!given.emplace(name, buffers[i]).second)
        throw ApiError{graph + "names[" + std::to_string(i) + "]: '" + name + "' is given twice"};
    }
    std::string missing;
    for (const std::string &t : m->inputs)
      if (!given.count(t)) missing += (missing.empty() ? "" : ", ") + t;
    for (const std::string &t : m->outputs)
      if (!given.count(t)) missing += (missing.empty() ? "" : ", ") + t;
    if (!missing.empty()) throw ApiError{graph + "no buffer for: " + missing};

    std::map<std::string, atl::Tensor> feeds = m->own;
    for (const std::string &t : m->inputs) feeds[t] = from_buffer(m->concrete.tensor(t), given.at(t));
    // The generated code assumes round-to-nearest (CpuExecutable::run).
    int mode = std::fegetround();
    if (mode != FE_TONEAREST) std::fesetround(FE_TONEAREST);
    std::map<std::string, atl::Tensor> results;
    try {
      results = atl::run_compiled(m->compiled, m->concrete, feeds, m->params);
    } catch (...) {
      if (mode != FE_TONEAREST) std::fesetround(mode);
      throw;
    }
    if (mode != FE_TONEAREST) std::fesetround(mode);
    for (const std::string &t : m->outputs) to_buffer(results.at(t), given.at(t));
  });
  return ok ? 0 : 1;
}

const char *atoll_module_explain(atoll_module *m, const char *stage) {
  if (!m || !stage) return nullptr;
  static const std::set<std::string> stages = {"scop", "deps", "schedule", "ast", "llvm", "c"};
  const char *text = nullptr;
  guarded(nullptr, "", [&] {
    std::string s = stage;
    if (!stages.count(s)) return;
    std::lock_guard<std::mutex> lock(m->explain_mutex);
    auto it = m->explained.find(s);
    if (it == m->explained.end()) it = m->explained.emplace(s, explain_text(*m, s)).first;
    text = it->second.c_str();
  });
  return text;
}

int atoll_module_num_inputs(const atoll_module *m) { return m ? static_cast<int>(m->inputs.size()) : 0; }

const char *atoll_module_input_name(const atoll_module *m, int i) {
  if (!m || i < 0 || static_cast<std::size_t>(i) >= m->inputs.size()) return nullptr;
  return m->inputs[static_cast<std::size_t>(i)].c_str();
}

int atoll_module_num_outputs(const atoll_module *m) { return m ? static_cast<int>(m->outputs.size()) : 0; }

const char *atoll_module_output_name(const atoll_module *m, int i) {
  if (!m || i < 0 || static_cast<std::size_t>(i) >= m->outputs.size()) return nullptr;
  return m->outputs[static_cast<std::size_t>(i)].c_str();
}

int atoll_module_tensor_shape(const atoll_module *m, const char *name, int64_t *dims, int max_dims) {
  int rank = -1;
  guarded(nullptr, "", [&] {
    const atl::TensorDecl *d = module_tensor(m, name);
    if (!d) return;
    atl::Shape shape = atl::concrete_shape(d->type.shape);
    for (int i = 0; dims && i < max_dims && static_cast<std::size_t>(i) < shape.size(); ++i)
      dims[i] = shape[static_cast<std::size_t>(i)];
    rank = static_cast<int>(shape.size());
  });
  return rank;
}

const char *atoll_module_tensor_dtype(const atoll_module *m, const char *name) {
  const char *dtype = nullptr;
  guarded(nullptr, "", [&] {
    if (const atl::TensorDecl *d = module_tensor(m, name)) dtype = atl::dtype_name(d->type.dtype);
  });
  return dtype;
}

int64_t atoll_module_tensor_bytes(const atoll_module *m, const char *name) {
  int64_t bytes = -1;
  guarded(nullptr, "", [&] {
    if (const atl::TensorDecl *d = module_tensor(m, name)) bytes = tensor_bytes(*d);
  });
  return bytes;
}

void atoll_module_free(atoll_module *m) {
  try {
    delete m;
  } catch (...) {
  }
}

void atoll_string_free(char *s) { std::free(s); }

}  // extern "C"
