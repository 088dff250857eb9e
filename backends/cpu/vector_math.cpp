// Inline f32 exp, log, tanh, sigmoid, erf and Gelu emitted as LLVM IR (scalar or <N x float>).
//
// Coefficients were fitted for this file (weighted least squares on Chebyshev
// nodes, linearised for erf's rational, with Lawson reweighting towards
// minimax, in double, then rounded to f32); the error bounds in
// vector_math.h are measured by the unit tests.
#include "backends/cpu/vector_math.h"

#include "backends/cpu/llvm_host.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsX86.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Module.h>

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace atl::cpu {

namespace {

/// Constants and helpers for one value type (float or <N x float>).
struct Em {
  llvm::IRBuilder<> &b;
  llvm::Type *ft;  ///< float or <N x float>
  llvm::Type *it;  ///< i32 or <N x i32>

  Em(llvm::IRBuilder<> &builder, llvm::Value *x) : b(builder), ft(x->getType()), it(b.getInt32Ty()) {
    if (auto *vt = llvm::dyn_cast<llvm::VectorType>(ft)) it = llvm::VectorType::get(b.getInt32Ty(), vt->getElementCount());
  }

  llvm::Value *f(double v) const { return llvm::ConstantFP::get(ft, v); }
  llvm::Value *i(std::uint32_t v) const { return llvm::ConstantInt::get(it, v); }
  llvm::Value *bits(llvm::Value *v) const { return b.CreateBitCast(v, it); }
  llvm::Value *flt(llvm::Value *v) const { return b.CreateBitCast(v, ft); }
  llvm::Value *fma(llvm::Value *x, llvm::Value *y, llvm::Value *z) const {
    return b.CreateIntrinsic(llvm::Intrinsic::fma, {ft}, {x, y, z});
  }
  /// c[0] + x*(c[1] + x*(c[2] + ...)).
  llvm::Value *horner(llvm::Value *x, const std::vector<double> &c) const {
    auto p = c.end() - 1;
    llvm::Value *acc = f(*p);
    while (p != c.begin()) acc = fma(acc, x, f(*--p));
    return acc;
  }
  llvm::Value *horner(llvm::Value *x, std::initializer_list<double> c) const { return horner(x, std::vector<double>(c)); }
  llvm::Value *abs(llvm::Value *x) const { return flt(b.CreateAnd(bits(x), i(0x7fffffffu))); }
  llvm::Value *sign(llvm::Value *x) const { return b.CreateAnd(bits(x), i(0x80000000u)); }
  /// |v| with the sign bits `s` (i32) put back.
  llvm::Value *with_sign(llvm::Value *v, llvm::Value *s) const { return flt(b.CreateOr(bits(v), s)); }
  /// x when x is NaN, else v.
  llvm::Value *keep_nan(llvm::Value *x, llvm::Value *v) const { return b.CreateSelect(b.CreateFCmpUNO(x, x), x, v); }
  /// v clamped to [lo, hi] by ordered compares: NaN stays NaN.
  llvm::Value *clamp(llvm::Value *v, double lo, double hi) const {
    v = b.CreateSelect(b.CreateFCmpOGT(v, f(hi)), f(hi), v);
    return b.CreateSelect(b.CreateFCmpOLT(v, f(lo)), f(lo), v);
  }
};

// ln 2 split so that n * kLn2Hi is exact for |n| < 256.
constexpr double kLn2Hi = 0.693145751953125;          // 0x3f317200
constexpr double kLn2Lo = 1.428606765330187045e-06;   // ln 2 - kLn2Hi, rounded to f32
constexpr double kLog2e = 1.4426950408889634;
constexpr double kRound = 12582912.0;  // 1.5 * 2^23: adding it rounds to an integer in the low mantissa bits

/// How exp_core applies the 2^n of e^x = e^r 2^n.
enum class ExpScale {
  /// One multiply by 2^n built from n's bits: the same bits as kSplit
  /// whenever n + 127 lies in [1, 254] (so for every x in [-87, 88]), eight
  /// operations fewer; x is not clamped, and NaN still gives NaN.
  kOnce,
  /// Any x: clamped, 2^n as two normal halves, so overflow gives +inf and a
  /// denormal result is rounded once, correctly; NaN kept.
  kSplit,
  /// Any x, as kSplit, with AVX-512's vscalefps (e^r 2^n rounded once, so
  /// the same bits as kSplit) in place of the integer work and the two
  /// multiplies. Only for vectors of a host with AVX-512 (VL below 16 lanes).
  kScalef,
  /// kScalef for an x that is never +inf: clamped only below. A finite x
  /// above 89 gives the same +inf (n >= 128 and e^r > 0, or e^r itself
  /// +inf for |x| beyond 2^22 ln 2), so the bits are kScalef's; +inf
  /// itself would give NaN (r = inf - inf).
  kScalefBelow,
};

/// e^x, scaled as `how` says. `biased`, when given, receives n + 127 as i32
/// (kOnce only).
llvm::Value *exp_core(llvm::IRBuilder<> &b, llvm::Value *x, ExpScale how, llvm::Value **biased = nullptr) {
  Em e(b, x);
  // Clamp to [-104, 89] (NaN stays NaN). Beyond those the result is 0 or +inf
  // anyway, and the clamped values give that.
  llvm::Value *xc = x;
  if (how == ExpScale::kScalefBelow) xc = b.CreateSelect(b.CreateFCmpOLT(x, e.f(-104.0)), e.f(-104.0), x);
  else if (how != ExpScale::kOnce) xc = e.clamp(x, -104.0, 89.0);
  // n = round(x / ln 2) both as float and as i32, via the 1.5*2^23 trick.
  llvm::Value *t = e.fma(xc, e.f(kLog2e), e.f(kRound));
  llvm::Value *nf = b.CreateFSub(t, e.f(kRound));
  // r = x - n ln 2 in [-ln2/2, ln2/2] (Cody-Waite, two constants).
  llvm::Value *r = e.fma(nf, e.f(-kLn2Hi), xc);
  r = e.fma(nf, e.f(-kLn2Lo), r);
  // e^r = 1 + r + r^2 P(r).
  llvm::Value *p = e.horner(r, {0.499999911, 0.166665033, 0.0416685939, 0.00837077573, 0.00138103287});
  llvm::Value *er = b.CreateFAdd(e.fma(b.CreateFMul(r, r), p, r), e.f(1.0));
  if (how == ExpScale::kScalef || how == ExpScale::kScalefBelow) {
    auto *vt = llvm::cast<llvm::FixedVectorType>(er->getType());
    const unsigned lanes = vt->getNumElements();
    llvm::Value *all = lanes == 16 ? b.getInt16(0xffff) : b.getInt8(0xff);
    std::vector<llvm::Value *> args{er, nf, llvm::PoisonValue::get(vt), all};
    llvm::Intrinsic::ID id = llvm::Intrinsic::x86_avx512_mask_scalef_ps_128;
    if (lanes == 16) {
      id = llvm::Intrinsic::x86_avx512_mask_scalef_ps_512;
      args.push_back(b.getInt32(4));  // the current rounding mode
    } else if (lanes == 8) {
      id = llvm::Intrinsic::x86_avx512_mask_scalef_ps_256;
    }
    return b.CreateIntrinsic(id, {}, args);
  }
  llvm::Value *ni = b.CreateSub(e.bits(t), e.bits(e.f(kRound)));
  if (how == ExpScale::kOnce) {
    llvm::Value *bn = b.CreateAdd(ni, e.i(127));
    if (biased) *biased = bn;
    return b.CreateFMul(er, e.flt(b.CreateShl(bn, e.i(23))));
  }
  // 2^n as 2^n1 * 2^n2 (n in [-150, 129], both halves normal floats), so
  // overflow gives +inf and the denormal range is rounded once, correctly.
  // A NaN gives a NaN er, and so a NaN whatever the scale.
  llvm::Value *n1 = b.CreateAShr(ni, e.i(1));
  llvm::Value *n2 = b.CreateSub(ni, n1);
  llvm::Value *s1 = e.flt(b.CreateShl(b.CreateAdd(n1, e.i(127)), e.i(23)));
  llvm::Value *s2 = e.flt(b.CreateShl(b.CreateAdd(n2, e.i(127)), e.i(23)));
  return b.CreateFMul(b.CreateFMul(er, s1), s2);
}

/// Whether vectors of `lanes` floats may use vscalefps on this host.
bool host_scalef(unsigned lanes) {
  const HostInfo &host = host_info();
  return lanes == 16 ? host.avx512f : (lanes == 8 || lanes == 4) && host.avx512f && host.avx512vl;
}

/// The body of a vector e^x. With AVX-512, kScalef (kScalefBelow when
/// `bounded_above`): every x, no branch.
/// Otherwise kOnce, which gives the same bits as kSplit when every lane's
/// n + 127 lies in [1, 254] (the common case), and a branch to kSplit when a
/// lane's does not (a lane near or past the ends of the float range, or
/// NaN). The test is on n's integer, which kOnce computes anyway: an add and
/// an unsigned compare. A NaN, an infinity or |x| >= 2^22 ln 2 gives an n
/// far outside the range (the rounding trick's bits leave 1.5 * 2^23's
/// binade), so it takes the branch.
llvm::Value *exp_vector_body(llvm::IRBuilder<> &b, llvm::Value *x, bool scalef, bool bounded_above) {
  Em e(b, x);
  if (scalef)
    return exp_core(b, x, bounded_above ? ExpScale::kScalefBelow : ExpScale::kScalef);
  llvm::Value *bn = nullptr;
  llvm::Value *common = exp_core(b, x, ExpScale::kOnce, &bn);
  llvm::Value *beyond = b.CreateOrReduce(b.CreateICmpUGT(b.CreateSub(bn, e.i(1)), e.i(253)));
  llvm::BasicBlock *from = b.GetInsertBlock();
  llvm::LLVMContext &ctx = b.getContext();
  auto *wide = llvm::BasicBlock::Create(ctx, "wide", from->getParent());
  auto *join = llvm::BasicBlock::Create(ctx, "join", from->getParent());
  b.CreateCondBr(beyond, wide, join, llvm::MDBuilder(ctx).createBranchWeights(1, 64));
  b.SetInsertPoint(wide);
  llvm::Value *rare = exp_core(b, x, ExpScale::kSplit);
  b.CreateBr(join);
  b.SetInsertPoint(join);
  llvm::PHINode *res = b.CreatePHI(e.ft, 2);
  res->addIncoming(common, from);
  res->addIncoming(rare, wide);
  return res;
}

/// A call of the module's `atoll.exp.vNf32` (`atoll.expa.vNf32` when
/// `bounded_above`, `atoll.expb.vNf32` for the branching body), defined on first use: internal, always inlined, no memory
/// effects. The branch of exp_vector_body stays out of the caller's blocks
/// until inlining, so an epilogue with an exp is still one value that later
/// passes can move (hoist_epilogues).
llvm::Value *exp_vector_call(llvm::IRBuilder<> &b, llvm::Value *x, bool scalef, bool bounded_above) {
  llvm::Module *m = b.GetInsertBlock()->getModule();
  auto *vt = llvm::cast<llvm::FixedVectorType>(x->getType());
  const std::string name =
      std::string(!scalef ? "atoll.expb.v" : bounded_above ? "atoll.expa.v" : "atoll.exp.v") +
      std::to_string(vt->getNumElements()) + "f32";
  llvm::Function *f = m->getFunction(name);
  if (!f) {
    f = llvm::Function::Create(llvm::FunctionType::get(vt, {vt}, false), llvm::GlobalValue::InternalLinkage, name, m);
    f->addFnAttr(llvm::Attribute::AlwaysInline);
    f->addFnAttr(llvm::Attribute::NoUnwind);
    f->addFnAttr(llvm::Attribute::WillReturn);
    f->addFnAttr(llvm::Attribute::NoSync);
    f->addFnAttr(llvm::Attribute::NoFree);
    f->addFnAttr(llvm::Attribute::Speculatable);
    f->setMemoryEffects(llvm::MemoryEffects::none());
    llvm::IRBuilder<> fb(llvm::BasicBlock::Create(m->getContext(), "entry", f));
    fb.CreateRet(exp_vector_body(fb, f->getArg(0), scalef, bounded_above));
  }
  return b.CreateCall(f, {x});
}

}  // namespace

llvm::Value *emit_exp(llvm::IRBuilder<> &b, llvm::Value *x, bool bounded_above) {
  if (auto *vt = llvm::dyn_cast<llvm::FixedVectorType>(x->getType()))
    return exp_vector_call(b, x, host_scalef(vt->getNumElements()), bounded_above);
  return exp_core(b, x, ExpScale::kSplit);
}

llvm::Value *emit_exp_branching(llvm::IRBuilder<> &b, llvm::Value *x) {
  return x->getType()->isVectorTy() ? exp_vector_call(b, x, false, false) : exp_core(b, x, ExpScale::kSplit);
}

llvm::Value *emit_log(llvm::IRBuilder<> &b, llvm::Value *x) {
  Em e(b, x);
  // Denormals: scale by 2^23 first.
  llvm::Value *den = b.CreateFCmpOLT(x, e.f(0x1p-126));
  llvm::Value *xs = b.CreateSelect(den, b.CreateFMul(x, e.f(0x1p23)), x);
  llvm::Value *adj = b.CreateSelect(den, e.f(23.0), e.f(0.0));
  // x = 2^k * m with m in [sqrt(1/2), sqrt(2)).
  constexpr std::uint32_t kSqrtHalf = 0x3f3504f3u;
  llvm::Value *d = b.CreateSub(e.bits(xs), e.i(kSqrtHalf));
  llvm::Value *k = b.CreateAShr(d, e.i(23));
  llvm::Value *m = e.flt(b.CreateAdd(b.CreateAnd(d, e.i(0x7fffffu)), e.i(kSqrtHalf)));
  llvm::Value *kf = b.CreateFSub(b.CreateSIToFP(k, e.ft), adj);
  // log(1+f) = f - f^2/2 + f^3 P(f).
  llvm::Value *f = b.CreateFSub(m, e.f(1.0));
  llvm::Value *f2 = b.CreateFMul(f, f);
  llvm::Value *p = e.horner(f, {0.333333313, -0.250008225, 0.200012267, -0.16623354, 0.142017767, -0.131602332,
                                0.127614677, -0.0763422549});
  llvm::Value *y = b.CreateFAdd(e.fma(b.CreateFMul(f2, f), p, b.CreateFMul(f2, e.f(-0.5))), f);
  llvm::Value *res = e.fma(kf, e.f(kLn2Hi), e.fma(kf, e.f(kLn2Lo), y));
  // Special values.
  const double inf = __builtin_inf();
  res = b.CreateSelect(b.CreateFCmpOEQ(x, e.f(inf)), e.f(inf), res);
  res = b.CreateSelect(b.CreateFCmpOEQ(x, e.f(0.0)), e.f(-inf), res);
  res = b.CreateSelect(b.CreateFCmpOLT(x, e.f(0.0)), e.f(__builtin_nan("")), res);
  return e.keep_nan(x, res);
}

llvm::Value *emit_tanh(llvm::IRBuilder<> &b, llvm::Value *x) {
  Em e(b, x);
  llvm::Value *a = e.abs(x);
  // |x| < 0.625: x + x^3 P(x^2) (odd, keeps tanh(-0) = -0).
  llvm::Value *x2 = b.CreateFMul(x, x);
  llvm::Value *ps = e.horner(x2, {-0.333332777, 0.133313313, -0.053730011, 0.02060619, -0.00566698983});
  llvm::Value *small = e.fma(b.CreateFMul(x, x2), ps, x);
  small = b.CreateSelect(b.CreateFCmpOEQ(x, e.f(0.0)), x, small);  // -0 + -0*P gives +0
  // Beyond: (1 - t) / (1 + t), t = e^-2|x|, which rounds to exactly 1 for
  // |x| > 9: |x| is clamped to 9 (+-inf included), so e^-2|x| is normal.
  llvm::Value *ac = b.CreateSelect(b.CreateFCmpOGT(a, e.f(9.0)), e.f(9.0), a);
  llvm::Value *t = exp_core(b, b.CreateFMul(ac, e.f(-2.0)), ExpScale::kOnce);
  llvm::Value *big = b.CreateFDiv(b.CreateFSub(e.f(1.0), t), b.CreateFAdd(e.f(1.0), t));
  big = e.with_sign(big, e.sign(x));
  return b.CreateSelect(b.CreateFCmpOLT(a, e.f(0.625)), small, big);
}

llvm::Value *emit_sigmoid(llvm::IRBuilder<> &b, llvm::Value *x) {
  Em e(b, x);
  // t = e^-|x| in (0, 1]: 1/(1+t) for x >= 0, t/(1+t) for x < 0 (-|x| is
  // never +inf).
  llvm::Value *t = emit_exp(b, b.CreateFNeg(e.abs(x)), true);
  llvm::Value *num = b.CreateSelect(b.CreateFCmpOLT(x, e.f(0.0)), t, e.f(1.0));
  return b.CreateFDiv(num, b.CreateFAdd(e.f(1.0), t));
}

// erf(y) = y P(y^2) / Q(y^2) on y in [-4, 4].
const std::vector<double> kErfP = {1.12837911, 0.207106933, 0.0515223667, 0.00398967415, 0.000147256214,
                                   -1.94202653e-06, 1.91084766e-08};
const std::vector<double> kErfQ = {1.0, 0.516875029, 0.117963076, 0.0149563905, 0.00102086458};

llvm::Value *emit_erf(llvm::IRBuilder<> &b, llvm::Value *x) {
  Em e(b, x);
  // x P(x^2) / Q(x^2) on x clamped to [-4, 4] (erf(4) rounds to 1), the
  // quotient clamped to [-1, 1]: one rational for the whole range, no
  // branches to evaluate and select between. NaN stays NaN.
  llvm::Value *xc = e.clamp(x, -4.0, 4.0);
  llvm::Value *t = b.CreateFMul(xc, xc);
  llvm::Value *p = e.horner(t, kErfP);
  llvm::Value *q = e.horner(t, kErfQ);
  return e.clamp(b.CreateFDiv(b.CreateFMul(xc, p), q), -1.0, 1.0);
}

llvm::Value *emit_gelu(llvm::IRBuilder<> &b, llvm::Value *x) {
  Em e(b, x);
  // 0.5 x (1 + erf(x / sqrt 2)) = x (0.5 + h), h = 0.5 erf(x / sqrt 2):
  // emit_erf's rational at y = x / sqrt 2 with the scale folded into its
  // coefficients (P's k-th times 2^-k / (2 sqrt 2), Q's times 2^-k), so h
  // is x P'(x^2) / Q'(x^2) on x clamped to [-4 sqrt 2, 4 sqrt 2]. Two
  // multiplications fewer than the formula. h is clamped below at -1/2, so
  // that 0.5 + h is exactly 0 for very negative x (the rational exceeds 1/2
  // in magnitude for |x| in [5.163, 5.657], by up to 2 ulp): gelu is 0
  // there, not a small positive multiple of x. Above, no clamp: 0.5 + h is
  // at most 1 + 2^-23 (gelu(x) within 2 ulp of x past the clamp of x, 3.5
  // ulp where the rational overshoots); the upper clamp cost
  // 5-8% of a bias -> Gelu kernel.
  const double half_rsqrt2 = 0.35355339059327373;  // 1 / (2 sqrt 2)
  std::vector<double> p = kErfP, q = kErfQ;
  for (std::size_t k = 0; k < p.size(); ++k) p[k] *= std::ldexp(half_rsqrt2, -static_cast<int>(k));
  for (std::size_t k = 0; k < q.size(); ++k) q[k] = std::ldexp(q[k], -static_cast<int>(k));
  const double lim = 5.656854249492380;  // 4 sqrt 2
  llvm::Value *xc = e.clamp(x, -lim, lim);
  llvm::Value *t = b.CreateFMul(xc, xc);
  llvm::Value *h = b.CreateFDiv(b.CreateFMul(xc, e.horner(t, p)), e.horner(t, q));
  h = b.CreateSelect(b.CreateFCmpOLT(h, e.f(-0.5)), e.f(-0.5), h);
  return b.CreateFMul(x, b.CreateFAdd(e.f(0.5), h));
}

}  // namespace atl::cpu
