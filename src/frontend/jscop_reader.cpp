// Reads and writes Polly's JSCoP files (polly/lib/Exchange/JSONExporter.cpp
// writes them: context, arrays, statements with accesses, domain, name and
// schedule).
#include "src/frontend/jscop_file.h"

#include "src/frontend/json_text.h"

#include <atoll/diagnostics.h>

namespace atl::frontend {

namespace {

using ojson = nlohmann::ordered_json;

UserError at(const std::string &pointer, const std::string &reason) {
  Location loc;
  loc.pointer = pointer;
  return UserError(reason, loc);
}

const ojson &member(const ojson &object, const std::string &pointer, const char *key) {
  if (!object.is_object()) throw at(pointer, "expected an object");
  auto it = object.find(key);
  if (it == object.end()) throw at(pointer, std::string("missing key \"") + key + "\"");
  return *it;
}

std::string string_at(const ojson &object, const std::string &pointer, const char *key) {
  const ojson &v = member(object, pointer, key);
  if (!v.is_string()) throw at(pointer_join(pointer, key), std::string("\"") + key + "\" must be a string");
  return v.get<std::string>();
}

const ojson &array_at(const ojson &object, const std::string &pointer, const char *key) {
  const ojson &v = member(object, pointer, key);
  if (!v.is_array()) throw at(pointer_join(pointer, key), std::string("\"") + key + "\" must be an array");
  return v;
}

}  // namespace

JscopFile read_jscop(std::string_view text) {
  parse_json(text);  // syntax errors by line and column, the depth limit
  JscopFile f;
  f.json = ojson::parse(text);
  const ojson &root = f.json;
  if (!root.is_object()) throw at("", "a JSCoP file holds one JSON object");
  poly::Jscop &s = f.scop;
  s.name = root.contains("name") ? string_at(root, "", "name") : "";
  s.context = string_at(root, "", "context");
  if (root.contains("arrays")) {
    const ojson &arrays = array_at(root, "", "arrays");
    for (std::size_t i = 0; i < arrays.size(); ++i) {
      const std::string p = pointer_join("/arrays", i);
      poly::JscopArray a;
      a.name = string_at(arrays[i], p, "name");
      a.type = arrays[i].contains("type") ? string_at(arrays[i], p, "type") : "";
      if (arrays[i].contains("sizes")) {
        const ojson &sizes = array_at(arrays[i], p, "sizes");
        for (std::size_t k = 0; k < sizes.size(); ++k) {
          if (!sizes[k].is_string()) throw at(pointer_join(p + "/sizes", k), "an array size must be a string");
          a.sizes.push_back(sizes[k].get<std::string>());
        }
      }
      s.arrays.push_back(std::move(a));
    }
  }
  const ojson &statements = array_at(root, "", "statements");
  for (std::size_t i = 0; i < statements.size(); ++i) {
    const std::string p = pointer_join("/statements", i);
    poly::JscopStatement st;
    st.name = string_at(statements[i], p, "name");
    st.domain = string_at(statements[i], p, "domain");
    st.schedule = string_at(statements[i], p, "schedule");
    const ojson &accesses = array_at(statements[i], p, "accesses");
    for (std::size_t k = 0; k < accesses.size(); ++k) {
      const std::string ap = pointer_join(p + "/accesses", k);
      std::string kind = string_at(accesses[k], ap, "kind");
      if (kind != "read" && kind != "write")
        throw at(ap + "/kind", "access kind \"" + kind + "\" is neither \"read\" nor \"write\"");
      st.accesses.push_back(poly::JscopAccess{kind == "write", string_at(accesses[k], ap, "relation")});
    }
    s.statements.push_back(std::move(st));
  }
  return f;
}

std::string write_jscop(const JscopFile &file, const std::vector<std::string> &schedules) {
  ojson out = file.json;
  ojson &statements = out["statements"];
  if (schedules.size() != statements.size())
    throw InternalError("write_jscop: " + std::to_string(schedules.size()) + " schedules for " +
                        std::to_string(statements.size()) + " statements");
  for (std::size_t i = 0; i < schedules.size(); ++i) statements[i]["schedule"] = schedules[i];
  return out.dump(3);
}

}  // namespace atl::frontend
