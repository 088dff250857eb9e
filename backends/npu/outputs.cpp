// Builds stats.json, the Chrome trace-event JSON and the SVG timeline of a timed run.
#include "backends/npu/outputs.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

namespace atl::npu {
namespace {

std::string xml_escape(const std::string &s) {
  std::string o;
  for (char ch : s) {
    switch (ch) {
    case '<': o += "&lt;"; break;
    case '>': o += "&gt;"; break;
    case '&': o += "&amp;"; break;
    case '"': o += "&quot;"; break;
    default: o += ch;
    }
  }
  return o;
}

/// A distinguishable colour per kind (in order of first appearance).
const char *palette(size_t i) {
  static const char *const p[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1",
                                  "#ff9da7", "#9c755f", "#bab0ac", "#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                  "#8c564b", "#17becf", "#bcbd22", "#7f7f7f"};
  return p[i % (sizeof p / sizeof p[0])];
}

/// Instructions that occupy a pipe (flags are zero-length markers).
bool shown(const Instr &i, uint64_t s, uint64_t e) { return e > s; }

double nice_step(double span, int target_ticks) {
  double raw = span / target_ticks, mag = std::pow(10.0, std::floor(std::log10(std::max(raw, 1.0))));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (raw <= m * mag) return m * mag;
  return 10 * mag;
}

}  // namespace

nlohmann::json make_stats(const Target &t, const std::vector<CoreTrace> &traces, const Timing &tm,
                          const AnalyticEstimate &an) {
  nlohmann::json j;
  j["target"] = t.name;
  j["target_hash"] = t.hash();
  j["cores"] = t.cores;
  j["clock_mhz"] = t.clock_mhz;
  j["cycles"] = tm.cycles;
  j["time_us"] = static_cast<double>(tm.cycles) / t.clock_mhz;
  nlohmann::json total = nlohmann::json::object(), per_core = nlohmann::json::array();
  for (int p = 0; p < kNumPipes; ++p) total[pipe_name(static_cast<npu_pipe>(p))] = 0;
  size_t instrs = 0;
  for (size_t c = 0; c < traces.size(); ++c) {
    nlohmann::json pc = nlohmann::json::object();
    for (int p = 0; p < kNumPipes; ++p) {
      const char *n = pipe_name(static_cast<npu_pipe>(p));
      pc[n] = tm.busy[c][p];
      total[n] = total[n].get<uint64_t>() + tm.busy[c][p];
    }
    per_core.push_back(pc);
    instrs += traces[c].instrs.size();
  }
  j["busy_cycles"] = {{"total", total}, {"per_core", per_core}};
  j["bytes_per_path"] = tm.bytes_per_path;
  j["macs"] = tm.macs;
  j["cube_steps"] = tm.cube_steps;
  j["cube_utilisation"] = tm.cube_utilisation;
  j["instructions"] = instrs;
  nlohmann::json sums = nlohmann::json::object();
  for (int p = 0; p < kNumPipes; ++p) sums[pipe_name(static_cast<npu_pipe>(p))] = an.pipe_sums[p];
  j["analytical"] = {{"cycles", an.cycles}, {"double_buffered", an.double_buffered}, {"pipe_sums", sums}};
  return j;
}

nlohmann::json make_chrome_trace(const Target &t, const std::vector<CoreTrace> &traces, const SyncGraph &g,
                                 const Timing &tm) {
  nlohmann::json ev = nlohmann::json::array();
  double us = 1.0 / t.clock_mhz;  // microseconds per cycle
  for (size_t c = 0; c < traces.size(); ++c) {
    ev.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", c}, {"args", {{"name", "core " + std::to_string(c)}}}});
    for (int p = 0; p < kNumPipes; ++p) {
      ev.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", c}, {"tid", p},
                    {"args", {{"name", pipe_name(static_cast<npu_pipe>(p))}}}});
      ev.push_back({{"ph", "M"}, {"name", "thread_sort_index"}, {"pid", c}, {"tid", p}, {"args", {{"sort_index", p}}}});
    }
  }
  for (uint32_t v = 0; v < g.size(); ++v) {
    const Instr &i = *g.instr[v];
    nlohmann::json e = {{"name", i.kind}, {"cat", pipe_name(i.pipe)}, {"pid", g.core_of[v]}, {"tid", static_cast<int>(i.pipe)},
                        {"ts", static_cast<double>(tm.start[v]) * us},
                        {"args", {{"call", i.call}, {"index", i.index}, {"start_cycle", tm.start[v]}, {"end_cycle", tm.finish[v]}}}};
    if (tm.finish[v] > tm.start[v]) {
      e["ph"] = "X";
      e["dur"] = static_cast<double>(tm.finish[v] - tm.start[v]) * us;
    } else {
      e["ph"] = "i";
      e["s"] = "t";
      if (i.sync == SyncKind::Set || i.sync == SyncKind::Wait)
        e["args"]["flag"] = std::string(pipe_name(i.flag_src)) + "->" + pipe_name(i.flag_dst) + " e" + std::to_string(i.event);
    }
    ev.push_back(std::move(e));
  }
  return {{"traceEvents", ev}, {"displayTimeUnit", "ns"},
          {"otherData", {{"target", t.name}, {"cycles", tm.cycles}, {"clock_mhz", t.clock_mhz}}}};
}

std::string make_svg_timeline(const Target &t, const std::vector<CoreTrace> &traces, const SyncGraph &g,
                              const Timing &tm) {
  const double left = 120, width = 1200, row_h = 18, top = 30;
  size_t rows = traces.size() * kNumPipes;
  double cycles = std::max<double>(1.0, static_cast<double>(tm.cycles));
  std::map<std::string, size_t> kinds;  // kind -> colour index
  for (uint32_t v = 0; v < g.size(); ++v)
    if (shown(*g.instr[v], tm.start[v], tm.finish[v])) kinds.emplace(g.instr[v]->kind, kinds.size());
  double axis_y = top + rows * row_h;
  size_t legend_cols = 4;
  double legend_y = axis_y + 45;
  double height = legend_y + ((kinds.size() + legend_cols - 1) / legend_cols) * 18 + 20;
  std::ostringstream o;
  o << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << left + width + 20 << "\" height=\"" << height
    << "\" font-family=\"sans-serif\" font-size=\"11\">\n"
    << "<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    << "<text x=\"" << left << "\" y=\"18\" font-size=\"13\">" << xml_escape(t.name) << ": " << tm.cycles
    << " cycles, cube utilisation " << std::round(tm.cube_utilisation * 1000) / 10 << "%</text>\n";
  for (size_t c = 0; c < traces.size(); ++c)
    for (int p = 0; p < kNumPipes; ++p) {
      double y = top + (c * kNumPipes + p) * row_h;
      o << "<rect x=\"" << left << "\" y=\"" << y << "\" width=\"" << width << "\" height=\"" << row_h
        << "\" fill=\"" << ((c * kNumPipes + p) % 2 ? "#f4f4f4" : "#ffffff") << "\"/>\n"
        << "<text x=\"4\" y=\"" << y + 13 << "\">core " << c << " " << pipe_name(static_cast<npu_pipe>(p)) << "</text>\n";
    }
  for (uint32_t v = 0; v < g.size(); ++v) {
    const Instr &i = *g.instr[v];
    if (!shown(i, tm.start[v], tm.finish[v])) continue;
    double x = left + tm.start[v] / cycles * width;
    double w = std::max(0.5, (tm.finish[v] - tm.start[v]) / cycles * width);
    double y = top + (g.core_of[v] * kNumPipes + i.pipe) * row_h + 2;
    o << "<rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << w << "\" height=\"" << row_h - 4 << "\" fill=\""
      << palette(kinds[i.kind]) << "\"><title>" << xml_escape(i.kind) << " #" << i.index << " [" << tm.start[v]
      << ", " << tm.finish[v] << ")</title></rect>\n";
  }
  o << "<line x1=\"" << left << "\" y1=\"" << axis_y << "\" x2=\"" << left + width << "\" y2=\"" << axis_y
    << "\" stroke=\"black\"/>\n";
  double step = nice_step(cycles, 10);
  for (double c = 0; c <= cycles + 1e-9; c += step) {
    double x = left + c / cycles * width;
    o << "<line x1=\"" << x << "\" y1=\"" << axis_y << "\" x2=\"" << x << "\" y2=\"" << axis_y + 5
      << "\" stroke=\"black\"/>\n<text x=\"" << x << "\" y=\"" << axis_y + 17 << "\" text-anchor=\"middle\">"
      << static_cast<uint64_t>(c) << "</text>\n";
  }
  o << "<text x=\"" << left + width / 2 << "\" y=\"" << axis_y + 32 << "\" text-anchor=\"middle\">cycles</text>\n";
  size_t k = 0;
  for (auto &[name, idx] : kinds) {
    double x = left + (k % legend_cols) * 300, y = legend_y + (k / legend_cols) * 18;
    o << "<rect x=\"" << x << "\" y=\"" << y << "\" width=\"12\" height=\"12\" fill=\"" << palette(idx) << "\"/>"
      << "<text x=\"" << x + 16 << "\" y=\"" << y + 10 << "\">" << xml_escape(name) << "</text>\n";
    ++k;
  }
  o << "</svg>\n";
  return o.str();
}

}  // namespace atl::npu
