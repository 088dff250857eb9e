// The tuner behind `atoll tune` (see <atoll/tune.h>, docs/tuning.md): per
// cluster, a search over its knob space; each point measured in a child
// process with a wall timeout and a memory limit, A/B against the default;
// every measurement, failures included, appended to the records; a point
// already in the records is not measured again.
#include <atoll/tune.h>

#include "backends/cpu/cpu_backend.h"
#include "polyhedral/pipeline/cpu_pipeline.h"
#include "polyhedral/pipeline/knobs.h"
#include "src/frontend/onnx_reader.h"
#include "src/pipeline/compile_graph.h"
#include "src/tuning/records.h"

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <sstream>

namespace atl {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

/// The atoll executable that runs `tune-worker`.
std::string worker_path(const TuneOptions &o) {
  auto checked = [](const std::string &exe) {
    if (::access(exe.c_str(), X_OK) != 0)
      throw UserError("tune: the worker '" + exe + "' is not an executable (the atoll program runs the measurements)");
    return exe;
  };
  if (!o.worker.empty()) return checked(o.worker);
  if (const char *e = std::getenv("ATOLL_EXE"); e && *e) return checked(e);
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec && self.filename() == "atoll") return self.string();
  throw UserError("tune: the measurements run in a child `atoll tune-worker`; give the atoll executable "
                  "(TuneOptions::worker or ATOLL_EXE)");
}

/// A child `atoll tune-worker` and its pipes. Killed and started again after
/// a crash or a timeout.
class Child {
public:
  Child(std::vector<std::string> argv, std::int64_t memory_mb) : argv_(std::move(argv)), memory_mb_(memory_mb) {}
  ~Child() { stop(); }
  Child(const Child &) = delete;
  Child &operator=(const Child &) = delete;

  /// Sends one request and waits for its answer at most `timeout_s`. A child
  /// that dies or runs out of time gives {"status": "crash"|"timeout"}.
  nlohmann::json request(const nlohmann::json &req, double timeout_s) {
    if (pid_ <= 0) start();
    std::string line = req.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    if (!write_all(line)) return died("the worker closed its input");
    auto t0 = Clock::now();
    for (;;) {
      if (auto nl = buf_.find('\n'); nl != std::string::npos) {
        std::string answer = buf_.substr(0, nl);
        buf_.erase(0, nl + 1);
        try {
          return nlohmann::json::parse(answer);
        } catch (const nlohmann::json::exception &) {
          stop();
          return {{"status", "crash"}, {"error", "the worker answered '" + answer.substr(0, 200) + "'"}};
        }
      }
      double left = timeout_s - seconds_since(t0);
      if (left <= 0) {
        stop();
        return {{"status", "timeout"}, {"error", "no answer within " + std::to_string(timeout_s) + " s; the worker was killed"}};
      }
      pollfd p{out_, POLLIN, 0};
      int r = ::poll(&p, 1, static_cast<int>(std::min(left, 1.0) * 1000) + 1);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) continue;
      char chunk[4096];
      ssize_t n = ::read(out_, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return died("the worker stopped");
      buf_.append(chunk, static_cast<std::size_t>(n));
    }
  }

  void stop() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      int st = 0;
      ::waitpid(pid_, &st, 0);
    }
    close_pipes();
    pid_ = -1;
  }

private:
  void start() {
    int in[2], out[2];
    if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0)
      throw UserError(std::string("tune: cannot make pipes: ") + std::strerror(errno));
    char log_name[] = "/tmp/atoll-tune-worker-XXXXXX";
    int log = ::mkstemp(log_name);
    if (log >= 0) ::unlink(log_name);  // read through the descriptor, gone with it
    std::vector<const char *> argv;
    for (const std::string &a : argv_) argv.push_back(a.c_str());
    argv.push_back(nullptr);
    rlimit as{};
    const bool limit = memory_mb_ > 0;
    if (limit) as.rlim_cur = as.rlim_max = static_cast<rlim_t>(memory_mb_) * 1024 * 1024;
    pid_t pid = ::fork();
    if (pid < 0) throw UserError(std::string("tune: cannot start a worker: ") + std::strerror(errno));
    if (pid == 0) {
      // Only async-signal-safe calls between fork and exec.
      ::dup2(in[0], 0);
      ::dup2(out[1], 1);
      if (log >= 0) ::dup2(log, 2);
      if (limit) ::setrlimit(RLIMIT_AS, &as);
      ::execv(argv[0], const_cast<char *const *>(argv.data()));
      ::_exit(127);
    }
    ::close(in[0]);
    ::close(out[1]);
    in_ = in[1];
    out_ = out[0];
    if (log_ >= 0) ::close(log_);
    log_ = log;
    pid_ = pid;
    buf_.clear();
  }

  bool write_all(const std::string &s) {
    std::size_t off = 0;
    while (off < s.size()) {
      ssize_t n = ::write(in_, s.data() + off, s.size() - off);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      off += static_cast<std::size_t>(n);
    }
    return true;
  }

  /// The child's end: its exit status or signal, and the end of its stderr.
  nlohmann::json died(const std::string &what) {
    int st = 0;
    std::string how = what;
    if (pid_ > 0 && ::waitpid(pid_, &st, 0) == pid_) {
      if (WIFSIGNALED(st)) how += " (signal " + std::to_string(WTERMSIG(st)) + ", " + strsignal(WTERMSIG(st)) + ")";
      else if (WIFEXITED(st)) how += " (exit status " + std::to_string(WEXITSTATUS(st)) + ")";
    }
    pid_ = -1;
    std::string tail;
    if (log_ >= 0) {
      off_t end = ::lseek(log_, 0, SEEK_END);
      off_t from = std::max<off_t>(0, end - 400);
      std::string t(static_cast<std::size_t>(end - from), '\0');
      if (!t.empty() && ::pread(log_, t.data(), t.size(), from) > 0) tail = t;
    }
    close_pipes();
    while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
    return {{"status", "crash"}, {"error", how + (tail.empty() ? "" : "; stderr: " + tail)}};
  }

  void close_pipes() {
    if (in_ >= 0) ::close(in_);
    if (out_ >= 0) ::close(out_);
    if (log_ >= 0) ::close(log_);
    in_ = out_ = log_ = -1;
  }

  std::vector<std::string> argv_;
  std::int64_t memory_mb_ = 0;
  pid_t pid_ = -1;
  int in_ = -1, out_ = -1, log_ = -1;
  std::string buf_;
};

using Point = std::map<std::string, std::string>;

/// The record of a worker's answer for a point of a cluster.
TuneRecord record_from(const ClusterSpace &space, const Point &p, const nlohmann::json &answer,
                       const std::string &verify, const std::string &machine, const std::string &strategy) {
  TuneRecord r;
  r.key = space.key;
  r.graph = space.graph;
  r.cluster = space.cluster;
  r.target = "cpu";
  r.machine = machine;
  r.family = space.family;
  r.shape = space.shape;
  r.knobs = p;
  r.status = answer.value("status", std::string("error"));
  r.error = answer.value("error", std::string());
  r.ms = answer.value("ms", 0.0);
  r.default_ms = answer.value("default_ms", 0.0);
  r.ratio = answer.value("ratio", 0.0);
  r.verified = r.status == "ok" || r.status == "wrong" ? verify : "";
  r.strategy = strategy;
  r.time = tuning::utc_now();
  return r;
}

/// One request to a worker: a point of a cluster, its oracle (`verify`) and
/// how to measure it (`mode`: run or model). The first reference check
/// computes the reference, so it gets four times the timeout.
nlohmann::json ask_worker(Child &child, const std::string &batch, const ClusterSpace &space, const Point &point,
                          const std::string &verify, const std::string &mode, const TuneOptions &o) {
  nlohmann::json req = {{"batch", batch},   {"graph", space.graph}, {"params", o.params}, {"key", space.key},
                        {"knobs", point},   {"verify", verify},     {"seconds", 0.3},     {"mode", mode}};
  return child.request(req, verify == "reference" ? o.timeout_s * 4 : o.timeout_s);
}

/// SIGPIPE ignored while it lives: a worker that dies while we write its
/// request must not take the tuner with it.
struct IgnorePipe {
  struct sigaction old {};
  IgnorePipe() {
    struct sigaction ign {};
    ign.sa_handler = SIG_IGN;
    ::sigaction(SIGPIPE, &ign, &old);
  }
  ~IgnorePipe() { ::sigaction(SIGPIPE, &old, nullptr); }
  IgnorePipe(const IgnorePipe &) = delete;
  IgnorePipe &operator=(const IgnorePipe &) = delete;
};

TuneKnob to_public(const poly::KnobDomain &k) {
  return {k.name, k.type, k.values, k.default_value, k.description};
}

/// The spaces of one graph's clusters (once per key).
std::vector<ClusterSpace> graph_spaces(const Graph &g, std::set<std::string> &seen) {
  CompileOptions co;
  co.target = "cpu";
  co.executable = false;
  co.keep_text = false;
  co.describe = true;
  ScheduledGraph s = schedule_graph(g, co);
  std::vector<ClusterSpace> out;
  for (const poly::ClusterResult &c : s.clusters) {
    if (c.space.knobs.empty() || !seen.insert(c.space.key).second) continue;
    ClusterSpace cs;
    cs.graph = g.name;
    cs.cluster = c.name;
    cs.key = c.space.key;
    cs.family = c.space.family;
    cs.shape = c.space.shape;
    for (const poly::KnobDomain &k : c.space.knobs) cs.knobs.push_back(to_public(k));
    out.push_back(std::move(cs));
  }
  return out;
}

Point default_point(const ClusterSpace &s) {
  Point p;
  for (const TuneKnob &k : s.knobs) p[k.name] = k.default_value;
  return p;
}

/// One cluster's search: the records seen so far, the measurements, the best.
class Search {
public:
  Search(const ClusterSpace &space, const std::string &batch, const TuneOptions &o, Child &child,
         std::map<std::string, TuneRecord> &known, Child *model)
      : space_(space), batch_(batch), o_(o), child_(child), known_(known), model_(model) {
    result_.graph = space.graph;
    result_.cluster = space.cluster;
    result_.key = space.key;
    machine_ = tune_machine_id();
  }

  TunedCluster run() {
    t0_ = Clock::now();
    const Point def = default_point(space_);
    seen_.insert(poly::point_text(def));
    if (o_.strategy == "exhaustive") exhaustive();
    else if (o_.strategy == "random") random(def);
    else if (o_.strategy == "evolutionary") evolutionary(def);
    else greedy(def);
    result_.seconds = spent_;
    return result_;
  }

private:
  bool out_of_budget() const {
    return spent_ >= o_.budget_s || (o_.max_trials > 0 && result_.trials >= o_.max_trials);
  }

  TuneRecord record_of(const Point &p, const nlohmann::json &answer, const std::string &verify) {
    return record_from(space_, p, answer, verify, machine_,
                       o_.measure == "model" ? o_.strategy + "/model" : o_.strategy);
  }

  /// The record of a point under `verify`: from the records when there is
  /// one, else measured now (and appended).
  TuneRecord measure(const Point &p, const std::string &verify) {
    TuneRecord probe;
    probe.key = space_.key;
    probe.target = "cpu";
    probe.machine = machine_;
    probe.knobs = p;
    const std::string id = tuning::point_id(probe) + "|" + verify;
    if (auto it = known_.find(id); it != known_.end()) return spend(it->second);
    // A failure is a failure under either oracle: not measured again.
    if (auto it = known_.find(tuning::point_id(probe) + "|"); it != known_.end()) return spend(it->second);
    auto t0 = Clock::now();
    // "model" asks for the cost model's ranking even when measuring (the
    // evolutionary strategy's filter).
    const std::string mode = verify == "model" ? "model" : o_.measure;
    nlohmann::json answer = ask_worker(child_, batch_, space_, p, verify, mode, o_);
    if (model_ && mode == "model" && answer.value("status", std::string()) == "ok") answer = external_model(p, answer);
    TuneRecord r = record_of(p, answer, verify);
    r.seconds = seconds_since(t0);
    if (mode != "model" || o_.measure == "model") ++result_.measured;
    if (!o_.records.empty()) tuning::append_record(o_.records, r);
    known_[tuning::point_id(r) + "|" + r.verified] = r;
    event(r);
    return spend(r);
  }

  /// The budget a point costs: its measurement's seconds, or a fixed 0.1 s
  /// in model mode (so that a model search stops at the same point on
  /// every run and machine).
  const TuneRecord &spend(const TuneRecord &r) {
    spent_ += o_.measure == "model" ? 0.1 : r.seconds;
    return r;
  }

  /// The external model's times for the default (once) and the point, in
  /// place of the analytical model's.
  nlohmann::json external_model(const Point &p, nlohmann::json answer) {
    auto ask = [&](const Point &point, const nlohmann::json &features) -> std::optional<double> {
      nlohmann::json a = model_->request({{"key", space_.key}, {"knobs", point}, {"features", features}}, o_.timeout_s);
      if (!a.contains("ms") || !a["ms"].is_number()) {
        answer = {{"status", "error"}, {"error", "--model-cmd answered " + a.dump().substr(0, 200)}};
        return std::nullopt;
      }
      return a["ms"].get<double>();
    };
    if (!model_default_) model_default_ = ask(default_point(space_), answer["default_features"]);
    if (!model_default_) return answer;
    std::optional<double> ms = ask(p, answer["features"]);
    if (!ms) return answer;
    answer["ms"] = *ms;
    answer["default_ms"] = *model_default_;
    answer["ratio"] = *ms > 0 ? *model_default_ / *ms : 0.0;
    answer["verified"] = "model";
    return answer;
  }

  void event(const TuneRecord &r) const {
    if (!o_.progress) return;
    char line[256];
    std::snprintf(line, sizeof line, "%s/%s: trial %d, %s %.3fx, best %.3fx, %.0f s", space_.graph.c_str(),
                  space_.cluster.c_str(), result_.trials, r.status.c_str(), r.ratio, result_.best_ratio, spent_);
    if (::isatty(2)) std::cerr << "\r" << line << "\x1b[K" << std::flush;
    else
      std::cerr << nlohmann::json{{"event", "measured"}, {"graph", space_.graph}, {"cluster", space_.cluster},
                                  {"trial", result_.trials}, {"status", r.status}, {"ratio", r.ratio},
                                  {"best", result_.best_ratio}, {"knobs", r.knobs}}
                       .dump()
                << "\n";
  }

  /// Tries a point: its ratio against the default, or -1 when it failed. A
  /// new best is measured again with the reference interpreter as oracle,
  /// and that second ratio is the one kept.
  double trial(const Point &p) {
    if (!seen_.insert(poly::point_text(p)).second) return -2;  // tried already
    ++result_.trials;
    TuneRecord r = measure(p, o_.measure == "model" ? "model" : "default");
    if (r.status != "ok") {
      ++result_.failures;
      return -1;
    }
    if (r.ratio <= std::max(1.01, result_.best_ratio)) return r.ratio;
    // The model has no second oracle: its ranking is the result.
    TuneRecord c = o_.measure == "model" ? r : measure(p, "reference");
    if (c.status != "ok") {
      ++result_.failures;
      return -1;
    }
    if (c.ratio > std::max(1.01, result_.best_ratio)) {
      result_.best_ratio = c.ratio;
      result_.best = p;
      result_.curve.push_back({spent_, c.ratio});
    }
    return c.ratio;
  }

  /// Coordinate descent from the default: each knob's values in turn, the
  /// others at the best point so far; sweeps until one changes nothing, then
  /// random pairs of changes around the best while the budget lasts.
  void greedy(const Point &def) {
    Point cur = def;
    for (bool improved = true; improved && !out_of_budget();) {
      improved = false;
      for (const TuneKnob &k : space_.knobs) {
        for (const std::string &v : k.values) {
          if (out_of_budget()) return;
          if (v == cur[k.name]) continue;
          Point p = cur;
          p[k.name] = v;
          trial(p);
        }
        if (!result_.best.empty() && result_.best != cur) {
          cur = result_.best;
          improved = true;
        }
      }
    }
    std::mt19937 rng(o_.seed);
    for (int misses = 0; misses < 200 && !out_of_budget();) {
      Point p = result_.best.empty() ? def : result_.best;
      for (int c = 0; c < 2; ++c) {
        const TuneKnob &k = space_.knobs[rng() % space_.knobs.size()];
        p[k.name] = k.values[rng() % k.values.size()];
      }
      if (trial(p) == -2) ++misses;
    }
  }

  /// A population of the best points measured so far. Each generation:
  /// children by crossover of two parents and mutation of one or two knobs,
  /// ranked by the cost model (compiled without code, cheap), and only the
  /// best-ranked quarter measured.
  void evolutionary(const Point &def) {
    std::mt19937 rng(o_.seed);
    std::vector<std::pair<double, Point>> population{{1.0, def}};
    auto mutate = [&](Point p) {
      const int changes = 1 + static_cast<int>(rng() % 2);
      for (int c = 0; c < changes; ++c) {
        const TuneKnob &k = space_.knobs[rng() % space_.knobs.size()];
        p[k.name] = k.values[rng() % k.values.size()];
      }
      return p;
    };
    std::set<std::string> proposed;
    // Children ranked but not measured: measured best-ranked first once no
    // new child can be made (a small space used up).
    std::vector<std::pair<double, Point>> backlog;
    auto by_rank = [](const auto &x, const auto &y) { return x.first > y.first; };
    for (int generation = 0; generation < 1000 && !out_of_budget(); ++generation) {
      std::vector<std::pair<double, Point>> children;
      for (int tries = 0; children.size() < 16 && tries < 200; ++tries) {
        const Point &a = population[rng() % population.size()].second;
        const Point &b = population[rng() % population.size()].second;
        Point child;
        for (const TuneKnob &k : space_.knobs) child[k.name] = (rng() % 2 ? a : b).at(k.name);
        child = mutate(std::move(child));
        if (seen_.count(poly::point_text(child)) || !proposed.insert(poly::point_text(child)).second) continue;
        TuneRecord m = measure(child, "model");
        if (out_of_budget()) return;
        if (m.status == "ok") children.push_back({m.ratio, std::move(child)});
      }
      if (children.empty()) {  // the space is used up
        std::sort(backlog.begin(), backlog.end(), by_rank);
        for (const auto &c : backlog) {
          if (out_of_budget()) return;
          trial(c.second);
        }
        return;
      }
      std::sort(children.begin(), children.end(), by_rank);
      const std::size_t keep = std::max<std::size_t>(1, children.size() / 4);
      backlog.insert(backlog.end(), children.begin() + static_cast<std::ptrdiff_t>(keep), children.end());
      children.resize(keep);
      for (const auto &c : children) {
        if (out_of_budget()) return;
        double r = trial(c.second);
        if (r > 0) population.push_back({r, c.second});
      }
      std::sort(population.begin(), population.end(), by_rank);
      if (population.size() > 8) population.resize(8);
    }
  }

  void random(const Point &def) {
    std::mt19937 rng(o_.seed);
    (void)def;
    for (int misses = 0; misses < 1000 && !out_of_budget();) {
      Point p;
      for (const TuneKnob &k : space_.knobs) p[k.name] = k.values[rng() % k.values.size()];
      if (trial(p) == -2) ++misses;
    }
  }

  /// Every point, in odometer order (the last knob fastest).
  void exhaustive() {
    std::vector<std::size_t> at(space_.knobs.size(), 0);
    for (;;) {
      if (out_of_budget()) return;
      Point p;
      for (std::size_t i = 0; i < at.size(); ++i) p[space_.knobs[i].name] = space_.knobs[i].values[at[i]];
      trial(p);
      std::size_t i = at.size();
      while (i > 0) {
        --i;
        if (++at[i] < space_.knobs[i].values.size()) break;
        at[i] = 0;
        if (i == 0) return;
      }
      if (at.empty()) return;
    }
  }

  const ClusterSpace &space_;
  std::string batch_;
  const TuneOptions &o_;
  Child &child_;
  std::map<std::string, TuneRecord> &known_;
  Child *model_ = nullptr;        ///< --model-cmd's process
  std::optional<double> model_default_;  ///< its time for the default point
  std::string machine_;
  TunedCluster result_;
  std::set<std::string> seen_;
  Clock::time_point t0_;
  double spent_ = 0;
};

nlohmann::json cluster_json(const TunedCluster &c) {
  nlohmann::json curve = nlohmann::json::array();
  for (const auto &[t, r] : c.curve) curve.push_back({{"s", t}, {"ratio", r}});
  return {{"graph", c.graph},       {"cluster", c.cluster},     {"key", c.key},
          {"trials", c.trials},     {"measured", c.measured},   {"failures", c.failures},
          {"best_ratio", c.best_ratio}, {"best", c.best},       {"seconds", c.seconds},
          {"curve", curve}};
}

}  // namespace

struct PointMeasurer::Impl {
  TuneOptions options;
  Child child;
  std::string machine;
  explicit Impl(const TuneOptions &o)
      : options(o), child({worker_path(o), "tune-worker"}, o.memory_mb), machine(tune_machine_id()) {}
};

PointMeasurer::PointMeasurer(const TuneOptions &options) : impl_(new Impl(options)) {}
PointMeasurer::~PointMeasurer() { delete impl_; }

TuneRecord PointMeasurer::measure(const std::string &batch_path, const ClusterSpace &space,
                                  const std::map<std::string, std::string> &point, const std::string &verify) {
  if (verify != "default" && verify != "reference")
    throw UserError("measure: verify is \"default\" or \"reference\", not \"" + verify + "\"");
  IgnorePipe ignore_pipe;
  auto t0 = Clock::now();
  nlohmann::json a = ask_worker(impl_->child, std::filesystem::absolute(batch_path).string(), space, point, verify,
                                "run", impl_->options);
  TuneRecord r = record_from(space, point, a, verify, impl_->machine, "api");
  r.seconds = seconds_since(t0);
  return r;
}

std::string explain_point(const std::string &batch_path, const std::string &graph, const std::string &key,
                          const std::map<std::string, std::string> &point, const std::string &stage) {
  Batch batch = read_input_file(batch_path);
  for (const BatchGraph &bg : batch.graphs) {
    if (bg.name != graph) continue;
    if (bg.error) throw *bg.error;
    CompileOptions co;
    co.target = "cpu";
    co.executable = false;
    co.tuning = tuning::point_table(key, point);
    const bool pass = poly::has_pass(poly::cpu_pipeline(), stage);
    const bool code = stage == "llvm" || stage == "c";
    if (!pass && !code && stage != "scop" && stage != "deps" && stage != "schedule" && stage != "ast")
      throw UserError("explain_point: unknown stage '" + stage +
                      "' (scop, deps, schedule, ast, llvm, c or a pass of the CPU table)");
    if (pass) co.print_after = {stage};
    ScheduledGraph s = schedule_graph(*bg.graph, co);
    if (code) {
      // The code as `atoll explain --stage llvm|c --records` prints it.
      std::vector<poly::LKernel> kernels;
      for (const poly::ClusterResult &c : s.clusters) kernels.push_back(c.kernel);
      return stage == "llvm" ? cpu::emit_llvm_ir(kernels) : cpu::emit_c_source(kernels);
    }
    std::string out;
    for (const poly::ClusterResult &c : s.clusters)
      out += pass ? cluster_printed_text(c, stage) : cluster_stage_text(c, stage);
    return out;
  }
  throw UserError("no graph '" + graph + "' in '" + batch_path + "'");
}

double ClusterSpace::size() const {
  double n = 1;
  for (const TuneKnob &k : knobs) n *= static_cast<double>(std::max<std::size_t>(1, k.values.size()));
  return n;
}

std::vector<ClusterSpace> search_spaces(const std::string &batch_path, const std::string &graph,
                                        const std::map<std::string, std::int64_t> &params) {
  (void)params;  // the space is the symbolic graph's; parameters matter for measurement only
  Batch batch = read_input_file(batch_path);
  std::vector<ClusterSpace> out;
  std::set<std::string> seen;
  bool found = graph.empty();
  for (const BatchGraph &bg : batch.graphs) {
    if (!graph.empty() && bg.name != graph) continue;
    found = true;
    if (bg.error) throw *bg.error;
    if (!bg.graph) continue;
    for (ClusterSpace &s : graph_spaces(*bg.graph, seen)) out.push_back(std::move(s));
  }
  if (!found) throw UserError("no graph '" + graph + "' in '" + batch_path + "'");
  return out;
}

TuneResult tune_batch_file(const std::string &batch_path, const TuneOptions &o) {
  if (o.strategy != "greedy" && o.strategy != "random" && o.strategy != "exhaustive" && o.strategy != "evolutionary")
    throw UserError("tune: unknown strategy '" + o.strategy + "' (greedy, random, exhaustive or evolutionary)");
  if (o.shards < 1 || o.shard < 0 || o.shard >= o.shards) throw UserError("tune: --shard i/N needs 0 <= i < N");
  if (o.budget_s <= 0) throw UserError("tune: the budget must be positive");
  Batch batch = read_input_file(batch_path);
  IgnorePipe ignore_pipe;
  const std::string abs_batch = std::filesystem::absolute(batch_path).string();
  std::map<std::string, TuneRecord> known;
  if (!o.records.empty() && std::filesystem::exists(o.records))
    for (const TuneRecord &r : read_tune_records(o.records)) known[tuning::point_id(r) + "|" + r.verified] = r;
  if (o.measure != "run" && o.measure != "model") throw UserError("tune: --measure is run or model");
  if (!o.model_cmd.empty() && o.measure != "model") throw UserError("tune: --model-cmd goes with --measure model");
  Child child({worker_path(o), "tune-worker"}, o.memory_mb);
  std::unique_ptr<Child> model;
  if (!o.model_cmd.empty()) model = std::make_unique<Child>(std::vector<std::string>{"/bin/sh", "-c", o.model_cmd}, 0);
  TuneResult result;
  std::set<std::string> seen;
  bool found = o.graph.empty();
  for (const BatchGraph &bg : batch.graphs) {
    if (!o.graph.empty() && bg.name != o.graph) continue;
    found = true;
    if (bg.error || !bg.graph) {
      result.errors.push_back(bg.error ? bg.error->what() : "graph '" + bg.name + "' did not read");
      continue;
    }
    std::vector<ClusterSpace> spaces;
    try {
      spaces = graph_spaces(*bg.graph, seen);
    } catch (const UserError &e) {
      result.errors.push_back(e.what());
      continue;
    }
    for (const ClusterSpace &s : spaces) {
      // Shards split the clusters by key: disjoint even where graphs share
      // a cluster, the same split on every machine.
      if (std::stoull(s.key.substr(0, 8), nullptr, 16) % static_cast<unsigned long long>(o.shards) !=
          static_cast<unsigned long long>(o.shard))
        continue;
      Search search(s, abs_batch, o, child, known, model.get());
      result.clusters.push_back(search.run());
      if (o.progress && ::isatty(2)) std::cerr << "\n";
    }
  }
  if (!found) throw UserError("no graph '" + o.graph + "' in '" + batch_path + "'");
  nlohmann::json j;
  j["batch"] = batch_path;
  j["strategy"] = o.strategy;
  j["measure"] = o.model_cmd.empty() ? o.measure : "model: " + o.model_cmd;
  j["budget_s"] = o.budget_s;
  j["shard"] = std::to_string(o.shard) + "/" + std::to_string(o.shards);
  j["machine"] = tune_machine_id();
  j["clusters"] = nlohmann::json::array();
  for (const TunedCluster &c : result.clusters) j["clusters"].push_back(cluster_json(c));
  j["errors"] = result.errors;
  result.report_json = j.dump(2) + "\n";
  return result;
}

}  // namespace atl
