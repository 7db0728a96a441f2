// Element and N-d gathers and scatters with ONNX semantics (GatherElements, GatherND,
// ScatterElements, ScatterND) and the data-dependent nonzero.
//
// Gathers read the input at an index loaded from `indices` (negative indices count from the
// end). A scatter is written as a gather over the updates, since a kernel of the compute DSL
// defines each output element once: for output position p, a reduction over every update whose
// index lands on p combines them (sum, product, min, max), or, for reduction "none", a max
// reduction finds the last such update (the last write wins, as in a sequential loop) and a
// second stage reads it. This costs O(|output| * |updates along the scattered axes|), which is
// fine for the index-sized tensors these ops see; a packed-function fast path can come later.
//
// nonzero's result size is known only at run time: it is inferred as a rank-2 int64 tensor and
// legalised to a pure packed call of the runtime builtin vm.builtin.nonzero
// (runtime/builtins.cc), which allocates the [ndim, count] result.
#include <algorithm>

#include "infer_utils.h"
#include "legalize_utils.h"
#include "relax/op/op.h"
#include "relax/support/diagnostic.h"
#include "tensor_ops.h"

namespace relax {
namespace op_detail {

namespace {

void check_index_dtype(const Call& call, size_t i) {
  const TensorStructInfo& t = expect_tensor(call, i);
  RX_CHECK(t.dtype.is_void() || t.dtype.is_int() || t.dtype.is_uint())
      << op_name(call) << ": '" << arg_name(call, i) << "' should be an integer tensor, got "
      << t.dtype.to_string();
}

/// An index loaded from an indices tensor, as int64, with negative values counted from `dim`.
PrimExpr norm_index(const PrimExpr& k, const PrimExpr& dim) {
  PrimExpr v = tir::cast(DataType::Int(64), k);
  return tir::select(tir::lt(v, tir::int_imm(0)), v + dim, v);
}

/// norm_index clamped to [0, dim): the index of a gather's load. Out-of-range indices are
/// undefined behaviour in ONNX; clamping keeps the kernel's loads in bounds (and provably so
/// for the lowering's verifier).
PrimExpr load_index(const PrimExpr& k, const PrimExpr& dim) {
  return tir::min(tir::max(norm_index(k, dim), tir::int_imm(0)), dim - 1);
}

// ---- gather_elements(x, indices, axis)

StructInfo infer_gather_elements(const Call& call, BlockBuilder&) {
  const TensorStructInfo& x = expect_tensor(call, 0);
  const TensorStructInfo& ind = expect_tensor(call, 1);
  check_index_dtype(call, 1);
  int64_t axis = get_int(call.attrs, "axis", 0);
  if (x.ndim >= 0 && ind.ndim >= 0) {
    RX_CHECK(x.ndim == ind.ndim) << "relax.gather_elements: 'indices' has rank " << ind.ndim
                                 << " but 'x' has rank " << x.ndim << "; they must be equal";
  }
  int ndim = x.ndim >= 0 ? x.ndim : ind.ndim;
  if (ndim >= 0) check_constant_indices(call, 1, x, normalize_axis(call, axis, ndim));
  if (ind.shape) return tensor_sinfo(*ind.shape, x.dtype, x.vdevice);
  return tensor_sinfo(x.dtype, ndim, x.vdevice);
}

Expr legalize_gather_elements(BlockBuilder& bb, const Call& call) {
  const TensorStructInfo& out = legal_out(call);
  const TensorStructInfo& xs = legal_arg(call, 0);
  legal_arg(call, 1);
  size_t ax = size_t(normalize_axis(call, get_int(call.attrs, "axis", 0), xs.ndim));
  return te::call_te(
      bb, {call.args[0], call.args[1]},
      [&](const std::vector<te::Tensor>& a) {
        const te::Tensor &x = a[0], &ind = a[1];
        return te::compute(
            *out.shape,
            [&](const std::vector<PrimExpr>& i) {
              std::vector<PrimExpr> idx = i;
              idx[ax] = load_index(ind(i), x.shape()[ax]);
              return x(idx);
            },
            "gather_elements");
      },
      "gather_elements");
}

// ---- gather_nd(x, indices, batch_dims)

StructInfo infer_gather_nd(const Call& call, BlockBuilder&) {
  const TensorStructInfo& x = expect_tensor(call, 0);
  const TensorStructInfo& ind = expect_tensor(call, 1);
  check_index_dtype(call, 1);
  int64_t b = get_int(call.attrs, "batch_dims", 0);
  RX_CHECK(b >= 0) << "relax.gather_nd: batch_dims must be non-negative, got " << b;
  if (ind.ndim >= 0) {
    RX_CHECK(ind.ndim >= 1 && b < ind.ndim)
        << "relax.gather_nd: 'indices' of rank " << ind.ndim << " needs rank > batch_dims (" << b
        << ")";
  }
  if (x.ndim < 0 || !ind.shape) return tensor_sinfo(x.dtype, -1, x.vdevice);
  auto* m = tir::as_const_int(ind.shape->back());
  RX_CHECK(m != nullptr) << "relax.gather_nd: the last dimension of 'indices' must be a constant, got "
                         << tir::to_string(ind.shape->back());
  RX_CHECK(*m >= 1 && b + *m <= x.ndim)
      << "relax.gather_nd: the index depth " << *m << " plus batch_dims " << b
      << " exceeds the rank " << x.ndim << " of 'x'";
  if (!x.shape) return tensor_sinfo(x.dtype, ind.ndim - 1 + x.ndim - int(b + *m), x.vdevice);
  std::vector<PrimExpr> out(ind.shape->begin(), ind.shape->end() - 1);
  out.insert(out.end(), x.shape->begin() + std::ptrdiff_t(b + *m), x.shape->end());
  return tensor_sinfo(out, x.dtype, x.vdevice);
}

Expr legalize_gather_nd(BlockBuilder& bb, const Call& call) {
  const TensorStructInfo& out = legal_out(call);
  legal_arg(call, 0);
  const TensorStructInfo& is = legal_arg(call, 1);
  size_t b = size_t(get_int(call.attrs, "batch_dims", 0));
  size_t q = size_t(is.ndim);
  size_t m = size_t(*tir::as_const_int(is.shape->back()));
  return te::call_te(
      bb, {call.args[0], call.args[1]},
      [&](const std::vector<te::Tensor>& a) {
        const te::Tensor &x = a[0], &ind = a[1];
        return te::compute(
            *out.shape,
            [&](const std::vector<PrimExpr>& i) {
              std::vector<PrimExpr> idx(i.begin(), i.begin() + std::ptrdiff_t(b));
              std::vector<PrimExpr> ii(i.begin(), i.begin() + std::ptrdiff_t(q - 1));
              for (size_t j = 0; j < m; ++j) {
                ii.push_back(tir::int_imm(int64_t(j)));
                idx.push_back(load_index(ind(ii), x.shape()[b + j]));
                ii.pop_back();
              }
              idx.insert(idx.end(), i.begin() + std::ptrdiff_t(q - 1), i.end());
              return x(idx);
            },
            "gather_nd");
      },
      "gather_nd");
}

// ---- scatter_elements / scatter_nd

void check_reduction(const Call& call, bool elements) {
  std::string red = get_string(call.attrs, "reduction", "none");
  bool ok = red == "none" || red == "add" || red == "mul" ||
            (elements && (red == "min" || red == "max"));
  RX_CHECK(ok) << op_name(call) << ": reduction '" << red << "' is not one of "
               << (elements ? "none, add, mul, min, max" : "none, add, mul");
}

StructInfo infer_scatter_elements(const Call& call, BlockBuilder& ctx) {
  const TensorStructInfo& x = expect_tensor(call, 0);
  const TensorStructInfo& ind = expect_tensor(call, 1);
  const TensorStructInfo& upd = expect_tensor(call, 2);
  check_index_dtype(call, 1);
  check_reduction(call, true);
  unify_dtype(call, x.dtype, upd.dtype);
  int64_t axis = get_int(call.attrs, "axis", 0);
  for (const TensorStructInfo* t : {&ind, &upd}) {
    RX_CHECK(x.ndim < 0 || t->ndim < 0 || t->ndim == x.ndim)
        << "relax.scatter_elements: 'indices' and 'updates' must have the rank of 'x' (" << x.ndim
        << "), got rank " << t->ndim;
  }
  if (ind.shape && upd.shape) {
    for (size_t k = 0; k < ind.shape->size(); ++k) {
      RX_CHECK(!ctx.analyzer().can_prove(tir::ne((*ind.shape)[k], (*upd.shape)[k])))
          << "relax.scatter_elements: 'indices' " << to_string(StructInfo(&ind))
          << " and 'updates' " << to_string(StructInfo(&upd)) << " must have the same shape";
    }
  }
  if (x.ndim >= 0) normalize_axis(call, axis, x.ndim);
  return StructInfo(&x);
}

StructInfo infer_scatter_nd(const Call& call, BlockBuilder& ctx) {
  const TensorStructInfo& x = expect_tensor(call, 0);
  const TensorStructInfo& ind = expect_tensor(call, 1);
  const TensorStructInfo& upd = expect_tensor(call, 2);
  check_index_dtype(call, 1);
  check_reduction(call, false);
  unify_dtype(call, x.dtype, upd.dtype);
  if (!x.shape || !ind.shape || !upd.shape) return StructInfo(&x);
  auto* m = tir::as_const_int(ind.shape->back());
  RX_CHECK(m != nullptr) << "relax.scatter_nd: the last dimension of 'indices' must be a constant, got "
                         << tir::to_string(ind.shape->back());
  RX_CHECK(*m >= 1 && *m <= x.ndim) << "relax.scatter_nd: the index depth " << *m
                                    << " must be in [1, rank of 'x' = " << x.ndim << "]";
  // updates.shape = indices.shape[:-1] + x.shape[m:]
  std::vector<PrimExpr> want(ind.shape->begin(), ind.shape->end() - 1);
  want.insert(want.end(), x.shape->begin() + std::ptrdiff_t(*m), x.shape->end());
  bool ok = want.size() == upd.shape->size();
  for (size_t k = 0; ok && k < want.size(); ++k)
    ok = !ctx.analyzer().can_prove(tir::ne(want[k], (*upd.shape)[k]));
  RX_CHECK(ok) << "relax.scatter_nd: 'updates' " << to_string(StructInfo(&upd))
               << " should have shape indices.shape[:-1] + x.shape[" << *m
               << ":] = " << to_string(shape_sinfo(want));
  return StructInfo(&x);
}

/// Combines `x` at the output position with the `updates` values that land there. `value(r)`
/// is the update at reduce position(s) `r`, `match(r)` whether it lands on the output position;
/// `last_value(k)` reads the update at flat reduce position k (for "none").
struct ScatterPlan {
  std::vector<PrimExpr> reduce_extents;
  std::function<PrimExpr(const std::vector<PrimExpr>& out, const std::vector<PrimExpr>& r)> match;
  std::function<PrimExpr(const std::vector<PrimExpr>& out, const std::vector<PrimExpr>& r)> value;
};

te::Tensor scatter_kernel(const te::Tensor& x, const std::string& reduction,
                          const ScatterPlan& plan, const std::string& name) {
  auto axes = [&]() {
    std::vector<te::Axis> rs;
    for (size_t k = 0; k < plan.reduce_extents.size(); ++k)
      rs.push_back(te::reduce_axis(plan.reduce_extents[k], "r" + std::to_string(k)));
    return rs;
  };
  auto vars = [](const std::vector<te::Axis>& rs) {
    return std::vector<PrimExpr>(rs.begin(), rs.end());
  };
  if (reduction == "none") {
    // The flat position of the last matching update, -1 when none.
    te::Tensor last = te::compute(
        x.shape(),
        [&](const std::vector<PrimExpr>& i) {
          std::vector<te::Axis> rs = axes();
          std::vector<PrimExpr> r = vars(rs);
          return te::max(tir::select(plan.match(i, r), flat_index(r, plan.reduce_extents),
                                     tir::int_imm(-1)),
                         rs);
        },
        name + "_last");
    return te::compute(
        x.shape(),
        [&](const std::vector<PrimExpr>& i) {
          PrimExpr k = last(i);
          std::vector<PrimExpr> r =
              unflatten_index(tir::max(k, tir::int_imm(0)), plan.reduce_extents);
          return te::if_then_else(tir::ge(k, tir::int_imm(0)), plan.value(i, r), x(i));
        },
        name);
  }
  te::Tensor acc = te::compute(
      x.shape(),
      [&](const std::vector<PrimExpr>& i) -> te::Body {
        std::vector<te::Axis> rs = axes();
        std::vector<PrimExpr> r = vars(rs);
        PrimExpr v = plan.value(i, r), m = plan.match(i, r);
        if (reduction == "add") return te::sum(v, rs, m);
        if (reduction == "mul") return te::prod(v, rs, m);
        if (reduction == "min") return te::min(v, rs, m);
        return te::max(v, rs, m);
      },
      name + "_acc");
  return te::compute(
      x.shape(),
      [&](const std::vector<PrimExpr>& i) {
        if (reduction == "add") return x(i) + acc(i);
        if (reduction == "mul") return x(i) * acc(i);
        if (reduction == "min") return tir::min(x(i), acc(i));
        return tir::max(x(i), acc(i));
      },
      name);
}

Expr legalize_scatter_elements(BlockBuilder& bb, const Call& call) {
  legal_out(call);
  const TensorStructInfo& xs = legal_arg(call, 0);
  legal_arg(call, 1);
  legal_arg(call, 2);
  size_t ax = size_t(normalize_axis(call, get_int(call.attrs, "axis", 0), xs.ndim));
  std::string reduction = get_string(call.attrs, "reduction", "none");
  return te::call_te(
      bb, {call.args[0], call.args[1], call.args[2]},
      [&](const std::vector<te::Tensor>& a) {
        const te::Tensor &x = a[0], &ind = a[1], &upd = a[2];
        // Output position p receives the updates q with q[k] = p[k] off the axis and
        // indices[q] == p[axis]: one reduce axis along `axis` of the indices.
        auto pos = [&, ax](const std::vector<PrimExpr>& p, const std::vector<PrimExpr>& r) {
          std::vector<PrimExpr> q = p;
          for (size_t k = 0; k < q.size(); ++k)
            q[k] = k == ax ? r[0] : tir::min(p[k], ind.shape()[k] - 1);
          return q;
        };
        ScatterPlan plan;
        plan.reduce_extents = {ind.shape()[ax]};
        plan.match = [&, ax](const std::vector<PrimExpr>& p, const std::vector<PrimExpr>& r) {
          PrimExpr ok = tir::eq(norm_index(ind(pos(p, r)), x.shape()[ax]), p[ax]);
          for (size_t k = 0; k < p.size(); ++k)
            if (k != ax) ok = tir::logical_and(ok, tir::lt(p[k], ind.shape()[k]));
          return ok;
        };
        plan.value = [&](const std::vector<PrimExpr>& p, const std::vector<PrimExpr>& r) {
          return upd(pos(p, r));
        };
        return scatter_kernel(x, reduction, plan, "scatter_elements");
      },
      "scatter_elements");
}

Expr legalize_scatter_nd(BlockBuilder& bb, const Call& call) {
  legal_out(call);
  legal_arg(call, 0);
  const TensorStructInfo& is = legal_arg(call, 1);
  legal_arg(call, 2);
  size_t m = size_t(*tir::as_const_int(is.shape->back()));
  std::string reduction = get_string(call.attrs, "reduction", "none");
  return te::call_te(
      bb, {call.args[0], call.args[1], call.args[2]},
      [&](const std::vector<te::Tensor>& a) {
        const te::Tensor &x = a[0], &ind = a[1], &upd = a[2];
        // One reduce axis per batch dimension of the indices (all but the last).
        ScatterPlan plan;
        plan.reduce_extents.assign(ind.shape().begin(), ind.shape().end() - 1);
        plan.match = [&, m](const std::vector<PrimExpr>& p, const std::vector<PrimExpr>& r) {
          PrimExpr ok = tir::bool_imm(true);
          std::vector<PrimExpr> ii = r;
          for (size_t j = 0; j < m; ++j) {
            ii.push_back(tir::int_imm(int64_t(j)));
            ok = tir::logical_and(ok, tir::eq(norm_index(ind(ii), x.shape()[j]), p[j]));
            ii.pop_back();
          }
          return ok;
        };
        plan.value = [&, m](const std::vector<PrimExpr>& p, const std::vector<PrimExpr>& r) {
          std::vector<PrimExpr> ui = r;
          ui.insert(ui.end(), p.begin() + std::ptrdiff_t(m), p.end());
          return upd(ui);
        };
        if (plan.reduce_extents.empty()) plan.reduce_extents.push_back(tir::int_imm(1));
        // With indices of rank 1 the single (dummy) reduce axis has extent 1 and no index.
        if (ind.ndim() == 1) {
          auto match = plan.match;
          auto value = plan.value;
          plan.match = [match](const std::vector<PrimExpr>& p, const std::vector<PrimExpr>&) {
            return match(p, {});
          };
          plan.value = [value](const std::vector<PrimExpr>& p, const std::vector<PrimExpr>&) {
            return value(p, {});
          };
        }
        return scatter_kernel(x, reduction, plan, "scatter_nd");
      },
      "scatter_nd");
}

// ---- nonzero(x)

StructInfo infer_nonzero(const Call& call, BlockBuilder&) {
  const TensorStructInfo& x = expect_tensor(call, 0);
  // [ndim, count]: count is known only at run time, so only the rank is inferred.
  return tensor_sinfo(DataType::Int(64), 2, x.vdevice);
}

Expr legalize_nonzero(BlockBuilder&, const Call& call) {
  expect_tensor(call, 0);
  return op::call_pure_packed("vm.builtin.nonzero", {call.args[0]}, {call.struct_info});
}

}  // namespace

void register_gather_scatter_ops(OpRegistry& reg) {
  {
    OpInfo& op = reg.register_op("relax.gather_elements");
    op.summary = "out[i] = x[i with i[axis] replaced by indices[i]] (ONNX GatherElements).";
    op.arg_names = {"x", "indices"};
    op.attrs = {{"axis", AttrSpec::Kind::kInt, int64_t(0), false, "the indexed axis"}};
    op.infer = infer_gather_elements;
    op.pattern = OpPattern::kInjective;
    op.legalize = legalize_gather_elements;
  }
  {
    OpInfo& op = reg.register_op("relax.gather_nd");
    op.summary = "Gather slices at N-d indices (ONNX GatherND).";
    op.arg_names = {"x", "indices"};
    op.attrs = {{"batch_dims", AttrSpec::Kind::kInt, int64_t(0), false,
                 "leading dimensions shared by x and indices"}};
    op.infer = infer_gather_nd;
    op.pattern = OpPattern::kInjective;
    op.legalize = legalize_gather_nd;
  }
  {
    OpInfo& op = reg.register_op("relax.scatter_elements");
    op.summary = "Write updates into a copy of x at indices along an axis (ONNX ScatterElements).";
    op.arg_names = {"x", "indices", "updates"};
    op.attrs = {{"axis", AttrSpec::Kind::kInt, int64_t(0), false, "the indexed axis"},
                {"reduction", AttrSpec::Kind::kString, std::string("none"), false,
                 "none (last update wins), add, mul, min or max"}};
    op.infer = infer_scatter_elements;
    op.pattern = OpPattern::kOpaque;
    op.legalize = legalize_scatter_elements;
  }
  {
    OpInfo& op = reg.register_op("relax.scatter_nd");
    op.summary = "Write update slices into a copy of x at N-d indices (ONNX ScatterND).";
    op.arg_names = {"x", "indices", "updates"};
    op.attrs = {{"reduction", AttrSpec::Kind::kString, std::string("none"), false,
                 "none (last update wins), add or mul"}};
    op.infer = infer_scatter_nd;
    op.pattern = OpPattern::kOpaque;
    op.legalize = legalize_scatter_nd;
  }
  {
    OpInfo& op = reg.register_op("relax.nonzero");
    op.summary = "Indices of the non-zero elements, int64 [ndim, count]; data-dependent shape.";
    op.arg_names = {"x"};
    op.infer = infer_nonzero;
    op.pattern = OpPattern::kOpaque;
    op.legalize = legalize_nonzero;
  }
}

}  // namespace op_detail

namespace op {
Expr gather_elements(Expr x, Expr indices, int64_t axis) {
  return call_op("relax.gather_elements", {std::move(x), std::move(indices)},
                 make_attrs({{"axis", axis}}));
}
Expr gather_nd(Expr x, Expr indices, int64_t batch_dims) {
  return call_op("relax.gather_nd", {std::move(x), std::move(indices)},
                 make_attrs({{"batch_dims", batch_dims}}));
}
Expr scatter_elements(Expr x, Expr indices, Expr updates, int64_t axis,
                      const std::string& reduction) {
  return call_op("relax.scatter_elements", {std::move(x), std::move(indices), std::move(updates)},
                 make_attrs({{"axis", axis}, {"reduction", reduction}}));
}
Expr scatter_nd(Expr x, Expr indices, Expr updates, const std::string& reduction) {
  return call_op("relax.scatter_nd", {std::move(x), std::move(indices), std::move(updates)},
                 make_attrs({{"reduction", reduction}}));
}
Expr nonzero(Expr x) { return call_op("relax.nonzero", {std::move(x)}); }
}  // namespace op
}  // namespace relax
