// tensor_compare: the one comparison of a computed tensor with its reference, for every test
// area.
//
//   EXPECT_TRUE(test::tensors_close(got, want));                 // two NDArrays
//   EXPECT_TRUE(test::tensors_close(got, want, 1e-3, 1e-4));     // rtol, atol
//   EXPECT_TRUE(test::tensor_close_to(got, {2, 3}, {1, 2, 3, 4, 5, 6}));  // reference values
//
// An element is close when |got - want| <= atol + rtol * |want| (NumPy's allclose; rtol = atol =
// 1e-5 unless given); NaN matches NaN, an infinity matches the same infinity, and rtol = atol = 0
// asks for equality. Integer
// and bool elements are read exactly (no rounding through double). The result is a gtest
// AssertionResult, so the failure points at the caller's line; its message names the shape or
// dtype that differs, or the first differing element by its index, how many differ and the
// largest difference.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "relax/runtime/ndarray.h"

namespace relax::test {

namespace tensor_compare_detail {

/// One element: integers (and bools) exactly, floats as doubles.
struct Element {
  bool is_int = false;
  int64_t i = 0;  // int and bool; uint64 values above INT64_MAX wrap (compared exactly anyway)
  double f = 0;
  double as_double() const { return is_int ? double(i) : f; }
};

inline double half_to_double(uint16_t h) {
  int exp = (h >> 10) & 0x1F;
  int mant = h & 0x3FF;
  double v = exp == 0    ? std::ldexp(double(mant), -24)
             : exp == 31 ? (mant ? NAN : INFINITY)
                         : std::ldexp(double(mant | 0x400), exp - 25);
  return (h & 0x8000) ? -v : v;
}

inline double bfloat16_to_double(uint16_t b) {
  uint32_t bits = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

/// Whether `t` is an element type this file reads.
inline bool readable(DataType t) {
  if (t.lanes != 1) return false;
  if (t.code == DataType::kFloat) return t.bits == 16 || t.bits == 32 || t.bits == 64;
  if (t.code == DataType::kBFloat) return t.bits == 16;
  if (t.is_bool()) return true;
  if (t.code == DataType::kInt || t.code == DataType::kUInt)
    return t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64;
  return false;
}

/// Element `k` of a compact CPU array of a readable dtype.
inline Element element_at(const runtime::NDArray& a, int64_t k) {
  const char* p = static_cast<const char*>(a.data()) + size_t(k) * size_t(a.dtype().bytes());
  auto load = [p](auto v) {
    std::memcpy(&v, p, sizeof v);
    return v;
  };
  DataType t = a.dtype();
  Element e;
  if (t.code == DataType::kFloat || t.code == DataType::kBFloat) {
    if (t.code == DataType::kBFloat)
      e.f = bfloat16_to_double(load(uint16_t()));
    else if (t.bits == 16)
      e.f = half_to_double(load(uint16_t()));
    else if (t.bits == 32)
      e.f = load(float());
    else
      e.f = load(double());
    return e;
  }
  e.is_int = true;
  bool is_signed = t.code == DataType::kInt;
  switch (t.is_bool() ? 8 : t.bits) {
    case 8:
      e.i = is_signed ? int64_t(load(int8_t())) : int64_t(load(uint8_t()));
      break;
    case 16:
      e.i = is_signed ? int64_t(load(int16_t())) : int64_t(load(uint16_t()));
      break;
    case 32:
      e.i = is_signed ? int64_t(load(int32_t())) : int64_t(load(uint32_t()));
      break;
    default:
      e.i = load(int64_t());
      break;
  }
  return e;
}

/// |got - want|, exact for two integers.
inline double difference(const Element& g, const Element& w) {
  if (g.is_int && w.is_int) return std::fabs(double(__int128(g.i) - __int128(w.i)));
  return std::fabs(g.as_double() - w.as_double());
}

inline bool close(const Element& g, const Element& w, double rtol, double atol) {
  if (g.is_int && w.is_int)
    return g.i == w.i || difference(g, w) <= atol + rtol * std::fabs(w.as_double());
  double gd = g.as_double(), wd = w.as_double();
  if (std::isnan(gd) || std::isnan(wd)) return std::isnan(gd) && std::isnan(wd);
  if (std::isinf(gd) || std::isinf(wd)) return gd == wd;
  return gd == wd || difference(g, w) <= atol + rtol * std::fabs(wd);
}

/// A number for messages: up to 9 significant digits (float32's round trip).
inline std::string show(double v) {
  std::ostringstream os;
  os.precision(9);
  os << v;
  return os.str();
}

inline std::string show(const Element& e) { return e.is_int ? std::to_string(e.i) : show(e.f); }

inline std::string shape_str(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t k = 0; k < shape.size(); ++k) s += (k ? ", " : "") + std::to_string(shape[k]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

/// The multi-index of row-major flat index `flat` in `shape`, as "[i, j]".
inline std::string index_str(int64_t flat, const std::vector<int64_t>& shape) {
  std::vector<int64_t> idx(shape.size());
  for (size_t k = shape.size(); k-- > 0;) {
    idx[k] = shape[k] == 0 ? 0 : flat % shape[k];
    flat = shape[k] == 0 ? 0 : flat / shape[k];
  }
  std::string s = "[";
  for (size_t k = 0; k < idx.size(); ++k) s += (k ? ", " : "") + std::to_string(idx[k]);
  return s + "]";
}

/// Why `a` cannot be read here, or "".
inline std::string unreadable(const runtime::NDArray& a, const char* which) {
  if (!a.defined()) return std::string(which) + " is an undefined NDArray";
  if (a.device().device_type != kDLCPU)
    return std::string(which) + " is not on the CPU (copy it to the host first)";
  if (!a.is_contiguous()) return std::string(which) + " is not compact";
  if (!readable(a.dtype()))
    return std::string(which) +
           " has an element type the comparison does not read: " + a.dtype().to_string();
  return "";
}

/// The element loop shared by both entry points.
template <class Want>
::testing::AssertionResult compare(const runtime::NDArray& got, const std::vector<int64_t>& shape,
                                   Want want_at, double rtol, double atol) {
  int64_t n = got.numel(), bad = 0, first = -1, worst = -1;
  double worst_diff = -1;
  for (int64_t k = 0; k < n; ++k) {
    Element g = element_at(got, k), w = want_at(k);
    if (close(g, w, rtol, atol)) continue;
    if (bad++ == 0) first = k;
    double d = difference(g, w);
    if (std::isnan(d)) d = INFINITY;
    if (d > worst_diff) {
      worst_diff = d;
      worst = k;
    }
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  auto failure = ::testing::AssertionFailure();
  failure << bad << " of " << n << " elements differ (rtol " << show(rtol) << ", atol "
          << show(atol) << "); the first at " << index_str(first, shape) << ": got "
          << show(element_at(got, first)) << ", want " << show(want_at(first));
  if (worst != first)
    failure << "; the largest difference at " << index_str(worst, shape) << ": got "
            << show(element_at(got, worst)) << ", want " << show(want_at(worst));
  return failure;
}

}  // namespace tensor_compare_detail

/// `got` has the shape and dtype of `want` and every element is close to want's (see the top of
/// this file). Both must be compact CPU arrays.
inline ::testing::AssertionResult tensors_close(const runtime::NDArray& got,
                                                const runtime::NDArray& want, double rtol = 1e-5,
                                                double atol = 1e-5) {
  namespace d = tensor_compare_detail;
  for (auto [a, which] : {std::pair{&got, "got"}, std::pair{&want, "want"}})
    if (std::string why = d::unreadable(*a, which); !why.empty())
      return ::testing::AssertionFailure() << why;
  if (got.shape() != want.shape())
    return ::testing::AssertionFailure()
           << "shape " << d::shape_str(got.shape()) << ", want " << d::shape_str(want.shape());
  if (got.dtype() != want.dtype())
    return ::testing::AssertionFailure()
           << "dtype " << got.dtype().to_string() << ", want " << want.dtype().to_string();
  return d::compare(
      got, got.shape(), [&](int64_t k) { return d::element_at(want, k); }, rtol, atol);
}

/// `got` has shape `shape` and every element is close to the row-major reference `want` (one
/// double per element; any element type, so a float16 result can be checked against exact
/// values). Integer elements are compared through double here.
inline ::testing::AssertionResult tensor_close_to(const runtime::NDArray& got,
                                                  const std::vector<int64_t>& shape,
                                                  const std::vector<double>& want,
                                                  double rtol = 1e-5, double atol = 1e-5) {
  namespace d = tensor_compare_detail;
  if (std::string why = d::unreadable(got, "got"); !why.empty())
    return ::testing::AssertionFailure() << why;
  if (got.shape() != shape)
    return ::testing::AssertionFailure()
           << "shape " << d::shape_str(got.shape()) << ", want " << d::shape_str(shape);
  if (size_t(got.numel()) != want.size())
    return ::testing::AssertionFailure()
           << "the reference holds " << want.size() << " values for " << got.numel() << " elements";
  return d::compare(
      got, shape,
      [&](int64_t k) {
        d::Element e;
        e.f = want[size_t(k)];
        return e;
      },
      rtol, atol);
}

/// The same with reference values of another arithmetic type (float results of an ONNX test,
/// integer indices).
template <class T, class = std::enable_if_t<std::is_arithmetic_v<T> && !std::is_same_v<T, double>>>
::testing::AssertionResult tensor_close_to(const runtime::NDArray& got,
                                           const std::vector<int64_t>& shape,
                                           const std::vector<T>& want, double rtol = 1e-5,
                                           double atol = 1e-5) {
  return tensor_close_to(got, shape, std::vector<double>(want.begin(), want.end()), rtol, atol);
}

}  // namespace relax::test
