// Unit tests of the inline f32 math emitters: accuracy against libm, special values, vector = scalar, no calls.
#include "backends/cpu/vector_math.h"

#include "backends/cpu/llvm_host.h"
#include "backends/cpu/optimize_module.h"

#include <doctest/doctest.h>

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/Error.h>
#include <llvm/Target/TargetMachine.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace {

using Emit = llvm::Value *(*)(llvm::IRBuilder<> &, llvm::Value *);
using LoopFn = void (*)(const float *, float *, long);

struct MathFn {
  const char *name;
  Emit emit;
};

/// Gelu as the graph writes it, through emit_erf: what emit_gelu replaces.
llvm::Value *gelu_formula(llvm::IRBuilder<> &b, llvm::Value *x) {
  llvm::Value *half = llvm::ConstantFP::get(x->getType(), 0.5), *one = llvm::ConstantFP::get(x->getType(), 1.0);
  llvm::Value *e = atl::cpu::emit_erf(b, b.CreateFMul(x, llvm::ConstantFP::get(x->getType(), 0.7071067811865476)));
  return b.CreateFMul(b.CreateFMul(half, x), b.CreateFAdd(one, e));
}

llvm::Value *exp_plain(llvm::IRBuilder<> &b, llvm::Value *x) { return atl::cpu::emit_exp(b, x); }
llvm::Value *exp_bounded(llvm::IRBuilder<> &b, llvm::Value *x) { return atl::cpu::emit_exp(b, x, true); }

const MathFn kFns[] = {{"exp", exp_plain},
                       {"exp_bounded", exp_bounded},
                       {"exp_branching", atl::cpu::emit_exp_branching},
                       {"log", atl::cpu::emit_log},
                       {"tanh", atl::cpu::emit_tanh},
                       {"sigmoid", atl::cpu::emit_sigmoid},
                       {"erf", atl::cpu::emit_erf},
                       {"gelu", atl::cpu::emit_gelu},
                       {"gelu_formula", gelu_formula}};

/// Adds `void NAME(const float *in, float *out, long n)`: a loop over
/// <width x float> vectors (width > 1) then a scalar tail. With `no_vec` the
/// scalar loop carries metadata that forbids the loop vectorizer.
llvm::Function *add_loop(llvm::Module &m, const std::string &name, Emit emit, unsigned width, bool no_vec) {
  llvm::LLVMContext &ctx = m.getContext();
  llvm::Type *f32 = llvm::Type::getFloatTy(ctx);
  llvm::Type *i64 = llvm::Type::getInt64Ty(ctx);
  llvm::Type *ptr = llvm::PointerType::get(ctx, 0);
  auto *fty = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr, ptr, i64}, false);
  llvm::Function *f = llvm::Function::Create(fty, llvm::Function::ExternalLinkage, name, m);
  llvm::Value *in = f->getArg(0), *out = f->getArg(1), *n = f->getArg(2);
  auto *entry = llvm::BasicBlock::Create(ctx, "entry", f);
  auto *theader = llvm::BasicBlock::Create(ctx, "tail.header", f);
  auto *tbody = llvm::BasicBlock::Create(ctx, "tail.body", f);
  auto *exit = llvm::BasicBlock::Create(ctx, "exit", f);
  llvm::IRBuilder<> b(entry);
  llvm::Value *start = b.getInt64(0);
  llvm::BasicBlock *pred = entry;
  if (width > 1) {
    auto *vheader = llvm::BasicBlock::Create(ctx, "vec.header", f, theader);
    auto *vbody = llvm::BasicBlock::Create(ctx, "vec.body", f, theader);
    llvm::Type *vt = llvm::FixedVectorType::get(f32, width);
    b.CreateBr(vheader);
    b.SetInsertPoint(vheader);
    llvm::PHINode *i = b.CreatePHI(i64, 2);
    i->addIncoming(b.getInt64(0), entry);
    llvm::Value *next = b.CreateAdd(i, b.getInt64(width));
    b.CreateCondBr(b.CreateICmpSLE(next, n), vbody, theader);
    b.SetInsertPoint(vbody);
    llvm::Value *v = b.CreateAlignedLoad(vt, b.CreateGEP(f32, in, i), llvm::Align(4));
    b.CreateAlignedStore(emit(b, v), b.CreateGEP(f32, out, i), llvm::Align(4));
    i->addIncoming(next, vbody);
    b.CreateBr(vheader);
    start = i;
    pred = vheader;
  } else {
    b.CreateBr(theader);
  }
  b.SetInsertPoint(theader);
  llvm::PHINode *j = b.CreatePHI(i64, 2);
  j->addIncoming(start, pred);
  b.CreateCondBr(b.CreateICmpSLT(j, n), tbody, exit);
  b.SetInsertPoint(tbody);
  llvm::Value *s = b.CreateLoad(f32, b.CreateGEP(f32, in, j));
  b.CreateStore(emit(b, s), b.CreateGEP(f32, out, j));
  j->addIncoming(b.CreateAdd(j, b.getInt64(1)), tbody);
  llvm::BranchInst *latch = b.CreateBr(theader);
  if (no_vec) {
    llvm::Metadata *off[] = {llvm::MDString::get(ctx, "llvm.loop.vectorize.enable"),
                             llvm::ConstantAsMetadata::get(b.getFalse())};
    llvm::Metadata *ops[] = {nullptr, llvm::MDNode::get(ctx, off)};
    llvm::MDNode *loop = llvm::MDNode::getDistinct(ctx, ops);
    loop->replaceOperandWith(0, loop);
    latch->setMetadata(llvm::LLVMContext::MD_loop, loop);
  }
  b.SetInsertPoint(exit);
  b.CreateRetVoid();
  return f;
}

/// Calls to anything but an LLVM intrinsic in `f`, and whether it uses float vectors.
struct IrFacts {
  int calls = 0;
  bool float_vectors = false;
};

IrFacts facts(const llvm::Function &f) {
  IrFacts r;
  for (const llvm::BasicBlock &bb : f)
    for (const llvm::Instruction &inst : bb) {
      if (const auto *call = llvm::dyn_cast<llvm::CallBase>(&inst)) {
        const llvm::Function *callee = call->getCalledFunction();
        if (!callee || !callee->isIntrinsic()) ++r.calls;
      }
      if (auto *vt = llvm::dyn_cast<llvm::VectorType>(inst.getType()))
        if (vt->getElementType()->isFloatTy()) r.float_vectors = true;
    }
  return r;
}

/// One JIT-compiled module (O3, host CPU) with, per function F: vec16_F
/// (explicit <16 x float> loop + scalar tail), scalar_F (loop vectorizer
/// off) and auto_F (plain scalar loop, vectorized by O3).
class MathJit {
public:
  MathJit() {
    atl::cpu::host_info();
    auto ctx = std::make_unique<llvm::LLVMContext>();
    auto m = std::make_unique<llvm::Module>("vector_math_test", *ctx);
    for (const MathFn &fn : kFns) {
      add_loop(*m, std::string("vec16_") + fn.name, fn.emit, 16, false);
      add_loop(*m, std::string("scalar_") + fn.name, fn.emit, 1, true);
      add_loop(*m, std::string("auto_") + fn.name, fn.emit, 1, false);
    }
    REQUIRE_FALSE(llvm::verifyModule(*m, &llvm::errs()));
    auto tm = atl::cpu::host_target_machine();
    atl::cpu::optimize_module(*m, *tm, 3);
    for (const llvm::Function &f : *m)
      if (!f.isDeclaration()) facts_[f.getName().str()] = facts(f);
    auto jtmb = llvm::cantFail(llvm::orc::JITTargetMachineBuilder::detectHost());
    jit_ = llvm::cantFail(llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(jtmb)).create());
    jit_->getMainJITDylib().addGenerator(llvm::cantFail(llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
        jit_->getDataLayout().getGlobalPrefix())));
    m->setDataLayout(jit_->getDataLayout());
    llvm::cantFail(jit_->addIRModule(llvm::orc::ThreadSafeModule(std::move(m), std::move(ctx))));
  }
  LoopFn fn(const std::string &name) { return llvm::cantFail(jit_->lookup(name)).toPtr<LoopFn>(); }
  const IrFacts &ir(const std::string &name) { return facts_.at(name); }

private:
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  std::map<std::string, IrFacts> facts_;
};

MathJit &jit() {
  static MathJit j;
  return j;
}

/// Runs the three variants of `name` on `in`; checks they agree bit for bit.
std::vector<float> run(const std::string &name, const std::vector<float> &in) {
  std::vector<float> v(in.size()), s(in.size()), a(in.size());
  jit().fn("vec16_" + name)(in.data(), v.data(), static_cast<long>(in.size()));
  jit().fn("scalar_" + name)(in.data(), s.data(), static_cast<long>(in.size()));
  jit().fn("auto_" + name)(in.data(), a.data(), static_cast<long>(in.size()));
  std::size_t mismatches = 0;
  for (std::size_t k = 0; k < in.size(); ++k)
    if (std::memcmp(&v[k], &s[k], 4) != 0 || std::memcmp(&v[k], &a[k], 4) != 0) ++mismatches;
  CHECK_MESSAGE(mismatches == 0, name << ": vector and scalar results differ");
  return v;
}

/// n evenly spaced points in [lo, hi] (n not a multiple of 16, to run the tail).
std::vector<float> sweep(double lo, double hi, int n = 1000003) {
  std::vector<float> x(n);
  for (int k = 0; k < n; ++k) x[k] = static_cast<float>(lo + (hi - lo) * k / (n - 1));
  return x;
}

/// Spacing of f32 at |y| (denormal spacing below the normal range).
double ulp_of(double y) {
  y = std::fabs(y);
  if (y < 0x1p-126) return 0x1p-149;
  int e;
  std::frexp(y, &e);
  return std::ldexp(1.0, e - 24);
}

struct Err {
  double ulp = 0, abs = 0;
};

/// Max ulp and abs error of `name` against `ref` (double libm) on `in`.
Err measure(const std::string &name, const std::vector<float> &in, double (*ref)(double)) {
  std::vector<float> out = run(name, in);
  Err e;
  for (std::size_t k = 0; k < in.size(); ++k) {
    double want = ref(in[k]);
    if (std::isinf(want) && std::fabs(want) > 0 && static_cast<double>(out[k]) == want) continue;
    if (std::fabs(want) > std::numeric_limits<float>::max()) want = std::copysign(HUGE_VAL, want);
    if (std::isinf(want)) {
      CHECK_MESSAGE(out[k] == want, name << "(" << in[k] << ") = " << out[k] << ", want " << want);
      continue;
    }
    double d = std::fabs(static_cast<double>(out[k]) - want);
    if (!(d <= e.abs)) e.abs = d;
    if (!(d / ulp_of(want) <= e.ulp)) e.ulp = d / ulp_of(want);
  }
  MESSAGE(name << " on " << in.front() << ".." << in.back() << ": max " << e.ulp << " ulp, abs " << e.abs);
  return e;
}

double sigmoid_ref(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double exp_ref(double x) { return std::exp(x); }
double log_ref(double x) { return std::log(x); }
double tanh_ref(double x) { return std::tanh(x); }
double erf_ref(double x) { return std::erf(x); }
double gelu_ref(double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }

/// Positive floats from random bit patterns (all binades, denormals included).
std::vector<float> positive_bits(int n) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<std::uint32_t> d(1, 0x7f7fffffu);
  std::vector<float> x(n);
  for (float &v : x) {
    std::uint32_t u = d(rng);
    std::memcpy(&v, &u, 4);
  }
  return x;
}

float one(const char *name, float x) { return run(name, std::vector<float>(17, x))[16]; }
bool same(float a, float b) { return std::memcmp(&a, &b, 4) == 0; }

const float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kDen = 0x1p-140f;

}  // namespace

TEST_SUITE("backends") {
  TEST_CASE("vector math: exp is within 1.1 ulp, computes denormals and saturates") {
    CHECK(measure("exp", sweep(-104, 89), exp_ref).ulp <= 1.1);
    CHECK(measure("exp", sweep(-1, 1), exp_ref).ulp <= 1.1);
    CHECK(measure("exp", sweep(-103.98, -87.3), exp_ref).ulp <= 1.0);  // denormal results
    CHECK(same(one("exp", 0.0f), 1.0f));
    CHECK(same(one("exp", -0.0f), 1.0f));
    CHECK(same(one("exp", kInf), kInf));
    CHECK(same(one("exp", -kInf), 0.0f));
    CHECK(same(one("exp", 88.73f), kInf));
    CHECK(same(one("exp", 1e30f), kInf));
    CHECK(same(one("exp", -104.0f), 0.0f));
    CHECK(same(one("exp", -1e30f), 0.0f));
    CHECK(one("exp", 88.72f) < kInf);
    CHECK(one("exp", -103.0f) > 0.0f);
    CHECK(same(one("exp", kDen), 1.0f));
    CHECK(std::isnan(one("exp", kNaN)));
  }

  TEST_CASE("vector math: exp's vscalefps, one-scale and full-range vectors give the same bits in any mix of lanes") {
    // With AVX-512 a vector scales by vscalefps, for any x. Without (and in
    // the branching form, run on every host) a vector scales once when every
    // lane's n = round(x / ln 2) has n + 127
    // in [1, 254] (x in about [-87.68, 88.37]) and branches to the full
    // range's code when one does not: lanes from both ranges, both sides of
    // n's ends, NaN of either sign, infinities and values so large that the
    // rounding trick leaves its binade (|x| near 2^22 ln 2 and beyond), in
    // random order, must match the branch-free scalar code.
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> common(-87.0f, 88.0f), low(-110.0f, -86.0f), high(87.5f, 90.0f);
    const float special[] = {kNaN,     -kNaN,      kInf,      -kInf,      0.0f,       -0.0f,     kDen,
                             -87.0f,   88.0f,      -87.3365f, 88.3763f,   88.7228f,   -87.6783f, -87.6784f,
                             88.3762f, 88.3764f,   1e30f,     -1e30f,     2907270.0f, -2907270.0f, 5814540.0f,
                             -5814540.0f, 3.0e38f, -3.0e38f};
    constexpr unsigned kSpecial = sizeof special / sizeof special[0];
    std::vector<float> x(16 * 4001 + 5);
    for (float &v : x) {
      unsigned pick = rng() % 64;
      v = pick < 56 ? common(rng) : pick < 59 ? low(rng) : pick < 62 ? high(rng) : special[rng() % kSpecial];
    }
    std::vector<float> out = run("exp", x);  // vector = scalar, bit for bit
    // The branching form (hosts without AVX-512), run on this host too.
    std::vector<float> branching = run("exp_branching", x);
    CHECK(std::memcmp(out.data(), branching.data(), out.size() * sizeof(float)) == 0);
    std::vector<float> finite;
    for (std::size_t k = 0; k < x.size(); ++k) {
      if (std::isnan(x[k])) CHECK(std::isnan(out[k]));
      if (std::isfinite(x[k])) finite.push_back(x[k]);
    }
    CHECK(measure("exp", finite, exp_ref).ulp <= 1.1);
  }

  TEST_CASE("vector math: exp bounded above gives exp's bits for every x but +inf") {
    // Without the upper clamp (AVX-512; elsewhere the two are one code), a
    // finite x above 88.7228 must still give +inf: n >= 128 with e^r > 0,
    // or e^r itself +inf where r grows (|x| beyond 2^22 ln 2).
    std::mt19937 rng(13);
    std::uniform_int_distribution<std::uint32_t> bits(0, 0xffffffffu);
    std::uniform_real_distribution<float> near(-110.0f, 110.0f);
    std::vector<float> x;
    for (int k = 0; k < 400009; ++k) {
      float v = 0;
      if (k % 2) {
        std::uint32_t u = bits(rng);
        std::memcpy(&v, &u, 4);
      } else {
        v = near(rng);
      }
      if (v == kInf) v = -kInf;
      x.push_back(v);
    }
    for (float v : {88.7228f, 88.7229f, 89.0f, 89.5f, 103.9f, 104.0f, 200.0f, 2907270.0f, 5814540.0f, 1e10f, 1e20f,
                    3.0e38f, std::numeric_limits<float>::max(), -kInf, kNaN, -kNaN, 0.0f, -0.0f, kDen})
      x.push_back(v);
    std::vector<float> bounded = run("exp_bounded", x), plain = run("exp", x);
    std::size_t differ = 0;
    for (std::size_t k = 0; k < x.size(); ++k)
      if (std::isnan(x[k]) ? !std::isnan(bounded[k]) : !same(bounded[k], plain[k])) {
        if (differ++ < 5) MESSAGE("exp_bounded(" << x[k] << ") = " << bounded[k] << ", exp gives " << plain[k]);
      }
    CHECK(differ == 0);
    CHECK(same(one("exp_bounded", 1e30f), kInf));
    CHECK(same(one("exp_bounded", -kInf), 0.0f));
  }

  TEST_CASE("vector math: log is within 1 ulp over all positive floats") {
    CHECK(measure("log", positive_bits(1000003), log_ref).ulp <= 1.0);
    CHECK(measure("log", sweep(0.5, 2.0), log_ref).ulp <= 1.0);
    CHECK(measure("log", sweep(0x1p-149, 0x1p-126), log_ref).ulp <= 1.0);
    CHECK(same(one("log", 1.0f), 0.0f));
    CHECK(same(one("log", 0.0f), -kInf));
    CHECK(same(one("log", -0.0f), -kInf));
    CHECK(same(one("log", kInf), kInf));
    CHECK(std::isnan(one("log", -1.0f)));
    CHECK(std::isnan(one("log", -kInf)));
    CHECK(std::isnan(one("log", -kDen)));
    CHECK(std::isnan(one("log", kNaN)));
    CHECK(std::fabs(one("log", 0x1p-149f) - std::log(0x1p-149)) < 1e-5);
  }

  TEST_CASE("vector math: tanh is within 2 ulp, odd, saturates") {
    CHECK(measure("tanh", sweep(-10, 10), tanh_ref).ulp <= 2.0);
    CHECK(measure("tanh", sweep(-1, 1), tanh_ref).ulp <= 2.0);
    CHECK(measure("tanh", sweep(1e-6, 1e-3), tanh_ref).ulp <= 2.0);
    CHECK(same(one("tanh", 0.0f), 0.0f));
    CHECK(same(one("tanh", -0.0f), -0.0f));
    CHECK(same(one("tanh", kDen), kDen));
    CHECK(same(one("tanh", 9.5f), 1.0f));
    CHECK(same(one("tanh", -9.5f), -1.0f));
    CHECK(same(one("tanh", kInf), 1.0f));
    CHECK(same(one("tanh", -kInf), -1.0f));
    CHECK(same(one("tanh", -1e30f), -1.0f));
    CHECK(std::isnan(one("tanh", kNaN)));
  }

  TEST_CASE("vector math: sigmoid is within 2.5 ulp and never overflows") {
    CHECK(measure("sigmoid", sweep(-20, 20), sigmoid_ref).ulp <= 2.5);
    CHECK(measure("sigmoid", sweep(-104, 90), sigmoid_ref).ulp <= 2.5);
    CHECK(same(one("sigmoid", 0.0f), 0.5f));
    CHECK(same(one("sigmoid", -0.0f), 0.5f));
    CHECK(same(one("sigmoid", 100.0f), 1.0f));
    CHECK(same(one("sigmoid", kInf), 1.0f));
    CHECK(same(one("sigmoid", -kInf), 0.0f));
    CHECK(same(one("sigmoid", -1e30f), 0.0f));
    CHECK(std::isnan(one("sigmoid", kNaN)));
  }

  TEST_CASE("vector math: erf is within 3.3e-7 absolute, 3.8 ulp below 0.9, saturates") {
    CHECK(measure("erf", sweep(-5, 5), erf_ref).abs <= 3.3e-7);
    CHECK(measure("erf", sweep(-0.9, 0.9), erf_ref).ulp <= 3.8);
    CHECK(measure("erf", sweep(0.9, 4.5), erf_ref).abs <= 3.3e-7);  // up to and past the clamp at 4
    CHECK(measure("erf", sweep(1e-6, 1e-3), erf_ref).ulp <= 2.8);
    CHECK(same(one("erf", 0.0f), 0.0f));
    CHECK(same(one("erf", -0.0f), -0.0f));
    CHECK(one("erf", kDen) > 0.0f);
    CHECK(same(one("erf", 4.5f), 1.0f));
    CHECK(same(one("erf", -4.5f), -1.0f));
    CHECK(same(one("erf", kInf), 1.0f));
    CHECK(same(one("erf", -kInf), -1.0f));
    CHECK(std::isnan(one("erf", kNaN)));
  }

  TEST_CASE("vector math: gelu is erf's rational rescaled: as accurate as the formula through erf") {
    // x >= 0: 0.5 + h in [0.5, 1], no cancellation: a few ulp, no more than the formula's.
    double pos = measure("gelu", sweep(0, 8), gelu_ref).ulp;
    CHECK(pos <= 4.0);
    CHECK(pos <= measure("gelu_formula", sweep(0, 8), gelu_ref).ulp + 0.5);
    // Where the rational exceeds 1/2 (|x| in [5.163, 5.657], by up to 2 ulp)
    // and past the clamp of x, 0.5 + h is not clamped above: every float
    // there, within 3.5 ulp.
    std::vector<float> top;
    for (float x = 5.1f; x <= 6.0f; x = std::nextafter(x, 7.0f)) top.push_back(x);
    CHECK(measure("gelu", top, gelu_ref).ulp <= 3.5);
    float big = one("gelu", 1e30f);  // x (1 + at most 2^-23): within 2 ulp of x
    CHECK(big >= 1e30f);
    CHECK(big <= std::nextafter(std::nextafter(1e30f, kInf), kInf));
    // Below, 1 + erf cancels, in the formula as here: the error is erf's
    // (3.2e-7 absolute), halved, times |x|.
    auto worst = [](const char *name) {
      std::vector<float> neg = sweep(-12, 0);
      std::vector<float> out = run(name, neg);
      double w = 0;
      for (std::size_t k = 0; k < neg.size(); ++k)
        w = std::max(w, std::fabs(out[k] - gelu_ref(neg[k])) / std::max(1.0, std::fabs(static_cast<double>(neg[k]))));
      MESSAGE(std::string(name) << " on -12..0: max abs error / max(1, |x|) " << w);
      return w;
    };
    double neg = worst("gelu");
    CHECK(neg <= 2.5e-7);
    CHECK(neg <= worst("gelu_formula") * 1.25);
    CHECK(same(one("gelu", 0.0f), 0.0f));
    CHECK(same(one("gelu", kInf), kInf));
    CHECK(std::isnan(one("gelu", -kInf)));  // -inf * 0, as the formula
    CHECK(std::isnan(one("gelu", kNaN)));
    CHECK(one("gelu", -20.0f) == 0.0f);  // h is clamped below at -1/2
    CHECK(one("gelu", -6.0f) == 0.0f);
    CHECK(one("gelu", -1e30f) == 0.0f);
  }

  TEST_CASE("vector math: loops using the emitters vectorize and call nothing after O3") {
    for (const MathFn &fn : kFns) {
      CAPTURE(fn.name);
      const IrFacts &vec = jit().ir(std::string("vec16_") + fn.name);
      const IrFacts &autov = jit().ir(std::string("auto_") + fn.name);
      CHECK(vec.calls == 0);
      CHECK(autov.calls == 0);
      CHECK(autov.float_vectors);
      CHECK(jit().ir(std::string("scalar_") + fn.name).calls == 0);
    }
  }
}
