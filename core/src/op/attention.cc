// relax.nn.attention(query, key, value, bias?): scaled dot-product attention in TVM's layout,
// query (B, Sq, H, D), key (B, Skv, H, D), value (B, Skv, H, Dv) -> (B, Sq, H, Dv).
//
//   logits[b, h, i, j] = scale * sum_d q[b, i, h, d] * k[b, j, h, d] + bias[b, h, i, j]
//   masked (causal_mask)  TopLeft: j > i;  BottomRight: j > i + Skv - Sq  -> lowest value
//   out[b, i, h, e] = sum_j softmax_j(logits[b, h, i, :])[j] * v[b, j, h, e]
//
// scale defaults to 1 / sqrt(D). The bias has rank 2 to 4 and broadcasts (NumPy rules)
// against (B, H, Sq, Skv). A masked logit is the dtype's lowest finite value rather than
// -inf, so a row whose every key is masked (BottomRight with Skv < Sq) averages the values
// uniformly instead of producing NaN.
//
// The legalisation is one PrimFunc of several stages: the scores (a reduction over D), the
// scaled, biased and masked logits, the row maximum, the shifted exponentials, their row sum,
// and the probability-weighted sum of values (a reduction over Skv), divided by the row sum.
#include "infer_utils.h"
#include "legalize_utils.h"
#include "relax/op/nn.h"
#include "relax/support/diagnostic.h"

namespace relax {
namespace op_detail {

namespace {

std::string causal_mask_attr(const Call& call) {
  std::string m = get_string(call.attrs, "causal_mask", "");
  RX_CHECK(m.empty() || m == "TopLeft" || m == "BottomRight")
      << "relax.nn.attention: causal_mask '" << m
      << "' is not supported; expected TopLeft or BottomRight (or none)";
  return m;
}

StructInfo infer_attention(const Call& call, BlockBuilder& ctx) {
  RX_CHECK(call.args.size() <= 4) << "relax.nn.attention takes 3 or 4 arguments (query, key, "
                                     "value, bias), got "
                                  << call.args.size();
  const TensorStructInfo& q = expect_tensor(call, 0);
  const TensorStructInfo& k = expect_tensor(call, 1);
  const TensorStructInfo& v = expect_tensor(call, 2);
  causal_mask_attr(call);
  DataType dtype = unify_dtype(call, unify_dtype(call, q.dtype, k.dtype), v.dtype);
  RX_CHECK(dtype.is_void() || dtype.is_float())
      << "relax.nn.attention: needs floating-point tensors, got " << dtype.to_string();
  for (size_t i = 0; i < 3; ++i) {
    const TensorStructInfo& t = expect_tensor(call, i);
    RX_CHECK(t.ndim < 0 || t.ndim == 4)
        << "relax.nn.attention: '" << arg_name(call, i)
        << "' should have rank 4 (batch, seq, heads, head_dim), got rank " << t.ndim;
  }
  const TensorStructInfo* bias = call.args.size() == 4 ? &expect_tensor(call, 3) : nullptr;
  if (bias) {
    dtype = unify_dtype(call, dtype, bias->dtype);
    RX_CHECK(bias->ndim < 0 || (bias->ndim >= 2 && bias->ndim <= 4))
        << "relax.nn.attention: 'bias' should have rank 2 to 4 (broadcast against (batch, heads, "
           "seq_q, seq_kv)), got rank "
        << bias->ndim;
  }
  if (!q.shape || !k.shape || !v.shape) return tensor_sinfo(dtype, 4, q.vdevice);
  const auto &qs = *q.shape, &ks = *k.shape, &vs = *v.shape;
  arith::Analyzer& ana = ctx.analyzer();
  auto same = [&](const PrimExpr& a, const PrimExpr& b, const std::string& what) {
    RX_CHECK(!ana.can_prove(tir::ne(a, b)))
        << "relax.nn.attention: " << what << " differ: " << tir::to_string(a) << " vs "
        << tir::to_string(b);
  };
  same(qs[0], ks[0], "the batch sizes of query and key");
  same(ks[0], vs[0], "the batch sizes of key and value");
  same(qs[2], ks[2], "the head counts of query and key");
  same(ks[2], vs[2], "the head counts of key and value");
  same(qs[3], ks[3], "the head dims of query and key");
  same(ks[1], vs[1], "the sequence lengths of key and value");
  if (bias && bias->shape) {
    std::vector<PrimExpr> scores = {qs[0], qs[2], qs[1], ks[1]};
    broadcast_shapes(call, scores, *bias->shape, ana);
    // The bias must not enlarge the scores.
    for (size_t d = 0; d < bias->shape->size(); ++d) {
      const PrimExpr& b = (*bias->shape)[d];
      const PrimExpr& s = scores[scores.size() - bias->shape->size() + d];
      RX_CHECK(tir::is_const_int(b, 1) || !ana.can_prove(tir::ne(b, s)))
          << "relax.nn.attention: 'bias' dim " << d << " is " << tir::to_string(b)
          << " but the scores (batch, heads, seq_q, seq_kv) have " << tir::to_string(s);
    }
  }
  return tensor_sinfo({qs[0], qs[1], qs[2], vs[3]}, dtype, q.vdevice);
}

Expr legalize_attention(BlockBuilder& bb, const Call& call) {
  const TensorStructInfo& out = legal_out(call);
  for (size_t i = 0; i < call.args.size(); ++i) legal_arg(call, i);
  std::string mask = causal_mask_attr(call);
  const AttrValue* sv = call.attrs.defined() ? call.attrs->find("scale") : nullptr;
  std::optional<double> scale;
  if (sv && !std::holds_alternative<std::monostate>(*sv)) scale = get_float(call.attrs, "scale", 1);
  bool has_bias = call.args.size() == 4;
  return te::call_te(
      bb, call.args,
      [&](const std::vector<te::Tensor>& a) -> te::TensorList {
        const te::Tensor &q = a[0], &k = a[1], &v = a[2];
        DataType t = q.dtype();
        const PrimExpr &B = q.shape()[0], &Sq = q.shape()[1], &H = q.shape()[2], &D = q.shape()[3],
                       &Skv = k.shape()[1], &Dv = v.shape()[3];
        std::vector<PrimExpr> score_shape = {B, H, Sq, Skv}, row_shape = {B, H, Sq};
        te::Tensor score = te::compute(
            score_shape,
            [&](const std::vector<PrimExpr>& i) {
              te::Axis d = te::reduce_axis(D, "d");
              return te::sum(q(i[0], i[2], i[1], d) * k(i[0], i[3], i[1], d), {d});
            },
            "attention_score");
        PrimExpr s = scale ? const_of(*scale, t) : tir::rsqrt(tir::cast(t, D));
        te::Tensor logits = te::compute(
            score_shape,
            [&](const std::vector<PrimExpr>& i) {
              PrimExpr l = score(i) * s;
              if (has_bias) l = l + broadcast_load(a[3], i);
              if (mask.empty()) return l;
              PrimExpr limit = mask == "TopLeft" ? i[2] : i[2] + Skv - Sq;
              return tir::select(tir::gt(i[3], limit), te::min_value(t), l);
            },
            "attention_logits");
        auto row = [](const std::vector<PrimExpr>& i) {
          return std::vector<PrimExpr>{i[0], i[1], i[2]};
        };
        te::Tensor mx = te::compute(
            row_shape,
            [&](const std::vector<PrimExpr>& i) {
              te::Axis j = te::reduce_axis(Skv, "j");
              return te::max(logits(i[0], i[1], i[2], j), {j});
            },
            "attention_max");
        te::Tensor e = te::compute(
            score_shape,
            [&](const std::vector<PrimExpr>& i) { return tir::exp(logits(i) - mx(row(i))); },
            "attention_exp");
        te::Tensor se = te::compute(
            row_shape,
            [&](const std::vector<PrimExpr>& i) {
              te::Axis j = te::reduce_axis(Skv, "j");
              return te::sum(e(i[0], i[1], i[2], j), {j});
            },
            "attention_expsum");
        te::Tensor pv = te::compute(
            {B, Sq, H, Dv},
            [&](const std::vector<PrimExpr>& i) {
              te::Axis j = te::reduce_axis(Skv, "j");
              return te::sum(e(i[0], i[2], i[1], j) * v(i[0], j, i[2], i[3]), {j});
            },
            "attention_pv");
        return te::compute(
            *out.shape,
            [&](const std::vector<PrimExpr>& i) {
              return tir::truncdiv(pv(i), se(i[0], i[2], i[1]));
            },
            "attention");
      },
      "attention");
}

}  // namespace

void register_attention_ops(OpRegistry& reg) {
  using K = AttrSpec::Kind;
  OpInfo& op = reg.register_op("relax.nn.attention");
  op.summary = "Scaled dot-product attention, (batch, seq, heads, head_dim) layout.";
  op.arg_names = {"query", "key", "value", "bias"};
  op.variadic = true;  // the bias is optional: 3 or 4 arguments
  op.attrs = {{"scale", K::kFloat, std::monostate{}, true, "logit scale (default 1/sqrt(D))"},
              {"causal_mask", K::kString, std::monostate{}, true, "TopLeft or BottomRight"}};
  op.infer = infer_attention;
  op.pattern = OpPattern::kOpaque;
  op.legalize = legalize_attention;
}

}  // namespace op_detail

namespace op {
Expr attention(Expr query, Expr key, Expr value, std::optional<Expr> bias,
               std::optional<double> scale, const std::string& causal_mask) {
  std::vector<Expr> args = {std::move(query), std::move(key), std::move(value)};
  if (bias) args.push_back(std::move(*bias));
  std::vector<std::pair<std::string, AttrValue>> f;
  if (scale) f.emplace_back("scale", *scale);
  if (!causal_mask.empty()) f.emplace_back("causal_mask", causal_mask);
  return call_op("relax.nn.attention", std::move(args), make_attrs(std::move(f)));
}
}  // namespace op
}  // namespace relax
