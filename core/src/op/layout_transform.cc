// layout_transform: relayout a tensor through an index map, out[map(i)] = x[i] (TVM's
// relax.layout_transform, with tir::IndexMap semantics).
//
// Attributes: the map's parameters `index_vars` (one tir::Var per input axis) and its results
// `index_map` (PrimExprs of them), both as PrimExpr lists so that the printer writes them as
// `index_vars=[i, j], index_map=[i // 4, j, i % 4]`; `pad_value` (optional float) fills the
// result positions no input maps to, as non-divisible tiling creates (0 when absent).
//
// Inference bounds each result expression over the input's index ranges (sums, differences,
// multiplication by constants, floordiv/floormod by positive constants): the result dim is the
// upper bound + 1. Legalisation inverts the map (arith::inverse_map: any mixed-radix
// rearrangement — permutations, tiling, untiling such as `[a * 4 + c, b]`, fusing and splitting
// axes) and reads x at the inverse, guarded by the range test when a tiled axis does not
// divide (the padding positions); other maps are rejected with an error naming the map.
//
// relax.pad and relax.crop, the other two compact layout rewrites, live in pad_crop.cc and are
// registered with this op.
#include "relax/arith/index_map.h"
#include "infer_utils.h"
#include "legalize_utils.h"
#include "relax/op/op.h"
#include "relax/support/diagnostic.h"
#include "relax/tir/expr_functor.h"
#include "tensor_ops.h"

namespace relax {
namespace op_detail {

namespace {

struct MapAttrs {
  std::vector<Ref<tir::Var>> vars;
  std::vector<PrimExpr> results;
};

std::string map_text(const MapAttrs& m) {
  std::string s = "lambda ";
  for (size_t k = 0; k < m.vars.size(); ++k) s += (k ? ", " : "") + m.vars[k]->name;
  s += ": (";
  for (size_t k = 0; k < m.results.size(); ++k) s += (k ? ", " : "") + tir::to_string(m.results[k]);
  return s + ")";
}

MapAttrs map_attrs(const Call& call) {
  MapAttrs m;
  for (const PrimExpr& v : get_prim_exprs(call.attrs, "index_vars")) {
    auto* var = v.as<tir::Var>();
    RX_CHECK(var != nullptr) << "relax.layout_transform: 'index_vars' must be variables, got "
                             << tir::to_string(v);
    m.vars.push_back(Ref<tir::Var>(var));
  }
  m.results = get_prim_exprs(call.attrs, "index_map");
  RX_CHECK(!m.results.empty()) << "relax.layout_transform: 'index_map' is empty";
  return m;
}

/// [lo, hi] of `e` with each map variable ranging over its axis.
std::pair<PrimExpr, PrimExpr> bounds(const PrimExpr& e, const MapAttrs& m,
                                     const std::vector<PrimExpr>& shape, arith::Analyzer& ana) {
  auto fail = [&]() {
    RX_THROW() << "relax.layout_transform: cannot bound the index expression "
               << tir::to_string(e) << " of " << map_text(m)
               << " (supported: +, -, * by a constant, // and % by a positive constant)";
  };
  if (e.as<tir::IntImm>()) return {e, e};
  if (auto* v = e.as<tir::Var>()) {
    for (size_t k = 0; k < m.vars.size(); ++k)
      if (m.vars[k].get() == v) return {tir::int_imm(0), shape[k] - 1};
    fail();
  }
  if (auto* b = e.as<tir::Add>()) {
    auto [l1, h1] = bounds(b->a, m, shape, ana);
    auto [l2, h2] = bounds(b->b, m, shape, ana);
    return {l1 + l2, h1 + h2};
  }
  if (auto* b = e.as<tir::Sub>()) {
    auto [l1, h1] = bounds(b->a, m, shape, ana);
    auto [l2, h2] = bounds(b->b, m, shape, ana);
    return {l1 - h2, h1 - l2};
  }
  if (auto* b = e.as<tir::Mul>()) {
    const int64_t* c = tir::as_const_int(b->b);
    PrimExpr other = b->a;
    if (!c) {
      c = tir::as_const_int(b->a);
      other = b->b;
    }
    if (!c) fail();
    auto [l, h] = bounds(other, m, shape, ana);
    return *c >= 0 ? std::pair{l * *c, h * *c} : std::pair{h * *c, l * *c};
  }
  if (auto* b = e.as<tir::FloorDiv>()) {
    const int64_t* c = tir::as_const_int(b->b);
    if (!c || *c <= 0) fail();
    auto [l, h] = bounds(b->a, m, shape, ana);
    return {tir::floordiv(l, *c), tir::floordiv(h, *c)};
  }
  if (auto* b = e.as<tir::FloorMod>()) {
    const int64_t* c = tir::as_const_int(b->b);
    if (!c || *c <= 0) fail();
    auto [l, h] = bounds(b->a, m, shape, ana);
    if (ana.can_prove_greater_equal(l, 0) && ana.can_prove_less(h, *c)) return {l, h};
    return {tir::int_imm(0), tir::int_imm(*c - 1)};
  }
  fail();
  return {};
}

StructInfo infer_layout_transform(const Call& call, BlockBuilder& ctx) {
  const TensorStructInfo& x = expect_tensor(call, 0);
  MapAttrs m = map_attrs(call);
  RX_CHECK(x.ndim < 0 || size_t(x.ndim) == m.vars.size())
      << "relax.layout_transform: the index map " << map_text(m) << " takes " << m.vars.size()
      << " indices but the tensor has rank " << x.ndim;
  if (!x.shape) return tensor_sinfo(x.dtype, int(m.results.size()), x.vdevice);
  arith::Analyzer& ana = ctx.analyzer();
  std::vector<PrimExpr> out;
  for (const PrimExpr& r : m.results) {
    auto [lo, hi] = bounds(r, m, *x.shape, ana);
    RX_CHECK(ana.can_prove_greater_equal(ana.simplify(lo), 0))
        << "relax.layout_transform: the index expression " << tir::to_string(r) << " of "
        << map_text(m) << " may be negative (its lower bound is "
        << tir::to_string(ana.simplify(lo)) << ")";
    out.push_back(ana.simplify(hi + 1));
  }
  return tensor_sinfo(out, x.dtype, x.vdevice);
}

Expr legalize_layout_transform(BlockBuilder& bb, const Call& call) {
  const TensorStructInfo& out = legal_out(call);
  const TensorStructInfo& xs = legal_arg(call, 0);
  MapAttrs m = map_attrs(call);
  PrimExpr pad = const_of(get_float(call.attrs, "pad_value", 0), xs.dtype);
  arith::IndexMap map{m.vars, m.results};
  bool padded = false;
  std::optional<arith::IndexMap> inv = arith::inverse_map(map, *xs.shape, &padded);
  RX_CHECK(inv.has_value())
      << "relax.layout_transform: cannot invert the index map " << map_text(m)
      << "; each result must be a mixed-radix number of pieces (v // lo) % ext of the input "
         "indices that together cover each input index once (permutations, tiling, untiling, "
         "fusing or splitting axes)";
  return te::call_te(
      bb, {call.args[0]},
      [&](const std::vector<te::Tensor>& a) {
        const te::Tensor& x = a[0];
        return te::compute(
            *out.shape,
            [&](const std::vector<PrimExpr>& o) -> te::Body {
              std::vector<PrimExpr> idx = inv->apply(o);
              if (!padded) return x(idx);
              // A padded position: its inverse lies outside the input.
              PrimExpr ok = tir::bool_imm(true);
              for (size_t k = 0; k < idx.size(); ++k)
                ok = tir::logical_and(ok, tir::lt(idx[k], x.shape()[k]));
              return te::if_then_else(ok, x(idx), pad);
            },
            "layout_transform");
      },
      "layout_transform");
}

}  // namespace

void register_layout_transform_ops(OpRegistry& reg) {
  OpInfo& op = reg.register_op("relax.layout_transform");
  op.summary = "Relayout through an index map: out[map(i)] = x[i]; unmapped positions pad.";
  op.arg_names = {"x"};
  op.attrs = {{"index_vars", AttrSpec::Kind::kPrimExprs, std::monostate{}, false,
               "the index map's parameters, one per input axis"},
              {"index_map", AttrSpec::Kind::kPrimExprs, std::monostate{}, false,
               "the index map's results, expressions of index_vars"},
              {"pad_value", AttrSpec::Kind::kFloat, std::monostate{}, true,
               "value of positions no input maps to (0 when absent)"}};
  op.infer = infer_layout_transform;
  op.pattern = OpPattern::kInjective;
  op.legalize = legalize_layout_transform;
  register_pad_crop_ops(reg);
}

}  // namespace op_detail

namespace op {
Expr layout_transform(Expr x, std::vector<Ref<tir::Var>> index_vars,
                      std::vector<PrimExpr> index_map, std::optional<double> pad_value) {
  std::vector<PrimExpr> vars(index_vars.begin(), index_vars.end());
  std::vector<std::pair<std::string, AttrValue>> f = {{"index_vars", std::move(vars)},
                                                      {"index_map", std::move(index_map)}};
  if (pad_value) f.emplace_back("pad_value", *pad_value);
  return call_op("relax.layout_transform", {std::move(x)}, make_attrs(std::move(f)));
}
}  // namespace op
}  // namespace relax
