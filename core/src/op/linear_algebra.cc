// Linear algebra: matmul (NumPy semantics: 1-D operands promoted, batch dims broadcast).
#include "infer_utils.h"
#include "legalize_utils.h"
#include "relax/op/op.h"
#include "relax/support/diagnostic.h"

namespace relax {
namespace op_detail {

namespace {

StructInfo infer_matmul(const Call& call, BlockBuilder& ctx) {
  const TensorStructInfo& a = expect_tensor(call, 0);
  const TensorStructInfo& b = expect_tensor(call, 1);
  DataType out_dtype = get_dtype(call.attrs, "out_dtype", DataType::Void());
  DataType dtype = out_dtype.is_void() ? unify_dtype(call, a.dtype, b.dtype) : out_dtype;
  RX_CHECK(a.ndim != 0 && b.ndim != 0) << "relax.matmul: operands must have rank at least 1";
  if (!a.shape || !b.shape) {
    if (a.ndim < 0 || b.ndim < 0) return tensor_sinfo(dtype, -1);
    int ndim = std::max(a.ndim, b.ndim);
    if (a.ndim == 1 || b.ndim == 1) ndim -= 1;
    if (a.ndim == 1 && b.ndim == 1) ndim = 0;
    return tensor_sinfo(dtype, ndim);
  }
  std::vector<PrimExpr> x = *a.shape, y = *b.shape;
  bool a_vec = x.size() == 1, b_vec = y.size() == 1;
  if (a_vec) x.insert(x.begin(), tir::int_imm(1));
  if (b_vec) y.push_back(tir::int_imm(1));
  const PrimExpr& ka = x[x.size() - 1];
  const PrimExpr& kb = y[y.size() - 2];
  arith::Analyzer& ana = ctx.analyzer();
  if (!ana.prove_equal(ka, kb)) {
    auto* ca = tir::as_const_int(ka);
    auto* cb = tir::as_const_int(kb);
    RX_CHECK(!(ca && cb)) << "relax.matmul: reduction dimensions differ: " << tir::to_string(ka)
                          << " (last dim of '" << describe(call.args[0]) << "') vs "
                          << tir::to_string(kb) << " (dim -2 of '" << describe(call.args[1])
                          << "')";
    if (!ca || !cb) {
      // Symbolic and unprovable: the shape stays, checked at run time by the kernel.
    }
  }
  std::vector<PrimExpr> batch_a(x.begin(), x.end() - 2), batch_b(y.begin(), y.end() - 2);
  auto batch = broadcast_shapes(call, batch_a, batch_b, ana);
  if (!batch)
    return tensor_sinfo(dtype, int(std::max(batch_a.size(), batch_b.size())) + 2 - a_vec - b_vec);
  std::vector<PrimExpr> out = *batch;
  if (!a_vec) out.push_back(x[x.size() - 2]);
  if (!b_vec) out.push_back(y[y.size() - 1]);
  return tensor_sinfo(out, dtype);
}

/// One kernel: out[batch..., i, j] = sum_k a[batch..., i, k] * b[batch..., k, j], with 1-D
/// operands promoted (and their unit dim dropped again) and batch dims broadcast.
Expr legalize_matmul(BlockBuilder& bb, const Call& call) {
  const TensorStructInfo& out = legal_out(call);
  const TensorStructInfo& as = legal_arg(call, 0);
  const TensorStructInfo& bs = legal_arg(call, 1);
  bool a_vec = as.ndim == 1, b_vec = bs.ndim == 1;
  return te::call_te(
      bb, {call.args[0], call.args[1]},
      [&](const std::vector<te::Tensor>& t) {
        const te::Tensor &a = t[0], &b = t[1];
        DataType dt = out.dtype;
        return te::compute(
            *out.shape,
            [&](const std::vector<PrimExpr>& i) {
              te::Axis k = te::reduce_axis(a.shape().back(), "k");
              // Output indices: batch..., then i (unless a is a vector), then j (unless b is).
              size_t nbatch = i.size() - (a_vec ? 0 : 1) - (b_vec ? 0 : 1);
              std::vector<PrimExpr> batch(i.begin(), i.begin() + std::ptrdiff_t(nbatch));
              auto load = [&](const te::Tensor& x, std::vector<PrimExpr> tail) {
                size_t xb = x.ndim() - tail.size();
                std::vector<PrimExpr> idx;
                for (size_t d = 0; d < xb; ++d) {
                  const PrimExpr& dim = x.shape()[d];
                  idx.push_back(tir::is_const_int(dim, 1) ? tir::int_imm(0)
                                                          : batch[batch.size() - xb + d]);
                }
                idx.insert(idx.end(), tail.begin(), tail.end());
                return tir::cast(dt, x(idx));
              };
              std::vector<PrimExpr> at =
                  a_vec ? std::vector<PrimExpr>{k} : std::vector<PrimExpr>{i[nbatch], k};
              std::vector<PrimExpr> bt =
                  b_vec ? std::vector<PrimExpr>{k} : std::vector<PrimExpr>{k, i.back()};
              return te::sum(load(a, at) * load(b, bt), {k});
            },
            "matmul");
      },
      "matmul");
}

}  // namespace

void register_linear_algebra_ops(OpRegistry& reg) {
  OpInfo& op = reg.register_op("relax.matmul");
  op.summary = "Matrix product with NumPy semantics (batched, broadcasting).";
  op.arg_names = {"x1", "x2"};
  op.attrs = {{"out_dtype", AttrSpec::Kind::kDType, std::monostate{}, true,
               "result dtype (default: the operands')"}};
  op.infer = infer_matmul;
  op.pattern = OpPattern::kOutEWiseFusable;
  op.legalize = legalize_matmul;
}

}  // namespace op_detail

namespace op {
Expr matmul(Expr a, Expr b, DataType out_dtype) {
  Attrs attrs;
  if (!out_dtype.is_void()) attrs = make_attrs({{"out_dtype", out_dtype}});
  return call_op("relax.matmul", {std::move(a), std::move(b)}, attrs);
}
}  // namespace op
}  // namespace relax
