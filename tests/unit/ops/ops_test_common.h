// Helpers that several op tests share beyond op_test_util.h: the symbolic batch dimension,
// parameters whose leading dim may be symbolic, and row-major index arithmetic on Host data.
#pragma once

#include <string>
#include <vector>

#include "op_test_util.h"

namespace relax::ops_test {

/// The symbolic batch dimension that the symbolic-shape variants put at dim 0.
inline Ref<tir::Var> n = tir::var("n");

/// `s` as a shape whose dim 0 is `n`.
inline std::vector<PrimExpr> sym0(std::vector<int64_t> s) {
  std::vector<PrimExpr> out = const_shape(s);
  out[0] = n;
  return out;
}

/// A parameter of shape `shape`, with dim 0 replaced by `n` when `symbolic`.
inline Ref<Var> param(OpRunner& r, const std::string& name, std::vector<int64_t> shape,
                      bool symbolic, DataType t = kF32) {
  std::vector<PrimExpr> s = const_shape(shape);
  if (symbolic) s[0] = n;
  return r.param(name, s, t);
}

/// The row-major flat offset of `idx` in `shape`.
inline int64_t offset(const std::vector<int64_t>& idx, const std::vector<int64_t>& shape) {
  int64_t off = 0;
  for (size_t k = 0; k < shape.size(); ++k) off = off * shape[k] + idx[k];
  return off;
}

/// `h`, whose axes are named by the letters of `from`, with its axes reordered to `to`.
inline Host permute(const Host& h, const std::string& from, const std::string& to) {
  Host out;
  for (char c : to) out.shape.push_back(h.shape[from.find(c)]);
  out.data.resize(h.size());
  for (int64_t f = 0; f < int64_t(h.size()); ++f) {
    std::vector<int64_t> idx = unravel(f, out.shape), src(idx.size());
    for (size_t k = 0; k < to.size(); ++k) src[from.find(to[k])] = idx[k];
    out.data[size_t(f)] = h[size_t(offset(src, h.shape))];
  }
  return out;
}

}  // namespace relax::ops_test
