// The tuning records: JSON lines, the best point per key, `atoll db`.
#include "src/tuning/records.h"

#include "polyhedral/pipeline/knobs.h"
#include "polyhedral/target/cpu_target.h"

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace atl {

namespace tuning {

std::string record_line(const TuneRecord &r) {
  nlohmann::ordered_json j;
  j["v"] = 1;
  j["key"] = r.key;
  j["graph"] = r.graph;
  j["cluster"] = r.cluster;
  j["target"] = r.target;
  j["machine"] = r.machine;
  if (!r.family.empty()) j["family"] = r.family;
  if (!r.shape.empty()) j["shape"] = r.shape;
  j["knobs"] = r.knobs;
  j["status"] = r.status;
  j["ms"] = r.ms;
  j["default_ms"] = r.default_ms;
  j["ratio"] = r.ratio;
  j["verified"] = r.verified;
  if (!r.error.empty()) j["error"] = r.error;
  j["strategy"] = r.strategy;
  j["time"] = r.time;
  j["seconds"] = r.seconds;
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

TuneRecord parse_record(const std::string &line, const std::string &where) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(line);
  } catch (const nlohmann::json::exception &e) {
    throw UserError(where + ": not a JSON record (" + e.what() + ")");
  }
  auto str = [&](const char *k, bool required) -> std::string {
    auto it = j.find(k);
    if (it == j.end() || it->is_null()) {
      if (required) throw UserError(where + ": the record has no '" + k + "'");
      return {};
    }
    if (!it->is_string()) throw UserError(where + ": '" + k + "' is not a string");
    return it->get<std::string>();
  };
  auto num = [&](const char *k) -> double {
    auto it = j.find(k);
    if (it == j.end() || it->is_null()) return 0;
    if (!it->is_number()) throw UserError(where + ": '" + k + "' is not a number");
    return it->get<double>();
  };
  if (!j.is_object()) throw UserError(where + ": a record is a JSON object");
  TuneRecord r;
  r.key = str("key", true);
  r.graph = str("graph", false);
  r.cluster = str("cluster", false);
  r.target = str("target", true);
  r.machine = str("machine", true);
  r.status = str("status", true);
  r.verified = str("verified", false);
  r.error = str("error", false);
  r.strategy = str("strategy", false);
  r.time = str("time", false);
  r.ms = num("ms");
  r.default_ms = num("default_ms");
  r.ratio = num("ratio");
  r.seconds = num("seconds");
  r.family = str("family", false);
  if (auto s = j.find("shape"); s != j.end() && !s->is_null()) {
    if (!s->is_array()) throw UserError(where + ": 'shape' is not an array of integers");
    for (const auto &v : *s) {
      if (!v.is_number_integer()) throw UserError(where + ": 'shape' is not an array of integers");
      r.shape.push_back(v.get<long>());
    }
  }
  auto k = j.find("knobs");
  if (k == j.end() || !k->is_object()) throw UserError(where + ": the record has no 'knobs' object");
  for (auto it = k->begin(); it != k->end(); ++it) {
    if (!it.value().is_string()) throw UserError(where + ": knob '" + it.key() + "' is not a string");
    r.knobs[it.key()] = it.value().get<std::string>();
  }
  return r;
}

void append_record(const std::string &path, const TuneRecord &r) {
  std::string line = record_line(r) + "\n";
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) throw UserError("records '" + path + "': cannot open for appending: " + std::strerror(errno));
  ssize_t n = ::write(fd, line.data(), line.size());
  int err = errno;
  ::close(fd);
  if (n != static_cast<ssize_t>(line.size()))
    throw UserError("records '" + path + "': write failed: " + std::strerror(err));
}

std::string point_id(const TuneRecord &r) {
  return r.key + "|" + r.target + "|" + r.machine + "|" + poly::point_text(r.knobs);
}

std::shared_ptr<const poly::TuningTable> best_points(const std::vector<TuneRecord> &records,
                                                    const std::string &target, const std::string &machine) {
  auto table = std::make_shared<poly::TuningTable>();
  std::map<std::string, double> best;
  std::map<std::string, const TuneRecord *> chosen;
  for (const TuneRecord &r : records) {
    // Only points confirmed against the reference interpreter (the tuner
    // measures each new best a second time with that oracle).
    if (r.status != "ok" || r.verified != "reference" || r.target != target || r.machine != machine ||
        r.ratio <= 1.01)
      continue;
    auto it = best.find(r.key);
    if (it != best.end() && it->second >= r.ratio) continue;
    best[r.key] = r.ratio;
    chosen[r.key] = &r;
  }
  for (const auto &[key, r] : chosen) table->add(key, r->family, r->shape, r->knobs);
  return table->exact.empty() ? nullptr : table;
}

std::shared_ptr<const poly::TuningTable> best_points_of_file(const std::string &path, const std::string &target) {
  return best_points(read_tune_records(path), target, tune_machine_id());
}

std::shared_ptr<const poly::TuningTable> tuning_for_target(const std::string &records, const std::string &target) {
  if (records.empty() || (target != "cpu" && target != "cpu-c")) return nullptr;
  return best_points_of_file(records, "cpu");
}

std::shared_ptr<const poly::TuningTable> point_table(const std::string &key, const poly::KnobValues &point) {
  auto table = std::make_shared<poly::TuningTable>();
  table->exact[key] = point;
  return table;
}

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace tuning

std::vector<TuneRecord> read_tune_records(const std::string &path) {
  std::ifstream in(path);
  if (!in) throw UserError("records '" + path + "': cannot read the file");
  std::vector<TuneRecord> out;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    out.push_back(tuning::parse_record(line, "records '" + path + "' line " + std::to_string(n)));
  }
  return out;
}

std::string tune_record_json(const TuneRecord &record) { return tuning::record_line(record); }
TuneRecord parse_tune_record(const std::string &json_line) { return tuning::parse_record(json_line, "record"); }
void append_tune_record(const std::string &path, const TuneRecord &record) { tuning::append_record(path, record); }

std::string tune_db_stats(const std::string &path) {
  std::vector<TuneRecord> records = read_tune_records(path);
  std::map<std::string, int> by_status;
  struct PerKey {
    std::string graph, cluster;
    int n = 0;
    double best = 0;
  };
  std::map<std::string, PerKey> keys;
  std::map<std::string, int> machines;
  for (const TuneRecord &r : records) {
    ++by_status[r.status];
    ++machines[r.target + " on " + r.machine];
    PerKey &k = keys[r.key];
    if (k.graph.empty()) k.graph = r.graph, k.cluster = r.cluster;
    ++k.n;
    if (r.status == "ok" && r.ratio > k.best) k.best = r.ratio;
  }
  std::ostringstream os;
  os << "records: " << records.size() << "\n";
  for (const auto &[s, n] : by_status) os << "  " << s << ": " << n << "\n";
  os << "targets and machines:\n";
  for (const auto &[m, n] : machines) os << "  " << m << ": " << n << "\n";
  os << "keys: " << keys.size() << "\n";
  for (const auto &[key, k] : keys) {
    char ratio[32];
    std::snprintf(ratio, sizeof ratio, "%.3f", k.best);
    os << "  " << key << "  " << k.graph << "/" << k.cluster << "  " << k.n << " records, best ratio "
       << (k.best > 0 ? ratio : "-") << "\n";
  }
  return os.str();
}

std::size_t tune_db_compact(const std::string &path, const std::string &out) {
  std::vector<TuneRecord> records = read_tune_records(path);
  // The latest record of each point, in the order of their first appearance.
  std::map<std::string, std::size_t> latest;
  std::vector<std::string> order;
  for (std::size_t i = 0; i < records.size(); ++i) {
    std::string id = tuning::point_id(records[i]);
    if (!latest.count(id)) order.push_back(id);
    latest[id] = i;
  }
  const std::string dest = out.empty() ? path : out;
  const std::string tmp = dest + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream o(tmp, std::ios::trunc);
    if (!o) throw UserError("records '" + dest + "': cannot write '" + tmp + "'");
    for (const std::string &id : order) o << tuning::record_line(records[latest[id]]) << "\n";
    o.flush();
    if (!o) throw UserError("records '" + dest + "': write failed");
  }
  std::error_code ec;
  std::filesystem::rename(tmp, dest, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    throw UserError("records '" + dest + "': cannot replace the file");
  }
  return order.size();
}

std::string tune_machine_id() {
  // Tests, and records deliberately carried to another machine, name one.
  if (const char *m = std::getenv("ATOLL_TUNE_MACHINE"); m && *m) return m;
  std::string model;
  std::ifstream cpu("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpu, line))
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) model = line.substr(line.find_first_not_of(' ', colon + 1));
      break;
    }
  if (model.empty()) model = "unknown CPU";
  return model + "; " + poly::describe(poly::host_target());
}

}  // namespace atl
