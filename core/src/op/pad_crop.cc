// relax.pad and relax.crop: the two non-bijective compact layout rewrites of the layout design
// (with relax.layout_transform, layout_transform.cc).
//
//   relax.pad(x, pad_width=[b0, a0, b1, a1, ...], pad_value=v)
//     adds b_d positions before and a_d after the contents of axis d, holding v. pad_width is
//     the design's [ndim, 2] table, row-major: one (before, after) pair per axis (unlike
//     relax.nn.pad, whose list has all befores first).
//   relax.crop(x, start_indices=[s0, ...], slice_sizes=[n0, ...], cropped_value=v)
//     keeps x[s_d : s_d + n_d] of every axis. cropped_value (optional) is a promise about the
//     elements cut away: they all equal v. It changes nothing at run time; fold-layout uses it
//     to cancel a crop followed by a pad of the same positions with the same value.
//
// Both are injective and legalise to one compute each. Errors name the op, the attribute and
// the axis.
#include "infer_utils.h"
#include "legalize_utils.h"
#include "relax/op/op.h"
#include "relax/support/diagnostic.h"
#include "tensor_ops.h"

namespace relax {
namespace op_detail {

namespace {

StructInfo infer_rx_pad(const Call& call, BlockBuilder& ctx) {
  const TensorStructInfo& x = expect_tensor(call, 0);
  std::vector<int64_t> pw = get_ints(call.attrs, "pad_width", {});
  for (int64_t p : pw)
    RX_CHECK(p >= 0) << "relax.pad: pad_width values must be non-negative, got "
                     << to_string(AttrValue(pw));
  if (x.ndim < 0) return tensor_sinfo(x.dtype, -1, x.vdevice);
  RX_CHECK(pw.size() == size_t(2 * x.ndim))
      << "relax.pad: pad_width needs 2 * ndim = " << 2 * x.ndim
      << " values (a before, after pair per axis) for a tensor of rank " << x.ndim << ", got "
      << pw.size();
  if (!x.shape) return tensor_sinfo(x.dtype, x.ndim, x.vdevice);
  std::vector<PrimExpr> out;
  for (size_t k = 0; k < size_t(x.ndim); ++k)
    out.push_back(ctx.analyzer().simplify((*x.shape)[k] + (pw[2 * k] + pw[2 * k + 1])));
  return tensor_sinfo(out, x.dtype, x.vdevice);
}

Expr legalize_rx_pad(BlockBuilder& bb, const Call& call) {
  const TensorStructInfo& out = legal_out(call);
  const TensorStructInfo& xs = legal_arg(call, 0);
  std::vector<int64_t> pw = get_ints(call.attrs, "pad_width", {});
  PrimExpr value = const_of(get_float(call.attrs, "pad_value", 0), xs.dtype);
  return te::call_te(
      bb, {call.args[0]},
      [&](const std::vector<te::Tensor>& a) {
        const te::Tensor& x = a[0];
        return te::compute(
            *out.shape,
            [&](const std::vector<PrimExpr>& i) -> te::Body {
              std::vector<PrimExpr> idx;
              PrimExpr inside = tir::bool_imm(true);
              for (size_t k = 0; k < i.size(); ++k) {
                PrimExpr j = i[k] - pw[2 * k];
                if (pw[2 * k] != 0) inside = tir::logical_and(inside, tir::ge(j, tir::int_imm(0)));
                if (pw[2 * k + 1] != 0) inside = tir::logical_and(inside, tir::lt(j, x.shape()[k]));
                idx.push_back(j);
              }
              return te::if_then_else(inside, x(idx), value);
            },
            "pad");
      },
      "pad");
}

StructInfo infer_crop(const Call& call, BlockBuilder& ctx) {
  const TensorStructInfo& x = expect_tensor(call, 0);
  std::vector<int64_t> start = get_ints(call.attrs, "start_indices", {});
  std::vector<int64_t> size = get_ints(call.attrs, "slice_sizes", {});
  RX_CHECK(start.size() == size.size())
      << "relax.crop: start_indices has " << start.size() << " values but slice_sizes has "
      << size.size();
  for (size_t k = 0; k < start.size(); ++k)
    RX_CHECK(start[k] >= 0 && size[k] >= 0)
        << "relax.crop: axis " << k << " has a negative start (" << start[k] << ") or size ("
        << size[k] << ")";
  if (x.ndim < 0) return tensor_sinfo(x.dtype, -1, x.vdevice);
  RX_CHECK(start.size() == size_t(x.ndim))
      << "relax.crop: start_indices and slice_sizes need one value per axis (" << x.ndim
      << "), got " << start.size();
  if (x.shape) {
    for (size_t k = 0; k < start.size(); ++k) {
      PrimExpr end = tir::int_imm(start[k] + size[k]);
      RX_CHECK(!ctx.analyzer().can_prove(tir::gt(end, (*x.shape)[k])))
          << "relax.crop: axis " << k << " ends at " << start[k] + size[k]
          << ", past the axis's size " << tir::to_string((*x.shape)[k]);
    }
  }
  std::vector<PrimExpr> out;
  for (int64_t n : size) out.push_back(tir::int_imm(n));
  return tensor_sinfo(out, x.dtype, x.vdevice);
}

Expr legalize_crop(BlockBuilder& bb, const Call& call) {
  const TensorStructInfo& out = legal_out(call);
  std::vector<int64_t> start = get_ints(call.attrs, "start_indices", {});
  return te::call_te(
      bb, {call.args[0]},
      [&](const std::vector<te::Tensor>& a) {
        const te::Tensor& x = a[0];
        return te::compute(
            *out.shape,
            [&](const std::vector<PrimExpr>& i) -> te::Body {
              std::vector<PrimExpr> idx;
              for (size_t k = 0; k < i.size(); ++k) idx.push_back(i[k] + start[k]);
              return x(idx);
            },
            "crop");
      },
      "crop");
}

}  // namespace

void register_pad_crop_ops(OpRegistry& reg) {
  {
    OpInfo& op = reg.register_op("relax.pad");
    op.summary = "Compact layout rewrite: pad each axis with a constant before and after.";
    op.arg_names = {"x"};
    op.attrs = {{"pad_width", AttrSpec::Kind::kInts, std::monostate{}, false,
                 "a (before, after) pair per axis: [b0, a0, b1, a1, ...]"},
                {"pad_value", AttrSpec::Kind::kFloat, 0.0, false, "the value of the new positions"}};
    op.infer = infer_rx_pad;
    op.pattern = OpPattern::kInjective;
    op.legalize = legalize_rx_pad;
  }
  {
    OpInfo& op = reg.register_op("relax.crop");
    op.summary = "Compact layout rewrite: keep x[start : start + size] of every axis.";
    op.arg_names = {"x"};
    op.attrs = {{"start_indices", AttrSpec::Kind::kInts, std::monostate{}, false,
                 "the first kept index of each axis"},
                {"slice_sizes", AttrSpec::Kind::kInts, std::monostate{}, false,
                 "how many indices of each axis are kept"},
                {"cropped_value", AttrSpec::Kind::kFloat, std::monostate{}, true,
                 "hint: every element cut away equals this value"}};
    op.infer = infer_crop;
    op.pattern = OpPattern::kInjective;
    op.legalize = legalize_crop;
  }
}

}  // namespace op_detail

namespace op {
Expr rx_pad(Expr x, std::vector<int64_t> pad_width, double pad_value) {
  return call_op("relax.pad", {std::move(x)},
                 make_attrs({{"pad_width", std::move(pad_width)}, {"pad_value", pad_value}}));
}
Expr crop(Expr x, std::vector<int64_t> start_indices, std::vector<int64_t> slice_sizes,
          std::optional<double> cropped_value) {
  std::vector<std::pair<std::string, AttrValue>> f = {{"start_indices", std::move(start_indices)},
                                                      {"slice_sizes", std::move(slice_sizes)}};
  if (cropped_value) f.emplace_back("cropped_value", *cropped_value);
  return call_op("relax.crop", {std::move(x)}, make_attrs(std::move(f)));
}
}  // namespace op
}  // namespace relax
