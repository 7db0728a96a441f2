// Scans and sorting: cumsum, cumprod, sort, argsort, topk.
//
// The kernels are plain compute-DSL reductions, chosen to be obviously correct rather than fast:
//  - cumsum/cumprod: out[.., i, ..] reduces x[.., r, ..] over r <= i (r < i when exclusive), a
//    conditional reduction over the whole axis: O(n^2) per row.
//  - sort/argsort/topk rank each element: rank(i) = #{j : x[j] before x[i]}, where "before" is
//    "<" (">" when descending) with ties broken by position, so ranks are a permutation and the
//    sort is stable. The element of rank p is then found by a max reduction over j with the
//    condition rank(j) == p, and the sorted values are read through it. O(n^2) per row. NaNs
//    compare unordered, so inputs holding NaN are not supported (their rows may read garbage).
// A faster legalisation (bitonic sort, a scan by doubling) can be swapped in behind the same
// registry entries.
#include "infer_utils.h"
#include "legalize_utils.h"
#include "relax/op/op.h"
#include "relax/support/diagnostic.h"
#include "tensor_ops.h"

namespace relax {
namespace op_detail {

namespace {

bool has_attr(const Call& call, std::string_view key) {
  return call.attrs.defined() && call.attrs->find(key) != nullptr;
}

// ---- cumsum / cumprod

StructInfo infer_cumulative(const Call& call, BlockBuilder& ctx) {
  const TensorStructInfo& x = expect_tensor(call, 0);
  DataType dtype = get_dtype(call.attrs, "dtype", DataType::Void());
  if (dtype.is_void()) dtype = x.dtype;
  RX_CHECK(dtype.is_void() || !dtype.is_bool())
      << op_name(call) << ": cannot accumulate in bool; give a numeric 'dtype'";
  if (!has_attr(call, "axis")) {
    if (x.shape) return tensor_sinfo({product(*x.shape, ctx.analyzer())}, dtype, x.vdevice);
    return tensor_sinfo(dtype, 1, x.vdevice);
  }
  if (x.ndim >= 0) normalize_axis(call, get_int(call.attrs, "axis", 0), x.ndim);
  if (x.shape) return tensor_sinfo(*x.shape, dtype, x.vdevice);
  return tensor_sinfo(dtype, x.ndim, x.vdevice);
}

Expr legalize_cumulative(bool is_sum, BlockBuilder& bb, const Call& call) {
  const TensorStructInfo& out = legal_out(call);
  const TensorStructInfo& xs = legal_arg(call, 0);
  bool flat = !has_attr(call, "axis");
  size_t ax = flat ? 0 : size_t(normalize_axis(call, get_int(call.attrs, "axis", 0), xs.ndim));
  bool exclusive = get_bool(call.attrs, "exclusive", false);
  std::string name = kernel_name(call);
  return te::call_te(
      bb, {call.args[0]},
      [&](const std::vector<te::Tensor>& a) {
        const te::Tensor& x = a[0];
        return te::compute(
            *out.shape,
            [&](const std::vector<PrimExpr>& i) {
              te::Axis r = te::reduce_axis((*out.shape)[ax], "r");
              std::vector<PrimExpr> idx = i;
              idx[ax] = r;
              PrimExpr v = tir::cast(out.dtype, flat ? x(unflatten_index(r, x.shape())) : x(idx));
              PrimExpr cond = exclusive ? tir::lt(r, i[ax]) : tir::le(r, i[ax]);
              return is_sum ? te::sum(v, {r}, cond) : te::prod(v, {r}, cond);
            },
            name);
      },
      name);
}

// ---- sort / argsort / topk

/// The sort axis of `call` for a tensor of rank `ndim` (attribute "axis", default -1).
size_t sort_axis(const Call& call, int ndim) {
  return size_t(normalize_axis(call, get_int(call.attrs, "axis", -1), ndim));
}

/// The k of a topk call for an axis of `dim` elements: the attribute, or the whole axis for
/// k < 1 (TVM's convention).
PrimExpr topk_k(const Call& call, const PrimExpr& dim) {
  int64_t k = get_int(call.attrs, "k", 1);
  if (k < 1) return dim;
  auto* c = tir::as_const_int(dim);
  RX_CHECK(!c || k <= *c) << "relax.topk: k = " << k << " exceeds the axis size " << *c;
  return tir::int_imm(k);
}

StructInfo infer_sort_like(const Call& call, BlockBuilder&) {
  const TensorStructInfo& x = expect_tensor(call, 0);
  RX_CHECK(x.dtype.is_void() || !x.dtype.is_bool())
      << op_name(call) << ": needs a numeric tensor, got bool";
  std::string name = op_name(call);
  DataType idx_dtype = get_dtype(call.attrs, "dtype", DataType::Int(32));
  RX_CHECK(name == "relax.sort" || idx_dtype.is_integer_like())
      << op_name(call) << ": the index dtype should be an integer type, got "
      << idx_dtype.to_string();
  RX_CHECK(x.ndim != 0) << op_name(call) << ": needs a tensor of rank >= 1";
  if (x.ndim >= 0) sort_axis(call, x.ndim);
  DataType out_dtype = name == "relax.argsort" ? idx_dtype : x.dtype;
  if (name != "relax.topk") {
    if (x.shape) return tensor_sinfo(*x.shape, out_dtype, x.vdevice);
    return tensor_sinfo(out_dtype, x.ndim, x.vdevice);
  }
  std::string ret = get_string(call.attrs, "ret_type", "both");
  RX_CHECK(ret == "both" || ret == "values" || ret == "indices")
      << "relax.topk: ret_type '" << ret << "' is not one of both, values, indices";
  StructInfo values = tensor_sinfo(x.dtype, x.ndim, x.vdevice);
  StructInfo indices = tensor_sinfo(idx_dtype, x.ndim, x.vdevice);
  if (x.shape) {
    std::vector<PrimExpr> s = *x.shape;
    size_t ax = sort_axis(call, x.ndim);
    s[ax] = topk_k(call, s[ax]);
    values = tensor_sinfo(s, x.dtype, x.vdevice);
    indices = tensor_sinfo(s, idx_dtype, x.vdevice);
  } else if (x.ndim < 0) {
    values = tensor_sinfo(x.dtype, -1, x.vdevice);
    indices = tensor_sinfo(idx_dtype, -1, x.vdevice);
  }
  if (ret == "values") return values;
  if (ret == "indices") return indices;
  return tuple_sinfo({values, indices});
}

/// The stages of a rank sort of `x` along `ax`: `order` (int64) holds, at position p, the index
/// along the axis of the element of rank p[ax], for the first `count` ranks.
te::Tensor sort_order(const te::Tensor& x, size_t ax, bool descending, const PrimExpr& count,
                      const std::string& name) {
  const PrimExpr& n = x.shape()[ax];
  te::Tensor rank = te::compute(
      x.shape(),
      [&](const std::vector<PrimExpr>& i) {
        te::Axis j = te::reduce_axis(n, "j");
        std::vector<PrimExpr> ij = i;
        ij[ax] = j;
        PrimExpr a = x(ij), b = x(i);
        PrimExpr before = tir::logical_or(
            descending ? tir::gt(a, b) : tir::lt(a, b),
            tir::logical_and(tir::eq(a, b), tir::lt(PrimExpr(j), i[ax])));
        return te::sum(tir::cast(DataType::Int(64), before), {j});
      },
      name + "_rank");
  std::vector<PrimExpr> oshape = x.shape();
  oshape[ax] = count;
  return te::compute(
      oshape,
      [&](const std::vector<PrimExpr>& p) {
        te::Axis j = te::reduce_axis(n, "j");
        std::vector<PrimExpr> pj = p;
        pj[ax] = j;
        return te::max(PrimExpr(j), {j}, tir::eq(rank(pj), p[ax]));
      },
      name + "_order");
}

/// x read through `order` along `ax`.
te::Tensor take_order(const te::Tensor& x, const te::Tensor& order, size_t ax,
                      const std::string& name) {
  return te::compute(
      order.shape(),
      [&](const std::vector<PrimExpr>& p) {
        std::vector<PrimExpr> idx = p;
        idx[ax] = order(p);
        return x(idx);
      },
      name);
}

Expr legalize_sort_like(BlockBuilder& bb, const Call& call) {
  legal_arg(call, 0);
  RX_CHECK(call.struct_info.defined()) << op_name(call) << ": cannot legalise an uninferred call";
  const TensorStructInfo& xs = expect_tensor(call, 0);
  size_t ax = sort_axis(call, xs.ndim);
  std::string opname = op_name(call);
  bool is_topk = opname == "relax.topk";
  bool descending = is_topk ? get_bool(call.attrs, "largest", true)
                            : get_bool(call.attrs, "descending", false);
  DataType idx_dtype = get_dtype(call.attrs, "dtype", DataType::Int(32));
  std::string ret = get_string(call.attrs, "ret_type", "both");
  std::string name = kernel_name(call);
  // Every result must have a known shape (legal_out checks single tensors).
  if (auto* ts = call.struct_info.as<TupleStructInfo>()) {
    for (const auto& f : ts->fields) {
      auto* t = f.as<TensorStructInfo>();
      RX_CHECK(t && t->shape) << op_name(call) << ": cannot legalise a result of unknown shape "
                              << to_string(f);
    }
  } else {
    legal_out(call);
  }
  return te::call_te(
      bb, {call.args[0]},
      [&](const std::vector<te::Tensor>& a) -> te::TensorList {
        const te::Tensor& x = a[0];
        PrimExpr count = is_topk ? topk_k(call, x.shape()[ax]) : x.shape()[ax];
        te::Tensor order = sort_order(x, ax, descending, count, name);
        auto indices = [&]() {
          return te::compute(
              order.shape(),
              [&](const std::vector<PrimExpr>& p) { return tir::cast(idx_dtype, order(p)); },
              name + "_indices");
        };
        if (opname == "relax.sort") return take_order(x, order, ax, name);
        if (opname == "relax.argsort") return indices();
        if (ret == "values") return take_order(x, order, ax, name + "_values");
        if (ret == "indices") return indices();
        return std::vector<te::Tensor>{take_order(x, order, ax, name + "_values"), indices()};
      },
      name);
}

}  // namespace

void register_scan_sort_ops(OpRegistry& reg) {
  for (bool is_sum : {true, false}) {
    OpInfo& op = reg.register_op(is_sum ? "relax.cumsum" : "relax.cumprod");
    op.summary = is_sum ? "Running sum along an axis (of the flattened tensor when none)."
                        : "Running product along an axis (of the flattened tensor when none).";
    op.arg_names = {"x"};
    op.attrs = {{"axis", AttrSpec::Kind::kInt, std::monostate{}, true,
                 "the scanned axis (the flattened tensor when absent)"},
                {"dtype", AttrSpec::Kind::kDType, std::monostate{}, true,
                 "accumulation and result dtype (the input's when absent)"},
                {"exclusive", AttrSpec::Kind::kBool, false, false,
                 "exclude the element itself (start from the identity)"}};
    op.infer = infer_cumulative;
    op.pattern = OpPattern::kOpaque;
    op.legalize = [is_sum](BlockBuilder& bb, const Call& call) {
      return legalize_cumulative(is_sum, bb, call);
    };
  }
  {
    OpInfo& op = reg.register_op("relax.sort");
    op.summary = "Stable sort along an axis.";
    op.arg_names = {"x"};
    op.attrs = {{"axis", AttrSpec::Kind::kInt, int64_t(-1), false, "the sorted axis"},
                {"descending", AttrSpec::Kind::kBool, false, false, "largest first"}};
    op.infer = infer_sort_like;
    op.pattern = OpPattern::kOpaque;
    op.legalize = legalize_sort_like;
  }
  {
    OpInfo& op = reg.register_op("relax.argsort");
    op.summary = "The indices that stably sort a tensor along an axis.";
    op.arg_names = {"x"};
    op.attrs = {{"axis", AttrSpec::Kind::kInt, int64_t(-1), false, "the sorted axis"},
                {"descending", AttrSpec::Kind::kBool, false, false, "largest first"},
                {"dtype", AttrSpec::Kind::kDType, DataType::Int(32), false, "index dtype"}};
    op.infer = infer_sort_like;
    op.pattern = OpPattern::kOpaque;
    op.legalize = legalize_sort_like;
  }
  {
    OpInfo& op = reg.register_op("relax.topk");
    op.summary = "The k largest (or smallest) elements along an axis and their indices.";
    op.arg_names = {"x"};
    op.attrs = {{"k", AttrSpec::Kind::kInt, int64_t(1), false, "how many (< 1: all)"},
                {"axis", AttrSpec::Kind::kInt, int64_t(-1), false, "the axis"},
                {"ret_type", AttrSpec::Kind::kString, std::string("both"), false,
                 "both (a (values, indices) tuple), values or indices"},
                {"largest", AttrSpec::Kind::kBool, true, false, "largest (else smallest) first"},
                {"dtype", AttrSpec::Kind::kDType, DataType::Int(32), false, "index dtype"}};
    op.infer = infer_sort_like;
    op.pattern = OpPattern::kOpaque;
    op.legalize = legalize_sort_like;
  }
}

}  // namespace op_detail

namespace op {
namespace {
Expr cumulative(const char* name, Expr x, std::optional<int64_t> axis, DataType dtype,
                bool exclusive) {
  std::vector<std::pair<std::string, AttrValue>> f;
  if (axis) f.emplace_back("axis", *axis);
  if (!dtype.is_void()) f.emplace_back("dtype", dtype);
  f.emplace_back("exclusive", exclusive);
  return call_op(name, {std::move(x)}, make_attrs(std::move(f)));
}
}  // namespace
Expr cumsum(Expr x, std::optional<int64_t> axis, DataType dtype, bool exclusive) {
  return cumulative("relax.cumsum", std::move(x), axis, dtype, exclusive);
}
Expr cumprod(Expr x, std::optional<int64_t> axis, DataType dtype, bool exclusive) {
  return cumulative("relax.cumprod", std::move(x), axis, dtype, exclusive);
}
Expr sort(Expr x, int64_t axis, bool descending) {
  return call_op("relax.sort", {std::move(x)},
                 make_attrs({{"axis", axis}, {"descending", descending}}));
}
Expr argsort(Expr x, int64_t axis, bool descending, DataType dtype) {
  return call_op("relax.argsort", {std::move(x)},
                 make_attrs({{"axis", axis}, {"descending", descending}, {"dtype", dtype}}));
}
Expr topk(Expr x, int64_t k, int64_t axis, const std::string& ret_type, bool largest,
          DataType dtype) {
  return call_op("relax.topk", {std::move(x)},
                 make_attrs({{"k", k},
                             {"axis", axis},
                             {"ret_type", ret_type},
                             {"largest", largest},
                             {"dtype", dtype}}));
}
}  // namespace op
}  // namespace relax
