// The C++ module API (include/atoll/module.h): one graph compiled with
// compile_graph, run in place on the caller's buffers. The run plan mirrors
// run_compiled (src/pipeline/run_compiled.cpp): the same arena plan, the
// same weight phase, the same zeroing, but the graph's inputs and outputs
// are the caller's buffers, and every place a kernel argument lives is
// resolved once, at compile time, so that a call only fills pointers.
#include <atoll/module.h>

#include "graph/ir/graph.h"
#include "src/api/graph_builder.h"

#include "backends/cpu/cpu_backend.h"
#include "graph/memory/plan_arena.h"
#include "graph/passes/check_constant_indices.h"
#include "polyhedral/pipeline/cpu_pipeline.h"
#include "polyhedral/pipeline/run_passes.h"
#include "src/frontend/json_text.h"
#include "src/pipeline/compile_graph.h"
#include "src/tuning/records.h"
#include "src/runtime/init_data.h"
#include "src/runtime/npy.h"

#include <algorithm>
#include <cfenv>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <new>
#include <set>

namespace atl {

namespace {

using nlohmann::json;

/// A 64-byte aligned block of bytes, zero-filled when asked.
class Block {
public:
  Block() = default;
  explicit Block(std::int64_t bytes, bool zero) {
    std::size_t size = static_cast<std::size_t>(memory::aligned_size(std::max<std::int64_t>(bytes, 1)));
    data_.reset(static_cast<unsigned char *>(std::aligned_alloc(static_cast<std::size_t>(memory::kArenaAlignment), size)));
    if (!data_) throw std::bad_alloc();
    if (zero) std::memset(data_.get(), 0, size);
  }
  unsigned char *data() const { return data_.get(); }

private:
  struct Free {
    void operator()(unsigned char *p) const { std::free(p); }
  };
  std::unique_ptr<unsigned char, Free> data_;
};

/// A tensor's raw storage as the generated code reads it, in a block of its own.
Block raw_block(const Tensor &t) {
  Block b(t.numel() * static_cast<std::int64_t>(dtype_size(t.dtype)), true);
  store_raw(t, b.data());
  return b;
}

std::int64_t round_up(std::int64_t bytes) { return memory::aligned_size(std::max<std::int64_t>(bytes, 0)); }

std::string join(const std::vector<std::string> &names) {
  std::string list;
  for (const std::string &n : names) list += (list.empty() ? "" : ", ") + n;
  return list;
}

void check_options(const ModuleOptions &o) {
  if (o.target != "cpu" && o.target != "cpu-c")
    throw UserError("options: target '" + o.target + "' cannot run in a module (expected cpu or cpu-c)");
  if (!o.scheduler.empty() && o.scheduler != "isl" && o.scheduler != "pluto" && o.scheduler != "feautrier")
    throw UserError("options: unknown scheduler '" + o.scheduler + "' (expected isl, pluto or feautrier)");
  if (o.threads < -1 || o.threads > 4096)
    throw UserError("options: threads must be -1 (all cores), 0 (leave the setting) or 1 to 4096, got " +
                    std::to_string(o.threads));
}

/// The parameter values of the graph's symbolic dimensions: exactly its params.
void check_params(const Graph &g, const std::map<std::string, std::int64_t> &params) {
  std::string declared;
  for (const auto &[name, range] : g.params) declared += (declared.empty() ? "" : ", ") + name;
  for (const auto &[name, value] : params)
    if (!g.params.count(name))
      throw UserError("options: params: graph '" + g.name + "' has no symbolic dimension '" + name + "'" +
                      (declared.empty() ? std::string(" (it has none)") : " (it has: " + declared + ")"));
  for (const auto &[name, range] : g.params)
    if (!params.count(name))
      throw UserError("options: params: graph '" + g.name + "' has the symbolic dimension '" + name + "' (" +
                      std::to_string(range.min) + ".." + std::to_string(range.max) +
                      "): give its value, e.g. {\"params\": {\"" + name + "\": " + std::to_string(range.max) + "}}");
}

const std::vector<std::string> &fixed_stages() {
  static const std::vector<std::string> s = {"scop", "deps", "schedule", "ast", "llvm", "c"};
  return s;
}

}  // namespace

struct Module::Impl {
  std::string target, scheduler;
  Graph graph;     ///< as given (symbolic)
  Graph concrete;  ///< at `params`
  std::map<std::string, std::int64_t> params;
  CompiledGraph compiled;
  std::shared_ptr<const poly::TuningTable> tuning;  ///< ModuleOptions::records' best points
  std::vector<std::string> inputs, outputs, own_weights;
  /// What the caller passes: inputs() then outputs(); a name's position is
  /// its place in a call's pointer table.
  std::map<std::string, std::size_t, std::less<>> slot;
  std::vector<std::int64_t> slot_bytes;

  /// Where a kernel argument lives.
  struct Ref {
    enum class Kind { Arena, Caller, Own, Work } kind = Kind::Arena;
    std::size_t index = 0;    ///< Caller: slot; Own: own block
    std::int64_t offset = 0;  ///< bytes into the arena, work area, caller's or own buffer
  };
  struct Call {
    std::vector<Ref> args;  ///< LKernel order
    std::vector<std::int64_t> params;
    std::vector<std::pair<std::int64_t, std::int64_t>> clear;  ///< arena offset, bytes: zeroed before the kernel
    bool skip = false;      ///< a weight-phase kernel already run at compile time
  };
  std::vector<Block> own;       ///< inline weights, folded constants, the weight phase's tensors (when run once)
  std::vector<Call> calls;      ///< per kernel, call order
  std::vector<Ref> output_source;  ///< per output: where the kernels leave it (copied when not its own buffer)
  std::int64_t arena = 0;       ///< bytes (aligned)
  std::int64_t work = 0;        ///< per-call buffers outside the arena (aligned), zeroed each call
  std::size_t max_args = 0;

  mutable std::mutex explain_mutex;
  mutable std::map<std::string, std::string> explained;

  /// Call blocks (arena, work area, argument array) of finished calls,
  /// kept for the next: a call takes one (or makes one when all are in
  /// use by concurrent calls) and gives it back. A block allocated anew
  /// each call comes back from the allocator as fresh pages whenever other
  /// code used that memory in between (another runtime's run, say), and
  /// faulting the arena's pages in again costs a large share of a call.
  mutable std::mutex blocks_mutex;
  mutable std::vector<Block> free_blocks;

  std::string where() const { return "graph '" + graph.name + "'"; }
  UserError error(const std::string &reason) const {
    Location l;
    l.graph = graph.name;
    return UserError(reason, l);
  }
  void prepare();
  void run(void **table) const;
  void execute(unsigned char *arena_base, unsigned char *work_base, void *const *table, void **args, bool weight_phase) const;
  std::string explain_text(const std::string &stage) const;
};

/// Resolves every kernel argument to a place, as run_compiled's storage()
/// does: the arena plan first, then the alias's base: a caller's buffer, the
/// module's own, or a buffer of the call's work area.
void Module::Impl::prepare() {
  std::vector<memory::KernelUse> uses = kernel_uses(compiled, params);
  const auto tensor_bytes = tensor_bytes_of(compiled, concrete, uses);
  memory::MemoryPlan plan = plan_memory(compiled, concrete, params);
  WeightPhase once = weight_phase_of(compiled, concrete, uses);
  arena = round_up(plan.peak_bytes());

  // The module's own buffers: inline weights, then folded constants.
  std::map<std::string, std::size_t> own_index;
  for (const std::string &name : own_weights) {
    const TensorDecl &d = concrete.tensor(name);
    own_index[name] = own.size();
    own.push_back(raw_block(make_tensor_data(graph.name, d, concrete_shape(d.type.shape))));
  }
  for (const auto &[name, t] : compiled.constants)
    if (!own_index.count(name) && !slot.count(name)) {
      own_index[name] = own.size();
      own.push_back(raw_block(t));
    }

  auto base_of = [&](const std::string &tensor) {
    if (auto a = plan.alias_of.find(tensor); a != plan.alias_of.end()) return std::make_pair(a->second.base, a->second.byte_offset);
    return std::make_pair(tensor, std::int64_t{0});
  };
  // The weight phase runs once, here, when none of its kernels reads a
  // buffer of the caller's; else in every call.
  bool weights_once = true;
  for (std::size_t k = 0; k < uses.size(); ++k)
    if (once.kernel[k])
      for (const memory::KernelArg &a : uses[k].args)
        if (a.access == memory::KernelArg::Access::Read && !plan.offset_of(a.tensor) && slot.count(base_of(a.tensor).first))
          weights_once = false;

  std::map<std::string, std::int64_t> work_offset;
  auto place = [&](const std::string &tensor) {
    Ref r;
    if (std::optional<std::int64_t> off = plan.offset_of(tensor)) {
      r.kind = Ref::Kind::Arena;
      r.offset = *off;
      return r;
    }
    auto [base, offset] = base_of(tensor);
    r.offset = offset;
    if (auto s = slot.find(base); s != slot.end()) {
      r.kind = Ref::Kind::Caller;
      r.index = s->second;
    } else if (auto o = own_index.find(base); o != own_index.end()) {
      r.kind = Ref::Kind::Own;
      r.index = o->second;
    } else if (weights_once && once.tensors.count(base)) {
      own_index[base] = own.size();
      own.emplace_back(tensor_bytes(base), true);
      r.kind = Ref::Kind::Own;
      r.index = own.size() - 1;
    } else {
      auto [it, fresh] = work_offset.try_emplace(base, work);
      if (fresh) work += round_up(tensor_bytes(base));
      r.kind = Ref::Kind::Work;
      r.offset += it->second;
    }
    ATOLL_ASSERT(offset + tensor_bytes(tensor) <= (r.kind == Ref::Kind::Arena ? arena : tensor_bytes(base)),
                 "buffer size mismatch for tensor " + tensor);
    return r;
  };

  calls.resize(compiled.clusters.size());
  for (std::size_t b = 0; b < plan.buffers.size(); ++b)
    if (zero_before_first_use(compiled, plan, uses, b))
      calls[static_cast<std::size_t>(plan.buffers[b].first)].clear.emplace_back(plan.layout.offsets[b],
                                                                                plan.buffers[b].bytes);
  for (std::size_t k = 0; k < compiled.clusters.size(); ++k) {
    Call &call = calls[k];
    call.skip = weights_once && once.kernel[k];
    for (const memory::KernelArg &arg : uses[k].args) {
      if (arg.access == memory::KernelArg::Access::Temporary) {
        std::optional<std::int64_t> off = plan.temporary_offset(uses[k].name, arg.array);
        ATOLL_ASSERT(off.has_value(), "no arena place for temporary " + arg.array);
        call.args.push_back(Ref{Ref::Kind::Arena, 0, *off});
      } else {
        call.args.push_back(place(arg.tensor));
      }
    }
    for (const std::string &p : compiled.clusters[k].kernel.params) {
      auto it = params.find(p);
      ATOLL_ASSERT(it != params.end(), "no value for kernel parameter " + p);
      call.params.push_back(it->second);
    }
    max_args = std::max(max_args, call.args.size());
  }
  for (const std::string &o : outputs) output_source.push_back(place(o));

  // The weight phase, once, into the module's own buffers.
  if (weights_once && std::any_of(calls.begin(), calls.end(), [](const Call &c) { return c.skip; })) {
    Block a(arena, false), w(work, true);
    std::vector<void *> args(max_args + 1);
    execute(a.data(), w.data(), nullptr, args.data(), true);
    // Own buffers that only the weight phase read (weights it laid out anew:
    // blocked, packed, Winograd-transformed) are not read again: freed.
    std::vector<bool> read(own.size(), false);
    for (const Call &c : calls)
      if (!c.skip)
        for (const Ref &r : c.args)
          if (r.kind == Ref::Kind::Own) read[r.index] = true;
    for (const Ref &r : output_source)
      if (r.kind == Ref::Kind::Own) read[r.index] = true;
    for (std::size_t i = 0; i < own.size(); ++i)
      if (!read[i]) own[i] = Block();
  }
}

namespace {

/// Round-to-nearest for the scope, as the generated code assumes
/// (CpuExecutable::run; PPL, in the same process, sets round-upward); the
/// caller's mode is restored after, also when a kernel throws.
class RoundToNearest {
public:
  RoundToNearest() : mode_(std::fegetround()) {
    if (mode_ != FE_TONEAREST) std::fesetround(FE_TONEAREST);
  }
  ~RoundToNearest() {
    if (mode_ != FE_TONEAREST) std::fesetround(mode_);
  }
  RoundToNearest(const RoundToNearest &) = delete;
  RoundToNearest &operator=(const RoundToNearest &) = delete;

private:
  int mode_;
};

}  // namespace

/// Runs the kernels: the weight phase's (weight_phase) or the call's.
void Module::Impl::execute(unsigned char *arena_base, unsigned char *work_base, void *const *table, void **args,
                           bool weight_phase) const {
  RoundToNearest rounding;
  auto pointer = [&](const Ref &r) -> void * {
    switch (r.kind) {
    case Ref::Kind::Arena: return arena_base + r.offset;
    case Ref::Kind::Work: return work_base + r.offset;
    case Ref::Kind::Own: return own[r.index].data() + r.offset;
    case Ref::Kind::Caller: break;
    }
    ATOLL_ASSERT(table, "the weight phase reads a buffer of the caller's");
    return static_cast<unsigned char *>(table[r.index]) + r.offset;
  };
  for (std::size_t k = 0; k < calls.size(); ++k) {
    const Call &call = calls[k];
    if (call.skip != weight_phase) continue;
    for (const auto &[off, bytes] : call.clear) std::memset(arena_base + off, 0, static_cast<std::size_t>(bytes));
    for (std::size_t i = 0; i < call.args.size(); ++i) args[i] = pointer(call.args[i]);
    compiled.functions[k](args, call.params.data());
  }
}

/// One call on a full pointer table (inputs then outputs, checked).
void Module::Impl::run(void **table) const {
  const std::size_t n_in = inputs.size();
  for (std::size_t j = 0; j < outputs.size(); ++j)
    std::memset(table[n_in + j], 0, static_cast<std::size_t>(slot_bytes[n_in + j]));
  // The arena, the work area and the kernel's argument array: one block,
  // reused from an earlier call when one is free.
  struct Lease {
    const Impl &m;
    Block block;
    ~Lease() {
      std::lock_guard<std::mutex> lock(m.blocks_mutex);
      m.free_blocks.push_back(std::move(block));
    }
  };
  Lease lease{*this, [&] {
                std::lock_guard<std::mutex> lock(blocks_mutex);
                if (free_blocks.empty())
                  return Block(arena + work + static_cast<std::int64_t>(max_args + 1) * static_cast<std::int64_t>(sizeof(void *)),
                               false);
                Block b = std::move(free_blocks.back());
                free_blocks.pop_back();
                return b;
              }()};
  unsigned char *arena_base = lease.block.data();
  unsigned char *work_base = arena_base + arena;
  if (work) std::memset(work_base, 0, static_cast<std::size_t>(work));
  void **args = reinterpret_cast<void **>(work_base + work);
  execute(arena_base, work_base, table, args, false);
  // Outputs the kernels left elsewhere (a view of an input, a constant, an
  // intermediate's buffer): copied into the caller's.
  for (std::size_t j = 0; j < outputs.size(); ++j) {
    const Ref &r = output_source[j];
    if (r.kind == Ref::Kind::Caller && r.index == n_in + j && r.offset == 0) continue;
    const unsigned char *from = r.kind == Ref::Kind::Arena  ? arena_base + r.offset
                                : r.kind == Ref::Kind::Work ? work_base + r.offset
                                : r.kind == Ref::Kind::Own  ? own[r.index].data() + r.offset
                                                            : static_cast<const unsigned char *>(table[r.index]) + r.offset;
    std::memmove(table[n_in + j], from, static_cast<std::size_t>(slot_bytes[n_in + j]));
  }
}

std::string Module::Impl::explain_text(const std::string &stage) const {
  const bool pass = poly::has_pass(poly::cpu_pipeline(), stage);
  const auto &fixed = fixed_stages();
  if (!pass && std::find(fixed.begin(), fixed.end(), stage) == fixed.end()) {
    std::vector<std::string> passes;
    for (const poly::Pass &p : poly::cpu_pipeline()) passes.push_back(p.name);
    throw UserError("unknown stage '" + stage + "'; available stages: " + join(fixed) +
                    ", and the passes of the CPU pipeline: " + join(passes));
  }
  if (stage == "llvm" || stage == "c") {
    std::vector<poly::LKernel> kernels;
    for (const auto &c : compiled.clusters) kernels.push_back(c.kernel);
    return stage == "llvm" ? cpu::emit_llvm_ir(kernels) : cpu::emit_c_source(kernels);
  }
  auto header = [&](std::size_t n) {
    return "// graph " + graph.name + ": " + std::to_string(n) + (n == 1 ? " kernel\n" : " kernels\n");
  };
  if (pass) {
    // The graph once more through the polyhedral layer, keeping the IR after the pass.
    CompileOptions co;
    co.target = target;
    co.scheduler = scheduler;
    co.tuning = tuning;
    co.executable = false;
    co.print_after = {stage};
    ScheduledGraph s = schedule_graph(graph, co);
    std::string out = header(s.clusters.size());
    for (const auto &c : s.clusters) out += cluster_printed_text(c, stage);
    return out;
  }
  std::string out = header(compiled.clusters.size());
  for (const auto &c : compiled.clusters) out += cluster_stage_text(c, stage);
  return out;
}

Module::Module() = default;
Module::Module(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

const Module::Impl &Module::impl(const char *what) const {
  if (!impl_) throw UserError(std::string("Module::") + what + ": the module is empty (made by Module(), not compiled)");
  return *impl_;
}

const std::string &Module::name() const { return impl("name").graph.name; }
const std::string &Module::target() const { return impl("target").target; }
const std::vector<std::string> &Module::inputs() const { return impl("inputs").inputs; }
const std::vector<std::string> &Module::outputs() const { return impl("outputs").outputs; }
const std::vector<std::string> &Module::own_weights() const { return impl("own_weights").own_weights; }
const std::map<std::string, std::int64_t> &Module::params() const { return impl("params").params; }
std::size_t Module::num_kernels() const { return impl("num_kernels").compiled.clusters.size(); }
std::int64_t Module::arena_bytes() const { return impl("arena_bytes").arena; }

bool Module::has_tensor(const std::string &name) const { return impl_ && impl_->slot.count(name) != 0; }

std::vector<std::int64_t> Module::shape(const std::string &name) const {
  const Impl &m = impl("shape");
  if (!m.slot.count(name))
    throw m.error("'" + name + "' is neither an input nor an output; the module's tensors: " +
                  join(m.inputs) + (m.inputs.empty() || m.outputs.empty() ? "" : ", ") + join(m.outputs));
  Shape s = concrete_shape(m.concrete.tensor(name).type.shape);
  return std::vector<std::int64_t>(s.begin(), s.end());
}

std::string Module::dtype(const std::string &name) const {
  shape(name);  // the same check
  return dtype_name(impl_->concrete.tensor(name).type.dtype);
}

std::int64_t Module::bytes(const std::string &name) const {
  shape(name);
  return impl_->slot_bytes.at(impl_->slot.at(name));
}

void Module::run(const Binding *buffers, std::size_t count) const {
  const Impl &m = impl("run");
  if (count > 0 && !buffers) throw m.error("Module::run: the buffer list is null");
  // The pointer table lives on the stack for small graphs; else one allocation.
  const std::size_t n = m.slot.size();
  void *local[32];
  std::unique_ptr<void *[]> heap;
  void **table = n <= 32 ? local : (heap = std::make_unique<void *[]>(n)).get();
  std::fill(table, table + n, nullptr);
  for (std::size_t i = 0; i < count; ++i) {
    const Binding &b = buffers[i];
    if (!b.name) throw m.error("Module::run: buffer " + std::to_string(i) + " has no name");
    auto s = m.slot.find(std::string_view(b.name));
    if (s == m.slot.end()) {
      bool own = std::find(m.own_weights.begin(), m.own_weights.end(), b.name) != m.own_weights.end();
      throw m.error("'" + std::string(b.name) + "' is " +
                    (own ? "a weight with inline data (the module's own)" : "neither an input nor an output") +
                    "; the module takes: " + join(m.inputs) + (m.inputs.empty() || m.outputs.empty() ? "" : ", ") +
                    join(m.outputs));
    }
    if (!b.data) throw m.error("the buffer of '" + std::string(b.name) + "' is null");
    if (table[s->second]) throw m.error("'" + std::string(b.name) + "' is given twice");
    table[s->second] = b.data;
  }
  std::vector<std::string> missing;
  for (const auto &[name, i] : m.slot)
    if (!table[i]) missing.push_back(name);
  if (!missing.empty()) {
    // In the module's order: inputs, then outputs.
    std::vector<std::string> ordered;
    for (const std::string &t : m.inputs)
      if (!table[m.slot.at(t)]) ordered.push_back(t);
    for (const std::string &t : m.outputs)
      if (!table[m.slot.at(t)]) ordered.push_back(t);
    throw m.error("no buffer for: " + join(ordered));
  }
  m.run(table);
}

void Module::run(const std::map<std::string, const void *> &inputs, const std::map<std::string, void *> &outputs) const {
  const Impl &m = impl("run");
  const std::size_t n_in = m.inputs.size();
  auto is_input = [&](const std::string &name) {
    auto s = m.slot.find(name);
    return s != m.slot.end() && s->second < n_in;
  };
  for (const auto &[name, p] : inputs)
    if (!is_input(name)) {
      if (m.slot.count(name)) throw m.error("'" + name + "' is an output, not an input: pass it in the outputs");
      bool own = std::find(m.own_weights.begin(), m.own_weights.end(), name) != m.own_weights.end();
      throw m.error("'" + name + "' is " + (own ? "a weight with inline data (the module's own)" : "not an input") +
                    "; the inputs: " + join(m.inputs));
    }
  for (const auto &[name, p] : outputs)
    if (!m.slot.count(name) || is_input(name)) {
      if (m.slot.count(name)) throw m.error("'" + name + "' is an input, not an output: pass it in the inputs");
      throw m.error("'" + name + "' is not an output; the outputs: " + join(m.outputs));
    }
  std::vector<Binding> list;
  list.reserve(inputs.size() + outputs.size());
  for (const auto &[name, p] : inputs) list.push_back({name.c_str(), const_cast<void *>(p)});
  for (const auto &[name, p] : outputs) list.push_back({name.c_str(), p});
  run(list.data(), list.size());
}

std::vector<std::string> Module::stages() {
  std::vector<std::string> s = fixed_stages();
  for (const poly::Pass &p : poly::cpu_pipeline()) s.push_back(p.name);
  return s;
}

std::string Module::explain(const std::string &stage) const {
  const Impl &m = impl("explain");
  {
    std::lock_guard<std::mutex> lock(m.explain_mutex);
    if (auto it = m.explained.find(stage); it != m.explained.end()) return it->second;
  }
  std::string text = m.explain_text(stage);  // outside the lock: a pass stage compiles again
  std::lock_guard<std::mutex> lock(m.explain_mutex);
  return m.explained.emplace(stage, std::move(text)).first->second;
}

std::vector<std::string> Module::write(const std::string &dir) const {
  const Impl &m = impl("write");
  namespace fs = std::filesystem;
  std::vector<poly::LKernel> kernels;
  std::map<std::string, std::string> same_code;  // kernels reusing another's code (ClusterResult::same_as)
  for (const auto &c : m.compiled.clusters) {
    kernels.push_back(c.kernel);
    if (!c.same_as.empty()) same_code[c.kernel.name] = c.same_as;
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw UserError("cannot create '" + dir + "': " + ec.message());
  const std::string &name = m.graph.name;
  std::vector<std::string> files;
  if (m.target == "cpu") {
    std::string base = (fs::path(dir) / name).string();
    cpu::write_object(kernels, base + ".o.tmp", base + ".h.tmp", {}, same_code);
    fs::rename(base + ".o.tmp", base + ".o");
    fs::rename(base + ".h.tmp", base + ".h");
    files = {name + ".o", name + ".h"};
  } else {
    std::string path = (fs::path(dir) / (name + ".c")).string();
    {
      std::ofstream f(path + ".tmp");
      f << cpu::emit_c_source(kernels);
      if (!f) throw UserError("cannot write '" + path + "'");
    }
    fs::rename(path + ".tmp", path);
    files = {name + ".c"};
  }
  for (const auto &[tensor, t] : m.compiled.constants) {
    std::string rel = npy_file_name(name) + ".constants/" + npy_file_name(tensor) + ".npy";
    write_npy((fs::path(dir) / rel).string(), t);
    files.push_back(rel);
  }
  return files;
}

namespace {

/// Compiles a finalized graph into a module's state.
std::shared_ptr<const Module::Impl> compile_module(const Graph &graph, const ModuleOptions &o) {
  check_options(o);
  auto m = std::make_shared<Module::Impl>();
  m->target = o.target;
  m->scheduler = o.scheduler;
  m->graph = graph;
  check_params(m->graph, o.params);
  m->params = o.params;
  m->concrete = m->graph.params.empty() ? m->graph : m->graph.instantiate(m->params);
  check_constant_indices(m->graph);
  if (o.threads != 0) cpu::set_cpu_threads(o.threads < 0 ? 0 : o.threads);
  CompileOptions co;
  co.target = o.target;
  co.scheduler = o.scheduler;
  co.tuning = tuning::tuning_for_target(o.records, o.target);
  m->tuning = co.tuning;
  co.keep_text = true;
  co.executable = true;
  m->compiled = compile_graph(m->graph, co);
  for (const std::string &name : m->concrete.inputs) m->inputs.push_back(name);
  for (const std::string &name : m->concrete.weights)
    (m->concrete.tensor(name).data ? m->own_weights : m->inputs).push_back(name);
  m->outputs = m->concrete.outputs;
  auto decl_bytes = [&](const std::string &t) {
    const TensorDecl &d = m->concrete.tensor(t);
    return shape_numel(concrete_shape(d.type.shape)) * static_cast<std::int64_t>(dtype_size(d.type.dtype));
  };
  for (const std::string &t : m->inputs) {
    m->slot.emplace(t, m->slot_bytes.size());
    m->slot_bytes.push_back(decl_bytes(t));
  }
  for (const std::string &t : m->outputs) {
    if (m->slot.count(t))
      throw m->error("output '" + t + "' is also an input or weight: a module cannot run it (copy it with Identity)");
    m->slot.emplace(t, m->slot_bytes.size());
    m->slot_bytes.push_back(decl_bytes(t));
  }
  m->prepare();
  return m;
}

}  // namespace

Module compile(const GraphBuilder &graph, const ModuleOptions &options) {
  if (!graph.finalized())
    throw UserError("graph '" + graph.name() + "' is not finalized: call GraphBuilder::finalize() before compiling it");
  try {
    return Module(compile_module(graph_builder_impl(graph).graph, options));
  } catch (const UserError &e) {
    throw relative_to_graph(e);
  }
}

Module compile_graph_json(const std::string &graph_json, const ModuleOptions &options) {
  check_options(options);
  try {
    return Module(compile_module(read_graph_object(graph_json), options));
  } catch (const UserError &e) {
    throw relative_to_graph(e);
  }
}

}  // namespace atl
