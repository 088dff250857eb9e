// Tables and JSON for benchmark results.
#include "bench/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>

namespace atl::bench {

namespace {

std::string fmt(const char *f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string pad(const std::string &s, std::size_t width, bool right = false) {
  if (s.size() >= width) return s + " ";
  std::string fill(width - s.size(), ' ');
  return right ? fill + s : s + fill;
}

std::string cell(const LibResult *r) {
  if (!r || !r->unavailable.empty()) return "n/a";
  if (!r->error.empty()) return "FAILED";
  return fmt("%.3f", r->timing.median) + " " + fmt(r->rate >= 100 ? "%.0f" : "%.1f", r->rate);
}

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

}  // namespace

const LibResult *CaseResult::lib(const std::string &name) const {
  for (const LibResult &l : libs)
    if (l.lib == name) return &l;
  return nullptr;
}

void print_group(std::ostream &os, const std::string &title, const std::vector<CaseResult> &cases,
                 const std::vector<std::string> &libs, const std::vector<Ratio> &ratios) {
  if (cases.empty()) return;
  const std::string unit = cases.front().unit;
  os << "\n== " << title << " ==\n"
     << "cells: median ms and " << unit << "; ratios: rate of the first / rate of the second (> 1: first faster)\n";
  std::size_t name_w = 12;
  for (const CaseResult &c : cases) name_w = std::max(name_w, c.name.size() + 1);
  const std::size_t lib_w = 18, ratio_w = 12;
  os << pad("case", name_w) << pad("thr", 4);
  for (const std::string &l : libs) os << pad(l, lib_w);
  for (const Ratio &r : ratios) os << pad(r.label, ratio_w);
  os << pad("compile ms", 12) << "check\n";
  for (const CaseResult &c : cases) {
    os << pad(c.name, name_w) << pad(std::to_string(c.threads), 4);
    for (const std::string &l : libs) os << pad(cell(c.lib(l)), lib_w);
    for (const Ratio &r : ratios) {
      const LibResult *a = c.lib(r.num), *b = c.lib(r.den);
      bool both = a && b && a->ran() && b->ran() && a->rate > 0 && b->rate > 0;
      os << pad(both ? fmt("%.2f", a->rate / b->rate) : "n/a", ratio_w);
    }
    const LibResult *atoll = c.lib("atoll");
    os << pad(atoll && !atoll->compile_ms.empty() ? fmt("%.0f", median_of(atoll->compile_ms)) : "n/a", 12);
    std::string check;
    for (const LibResult &l : c.libs)
      if (l.ran() && !l.ok) check += (check.empty() ? "FAIL " : ", ") + l.lib + " " + fmt("%.1e", l.max_rel_err);
    for (const LibResult &l : c.libs)
      if (!l.error.empty()) check += (check.empty() ? "FAIL " : ", ") + l.lib + " error";
    os << (check.empty() ? "ok" : check) << "\n";
  }
  os << "kernels, max_rel_err against " << cases.front().reference << " (tolerance " << fmt("%.0e", kTolerance)
     << "), timed runs:\n";
  for (const CaseResult &c : cases) {
    bool first = true;
    for (const LibResult &l : c.libs) {
      os << "  " << pad(first ? c.name + " [" + c.shape + "]" : "", name_w + 24) << pad(l.lib, 16);
      first = false;
      if (!l.unavailable.empty()) {
        os << "n/a: " << l.unavailable << "\n";
        continue;
      }
      if (!l.error.empty()) {
        os << "FAILED: " << l.error << "\n";
        continue;
      }
      std::string err = l.max_rel_err < 0 ? (l.lib == c.reference ? "reference" : "unchecked") : fmt("%.1e", l.max_rel_err) + (l.ok ? " ok" : " FAIL");
      os << pad(err, 13) << pad(std::to_string(l.timing.ms.size()) + " runs", 10)
         << pad("min " + fmt("%.3f", l.timing.min) + " ms", 17);
      if (!l.compile_ms.empty())
        os << "compile " << fmt("%.0f", median_of(l.compile_ms)) << " ms, " << l.kernels << " kernel(s); ";
      os << l.kernel << "\n";
    }
  }
}

nlohmann::json to_json(const CaseResult &c) {
  nlohmann::json j = {{"group", c.group}, {"name", c.name},   {"shape", c.shape},
                      {"threads", c.threads}, {"work", c.work}, {"unit", c.unit},
                      {"reference", c.reference}};
  nlohmann::json libs = nlohmann::json::array();
  for (const LibResult &l : c.libs) {
    nlohmann::json r = {{"lib", l.lib}};
    if (!l.unavailable.empty()) {
      r["unavailable"] = l.unavailable;
    } else if (!l.error.empty()) {
      r["error"] = l.error;
    } else {
      r["median_ms"] = l.timing.median;
      r["min_ms"] = l.timing.min;
      r["p25_ms"] = l.timing.p25;
      r["p75_ms"] = l.timing.p75;
      r["runs"] = l.timing.ms.size();
      r["rate"] = l.rate;
      r["kernel"] = l.kernel;
      if (l.max_rel_err >= 0) r["max_rel_err"] = l.max_rel_err;
      r["ok"] = l.ok;
      if (!l.compile_ms.empty()) {
        r["compile_ms"] = l.compile_ms;
        r["compile_ms_median"] = median_of(l.compile_ms);
        r["kernels"] = l.kernels;
      }
    }
    libs.push_back(r);
  }
  j["libs"] = libs;
  return j;
}

}  // namespace atl::bench
