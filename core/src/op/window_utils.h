// Helpers shared by the sliding-window ops (convolution, transposed convolution, pooling) of
// any spatial rank (internal to core/src/op): layout parsing and window attributes.
//
// A layout is a string of distinct letters naming a tensor's axes: two non-spatial letters
// (N and C for data, O and I for kernels) and the spatial letters of the rank (W; H, W; or
// D, H, W). Any permutation is accepted ("NCHW", "NHWC", "HWIO", "OHWI", ...), which covers
// every layout TVM names for these ops. Window attributes take one value for every spatial
// dim or one value per dim; padding also takes 2 * dims values (all befores, then all
// afters: TVM's (top, left, bottom, right) for 2-D).
#pragma once

#include <string>
#include <vector>

#include "relax/ir/op.h"
#include "relax/tir/expr.h"

namespace relax::op_detail {

/// A parsed layout: the positions of the two non-spatial letters and of the spatial letters
/// (in D, H, W order).
struct AxisLayout {
  std::string name;
  int first = 0;
  int second = 1;
  std::vector<int> spatial;
  int rank() const { return int(spatial.size()) + 2; }
};

/// The spatial letters of a `dims`-d window: "W", "HW" or "DHW".
std::string spatial_letters(int dims);

/// Parses attribute `key` of `call` (default `dflt`) as a permutation of `first`, `second`
/// and the spatial letters of `dims`; a relax::Error naming the op, the attribute and the
/// letters expected otherwise.
AxisLayout layout_attr(const Call& call, const std::string& key, const std::string& dflt,
                       char first, char second, int dims);

/// The largest stride, dilation or padding a window takes: sums and products of two of them
/// (pad_before + pad_after, dilation * (kernel - 1)) stay far from int64 overflow.
inline constexpr int64_t kMaxWindowValue = 2147483647;

/// An integer-list attribute with 1 or `dims` values, broadcast to `dims`; each at least
/// `min_value` and at most kMaxWindowValue.
std::vector<int64_t> dims_attr(const Call& call, const std::string& key, int dims, int64_t dflt,
                               int64_t min_value);

/// Window geometry shared by convolution and pooling.
struct Window {
  std::vector<int64_t> strides, dilation, pad_before, pad_after;
};

/// strides, dilation (positive) and padding (non-negative; 1, dims or 2 * dims values).
Window window_attrs(const Call& call, int dims);

/// The output extent of a sliding window over `in` (padded by `pad` in all).
tir::PrimExpr window_out_extent(const tir::PrimExpr& in, int64_t pad, const tir::PrimExpr& k,
                                int64_t stride, int64_t dil, bool ceil_mode);

/// 0 <= p < extent.
tir::PrimExpr in_range(const tir::PrimExpr& p, const tir::PrimExpr& extent);

/// The index of a tensor with layout `l` holding `first`, `second` and `spatial` at their
/// positions.
std::vector<tir::PrimExpr> layout_index(const AxisLayout& l, const tir::PrimExpr& first,
                                        const tir::PrimExpr& second,
                                        const std::vector<tir::PrimExpr>& spatial);

}  // namespace relax::op_detail
