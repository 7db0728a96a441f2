// Layout rewrites in compact form: reading their maps and folding adjacent pairs
// (rewrite_util.h).
#include "rewrite_util.h"

#include "relax/op/op.h"
#include "relax/tir/attrs.h"

namespace relax::layout {

using arith::IndexMap;

std::string op_name(const Call& call) {
  auto* o = call.op.as<Op>();
  return o == nullptr ? std::string() : o->name;
}

std::optional<std::vector<PrimExpr>> shape_of(const Expr& e) {
  auto* t = get_struct_info(e).as<TensorStructInfo>();
  if (t == nullptr || !t->shape) return std::nullopt;
  return *t->shape;
}

std::optional<IndexMap> rewrite_map(const Call& call) {
  std::string name = op_name(call);
  if (call.args.empty()) return std::nullopt;
  auto shape = shape_of(call.args[0]);
  if (!shape) return std::nullopt;
  size_t ndim = shape->size();
  if (name == "relax.permute_dims") {
    IndexMap m;
    for (size_t k = 0; k < ndim; ++k) m.vars.push_back(tir::var("i" + std::to_string(k)));
    std::vector<int64_t> axes = get_opt_ints(call.attrs, "axes").value_or(std::vector<int64_t>{});
    if (axes.empty())
      for (size_t k = ndim; k-- > 0;) axes.push_back(int64_t(k));
    for (int64_t a : axes) m.results.push_back(m.vars[size_t(a < 0 ? a + int64_t(ndim) : a)]);
    return m;
  }
  if (name != "relax.layout_transform") return std::nullopt;
  IndexMap m;
  for (const PrimExpr& v : get_prim_exprs(call.attrs, "index_vars")) {
    auto* var = v.as<tir::Var>();
    if (var == nullptr) return std::nullopt;
    m.vars.push_back(Ref<tir::Var>(var));
  }
  m.results = get_prim_exprs(call.attrs, "index_map");
  bool padded = false;
  if (!arith::inverse_map(m, *shape, &padded) || padded) return std::nullopt;
  return m;
}

IndexMap fresh_copy(const IndexMap& map) {
  IndexMap out;
  std::vector<PrimExpr> fresh;
  for (const auto& v : map.vars) {
    out.vars.push_back(tir::var(v->name));
    fresh.push_back(out.vars.back());
  }
  out.results = map.apply(fresh);
  return out;
}

Expr apply_map(const Expr& x, const IndexMap& map) {
  if (auto perm = arith::as_permutation(map)) return op::permute_dims(x, *perm);
  IndexMap m = fresh_copy(map);
  return op::layout_transform(x, m.vars, m.results);
}

namespace {

std::optional<std::vector<int64_t>> const_dims(const Expr& e) {
  auto s = shape_of(e);
  if (!s) return std::nullopt;
  std::vector<int64_t> out;
  for (const PrimExpr& d : *s) {
    const int64_t* c = tir::as_const_int(d);
    if (!c) return std::nullopt;
    out.push_back(*c);
  }
  return out;
}

/// crop(pad(x)): the crop keeps [s, s + n) of the padded axis, whose data is [b, b + d).
std::optional<Expr> crop_after_pad(const Call& crop, const Call& pad) {
  const Expr& x = pad.args[0];
  auto dims = const_dims(x);
  if (!dims) return std::nullopt;
  std::vector<int64_t> pw = get_ints(pad.attrs, "pad_width", {});
  std::vector<int64_t> start = get_ints(crop.attrs, "start_indices", {});
  std::vector<int64_t> size = get_ints(crop.attrs, "slice_sizes", {});
  size_t nd = dims->size();
  if (pw.size() != 2 * nd || start.size() != nd || size.size() != nd) return std::nullopt;
  // Each axis either keeps all the data (a smaller pad remains) or only data (a crop of x).
  bool all_keep = true, all_inside = true;
  std::vector<int64_t> new_pw(2 * nd), new_start(nd);
  for (size_t k = 0; k < nd; ++k) {
    int64_t b = pw[2 * k], d = (*dims)[k], s = start[k], e = start[k] + size[k];
    bool keep = s <= b && e >= b + d;
    bool inside = s >= b && e <= b + d;
    all_keep &= keep;
    all_inside &= inside;
    new_pw[2 * k] = b - s;
    new_pw[2 * k + 1] = e - (b + d);
    new_start[k] = s - b;
  }
  bool zero = true;
  for (int64_t p : new_pw) zero &= p == 0;
  if (all_keep && zero) return x;
  if (all_keep) return op::rx_pad(x, new_pw, get_float(pad.attrs, "pad_value", 0));
  if (all_inside) return op::crop(x, new_start, size);
  return std::nullopt;
}

/// pad(crop(x)): only the exact restore of the cropped positions, with the promised value.
std::optional<Expr> pad_after_crop(const Call& pad, const Call& crop) {
  const Expr& x = crop.args[0];
  const AttrValue* promised = crop.attrs.defined() ? crop.attrs->find("cropped_value") : nullptr;
  if (promised == nullptr || !std::holds_alternative<double>(*promised)) return std::nullopt;
  if (std::get<double>(*promised) != get_float(pad.attrs, "pad_value", 0)) return std::nullopt;
  auto dims = const_dims(x);
  if (!dims) return std::nullopt;
  std::vector<int64_t> pw = get_ints(pad.attrs, "pad_width", {});
  std::vector<int64_t> start = get_ints(crop.attrs, "start_indices", {});
  std::vector<int64_t> size = get_ints(crop.attrs, "slice_sizes", {});
  size_t nd = dims->size();
  if (pw.size() != 2 * nd || start.size() != nd || size.size() != nd) return std::nullopt;
  for (size_t k = 0; k < nd; ++k)
    if (pw[2 * k] != start[k] || pw[2 * k + 1] != (*dims)[k] - start[k] - size[k])
      return std::nullopt;
  return x;
}

}  // namespace

std::optional<Expr> fold_pair(const Call& outer, const Call& inner) {
  std::string o = op_name(outer), i = op_name(inner);
  if (o == "relax.crop" && i == "relax.pad") return crop_after_pad(outer, inner);
  if (o == "relax.pad" && i == "relax.crop") return pad_after_crop(outer, inner);
  auto mi = rewrite_map(inner);
  auto mo = rewrite_map(outer);
  if (!mi || !mo) return std::nullopt;
  auto shape = shape_of(inner.args[0]);
  if (!shape) return std::nullopt;
  IndexMap both = arith::compose_maps(*mi, *mo, *shape);
  if (arith::is_identity_map(both, *shape)) return inner.args[0];
  bool padded = false;
  if (!arith::inverse_map(both, *shape, &padded) || padded) return std::nullopt;
  return apply_map(inner.args[0], both);
}

}  // namespace relax::layout
