// Relay converters for tensor manipulation: reshape (with Relay's special values 0, -1, -2,
// -3, -4) and reverse_reshape, transpose, expand_dims, squeeze, concatenate, stack, split,
// strided_slice, take, broadcasts, tile, repeat, reverse, and layout_transform (permutations
// and packed layouts such as NCHW -> NCHW4c).
#include "convert.h"
#include "relax/op/op.h"

namespace relax::relay_frontend {

namespace {

/// Relay's newshape against `in` (reshape's special values; see src/relay/op/tensor/transform.cc).
std::vector<PrimExpr> relay_newshape(OpCall& c, const std::vector<PrimExpr>& in, const std::vector<int64_t>& ns) {
  std::vector<PrimExpr> out;
  size_t src = 0;
  auto in_dim = [&](size_t i) -> PrimExpr {
    if (i >= in.size()) c.fail("newshape consumes more input dims than the input's " + std::to_string(in.size()));
    return in[i];
  };
  for (size_t k = 0; k < ns.size(); ++k) {
    int64_t v = ns[k];
    if (v > 0) {
      out.push_back(tir::int_imm(v));
      ++src;
    } else if (v == 0) {
      out.push_back(in_dim(src++));
    } else if (v == -1) {
      out.push_back(tir::int_imm(-1));
      ++src;
    } else if (v == -2) {
      for (; src < in.size(); ++src) out.push_back(in[src]);
    } else if (v == -3) {
      out.push_back(in_dim(src) * in_dim(src + 1));
      src += 2;
    } else if (v == -4) {
      if (k + 2 >= ns.size()) c.fail("newshape value -4 must be followed by two values");
      PrimExpr d = in_dim(src++);
      int64_t a = ns[k + 1], b = ns[k + 2];
      if (a == -1 && b == -1) c.fail("newshape -4 with both parts -1");
      out.push_back(a == -1 ? floordiv(d, b) : tir::int_imm(a));
      out.push_back(b == -1 ? floordiv(d, a) : tir::int_imm(b));
      k += 2;
    } else {
      c.fail("newshape value " + std::to_string(v) + " is not supported (expected > 0, 0, -1, -2, -3 or -4)");
    }
  }
  return out;
}

Expr reshape(OpCall& c, bool reverse) {
  std::optional<std::vector<int64_t>> ns = c.attr_ints("newshape");
  if (!ns) c.fail("needs the attribute newshape");
  std::vector<PrimExpr> in = c.shape(0, "reshape");
  if (!reverse) return op::reshape(c.arg(0), relay_newshape(c, in, *ns));
  if (std::find(ns->begin(), ns->end(), -4) != ns->end()) c.fail("newshape value -4 is not supported in reverse_reshape");
  std::reverse(in.begin(), in.end());
  std::vector<int64_t> rns(ns->rbegin(), ns->rend());
  std::vector<PrimExpr> out = relay_newshape(c, in, rns);
  std::reverse(out.begin(), out.end());
  return op::reshape(c.arg(0), out);
}

Expr strided_slice(OpCall& c) {
  int64_t nd = c.ndim(0);
  std::optional<std::vector<int64_t>> begin = c.attr_ints("begin"), end = c.attr_ints("end");
  std::optional<std::vector<int64_t>> strides = c.attr_ints("strides"), axes = c.attr_ints("axes");
  if (!begin || !end) c.fail("needs the attributes begin and end");
  std::vector<int64_t> ax;
  if (axes) {
    for (int64_t a : *axes) ax.push_back(c.axis(a, nd));
  } else {
    for (size_t k = 0; k < begin->size(); ++k) ax.push_back(int64_t(k));
  }
  if (begin->size() != ax.size()) c.fail("begin has " + std::to_string(begin->size()) + " values for " + std::to_string(ax.size()) + " axes");
  std::vector<int64_t> st(ax.size(), 1);
  if (strides) {
    for (size_t k = 0; k < ax.size(); ++k) st[k] = k < strides->size() ? (*strides)[k] : strides->size() == 1 ? (*strides)[0] : 1;
  }
  bool size_mode = c.attr_str("slice_mode", "end") == "size";
  constexpr int64_t kMax = int64_t(1) << 62;
  std::vector<int64_t> en(ax.size());
  for (size_t k = 0; k < ax.size(); ++k) {
    bool given = k < end->size();
    int64_t e = given ? (*end)[k] : -1;
    if (size_mode) {
      en[k] = e < 0 ? kMax : (*begin)[k] + e;
      st[k] = 1;
    } else {
      en[k] = given ? e : (st[k] < 0 ? -kMax : kMax);
    }
  }
  return op::strided_slice(c.arg(0), ax, *begin, en, st);
}

/// layout_transform between plain and packed layouts ("NCHW" -> "NCHW4c", "NHWC" -> "NCHW").
Expr layout_transform(OpCall& c) {
  std::string src = c.attr_str("src_layout", ""), dst = c.attr_str("dst_layout", "");
  auto factor_of = [](const std::string& layout, char lower) -> int64_t {
    size_t p = layout.find(lower);
    if (p == std::string::npos) return 0;
    size_t s = p;
    while (s > 0 && std::isdigit(static_cast<unsigned char>(layout[s - 1]))) --s;
    return s == p || p - s > 9 ? -1 : std::strtoll(layout.substr(s, p - s).c_str(), nullptr, 10);
  };
  auto letters = [](const std::string& layout) {
    std::string s;
    for (char ch : layout) {
      if (std::isalpha(static_cast<unsigned char>(ch))) s += ch;
    }
    return s;
  };
  std::string sl = letters(src), dl = letters(dst);
  if (int64_t(sl.size()) != c.ndim(0)) c.fail("src_layout '" + src + "' does not match the input's rank " + std::to_string(c.ndim(0)));
  for (char ch : sl) {
    if (std::islower(static_cast<unsigned char>(ch))) c.fail("packed source layouts ('" + src + "') are not supported");
  }
  bool plain = std::all_of(dl.begin(), dl.end(), [](char ch) { return std::isupper(static_cast<unsigned char>(ch)); });
  if (plain) {
    if (dl.size() != sl.size()) c.fail("dst_layout '" + dst + "' has other axes than src_layout '" + src + "'");
    std::vector<int64_t> perm;
    for (char ch : dl) {
      size_t p = sl.find(ch);
      if (p == std::string::npos) c.fail("axis '" + std::string(1, ch) + "' of dst_layout is not in src_layout '" + src + "'");
      perm.push_back(int64_t(p));
    }
    return op::permute_dims(c.arg(0), perm);
  }
  std::vector<Ref<tir::Var>> vars;
  for (char ch : sl) vars.push_back(tir::var(std::string(1, char(std::tolower(ch)))));
  std::vector<PrimExpr> map;
  for (char ch : dl) {
    char upper = char(std::toupper(ch));
    size_t p = sl.find(upper);
    if (p == std::string::npos) c.fail("axis '" + std::string(1, ch) + "' of dst_layout is not in src_layout '" + src + "'");
    int64_t f = factor_of(dst, char(std::tolower(ch)));
    if (f < 0) c.fail("the packed axis of dst_layout '" + dst + "' has no factor");
    if (std::islower(static_cast<unsigned char>(ch))) map.push_back(floormod(PrimExpr(vars[p]), tir::int_imm(f)));
    else map.push_back(f > 0 ? floordiv(PrimExpr(vars[p]), f) : PrimExpr(vars[p]));
  }
  return op::layout_transform(c.arg(0), vars, map);
}

}  // namespace

void register_tensor_ops(OpTable& t) {
  t["reshape"] = [](OpCall& c) { return reshape(c, false); };
  t["reverse_reshape"] = [](OpCall& c) { return reshape(c, true); };
  t["contrib_reverse_reshape"] = t["reverse_reshape"];
  t["reshape_like"] = [](OpCall& c) { return op::reshape(c.arg(0), c.shape(1, "reshape_like")); };
  t["transpose"] = [](OpCall& c) {
    std::optional<std::vector<int64_t>> axes = c.attr_ints("axes");
    if (axes) {
      for (int64_t& a : *axes) a = c.axis(a, c.ndim(0));
    }
    return op::permute_dims(c.arg(0), axes);
  };
  t["expand_dims"] = [](OpCall& c) {
    int64_t nd = c.ndim(0), n = c.attr_int("num_newaxis", 1);
    int64_t axis = c.axis(c.attr_int("axis", 0), nd + 1);
    if (n == 0) return c.arg(0);
    std::vector<int64_t> axes;
    for (int64_t k = 0; k < n; ++k) axes.push_back(axis + k);
    return op::expand_dims(c.arg(0), axes);
  };
  t["squeeze"] = [](OpCall& c) {
    std::optional<std::vector<int64_t>> axes = c.attr_ints("axis");
    if (axes) {
      for (int64_t& a : *axes) a = c.axis(a, c.ndim(0));
    }
    return op::squeeze(c.arg(0), axes);
  };
  t["concatenate"] = [](OpCall& c) {
    std::vector<Expr> f = c.tuple_fields(0);
    if (f.empty()) c.fail("needs at least one tensor");
    return op::concat(f, c.attr_int("axis", 0));
  };
  t["stack"] = [](OpCall& c) { return op::stack(c.tuple_fields(0), c.attr_int("axis", 0)); };
  t["split"] = [](OpCall& c) {
    int64_t axis = c.axis(c.attr_int("axis", 0), c.ndim(0));
    std::optional<std::vector<int64_t>> v = c.attr_ints("indices_or_sections");
    if (!v) c.fail("needs the attribute indices_or_sections");
    // A single int is a number of sections; a list (even of one) holds split indices.
    bool sections = !c.attr_is_list("indices_or_sections");
    return sections ? op::split(c.arg(0), (*v)[0], axis) : op::split(c.arg(0), *v, axis);
  };
  t["strided_slice"] = strided_slice;
  t["take"] = [](OpCall& c) {
    if (c.attr_int("batch_dims", 0) != 0) c.fail("batch_dims other than 0 is not supported");
    std::optional<int64_t> axis;
    if (c.has("axis")) axis = c.axis(c.attr_int("axis", 0), c.ndim(0));
    std::string mode = c.attr_str("mode", "clip");
    return op::take(c.arg(0), c.arg(1), axis, mode == "fast" ? "fast" : mode);
  };
  t["broadcast_to"] = [](OpCall& c) {
    std::optional<std::vector<int64_t>> s = c.attr_ints("shape");
    if (!s) c.fail("needs the attribute shape");
    return op::broadcast_to(c.arg(0), const_shape(*s));
  };
  t["broadcast_to_like"] = [](OpCall& c) { return op::broadcast_to(c.arg(0), c.shape(1, "broadcast_to_like")); };
  t["tile"] = [](OpCall& c) {
    std::optional<std::vector<int64_t>> r = c.attr_ints("reps");
    if (!r) c.fail("needs the attribute reps");
    return op::tile(c.arg(0), *r);
  };
  t["repeat"] = [](OpCall& c) {
    std::optional<int64_t> axis;  // absent: the flattened tensor
    if (c.has("axis")) axis = c.axis(c.attr_int("axis", 0), c.ndim(0));
    return op::repeat(c.arg(0), c.attr_int("repeats", 1), axis);
  };
  t["reverse"] = [](OpCall& c) { return op::flip(c.arg(0), c.axis(c.attr_int("axis", 0), c.ndim(0))); };
  t["layout_transform"] = layout_transform;
}

}  // namespace relax::relay_frontend
