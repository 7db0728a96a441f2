// Comparing outputs with references (compare.h).
#include "compare.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iomanip>
#include <sstream>

#include "relax/support/diagnostic.h"

namespace relax::tools {

using runtime::NDArray;
using runtime::Value;
using runtime::ValueKind;

namespace {

std::string index_to_string(const std::vector<int64_t>& shape, int64_t flat) {
  std::vector<int64_t> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = shape[d] ? flat % shape[d] : 0;
    flat = shape[d] ? flat / shape[d] : 0;
  }
  std::string s = "[";
  for (size_t d = 0; d < idx.size(); ++d) s += (d ? ", " : "") + std::to_string(idx[d]);
  return s + "]";
}


}  // namespace

double element(const NDArray& a, int64_t i) {
  const auto* p = static_cast<const uint8_t*>(a.data());
  DataType t = a.dtype();
  if (t == DataType::Float(32)) return reinterpret_cast<const float*>(p)[i];
  if (t == DataType::Float(64)) return reinterpret_cast<const double*>(p)[i];
  if (t.is_bool() || t == DataType::UInt(8)) return p[i];
  if (t == DataType::Int(8)) return reinterpret_cast<const int8_t*>(p)[i];
  if (t == DataType::Int(16)) return reinterpret_cast<const int16_t*>(p)[i];
  if (t == DataType::Int(32)) return reinterpret_cast<const int32_t*>(p)[i];
  if (t == DataType::Int(64)) return double(reinterpret_cast<const int64_t*>(p)[i]);
  return std::nan("");
}

/// Element i of a float tensor as a double (float16/bfloat16 widened exactly).
double float_element(const NDArray& a, int64_t i) {
  const auto* p = static_cast<const uint8_t*>(a.data());
  DataType t = a.dtype();
  if (t == DataType::Float(32)) return reinterpret_cast<const float*>(p)[i];
  if (t == DataType::Float(64)) return reinterpret_cast<const double*>(p)[i];
  uint16_t h = reinterpret_cast<const uint16_t*>(p)[i];
  if (t == DataType::BFloat(16)) {
    uint32_t bits = uint32_t(h) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  RX_CHECK(t == DataType::Float(16)) << "cannot compare tensors of dtype " << t.to_string();
  int exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  double sign = (h & 0x8000) ? -1.0 : 1.0;
  if (exp == 0) return sign * std::ldexp(double(mant), -24);
  if (exp == 31) return mant ? std::nan("") : sign * INFINITY;
  return sign * std::ldexp(double(mant | 0x400), exp - 25);
}

/// Element i of an integer or bool tensor, exactly.
long double int_element(const NDArray& a, int64_t i) {
  const auto* p = static_cast<const uint8_t*>(a.data()) + i * a.dtype().bytes();
  DataType t = a.dtype();
  if (t.is_bool()) return *p != 0;
  int64_t s = 0;
  uint64_t u = 0;
  std::memcpy(&u, p, size_t(t.bytes()));
  if (t.is_uint()) return (long double)u;
  std::memcpy(&s, p, size_t(t.bytes()));
  int shift = 64 - t.bits;
  return (long double)(shift ? (int64_t(uint64_t(s) << shift) >> shift) : s);
}

bool compare_tensor(const NDArray& got, const NDArray& want, double rtol, double atol,
                    std::ostream& verdict) {
  if (got.dtype() != want.dtype()) {
    verdict << "MISMATCH: dtype " << got.dtype().to_string() << ", expected "
            << want.dtype().to_string();
    return false;
  }
  if (got.shape() != want.shape()) {
    verdict << "MISMATCH: shape " << runtime::shape_to_string(got.shape()) << ", expected "
            << runtime::shape_to_string(want.shape());
    return false;
  }
  bool is_float = want.dtype().is_float();
  int64_t n = want.numel(), bad = 0, first = -1;
  double max_abs = 0, max_rel = 0;
  for (int64_t i = 0; i < n; ++i) {
    double g, w;
    bool equal;
    if (is_float) {
      g = float_element(got, i);
      w = float_element(want, i);
      if (std::isnan(g) || std::isnan(w)) {
        equal = std::isnan(g) && std::isnan(w);
      } else if (std::isinf(g) || std::isinf(w)) {
        equal = g == w;
      } else {
        equal = std::abs(g - w) <= atol + rtol * std::abs(w);
      }
    } else {
      long double gi = int_element(got, i), wi = int_element(want, i);
      equal = gi == wi;
      g = double(gi);
      w = double(wi);
    }
    double err = std::abs(g - w);
    if (std::isfinite(err)) {
      max_abs = std::max(max_abs, err);
      if (w != 0) max_rel = std::max(max_rel, err / std::abs(w));
    }
    if (!equal && bad++ == 0) first = i;
  }
  std::ostringstream stats;
  stats << std::setprecision(3) << "max abs err " << max_abs << ", max rel err " << max_rel;
  if (bad == 0) {
    verdict << "ok (" << runtime::shape_to_string(want.shape()) << " "
            << want.dtype().to_string() << "; " << stats.str() << ")";
    return true;
  }
  double g = is_float ? float_element(got, first) : double(int_element(got, first));
  double w = is_float ? float_element(want, first) : double(int_element(want, first));
  verdict << "MISMATCH: " << bad << " of " << n << " elements differ";
  if (is_float) verdict << " beyond rtol=" << rtol << " atol=" << atol;
  verdict << "; " << stats.str() << "; first at index "
          << index_to_string(want.shape(), first) << ": got " << std::setprecision(8) << g
          << ", expected " << w;
  return false;
}

std::vector<Value> flatten_outputs(const Value& result) {
  std::vector<Value> out;
  if (!result.is(ValueKind::kTuple)) {
    out.push_back(result);
    return out;
  }
  for (const Value& f : result.as_tuple().fields()) {
    std::vector<Value> inner = flatten_outputs(f);
    out.insert(out.end(), inner.begin(), inner.end());
  }
  return out;
}

}  // namespace relax::tools
