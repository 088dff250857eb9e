// The C API (include/atoll/atoll.h, docs/c-api.md): a thin layer over the
// C++ module API (include/atoll/module.h). It reads the options from JSON,
// checks the C arguments (NULL pointers, names by index) and hands the
// buffers to atl::Module::run, which runs the kernels on them in place. No
// exception leaves this file: each entry point catches everything and
// answers with NULL or non-zero and a malloc'ed message.
#include <atoll/atoll.h>

#include <atoll/module.h>

#include "src/frontend/json_text.h"

#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <set>
#include <string>
#include <vector>

/// A compiled graph (opaque to C): the C++ module, and the explain texts
/// handed out (their c_str stays valid until atoll_module_free).
struct atoll_module {
  atl::Module module;
  std::mutex explain_mutex;                      ///< guards `explained`
  std::map<std::string, std::string> explained;  ///< stage -> text (node-based: c_str stays valid)
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

/// Runs `body`, turning every exception into a message. Returns false on failure.
template <typename Body>
bool guarded(char **error, const std::string &context, Body &&body) {
  try {
    body();
    return true;
  } catch (const ApiError &e) {
    set_error(error, e.message);
  } catch (const atl::UserError &e) {
    set_error(error, context + e.what());
  } catch (const std::bad_alloc &) {
    set_error(error, context + "out of memory");
  } catch (const std::exception &e) {
    set_error(error, context + e.what());
  } catch (...) {
    set_error(error, context + "unknown error");
  }
  return false;
}

/// The options object; "threads" absent leaves the process's setting (0),
/// 0 asks for all cores (-1 in ModuleOptions).
atl::ModuleOptions read_options(const char *text) {
  atl::ModuleOptions o;
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
      o.threads = v.get<std::int64_t>() == 0 ? -1 : static_cast<int>(v.get<std::int64_t>());
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


/// The module's tensors, inputs then outputs, as a list for messages.
std::string tensor_list(const atl::Module &m) {
  std::string list;
  for (const std::string &t : m.inputs()) list += (list.empty() ? "" : ", ") + t;
  for (const std::string &t : m.outputs()) list += (list.empty() ? "" : ", ") + t;
  return list;
}

}  // namespace

extern "C" {

atoll_module *atoll_compile_json(const char *graph_json, const char *options_json, char **error) {
  clear_error(error);
  atoll_module *result = nullptr;
  guarded(error, "", [&] {
    if (!graph_json) throw ApiError{"atoll_compile_json: graph_json is NULL"};
    atl::ModuleOptions o = read_options(options_json);
    auto m = std::make_unique<atoll_module>();
    m->module = atl::compile_graph_json(graph_json, o);
    result = m.release();
  });
  return result;
}

int atoll_module_run(atoll_module *m, int n, const char *const *names, void *const *buffers, char **error) {
  clear_error(error);
  bool ok = guarded(error, "", [&] {
    if (!m) throw ApiError{"atoll_module_run: the module is NULL"};
    const atl::Module &module = m->module;
    const std::string graph = "graph '" + module.name() + "': ";
    if (n < 0) throw ApiError{graph + "atoll_module_run: n is negative (" + std::to_string(n) + ")"};
    if (n > 0 && !names) throw ApiError{graph + "atoll_module_run: names is NULL"};
    if (n > 0 && !buffers) throw ApiError{graph + "atoll_module_run: buffers is NULL"};
    // The C arguments by index (the messages name names[i] and buffers[i]);
    // the buffers then go to Module::run as they are.
    atl::Binding local[16];
    std::unique_ptr<atl::Binding[]> heap;
    atl::Binding *list = n <= 16 ? local : (heap = std::make_unique<atl::Binding[]>(static_cast<std::size_t>(n))).get();
    for (int i = 0; i < n; ++i) {
      if (!names[i]) throw ApiError{graph + "names[" + std::to_string(i) + "] is NULL"};
      const char *name = names[i];
      if (!module.has_tensor(name)) {
        bool own = false;
        for (const std::string &w : module.own_weights()) own |= w == name;
        throw ApiError{graph + "names[" + std::to_string(i) + "]: '" + name + "' is " +
                       (own ? "a weight with inline data (the module's own)" : "neither an input nor an output") +
                       "; the module takes: " + tensor_list(module)};
      }
      if (!buffers[i]) throw ApiError{graph + "buffers[" + std::to_string(i) + "] ('" + name + "') is NULL"};
      for (int j = 0; j < i; ++j)
        if (std::strcmp(names[j], name) == 0)
          throw ApiError{graph + "names[" + std::to_string(i) + "]: '" + name + "' is given twice"};
      list[i] = {name, buffers[i]};
    }
    module.run(list, static_cast<std::size_t>(n));
  });
  return ok ? 0 : 1;
}

const char *atoll_module_explain(atoll_module *m, const char *stage) {
  if (!m || !stage) return nullptr;
  // The stages of the C API (atoll.h); the C++ API also takes pass names.
  static const std::set<std::string> stages = {"scop", "deps", "schedule", "ast", "llvm", "c"};
  const char *text = nullptr;
  guarded(nullptr, "", [&] {
    std::string s = stage;
    if (!stages.count(s)) return;
    std::lock_guard<std::mutex> lock(m->explain_mutex);
    auto it = m->explained.find(s);
    if (it == m->explained.end()) it = m->explained.emplace(s, m->module.explain(s)).first;
    text = it->second.c_str();
  });
  return text;
}

int atoll_module_num_inputs(const atoll_module *m) { return m ? static_cast<int>(m->module.inputs().size()) : 0; }

const char *atoll_module_input_name(const atoll_module *m, int i) {
  if (!m || i < 0 || static_cast<std::size_t>(i) >= m->module.inputs().size()) return nullptr;
  return m->module.inputs()[static_cast<std::size_t>(i)].c_str();
}

int atoll_module_num_outputs(const atoll_module *m) { return m ? static_cast<int>(m->module.outputs().size()) : 0; }

const char *atoll_module_output_name(const atoll_module *m, int i) {
  if (!m || i < 0 || static_cast<std::size_t>(i) >= m->module.outputs().size()) return nullptr;
  return m->module.outputs()[static_cast<std::size_t>(i)].c_str();
}

int atoll_module_tensor_shape(const atoll_module *m, const char *name, int64_t *dims, int max_dims) {
  int rank = -1;
  guarded(nullptr, "", [&] {
    if (!m || !name || !m->module.has_tensor(name)) return;
    std::vector<std::int64_t> shape = m->module.shape(name);
    for (int i = 0; dims && i < max_dims && static_cast<std::size_t>(i) < shape.size(); ++i)
      dims[i] = shape[static_cast<std::size_t>(i)];
    rank = static_cast<int>(shape.size());
  });
  return rank;
}

const char *atoll_module_tensor_dtype(const atoll_module *m, const char *name) {
  const char *dtype = nullptr;
  guarded(nullptr, "", [&] {
    if (!m || !name || !m->module.has_tensor(name)) return;
    // A static string: the dtype names are a fixed set.
    static const char *const names[] = {"f32", "f16", "bf16", "i8", "i32", "i64", "bool"};
    std::string d = m->module.dtype(name);
    for (const char *n : names)
      if (d == n) dtype = n;
  });
  return dtype;
}

int64_t atoll_module_tensor_bytes(const atoll_module *m, const char *name) {
  int64_t bytes = -1;
  guarded(nullptr, "", [&] {
    if (m && name && m->module.has_tensor(name)) bytes = m->module.bytes(name);
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
