// Scalar representation, conversions and memory access of the reference interpreter, and the
// float16 / bfloat16 conversions it exports (tir/interpreter.h).
#include <cmath>
#include <cstring>
#include <limits>

#include "interpreter_internal.h"
#include "relax/support/diagnostic.h"
#include "relax/kernel/interpreter.h"

namespace relax::tir {

namespace {

/// `v` rounded (nearest even) to a binary format with `mbits` fraction bits, smallest normal
/// exponent `emin` and largest finite value `max_finite`: overflow gives infinity, tiny values
/// round to the subnormal grid. Every step is exact in double except the one rounding.
double round_to_format(double v, int mbits, int emin, double max_finite) {
  if (!std::isfinite(v) || v == 0) return v;
  double a = std::fabs(v);
  int e;
  std::frexp(a, &e);
  int exp = std::max(e - 1, emin);
  double ulp = std::ldexp(1.0, exp - mbits);
  double r = std::nearbyint(a / ulp) * ulp;
  if (r > max_finite) r = std::numeric_limits<double>::infinity();
  return std::copysign(r, v);
}

double round_half(double v) { return round_to_format(v, 10, -14, 65504.0); }
double round_bf16(double v) { return round_to_format(v, 7, -126, 3.3895313892515355e38); }

/// The binary16 bits of a value that float16 represents exactly.
uint16_t encode_half(double r) {
  uint16_t sign = std::signbit(r) ? 0x8000 : 0;
  if (std::isnan(r)) return sign | 0x7E00;
  double a = std::fabs(r);
  if (std::isinf(a)) return sign | 0x7C00;
  if (a < 0x1p-14) return sign | uint16_t(a * 0x1p24);  // subnormal (or zero): a = m * 2^-24
  int e;
  std::frexp(a, &e);
  int exp = e - 1;
  auto mant = uint16_t((a / std::ldexp(1.0, exp) - 1.0) * 1024.0);
  return sign | uint16_t((exp + 15) << 10) | mant;
}

}  // namespace

uint16_t float_to_half(float value) { return encode_half(round_half(value)); }

float half_to_float(uint16_t bits) {
  double sign = (bits & 0x8000) ? -1.0 : 1.0;
  int exp = (bits >> 10) & 0x1F;
  int mant = bits & 0x3FF;
  if (exp == 0) return float(sign * std::ldexp(double(mant), -24));
  if (exp == 31) return mant ? std::numeric_limits<float>::quiet_NaN() : float(sign * INFINITY);
  return float(sign * std::ldexp(1.0 + mant / 1024.0, exp - 15));
}

uint16_t float_to_bfloat16(float value) {
  if (std::isnan(value)) return std::signbit(value) ? 0xFFC0 : 0x7FC0;
  auto r = float(round_bf16(value));  // exactly representable in float32
  uint32_t u;
  std::memcpy(&u, &r, 4);
  return uint16_t(u >> 16);
}

float bfloat16_to_float(uint16_t bits) {
  uint32_t u = uint32_t(bits) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

namespace interp {

int64_t wrap(DataType t, int64_t v) {
  if (t.bits >= 64) return v;
  auto u = uint64_t(v);
  uint64_t mask = (uint64_t(1) << t.bits) - 1;
  if (t.code == DataType::kUInt) return int64_t(u & mask);  // unsigned and bool
  int shift = 64 - t.bits;
  return int64_t(u << shift) >> shift;  // sign-extend
}

double round_float(DataType t, double v) {
  if (t.code == DataType::kBFloat) return round_bf16(v);
  switch (t.bits) {
    case 16:
      return round_half(v);
    case 32:
      return double(float(v));
    default:
      return v;
  }
}

Scalar convert(DataType from, DataType to, Scalar v) {
  Scalar r;
  if (to.is_bool()) {
    r.i = truthy(from, v) ? 1 : 0;
  } else if (to.is_float()) {
    double x = from.is_float()                       ? v.f
               : (from.is_uint() && from.bits == 64) ? double(uint64_t(v.i))
                                                     : double(v.i);
    r.f = round_float(to, x);
  } else if (from.is_float()) {
    double x = std::trunc(v.f);
    if (std::isnan(x)) {
      r.i = 0;
    } else if (to.is_uint() && to.bits == 64 && x >= 0x1p63) {
      r.i = x >= 0x1p64 ? -1 : int64_t(uint64_t(x));
    } else if (x >= 0x1p63) {
      r.i = std::numeric_limits<int64_t>::max();
    } else if (x < -0x1p63) {
      r.i = std::numeric_limits<int64_t>::min();
    } else {
      r.i = int64_t(x);
    }
    r.i = wrap(to, r.i);
  } else {
    r.i = wrap(to, v.i);
  }
  return r;
}

namespace {
/// Reads a T from possibly unaligned memory and widens it to int64.
template <class T>
int64_t read_int(const void* p) {
  T x;
  std::memcpy(&x, p, sizeof(T));
  return int64_t(x);
}
}  // namespace

Scalar load_scalar(DataType t, const void* p) {
  Scalar s;
  switch (t.code) {
    case DataType::kInt:
      switch (t.bits) {
        case 8: s.i = read_int<int8_t>(p); return s;
        case 16: s.i = read_int<int16_t>(p); return s;
        case 32: s.i = read_int<int32_t>(p); return s;
        case 64: s.i = read_int<int64_t>(p); return s;
      }
      break;
    case DataType::kUInt:
      switch (t.bits) {
        case 1: s.i = *static_cast<const uint8_t*>(p) != 0; return s;
        case 8: s.i = read_int<uint8_t>(p); return s;
        case 16: s.i = read_int<uint16_t>(p); return s;
        case 32: s.i = read_int<uint32_t>(p); return s;
        case 64: s.i = read_int<int64_t>(p); return s;
      }
      break;
    case DataType::kFloat:
      switch (t.bits) {
        case 16: {
          uint16_t x;
          std::memcpy(&x, p, 2);
          s.f = half_to_float(x);
          return s;
        }
        case 32: {
          float x;
          std::memcpy(&x, p, 4);
          s.f = x;
          return s;
        }
        case 64:
          std::memcpy(&s.f, p, 8);
          return s;
      }
      break;
    case DataType::kBFloat:
      if (t.bits == 16) {
        uint16_t x;
        std::memcpy(&x, p, 2);
        s.f = bfloat16_to_float(x);
        return s;
      }
      break;
  }
  RX_THROW() << "the interpreter cannot load elements of type " << t.to_string();
}

void store_scalar(DataType t, void* p, Scalar v) {
  switch (t.code) {
    case DataType::kInt:
    case DataType::kUInt: {
      int64_t x = wrap(t, v.i);
      int n = t.bits == 1 ? 1 : t.bits / 8;
      if (n == 1 || n == 2 || n == 4 || n == 8) {
        // Little-endian hosts: the low bytes of the normalised value are the element.
        std::memcpy(p, &x, size_t(n));
        return;
      }
      break;
    }
    case DataType::kFloat:
      switch (t.bits) {
        case 16: {
          uint16_t x = encode_half(round_half(v.f));
          std::memcpy(p, &x, 2);
          return;
        }
        case 32: {
          auto x = float(v.f);
          std::memcpy(p, &x, 4);
          return;
        }
        case 64:
          std::memcpy(p, &v.f, 8);
          return;
      }
      break;
    case DataType::kBFloat:
      if (t.bits == 16) {
        uint16_t x = float_to_bfloat16(float(round_bf16(v.f)));
        std::memcpy(p, &x, 2);
        return;
      }
      break;
  }
  RX_THROW() << "the interpreter cannot store elements of type " << t.to_string();
}

}  // namespace interp
}  // namespace relax::tir
