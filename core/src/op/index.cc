// Joining, splitting and indexing: concat, split, strided_slice and take.
#include <algorithm>
#include <limits>

#include "infer_utils.h"
#include "legalize_utils.h"
#include "relax/op/op.h"
#include "relax/support/diagnostic.h"

namespace relax {
namespace op_detail {

namespace {

// ---- concat(Tuple(tensors), axis)

StructInfo infer_concat(const Call& call, BlockBuilder& ctx) {
  auto* ts = get_struct_info(call.args[0]).as<TupleStructInfo>();
  RX_CHECK(ts != nullptr) << "relax.concat: 'tensors' should be a tuple of tensors, got "
                          << to_string(get_struct_info(call.args[0]));
  RX_CHECK(!ts->fields.empty()) << "relax.concat: needs at least one tensor";
  int64_t axis = get_int(call.attrs, "axis", 0);
  DataType dtype = DataType::Void();
  int ndim = -1;
  std::vector<const TensorStructInfo*> ins;
  for (size_t i = 0; i < ts->fields.size(); ++i) {
    auto* t = ts->fields[i].as<TensorStructInfo>();
    RX_CHECK(t != nullptr) << "relax.concat: element " << i << " should be a tensor, got "
                           << to_string(ts->fields[i]);
    dtype = unify_dtype(call, dtype, t->dtype);
    if (t->ndim >= 0) {
      RX_CHECK(ndim < 0 || ndim == t->ndim) << "relax.concat: element " << i << " has rank "
                                            << t->ndim << " but earlier ones have rank " << ndim;
      ndim = t->ndim;
    }
    ins.push_back(t);
  }
  if (ndim < 0) return tensor_sinfo(dtype, -1);
  size_t ax = size_t(normalize_axis(call, axis, ndim));
  std::vector<PrimExpr> out;
  for (const auto* t : ins) {
    if (!t->shape) return tensor_sinfo(dtype, ndim);
    if (out.empty()) {
      out = *t->shape;
      continue;
    }
    for (size_t d = 0; d < size_t(ndim); ++d) {
      if (d == ax) {
        out[d] = out[d] + (*t->shape)[d];
      } else {
        RX_CHECK(!ctx.analyzer().can_prove(tir::ne(out[d], (*t->shape)[d])))
            << "relax.concat: dimension " << d << " differs: " << tir::to_string(out[d]) << " vs "
            << tir::to_string((*t->shape)[d]) << " (only axis " << ax << " may differ)";
      }
    }
  }
  out[ax] = ctx.analyzer().simplify(out[ax]);
  return tensor_sinfo(out, dtype);
}

Expr legalize_concat(BlockBuilder& bb, const Call& call) {
  const TensorStructInfo& out = legal_out(call);
  std::vector<Expr> args = tuple_fields_of(call.args[0]);
  size_t ax = size_t(normalize_axis(call, get_int(call.attrs, "axis", 0), out.ndim));
  return te::call_te(
      bb, args,
      [&](const std::vector<te::Tensor>& a) {
        return te::compute(
            *out.shape,
            [&](const std::vector<PrimExpr>& i) {
              // Offsets of each input along the axis; select from the last one backwards so that
              // only the input in range is read.
              std::vector<PrimExpr> offsets{tir::int_imm(0)};
              for (const auto& t : a) offsets.push_back(offsets.back() + t.shape()[ax]);
              auto load = [&](size_t k) {
                std::vector<PrimExpr> idx = i;
                idx[ax] = i[ax] - offsets[k];
                return a[k](idx);
              };
              PrimExpr v = load(a.size() - 1);
              for (size_t k = a.size() - 1; k-- > 0;)
                v = te::if_then_else(tir::lt(i[ax], offsets[k + 1]), load(k), v);
              return v;
            },
            "concat");
      },
      "concat");
}

// ---- split(x, indices_or_sections, axis)

/// The [begin, end) of each piece along the axis.
std::vector<std::pair<PrimExpr, PrimExpr>> split_pieces(const Call& call, const PrimExpr& dim,
                                                        arith::Analyzer& ana) {
  const AttrValue* v = call.attrs.defined() ? call.attrs->find("indices_or_sections") : nullptr;
  RX_CHECK(v != nullptr) << "relax.split: attribute 'indices_or_sections' is required";
  std::vector<std::pair<PrimExpr, PrimExpr>> out;
  if (auto* n = std::get_if<int64_t>(v)) {
    RX_CHECK(*n > 0) << "relax.split: the number of sections must be positive, got " << *n;
    auto* c = tir::as_const_int(dim);
    RX_CHECK(!c || *c % *n == 0) << "relax.split: axis of size " << *c << " cannot be split into "
                                 << *n << " equal sections";
    PrimExpr piece = ana.simplify(tir::floordiv(dim, *n));
    for (int64_t k = 0; k < *n; ++k)
      out.emplace_back(ana.simplify(piece * k), ana.simplify(piece * (k + 1)));
    return out;
  }
  auto idx = get_ints(call.attrs, "indices_or_sections", {});
  PrimExpr begin = tir::int_imm(0);
  for (size_t k = 0; k < idx.size(); ++k) {
    RX_CHECK(idx[k] >= 0 && (k == 0 || idx[k] >= idx[k - 1]))
        << "relax.split: indices must be non-negative and non-decreasing, got " << to_string(*v);
    PrimExpr end = ana.simplify(tir::min(tir::int_imm(idx[k]), dim));
    out.emplace_back(begin, end);
    begin = end;
  }
  out.emplace_back(begin, dim);
  return out;
}

StructInfo infer_split(const Call& call, BlockBuilder& ctx) {
  const TensorStructInfo& x = expect_tensor(call, 0);
  int64_t axis = get_int(call.attrs, "axis", 0);
  const AttrValue* v = call.attrs.defined() ? call.attrs->find("indices_or_sections") : nullptr;
  RX_CHECK(v != nullptr) << "relax.split: attribute 'indices_or_sections' is required";
  size_t count = std::holds_alternative<int64_t>(*v)
                     ? size_t(std::max<int64_t>(std::get<int64_t>(*v), 0))
                     : get_ints(call.attrs, "indices_or_sections", {}).size() + 1;
  if (!x.shape) {
    if (x.ndim >= 0) normalize_axis(call, axis, x.ndim);
    return tuple_sinfo(std::vector<StructInfo>(count, tensor_sinfo(x.dtype, x.ndim, x.vdevice)));
  }
  size_t ax = size_t(normalize_axis(call, axis, x.ndim));
  std::vector<StructInfo> outs;
  for (const auto& [b, e] : split_pieces(call, (*x.shape)[ax], ctx.analyzer())) {
    std::vector<PrimExpr> s = *x.shape;
    s[ax] = ctx.analyzer().simplify(e - b);
    outs.push_back(tensor_sinfo(s, x.dtype, x.vdevice));
  }
  return tuple_sinfo(outs);
}

Expr legalize_split(BlockBuilder& bb, const Call& call) {
  const TensorStructInfo& xs = legal_arg(call, 0);
  size_t ax = size_t(normalize_axis(call, get_int(call.attrs, "axis", 0), xs.ndim));
  auto pieces = split_pieces(call, (*xs.shape)[ax], bb.analyzer());
  return te::call_te(
      bb, {call.args[0]},
      [&](const std::vector<te::Tensor>& a) {
        std::vector<te::Tensor> outs;
        for (size_t k = 0; k < pieces.size(); ++k) {
          std::vector<PrimExpr> s = a[0].shape();
          s[ax] = pieces[k].second - pieces[k].first;
          outs.push_back(te::compute(
              s,
              [&](const std::vector<PrimExpr>& i) {
                std::vector<PrimExpr> idx = i;
                idx[ax] = i[ax] + pieces[k].first;
                return a[0](idx);
              },
              "split" + std::to_string(k)));
        }
        return outs;
      },
      "split");
}

// ---- strided_slice(x, axes, begin, end, strides): NumPy slicing with clamping.

struct Slice {
  PrimExpr begin, extent;
  int64_t stride;
};

/// The slice along each listed axis of a dimension `dim`.
Slice slice_of(int64_t b, int64_t e, int64_t s, const PrimExpr& dim, arith::Analyzer& ana) {
  auto norm = [&](int64_t v, int64_t lo_off) -> PrimExpr {
    // Negative values count from the end; clamp to [lo_off, dim + lo_off] (lo_off = -1 for
    // negative strides, whose range runs down to before the first element).
    PrimExpr x = v < 0 ? dim + v : tir::int_imm(v);
    return ana.simplify(tir::min(tir::max(x, tir::int_imm(lo_off)), dim + lo_off));
  };
  if (s > 0) {
    PrimExpr bb = norm(b, 0), ee = norm(e, 0);
    return {bb, ana.simplify(tir::max(tir::floordiv(ee - bb + (s - 1), s), tir::int_imm(0))), s};
  }
  PrimExpr bb = norm(b, -1), ee = norm(e, -1);
  return {bb, ana.simplify(tir::max(tir::floordiv(bb - ee + (-s - 1), -s), tir::int_imm(0))), s};
}

std::vector<std::pair<size_t, Slice>> slices(const Call& call, const std::vector<PrimExpr>& shape,
                                             arith::Analyzer& ana) {
  std::vector<int64_t> axes = get_ints(call.attrs, "axes", {});
  std::vector<int64_t> begin = get_ints(call.attrs, "begin", {});
  std::vector<int64_t> end = get_ints(call.attrs, "end", {});
  std::vector<int64_t> strides =
      get_ints(call.attrs, "strides", std::vector<int64_t>(axes.size(), 1));
  RX_CHECK(begin.size() == axes.size() && end.size() == axes.size() &&
           strides.size() == axes.size())
      << "relax.strided_slice: axes, begin, end and strides need one value per axis; got "
      << axes.size() << ", " << begin.size() << ", " << end.size() << ", " << strides.size();
  std::vector<std::pair<size_t, Slice>> out;
  std::vector<bool> seen(shape.size(), false);
  for (size_t k = 0; k < axes.size(); ++k) {
    size_t ax = size_t(normalize_axis(call, axes[k], int(shape.size())));
    RX_CHECK(!seen[ax]) << "relax.strided_slice: axis " << axes[k] << " appears twice";
    seen[ax] = true;
    RX_CHECK(strides[k] != 0) << "relax.strided_slice: stride 0 on axis " << axes[k];
    out.emplace_back(ax, slice_of(begin[k], end[k], strides[k], shape[ax], ana));
  }
  return out;
}

StructInfo infer_strided_slice(const Call& call, BlockBuilder& ctx) {
  const TensorStructInfo& x = expect_tensor(call, 0);
  if (!x.shape) return tensor_sinfo(x.dtype, x.ndim, x.vdevice);
  std::vector<PrimExpr> out = *x.shape;
  for (const auto& [ax, s] : slices(call, *x.shape, ctx.analyzer())) out[ax] = s.extent;
  return tensor_sinfo(out, x.dtype, x.vdevice);
}

Expr legalize_strided_slice(BlockBuilder& bb, const Call& call) {
  const TensorStructInfo& out = legal_out(call);
  const TensorStructInfo& xs = legal_arg(call, 0);
  auto sl = slices(call, *xs.shape, bb.analyzer());
  return te::call_te(
      bb, {call.args[0]},
      [&](const std::vector<te::Tensor>& a) {
        return te::compute(
            *out.shape,
            [&](const std::vector<PrimExpr>& i) {
              std::vector<PrimExpr> idx = i;
              for (const auto& [ax, s] : sl) idx[ax] = s.begin + i[ax] * s.stride;
              return a[0](idx);
            },
            "strided_slice");
      },
      "strided_slice");
}

// ---- take(x, indices, axis, mode)

StructInfo infer_take(const Call& call, BlockBuilder&) {
  const TensorStructInfo& x = expect_tensor(call, 0);
  const TensorStructInfo& ind = expect_tensor(call, 1);
  RX_CHECK(ind.dtype.is_void() || ind.dtype.is_int() || ind.dtype.is_uint())
      << "relax.take: 'indices' should be an integer tensor, got " << ind.dtype.to_string();
  std::string mode = get_string(call.attrs, "mode", "fast");
  RX_CHECK(mode == "fast" || mode == "clip" || mode == "wrap")
      << "relax.take: mode '" << mode << "' is not one of fast, clip, wrap";
  auto axis = get_opt_ints(call.attrs, "axis");
  RX_CHECK(!axis || axis->size() == 1) << "relax.take: 'axis' is one integer";
  if (!axis) {
    if (ind.shape) return tensor_sinfo(*ind.shape, x.dtype, x.vdevice);
    return tensor_sinfo(x.dtype, ind.ndim, x.vdevice);
  }
  if (x.ndim < 0 || ind.ndim < 0) return tensor_sinfo(x.dtype, -1, x.vdevice);
  size_t ax = size_t(normalize_axis(call, (*axis)[0], x.ndim));
  if (mode == "fast") check_constant_indices(call, 1, x, int64_t(ax));
  if (!x.shape || !ind.shape) return tensor_sinfo(x.dtype, x.ndim - 1 + ind.ndim, x.vdevice);
  std::vector<PrimExpr> out(x.shape->begin(), x.shape->begin() + std::ptrdiff_t(ax));
  out.insert(out.end(), ind.shape->begin(), ind.shape->end());
  out.insert(out.end(), x.shape->begin() + std::ptrdiff_t(ax) + 1, x.shape->end());
  return tensor_sinfo(out, x.dtype, x.vdevice);
}

Expr legalize_take(BlockBuilder& bb, const Call& call) {
  const TensorStructInfo& out = legal_out(call);
  const TensorStructInfo& xs = legal_arg(call, 0);
  const TensorStructInfo& is = legal_arg(call, 1);
  auto axis = get_opt_ints(call.attrs, "axis");
  std::string mode = get_string(call.attrs, "mode", "fast");
  return te::call_te(
      bb, {call.args[0], call.args[1]},
      [&](const std::vector<te::Tensor>& a) {
        const te::Tensor &x = a[0], &ind = a[1];
        return te::compute(
            *out.shape,
            [&](const std::vector<PrimExpr>& i) {
              size_t ax = axis ? size_t(normalize_axis(call, (*axis)[0], xs.ndim)) : 0;
              std::vector<PrimExpr> ii(i.begin() + std::ptrdiff_t(ax),
                                       i.begin() + std::ptrdiff_t(ax) + is.ndim);
              PrimExpr dim = axis ? x.shape()[ax] : tir::int_imm(1);
              if (!axis) {
                for (const auto& d : x.shape()) dim = dim * d;
              }
              PrimExpr k = tir::cast(DataType::Int(64), ind(ii));
              if (mode == "clip") {
                k = tir::min(tir::max(k, tir::int_imm(0)), dim - 1);
              } else if (mode == "wrap") {
                k = tir::floormod(k, dim);
              } else {
                k = tir::select(tir::lt(k, tir::int_imm(0)), k + dim, k);
              }
              if (!axis) return x(unflatten_index(k, x.shape()));
              std::vector<PrimExpr> idx(i.begin(), i.begin() + std::ptrdiff_t(ax));
              idx.push_back(k);
              idx.insert(idx.end(), i.begin() + std::ptrdiff_t(ax) + is.ndim, i.end());
              return x(idx);
            },
            "take");
      },
      "take");
}

}  // namespace

void register_index_ops(OpRegistry& reg) {
  {
    OpInfo& op = reg.register_op("relax.concat");
    op.summary = "Join a tuple of tensors along an axis.";
    op.arg_names = {"tensors"};
    op.attrs = {{"axis", AttrSpec::Kind::kInt, int64_t(0), false, "the joined axis"}};
    op.infer = infer_concat;
    op.pattern = OpPattern::kInjective;
    op.legalize = legalize_concat;
  }
  {
    OpInfo& op = reg.register_op("relax.split");
    op.summary = "Split along an axis into equal sections or at indices; returns a tuple.";
    op.arg_names = {"x"};
    op.attrs = {{"indices_or_sections", AttrSpec::Kind::kInts, std::monostate{}, false,
                 "a number of equal sections, or the split indices"},
                {"axis", AttrSpec::Kind::kInt, int64_t(0), false, "the split axis"}};
    op.infer = infer_split;
    op.pattern = OpPattern::kInjective;
    op.legalize = legalize_split;
  }
  {
    OpInfo& op = reg.register_op("relax.strided_slice");
    op.summary = "Slice [begin:end:stride] along the given axes (NumPy semantics, clamped).";
    op.arg_names = {"x"};
    op.attrs = {
        {"axes", AttrSpec::Kind::kInts, std::monostate{}, false, "the sliced axes"},
        {"begin", AttrSpec::Kind::kInts, std::monostate{}, false, "first index per axis"},
        {"end", AttrSpec::Kind::kInts, std::monostate{}, false, "end index (exclusive) per axis"},
        {"strides", AttrSpec::Kind::kInts, std::monostate{}, true, "step per axis (default 1)"}};
    op.infer = infer_strided_slice;
    op.pattern = OpPattern::kInjective;
    op.legalize = legalize_strided_slice;
  }
  {
    OpInfo& op = reg.register_op("relax.take");
    op.summary = "Gather elements along an axis (of the flattened tensor when none is given).";
    op.arg_names = {"x", "indices"};
    op.attrs = {{"axis", AttrSpec::Kind::kInts, std::monostate{}, true, "the gathered axis"},
                {"mode", AttrSpec::Kind::kString, std::string("fast"), false,
                 "out-of-range indices: fast (negative wrap once), clip or wrap"}};
    op.infer = infer_take;
    op.pattern = OpPattern::kInjective;
    op.legalize = legalize_take;
  }
}

}  // namespace op_detail

namespace op {
Expr concat(std::vector<Expr> tensors, int64_t axis) {
  return call_op("relax.concat", {make_tuple(std::move(tensors))}, make_attrs({{"axis", axis}}));
}
Expr split(Expr x, int64_t sections, int64_t axis) {
  return call_op("relax.split", {std::move(x)},
                 make_attrs({{"indices_or_sections", sections}, {"axis", axis}}));
}
Expr split(Expr x, std::vector<int64_t> indices, int64_t axis) {
  return call_op("relax.split", {std::move(x)},
                 make_attrs({{"indices_or_sections", std::move(indices)}, {"axis", axis}}));
}
Expr strided_slice(Expr x, std::vector<int64_t> axes, std::vector<int64_t> begin,
                   std::vector<int64_t> end, std::optional<std::vector<int64_t>> strides) {
  std::vector<std::pair<std::string, AttrValue>> f = {
      {"axes", std::move(axes)}, {"begin", std::move(begin)}, {"end", std::move(end)}};
  if (strides) f.emplace_back("strides", std::move(*strides));
  return call_op("relax.strided_slice", {std::move(x)}, make_attrs(std::move(f)));
}
Expr take(Expr x, Expr indices, std::optional<int64_t> axis, const std::string& mode) {
  std::vector<std::pair<std::string, AttrValue>> f;
  if (axis) f.emplace_back("axis", *axis);
  f.emplace_back("mode", mode);
  return call_op("relax.take", {std::move(x), std::move(indices)}, make_attrs(std::move(f)));
}
}  // namespace op
}  // namespace relax
