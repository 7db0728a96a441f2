// Permutations of tensor axes, shared by the layout passes.
//
// A layout change is a permutation `perm` of a tensor's axes, read as permute_dims does:
// axis i of the converted tensor is axis perm[i] of the original. NCHW -> NHWC is [0, 2, 3, 1].
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "relax/ir/expr.h"
#include "relax/ir/op.h"
#include "relax/tir/attrs.h"

namespace relax::layout {

using Perm = std::vector<int64_t>;

/// True when `p` keeps every axis in place (an empty permutation is the identity too).
inline bool is_identity(const Perm& p) {
  for (size_t i = 0; i < p.size(); ++i)
    if (p[i] != int64_t(i)) return false;
  return true;
}

/// The permutation undoing `p`.
inline Perm inverse(const Perm& p) {
  Perm inv(p.size());
  for (size_t i = 0; i < p.size(); ++i) inv[size_t(p[i])] = int64_t(i);
  return inv;
}

/// The permutation taking a tensor in layout `from` to layout `to` (the same letters in another
/// order): result[i] is the position of to[i] in from.
inline Perm layout_perm(const std::string& from, const std::string& to) {
  Perm p;
  for (char c : to) p.push_back(int64_t(from.find(c)));
  return p;
}

/// `layout` with its letters permuted by `p`: letter i of the result is layout[p[i]].
inline std::string permute_layout(const std::string& layout, const Perm& p) {
  std::string out;
  for (int64_t a : p) out += layout[size_t(a)];
  return out;
}

/// The `layout` attribute of a call of an op (pooling, resize2d), the op's default where the call
/// leaves it out; "" when the op has none.
inline std::string layout_attr(const Call& call) {
  std::string dflt;
  if (auto* op = call.op.as<Op>())
    for (const AttrSpec& a : op->info->attrs)
      if (auto* d = std::get_if<std::string>(&a.default_value); d && a.name == "layout") dflt = *d;
  return get_string(call.attrs, "layout", dflt);
}

/// The rank of `e`'s tensor struct info; -1 when it is not a tensor or the rank is unknown.
inline int tensor_ndim(const Expr& e) {
  auto* t = get_struct_info(e).as<TensorStructInfo>();
  return t == nullptr ? -1 : t->ndim;
}

}  // namespace relax::layout
