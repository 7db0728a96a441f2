// Math the GLSL.std.450 instructions do not give with the interpreter's accuracy or
// semantics (spirv_emitter.h): erf (GLSL has none), pow (undefined for x < 0), atan, atan2,
// asin and acos (drivers' own are as loose as 2e-5 relative: lavapipe), exact fmod and
// floor division. Each works on float32 values; on_float32 converts other float widths.
#include <cmath>

#include "spirv_emitter.h"

namespace relax::vulkan::detail {

using spv::Op;

uint32_t on_float32(Emitter& e, DataType t, const std::vector<uint32_t>& args,
                    uint32_t (*fn)(Emitter&, const std::vector<uint32_t>&)) {
  if (e.fbits(t) == 32) return fn(e, args);
  uint32_t f32 = e.ctype(DataType::Float(32));
  std::vector<uint32_t> wide;
  for (uint32_t a : args) wide.push_back(e.op(Op::OpFConvert, f32, {a}));
  return e.op(Op::OpFConvert, e.ctype(t), {fn(e, wide)});
}

namespace {

struct F32 {
  Emitter& e;
  uint32_t ft = e.ctype(DataType::Float(32)), bt = e.ctype(DataType::Bool());
  uint32_t c(float v) { return e.f32(v); }
  uint32_t add(uint32_t a, uint32_t b) { return e.op(Op::OpFAdd, ft, {a, b}); }
  uint32_t sub(uint32_t a, uint32_t b) { return e.op(Op::OpFSub, ft, {a, b}); }
  uint32_t mul(uint32_t a, uint32_t b) { return e.op(Op::OpFMul, ft, {a, b}); }
  uint32_t div(uint32_t a, uint32_t b) { return e.op(Op::OpFDiv, ft, {a, b}); }
  uint32_t lt(uint32_t a, uint32_t b) { return e.op(Op::OpFOrdLessThan, bt, {a, b}); }
  uint32_t sel(uint32_t cnd, uint32_t a, uint32_t b) { return e.op(Op::OpSelect, ft, {cnd, a, b}); }
  uint32_t abs(uint32_t a) { return e.ext(GLSLstd450FAbs, ft, {a}); }
  /// `mag` with the sign bit of `sign` (also for zeros and NaNs).
  uint32_t copysign(uint32_t mag, uint32_t sign) {
    uint32_t ut = e.ctype(DataType::UInt(32));
    uint32_t m = e.op(Op::OpBitwiseAnd, ut, {e.op(Op::OpBitcast, ut, {mag}), e.u32(0x7FFFFFFFu)});
    uint32_t s = e.op(Op::OpBitwiseAnd, ut, {e.op(Op::OpBitcast, ut, {sign}), e.u32(0x80000000u)});
    return e.op(Op::OpBitcast, ft, {e.op(Op::OpBitwiseOr, ut, {m, s})});
  }
  uint32_t signbit(uint32_t a) {
    uint32_t ut = e.ctype(DataType::UInt(32));
    uint32_t s = e.op(Op::OpBitwiseAnd, ut, {e.op(Op::OpBitcast, ut, {a}), e.u32(0x80000000u)});
    return e.op(Op::OpINotEqual, bt, {s, e.u32(0)});
  }
};

/// atan on [0, 1]: with t > tan(pi/12), atan(t) = pi/6 + atan((t - 1/sqrt3) / (1 + t/sqrt3)),
/// which brings the argument within [-0.268, 0.268]; there the odd Taylor series to t^17
/// (remainder < 1e-11).
uint32_t atan_unit(F32& m, uint32_t t) {
  const float inv_sqrt3 = 0.57735026918962576f;
  uint32_t big = m.lt(m.c(0.26794919243112270f), t);
  uint32_t red = m.div(m.sub(t, m.c(inv_sqrt3)), m.add(m.c(1), m.mul(t, m.c(inv_sqrt3))));
  uint32_t u = m.sel(big, red, t);
  uint32_t u2 = m.mul(u, u);
  uint32_t p = m.c(1.0f / 17);
  for (int k = 7; k >= 0; --k) p = m.add(m.mul(p, u2), m.c((k % 2 ? -1.0f : 1.0f) / float(2 * k + 1)));
  uint32_t r = m.mul(p, u);
  return m.sel(big, m.add(r, m.c(0.52359877559829887f)), r);
}

}  // namespace

uint32_t atan_f32(Emitter& e, const std::vector<uint32_t>& args) {
  F32 m{e};
  uint32_t x = args[0], ax = m.abs(x);
  uint32_t inv = m.lt(m.c(1), ax);
  uint32_t t = m.sel(inv, m.div(m.c(1), ax), ax);
  uint32_t r = atan_unit(m, t);
  r = m.sel(inv, m.sub(m.c(1.57079632679489662f), r), r);
  return m.copysign(r, x);
}

uint32_t atan2_f32(Emitter& e, const std::vector<uint32_t>& args) {
  F32 m{e};
  uint32_t y = args[0], x = args[1];
  uint32_t ay = m.abs(y), ax = m.abs(x);
  uint32_t lo = e.ext(GLSLstd450FMin, m.ft, {ay, ax}), hi = e.ext(GLSLstd450FMax, m.ft, {ay, ax});
  uint32_t r = atan_unit(m, m.div(lo, hi));
  uint32_t zero = e.op(Op::OpFOrdEqual, m.bt, {hi, m.c(0)});
  uint32_t both_inf = e.op(Op::OpLogicalAnd, m.bt, {e.op(Op::OpIsInf, m.bt, {ay}), e.op(Op::OpIsInf, m.bt, {ax})});
  r = m.sel(zero, m.c(0), m.sel(both_inf, m.c(0.78539816339744831f), r));
  r = m.sel(m.lt(ax, ay), m.sub(m.c(1.57079632679489662f), r), r);
  r = m.sel(m.signbit(x), m.sub(m.c(3.14159265358979324f), r), r);
  uint32_t any_nan = e.op(Op::OpLogicalOr, m.bt, {e.op(Op::OpIsNan, m.bt, {x}), e.op(Op::OpIsNan, m.bt, {y})});
  return m.sel(any_nan, m.add(x, y), m.copysign(r, y));
}

/// sqrt(1 - x^2) as sqrt((1 - x)(1 + x)), accurate near |x| = 1.
static uint32_t cos_of_asin(F32& m, uint32_t x) {
  return m.e.ext(GLSLstd450Sqrt, m.ft, {m.mul(m.sub(m.c(1), x), m.add(m.c(1), x))});
}

uint32_t asin_f32(Emitter& e, const std::vector<uint32_t>& args) {
  F32 m{e};
  return atan2_f32(e, {args[0], cos_of_asin(m, args[0])});  // NaN outside [-1, 1]: the sqrt
}

uint32_t acos_f32(Emitter& e, const std::vector<uint32_t>& args) {
  F32 m{e};
  uint32_t s = cos_of_asin(m, args[0]);
  uint32_t r = atan2_f32(e, {s, args[0]});
  return m.sel(e.op(Op::OpIsNan, m.bt, {s}), s, r);
}

namespace {

/// a - q * b for floats of dtype `t`, rounded once: q * b as the exact sum p + err (Dekker's
/// product with Veltkamp splitting; every step NoContraction, since drivers need not fuse
/// GLSL Fma: lavapipe does not), then (a - p) - err (a - p exact where q is near a / b).
uint32_t exact_residual(Emitter& e, DataType t, uint32_t a, uint32_t q, uint32_t b) {
  uint32_t ty = e.ctype(t);
  auto x = [&](Op o, uint32_t l, uint32_t r) {
    uint32_t id = e.op(o, ty, {l, r});
    e.b_.decorate(id, spv::Decoration::NoContraction);
    return id;
  };
  uint32_t split = e.cfloat(t, e.fbits(t) == 16 ? 33.0 : 4097.0);
  auto hi_lo = [&](uint32_t v, uint32_t& hi, uint32_t& lo) {
    uint32_t c = x(Op::OpFMul, split, v);
    hi = x(Op::OpFSub, c, x(Op::OpFSub, c, v));
    lo = x(Op::OpFSub, v, hi);
  };
  uint32_t qh, ql, bh, bl;
  hi_lo(q, qh, ql);
  hi_lo(b, bh, bl);
  uint32_t p = x(Op::OpFMul, q, b);
  uint32_t err = x(Op::OpFSub, x(Op::OpFMul, qh, bh), p);
  err = x(Op::OpFAdd, err, x(Op::OpFMul, qh, bl));
  err = x(Op::OpFAdd, err, x(Op::OpFMul, ql, bh));
  err = x(Op::OpFAdd, err, x(Op::OpFMul, ql, bl));
  uint32_t r = x(Op::OpFSub, x(Op::OpFSub, a, p), err);
  // q * b infinite or NaN (a huge quotient): the plain difference.
  uint32_t bt = e.ctype(DataType::Bool());
  uint32_t bad = e.op(Op::OpLogicalOr, bt, {e.op(Op::OpIsInf, bt, {p}), e.op(Op::OpIsNan, bt, {r})});
  return e.op(Op::OpSelect, ty, {bad, x(Op::OpFSub, a, p), r});
}

/// r != 0 and its sign differs from `ref`'s.
[[maybe_unused]]
uint32_t wrong_sign(Emitter& e, DataType t, uint32_t r, uint32_t ref) {
  uint32_t bt = e.ctype(DataType::Bool()), zero = e.cfloat(t, 0);
  return e.op(Op::OpLogicalAnd, bt,
              {e.op(Op::OpFOrdNotEqual, bt, {r, zero}),
               e.op(Op::OpLogicalNotEqual, bt,
                    {e.op(Op::OpFOrdLessThan, bt, {r, zero}), e.op(Op::OpFOrdLessThan, bt, {ref, zero})})});
}

}  // namespace

uint32_t float_fmod(Emitter& e, DataType t, uint32_t a, uint32_t b) {
  // Exact, like std::fmod, by long division: while r >= |b|, subtract |b| scaled by the power
  // of two that keeps it <= r (each subtraction is exact); at most ~280 steps (float64 ~2100),
  // log2(|a / b|) in general. A structured loop over a Function variable.
  uint32_t ty = e.ctype(t), bt = e.ctype(DataType::Bool()), it = e.ctype(DataType::Int(32));
  if (e.fbits(t) == 64) e.need("int64", e.f_.int64, "float64 fmod");
  uint32_t ab = e.ext(GLSLstd450FAbs, ty, {b}), aa = e.ext(GLSLstd450FAbs, ty, {a});
  uint32_t r_var = e.b_.fresh_id();
  SpirvBuilder::append(e.fvars_, Op::OpVariable,
                       {e.b_.type_pointer(spv::StorageClass::Function, ty), r_var,
                        uint32_t(spv::StorageClass::Function)});
  e.op0(Op::OpStore, {r_var, aa});
  uint32_t frexp_t = e.b_.unique(Op::OpTypeStruct, {ty, it});
  auto exponent = [&](uint32_t v) {
    return e.op(Op::OpCompositeExtract, it, {e.ext(GLSLstd450FrexpStruct, frexp_t, {v}), 1});
  };
  uint32_t eb = exponent(ab);
  // Only finite a and non-zero finite b loop; the other cases are fixed after.
  uint32_t finite_a = e.op(Op::OpLogicalNot, bt, {e.op(Op::OpLogicalOr, bt, {e.op(Op::OpIsInf, bt, {a}), e.op(Op::OpIsNan, bt, {a})})});
  uint32_t usable_b = e.op(Op::OpFOrdGreaterThan, bt, {ab, e.cfloat(t, 0)});
  uint32_t go = e.op(Op::OpLogicalAnd, bt, {finite_a, e.op(Op::OpLogicalAnd, bt, {usable_b, e.op(Op::OpLogicalNot, bt, {e.op(Op::OpIsInf, bt, {b})})})});
  uint32_t header = e.new_label(), cond = e.new_label(), body = e.new_label(), cont = e.new_label(),
           merge = e.new_label();
  e.op0(Op::OpBranch, {header});
  e.start_block(header);
  e.op0(Op::OpLoopMerge, {merge, cont, 0});
  e.op0(Op::OpBranch, {cond});
  e.start_block(cond);
  uint32_t rv = e.op(Op::OpLoad, ty, {r_var});
  uint32_t more = e.op(Op::OpLogicalAnd, bt, {go, e.op(Op::OpFOrdGreaterThanEqual, bt, {rv, ab})});
  e.op0(Op::OpBranchConditional, {more, body, merge});
  e.start_block(body);
  uint32_t r2 = e.op(Op::OpLoad, ty, {r_var});
  uint32_t d = e.ext(GLSLstd450Ldexp, ty, {ab, e.op(Op::OpISub, it, {exponent(r2), eb})});
  d = e.op(Op::OpSelect, ty, {e.op(Op::OpFOrdGreaterThan, bt, {d, r2}), e.op(Op::OpFMul, ty, {d, e.cfloat(t, 0.5)}), d});
  e.op0(Op::OpStore, {r_var, e.op(Op::OpFSub, ty, {r2, d})});
  e.op0(Op::OpBranch, {cont});
  e.start_block(cont);
  e.op0(Op::OpBranch, {header});
  e.start_block(merge);
  uint32_t r = e.op(Op::OpLoad, ty, {r_var});
  // The sign of the dividend (also for a zero result); NaN for an infinite a or a zero b;
  // a for an infinite b.
  uint32_t ut = e.ctype(DataType::UInt(e.fbits(t)));
  uint32_t sign_mask = e.b_.const_int(ut, e.fbits(t), false, uint64_t(1) << (e.fbits(t) - 1));
  uint32_t signed_r = e.op(Op::OpBitcast, ty, {e.op(Op::OpBitwiseOr, ut, {e.op(Op::OpBitcast, ut, {r}),
                          e.op(Op::OpBitwiseAnd, ut, {e.op(Op::OpBitcast, ut, {a}), sign_mask})})});
  uint32_t nan = e.op(Op::OpLogicalOr, bt, {e.op(Op::OpLogicalNot, bt, {finite_a}),
                                             e.op(Op::OpLogicalNot, bt, {e.op(Op::OpLogicalOr, bt, {usable_b, e.op(Op::OpIsNan, bt, {b})})})});
  uint32_t out = e.op(Op::OpSelect, ty, {e.op(Op::OpIsInf, bt, {b}), a, signed_r});
  out = e.op(Op::OpSelect, ty, {e.op(Op::OpIsNan, bt, {b}), b, out});
  return e.op(Op::OpSelect, ty, {nan, e.cfloat(t, NAN), out});
}

uint32_t float_floor_div(Emitter& e, DataType t, uint32_t a, uint32_t b, bool mod) {
  uint32_t ty = e.ctype(t);
  uint32_t q = e.ext(GLSLstd450Floor, ty, {e.op(Op::OpFDiv, ty, {a, b})});
  if (e.fbits(t) == 64) {
    if (!mod) return q;
    return e.op(Op::OpFSub, ty, {a, e.op(Op::OpFMul, ty, {q, b})});
  }
  // The interpreter divides in double: a float quotient rounded up onto an integer (1.5f /
  // 0.3f == 5) floors one too high, which the sign of the exact remainder a - q * b shows.
  uint32_t r = exact_residual(e, t, a, q, b);
  uint32_t high = wrong_sign(e, t, r, b);
  q = e.op(Op::OpSelect, ty, {high, e.op(Op::OpFSub, ty, {q, e.cfloat(t, 1)}), q});
  if (!mod) return q;
  return exact_residual(e, t, a, q, b);
}

/// erf in float32: the Maclaurin series for |x| < 1 (relative error < 1e-8), otherwise
/// 1 - erfc with Abramowitz & Stegun 7.1.26 (absolute error < 1.5e-7 where erf >= 0.84).
uint32_t erf_f32(Emitter& e, const std::vector<uint32_t>& args) {
  uint32_t x = args[0];
  DataType f = DataType::Float(32);
  uint32_t ft = e.ctype(f), bt = e.ctype(DataType::Bool());
  auto mul = [&](uint32_t a, uint32_t b) { return e.op(Op::OpFMul, ft, {a, b}); };
  auto add = [&](uint32_t a, uint32_t b) { return e.op(Op::OpFAdd, ft, {a, b}); };
  uint32_t ax = e.ext(GLSLstd450FAbs, ft, {x});
  uint32_t x2 = mul(x, x);
  // series: 2/sqrt(pi) * sum_n (-1)^n x^(2n+1) / (n! (2n+1)), Horner in x^2
  double coef[12];
  double fact = 1;
  for (int n = 0; n < 12; ++n) {
    if (n > 0) fact *= n;
    coef[n] = (n % 2 ? -1.0 : 1.0) / (fact * (2 * n + 1)) * 1.1283791670955126;
  }
  uint32_t p = e.f32(float(coef[11]));
  for (int n = 10; n >= 0; --n) p = add(mul(p, x2), e.f32(float(coef[n])));
  uint32_t series = mul(p, x);
  // tail: 1 - (a1 t + ... + a5 t^5) exp(-x^2), t = 1 / (1 + 0.3275911 |x|)
  uint32_t t = e.op(Op::OpFDiv, ft, {e.f32(1), add(e.f32(1), mul(e.f32(0.3275911f), ax))});
  const float a[5] = {0.254829592f, -0.284496736f, 1.421413741f, -1.453152027f, 1.061405429f};
  uint32_t poly = e.f32(a[4]);
  for (int i = 3; i >= 0; --i) poly = add(mul(poly, t), e.f32(a[i]));
  poly = mul(poly, t);
  uint32_t ex = e.ext(GLSLstd450Exp, ft, {e.op(Op::OpFNegate, ft, {x2})});
  uint32_t tail = e.op(Op::OpFSub, ft, {e.f32(1), mul(poly, ex)});
  tail = mul(e.ext(GLSLstd450FSign, ft, {x}), tail);
  uint32_t small = e.op(Op::OpFOrdLessThan, bt, {ax, e.f32(1)});
  // NaN: |x| < 1 is false and the tail is NaN.
  return e.op(Op::OpSelect, ft, {small, series, tail});
}

/// pow as std::pow: GLSL's Pow is undefined for x < 0 and for x == 0, y <= 0.
uint32_t pow_std(Emitter& e, DataType t, uint32_t x, uint32_t y) {
  uint32_t ft = e.ctype(t), bt = e.ctype(DataType::Bool());
  auto sel = [&](uint32_t c, uint32_t a, uint32_t b) { return e.op(Op::OpSelect, ft, {c, a, b}); };
  uint32_t zero = e.cfloat(t, 0), one = e.cfloat(t, 1);
  uint32_t ax = e.ext(GLSLstd450FAbs, ft, {x});
  uint32_t r = e.ext(GLSLstd450Pow, ft, {ax, y});
  uint32_t y_int = e.op(Op::OpFOrdEqual, bt, {e.ext(GLSLstd450Trunc, ft, {y}), y});
  uint32_t y_odd = e.op(Op::OpLogicalAnd, bt,
                        {y_int, e.op(Op::OpFOrdNotEqual, bt, {e.op(Op::OpFRem, ft, {y, e.cfloat(t, 2)}), zero})});
  uint32_t neg = e.op(Op::OpFOrdLessThan, bt, {x, zero});
  uint32_t neg_r = sel(y_int, sel(y_odd, e.op(Op::OpFNegate, ft, {r}), r), e.cfloat(t, NAN));
  r = sel(neg, neg_r, r);
  uint32_t x0 = e.op(Op::OpFOrdEqual, bt, {x, zero});
  uint32_t zero_r = sel(e.op(Op::OpFOrdLessThan, bt, {y, zero}), e.cfloat(t, INFINITY), zero);
  r = sel(x0, zero_r, r);
  uint32_t any_nan = e.op(Op::OpLogicalOr, bt, {e.op(Op::OpIsNan, bt, {x}), e.op(Op::OpIsNan, bt, {y})});
  r = sel(any_nan, e.cfloat(t, NAN), r);  // GLSL Pow(NaN, y) is not NaN on every driver
  uint32_t unit = e.op(Op::OpLogicalOr, bt,
                       {e.op(Op::OpFOrdEqual, bt, {y, zero}), e.op(Op::OpFOrdEqual, bt, {x, one})});
  return sel(unit, one, r);
}

}  // namespace relax::vulkan::detail
