// atoll_kernel_bench: Atoll's generated kernels side by side with naive loops,
// OpenBLAS and oneDNN in one process; prints tables of medians and ratios and
// writes every result as JSON.
#include "bench/cases.h"
#include "bench/onednn_kernels.h"
#include <atoll/version.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

namespace {

using atl::bench::CaseResult;
using atl::bench::Config;

const char *kUsage = R"(usage: atoll_kernel_bench [options]
  --threads LIST      thread counts, comma-separated (default 1,2)
  --quick             fewer sizes and shorter timing (a smoke run)
  --filter LIST       only cases whose name contains one of these comma-separated
                      strings, e.g. gemm/1024,conv/r50,mem/softmax
  --groups LIST       gemm,conv,memory (default all three)
  --rounds N          timing rounds per case, libraries interleaved (default 3, quick 1)
  --min-time S        timed seconds per library per case, over all rounds (default 0.3, quick 0.1)
  --compile-reps N    Atoll compiles per case for the compile-time median (default 3, quick 1)
  --json FILE         write all results there
  --note TEXT         free text stored in the JSON (commit, machine state)
  --list              print the case names and exit
)";

std::vector<std::string> split(const std::string &s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

std::string read_first(const std::string &path, const std::string &key) {
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);)
    if (key.empty() || line.rfind(key, 0) == 0) {
      auto colon = line.find(':');
      return key.empty() || colon == std::string::npos ? line : line.substr(colon + 2);
    }
  return "?";
}

std::string host_text() {
  std::string flags = read_first("/proc/cpuinfo", "flags");
  std::string isa = flags.find("avx512f") != std::string::npos ? "AVX-512"
                    : flags.find("avx2") != std::string::npos  ? "AVX2"
                                                               : "no AVX2";
  return read_first("/proc/cpuinfo", "model name") + ", " + std::to_string(std::thread::hardware_concurrency()) +
         " hardware threads, " + isa;
}

/// Atoll's multi-line version text on one line: lines joined by "; ", runs of spaces collapsed.
std::string atoll_version() {
  std::string out;
  std::stringstream in(atl::version_text());
  for (std::string line; std::getline(in, line);) {
    std::string words;
    std::stringstream ls(line);
    for (std::string w; ls >> w;) words += (words.empty() ? "" : " ") + w;
    if (!words.empty()) out += (out.empty() ? "" : "; ") + words;
  }
  return out;
}

std::string load_text() { return read_first("/proc/loadavg", ""); }

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

/// Rate at each further thread count over the rate at the first, per case and library.
void print_scaling(const std::vector<CaseResult> &all, const std::vector<int> &threads) {
  std::map<std::string, std::map<std::string, std::map<int, double>>> rate;  // case -> lib -> threads -> rate
  std::vector<std::string> order, libs;
  for (const CaseResult &c : all) {
    if (c.name.rfind("mem/triad", 0) == 0) continue;
    if (!rate.count(c.name)) order.push_back(c.name);
    for (const auto &l : c.libs) {
      if (!l.ran() || l.rate <= 0) continue;
      rate[c.name][l.lib][c.threads] = l.rate;
      if (std::find(libs.begin(), libs.end(), l.lib) == libs.end()) libs.push_back(l.lib);
    }
  }
  for (std::size_t t = 1; t < threads.size(); ++t) {
    std::cout << "\n== Scaling: rate at " << threads[t] << " threads / rate at " << threads[0]
              << " (same run; the second core is shared with other work) ==\n";
    std::printf("%-24s", "case");
    for (const std::string &l : libs) std::printf("%-16s", l.c_str());
    std::printf("\n");
    for (const std::string &name : order) {
      std::printf("%-24s", name.c_str());
      for (const std::string &l : libs) {
        auto &r = rate[name][l];
        if (r.count(threads[0]) && r.count(threads[t])) std::printf("%-16.2f", r[threads[t]] / r[threads[0]]);
        else std::printf("%-16s", "n/a");
      }
      std::printf("\n");
    }
    std::fflush(stdout);
  }
}

}  // namespace

int main(int argc, char **argv) {
  Config config;
  std::vector<int> threads = {1, 2};
  std::vector<std::string> groups = {"gemm", "conv", "memory"};
  std::string json_path, note;
  int rounds = -1, compile_reps = -1;
  double min_time = -1;
  bool list = false;
  try {
    for (int i = 1; i < argc; ++i) {
      std::string a = argv[i];
      auto value = [&]() -> std::string {
        if (i + 1 >= argc) throw std::runtime_error(a + " needs a value");
        return argv[++i];
      };
      if (a == "--threads") {
        threads.clear();
        for (const std::string &t : split(value())) threads.push_back(std::stoi(t));
      } else if (a == "--quick") config.quick = true;
      else if (a == "--filter") config.filters = split(value());
      else if (a == "--groups") groups = split(value());
      else if (a == "--rounds") rounds = std::stoi(value());
      else if (a == "--min-time") min_time = std::stod(value());
      else if (a == "--compile-reps") compile_reps = std::stoi(value());
      else if (a == "--json") json_path = value();
      else if (a == "--note") note = value();
      else if (a == "--list") list = true;
      else if (a == "--help" || a == "-h") {
        std::cout << kUsage;
        return 0;
      } else throw std::runtime_error("unknown option " + a);
    }
    for (int t : threads)
      if (t < 1) throw std::runtime_error("thread counts must be >= 1");
    for (const std::string &g : groups)
      if (g != "gemm" && g != "conv" && g != "memory") throw std::runtime_error("unknown group " + g);
  } catch (const std::exception &e) {
    std::cerr << "atoll_kernel_bench: " << e.what() << "\n" << kUsage;
    return 2;
  }
  config.rounds = rounds > 0 ? rounds : config.quick ? 1 : 3;
  config.compile_reps = compile_reps > 0 ? compile_reps : config.quick ? 1 : 3;
  double total_time = min_time > 0 ? min_time : config.quick ? 0.1 : 0.3;
  config.measure.min_time_s = total_time / config.rounds;
  config.measure.min_reps = std::max(1, 3 / config.rounds);
  if (list) {
    std::cout << "gemm/256 gemm/512 gemm/1024 gemm/2048 gemm/1000 gemm/127x255x63 gemm/4096x64x4096\n"
                 "conv/r50-3x3-64 conv/r50-1x1-256to64 conv/r50-3x3s2-128 conv/r50-stem-7x7s2 conv/mnv2-dw3x3-144\n"
                 "mem/triad-{4,16,64}MB mem/add-relu-mul-{4,16,64}MB mem/softmax-{4,16,64}MB mem/layernorm-{4,16,64}MB\n"
                 "(quick: gemm/256, gemm/1024, gemm/127x255x63, conv/r50-3x3-64, conv/mnv2-dw3x3-144, mem/*-16MB)\n";
    return 0;
  }

  std::cout << "Atoll kernel benchmark, " << utc_now() << "\n"
            << "host:     " << host_text() << "\n"
            << "atoll:    " << atoll_version() << "\n"
            << "openblas: " << atl::bench::openblas_version() << "\n"
            << "onednn:   " << atl::bench::dnnl_cases::version() << "\n"
            << "timing:   " << config.rounds << " round(s) x >= " << config.measure.min_time_s
            << " s per library per case after warm-up, median of all timed runs; "
            << (config.quick ? "quick mode" : "full mode") << "\n"
            << "load:     " << load_text() << " (at start; other processes share this machine)\n";
  if (!note.empty()) std::cout << "note:     " << note << "\n";
  std::cout << std::flush;

  const std::string load_start = load_text();
  nlohmann::json cases = nlohmann::json::array();
  std::vector<CaseResult> all;
  std::vector<std::string> failures;
  std::vector<double> compile_per_kernel;
  auto start = std::chrono::steady_clock::now();
  for (int t : threads) {
    atl::bench::set_threads(t);
    config.settle_s = t > 1 ? 0.15 : 0.01;  // OpenBLAS workers spin ~0.1 s after a call
    const std::string thr = std::to_string(t) + (t == 1 ? " thread" : " threads");
    for (const std::string &group : groups) {
      std::vector<CaseResult> results;
      if (group == "gemm") {
        results = atl::bench::run_gemm(config, t);
        atl::bench::print_group(std::cout, "GEMM f32, " + thr, results, {"atoll", "naive", "openblas", "onednn"},
                                {{"atoll", "naive", "A/naive"}, {"atoll", "openblas", "A/openblas"},
                                 {"atoll", "onednn", "A/onednn"}, {"openblas", "onednn", "blas/dnnl"}});
      } else if (group == "conv") {
        results = atl::bench::run_conv(config, t);
        atl::bench::print_group(std::cout, "Conv f32 batch 1, " + thr, results,
                                {"atoll", "atoll-blocked", "naive", "onednn", "onednn-blocked", "onednn-any"},
                                {{"atoll", "naive", "A/naive"}, {"atoll", "onednn", "A/dnnl"},
                                 {"atoll-blocked", "onednn-blocked", "Ab/dnnl-b"},
                                 {"atoll", "onednn-any", "A/dnnl-any"}});
      } else {
        results = atl::bench::run_memory(config, t);
        std::vector<CaseResult> ops;
        for (const CaseResult &c : results)
          if (c.name.rfind("mem/triad", 0) != 0) ops.push_back(c);
        atl::bench::print_group(std::cout, "Memory-bound f32 (compulsory bytes), " + thr, ops,
                                {"atoll", "naive", "onednn", "triad"},
                                {{"atoll", "triad", "A/triad"}, {"atoll", "naive", "A/naive"},
                                 {"atoll", "onednn", "A/onednn"}, {"onednn", "triad", "dnnl/triad"}});
      }
      std::cout << std::flush;
      all.insert(all.end(), results.begin(), results.end());
      for (const CaseResult &c : results) {
        cases.push_back(atl::bench::to_json(c));
        for (const auto &l : c.libs) {
          if (!l.error.empty()) failures.push_back(c.name + " t" + std::to_string(t) + " " + l.lib + ": " + l.error);
          else if (l.ran() && !l.ok)
            failures.push_back(c.name + " t" + std::to_string(t) + " " + l.lib + ": max_rel_err " +
                               std::to_string(l.max_rel_err));
          if (l.lib.rfind("atoll", 0) == 0 && l.kernels > 0)
            for (double ms : l.compile_ms) compile_per_kernel.push_back(ms / l.kernels);
        }
      }
    }
  }
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  if (threads.size() > 1) print_scaling(all, threads);
  std::sort(compile_per_kernel.begin(), compile_per_kernel.end());
  std::cout << "\nload at end: " << load_text() << "; benchmark took " << static_cast<int>(elapsed) << " s\n";
  if (!compile_per_kernel.empty())
    std::cout << "Atoll compile time per kernel (graph compile / kernels, all compiles): median "
              << compile_per_kernel[compile_per_kernel.size() / 2] << " ms, max " << compile_per_kernel.back()
              << " ms over " << compile_per_kernel.size() << "\n";
  if (failures.empty()) {
    std::cout << "correctness: every result within max_rel_err " << atl::bench::kTolerance << " of the naive loops\n";
  } else {
    std::cout << "correctness: " << failures.size() << " FAILED\n";
    for (const std::string &f : failures) std::cout << "  FAIL " << f << "\n";
  }
  if (!json_path.empty()) {
    nlohmann::json j = {{"date", utc_now()},
                        {"host", host_text()},
                        {"atoll", atoll_version()},
                        {"openblas", atl::bench::openblas_version()},
                        {"onednn", atl::bench::dnnl_cases::version()},
                        {"quick", config.quick},
                        {"rounds", config.rounds},
                        {"min_time_s_per_round", config.measure.min_time_s},
                        {"compile_reps", config.compile_reps},
                        {"threads", threads},
                        {"note", note},
                        {"load_start", load_start},
                        {"load_end", load_text()},
                        {"elapsed_s", elapsed},
                        {"failures", failures},
                        {"cases", cases}};
    std::ofstream f(json_path);
    f << j.dump(1) << "\n";
    if (!f) {
      std::cerr << "atoll_kernel_bench: cannot write " << json_path << "\n";
      return 2;
    }
    std::cout << "results: " << json_path << "\n";
  }
  return failures.empty() ? 0 : 1;
}
