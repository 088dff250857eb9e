// run_kernel: places GM buffers, launches SPMD cores as turn-taking threads, then checks, times and writes outputs.
#include "backends/npu/launcher.h"

#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>

#include "backends/npu/context.h"
#include "backends/npu/outputs.h"
#include "backends/npu/sync_graph.h"

namespace atl::npu {
namespace {

void write_file(const std::string &path, const std::string &text, RunResult &r) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (out) r.files.push_back(path);
  else if (r.error.empty()) r.error = "cannot write " + path;
}

}  // namespace

RunResult run_kernel(const Target &t, npu_kernel_fn kernel, std::vector<HostBuffer> args, Mode mode,
                     const RunOptions &opts) {
  RunResult r;
  LaunchState st;
  st.target = &t;
  st.flag_protocol = opts.flag_protocol;
  st.cube_arithmetic = opts.cube_arithmetic;
  st.finished.assign(t.cores, 0);
  std::vector<void *> gm_args;
  for (HostBuffer &b : args) {
    if (b.bytes.empty()) b.bytes.resize(1);  // every argument has a distinct address
    gm_args.push_back(b.bytes.data());
    uint64_t lo = reinterpret_cast<uintptr_t>(b.bytes.data());
    st.gm.push_back({lo, lo + b.bytes.size()});
  }
  std::vector<std::unique_ptr<npu_ctx>> ctx;
  for (uint32_t c = 0; c < t.cores; ++c) {
    auto x = std::make_unique<npu_ctx>();
    x->launch = &st;
    x->core = c;
    x->trace.core = c;
    for (int m = NPU_L1; m < kNumMems; ++m) x->mem[m].assign(t.memories[m].bytes, 0);
    ctx.push_back(std::move(x));
  }
  void **argv = gm_args.data();
  if (t.cores == 1) {
    kernel(ctx[0].get(), argv);
  } else {
    std::vector<std::thread> threads;
    for (uint32_t c = 0; c < t.cores; ++c)
      threads.emplace_back([&, c] {
        st.wait_turn(c);
        kernel(ctx[c].get(), argv);
        st.yield_turn(c, true);
      });
    for (std::thread &th : threads) th.join();
  }
  for (auto &x : ctx) r.traces.push_back(std::move(x->trace));
  r.args = std::move(args);
  if (st.failed) {
    r.error = st.error;
    return r;
  }
  SyncGraph g = build_sync_graph(t, r.traces, opts.flag_protocol);
  if (!g.error.empty()) {
    r.error = g.error;
    return r;
  }
  if (opts.check_hazards) {
    HazardReport h = check_hazards(r.traces, g, opts.max_reports);
    r.races = h.races;
    r.uninit = h.uninit;
    if (!h.races.empty()) r.error = h.races.front();
    else if (!h.uninit.empty()) r.error = h.uninit.front();
  }
  r.analytical = analytical_model(t, r.traces);
  if (mode == Mode::Timed) {
    r.timing = simulate_timing(t, r.traces, g);
    r.stats = make_stats(t, r.traces, *r.timing, r.analytical);
    if (!opts.out_dir.empty()) {
      std::error_code ec;
      std::filesystem::create_directories(opts.out_dir, ec);
      std::string d = opts.out_dir + "/";
      write_file(d + "stats.json", r.stats.dump(2) + "\n", r);
      write_file(d + "trace.json", make_chrome_trace(t, r.traces, g, *r.timing).dump() + "\n", r);
      write_file(d + "timeline.svg", make_svg_timeline(t, r.traces, g, *r.timing), r);
    }
  }
  r.ok = r.error.empty();
  return r;
}

}  // namespace atl::npu
