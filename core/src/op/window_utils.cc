#include "window_utils.h"

#include <algorithm>

#include "infer_utils.h"
#include "relax/support/diagnostic.h"

namespace relax::op_detail {

std::string spatial_letters(int dims) {
  RX_ICHECK(dims >= 1 && dims <= 3) << "spatial_letters: " << dims << " spatial dims";
  return std::string("DHW").substr(size_t(3 - dims));
}

AxisLayout layout_attr(const Call& call, const std::string& key, const std::string& dflt,
                       char first, char second, int dims) {
  AxisLayout l;
  l.name = get_string(call.attrs, key, dflt);
  std::string letters = std::string{first, second} + spatial_letters(dims);
  std::string sorted_name = l.name, sorted_letters = letters;
  std::sort(sorted_name.begin(), sorted_name.end());
  std::sort(sorted_letters.begin(), sorted_letters.end());
  if (sorted_name != sorted_letters) {
    std::string list;
    for (char c : letters) list += (list.empty() ? "" : ", ") + std::string(1, c);
    RX_THROW() << op_name(call) << ": " << key << " '" << l.name
               << "' is not supported; expected a permutation of " << list << " (e.g. " << letters
               << ")";
  }
  l.first = int(l.name.find(first));
  l.second = int(l.name.find(second));
  for (char c : spatial_letters(dims)) l.spatial.push_back(int(l.name.find(c)));
  return l;
}

namespace {

/// `key`'s value x is in [min_value, kMaxWindowValue].
void check_window_value(const Call& call, const std::string& key, int64_t x, int64_t min_value) {
  RX_CHECK(x >= min_value) << op_name(call) << ": '" << key << "' values must be "
                           << (min_value > 0 ? "positive" : "non-negative") << ", got " << x;
  RX_CHECK(x <= kMaxWindowValue) << op_name(call) << ": '" << key << "' values must be at most "
                                 << kMaxWindowValue << ", got " << x;
}

}  // namespace

std::vector<int64_t> dims_attr(const Call& call, const std::string& key, int dims, int64_t dflt,
                               int64_t min_value) {
  std::vector<int64_t> v = get_ints(call.attrs, key, {dflt});
  RX_CHECK(v.size() == 1 || v.size() == size_t(dims))
      << op_name(call) << ": '" << key << "' takes "
      << (dims == 1 ? std::string("1 value") : "1 or " + std::to_string(dims) + " values")
      << ", got " << v.size();
  if (v.size() == 1) v.assign(size_t(dims), v[0]);
  for (int64_t x : v) check_window_value(call, key, x, min_value);
  return v;
}

Window window_attrs(const Call& call, int dims) {
  Window w;
  w.strides = dims_attr(call, "strides", dims, 1, 1);
  w.dilation = dims_attr(call, "dilation", dims, 1, 1);
  std::vector<int64_t> p = get_ints(call.attrs, "padding", {0});
  size_t d = size_t(dims);
  RX_CHECK(p.size() == 1 || p.size() == d || p.size() == 2 * d)
      << op_name(call) << ": 'padding' takes "
      << (d == 1 ? std::string("1") : "1, " + std::to_string(d)) << " or " << 2 * d
      << " values, got " << p.size();
  for (int64_t x : p) check_window_value(call, "padding", x, 0);
  for (size_t k = 0; k < d; ++k) {
    if (p.size() == 1) {
      w.pad_before.push_back(p[0]);
      w.pad_after.push_back(p[0]);
    } else if (p.size() == d && d != 1) {
      w.pad_before.push_back(p[k]);
      w.pad_after.push_back(p[k]);
    } else {
      w.pad_before.push_back(p[k]);
      w.pad_after.push_back(p[k + d]);
    }
  }
  return w;
}

tir::PrimExpr window_out_extent(const tir::PrimExpr& in, int64_t pad, const tir::PrimExpr& k,
                                int64_t stride, int64_t dil, bool ceil_mode) {
  tir::PrimExpr span = in + pad - (dil * (k - 1) + 1);
  if (ceil_mode) span = span + (stride - 1);
  return tir::floordiv(span, stride) + 1;
}

tir::PrimExpr in_range(const tir::PrimExpr& p, const tir::PrimExpr& extent) {
  return tir::logical_and(tir::ge(p, tir::int_imm(0)), tir::lt(p, extent));
}

std::vector<tir::PrimExpr> layout_index(const AxisLayout& l, const tir::PrimExpr& first,
                                        const tir::PrimExpr& second,
                                        const std::vector<tir::PrimExpr>& spatial) {
  std::vector<tir::PrimExpr> idx(size_t(l.rank()));
  idx[size_t(l.first)] = first;
  idx[size_t(l.second)] = second;
  for (size_t k = 0; k < spatial.size(); ++k) idx[size_t(l.spatial[k])] = spatial[k];
  return idx;
}

}  // namespace relax::op_detail
