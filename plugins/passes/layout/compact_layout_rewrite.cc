// compact-layout-rewrite: the round trip from the PrimFunc form of a layout rewrite back to the
// compact form (the design's "Layout Representation"): a call_tir of a PrimFunc that only moves
// data becomes relax.layout_transform, relax.pad or relax.crop, which flow-layout and
// fold-layout understand. legalize-ops lowers the compact ops the other way.
//
// The PrimFunc must hold one block (under the root) of spatial variables v whose body is one
// store into the output T from the one input S, in one of these forms:
//   T[v] = S[v + c]                          (c >= 0)      -> crop(S, c, shape(T))
//   T[v] = if_then_else(cond, S[v - c], p)   (c >= 0)      -> pad(S, (c, rest), p)
//   T[v] = S[g(v)]                           g rearranges  -> layout_transform(S, g^-1)
//                                                             (permute_dims for a permutation)
//   T[v] = if_then_else(cond, S[g(v)], p)    g pads        -> layout_transform(S, g^-1, p)
//   T[f(u)] = S[u]                           f rearranges  -> layout_transform(S, f)
// (the forms legalize-ops and hoist-layout-rewrite produce; `cond` is taken to be the
// in-bounds test of the padded positions, which is what those forms mean). The compact op's
// inferred shape must be the call's; anything else is left alone.
#include <map>

#include "relax/ir/block_builder.h"
#include "relax/ir/expr_functor.h"
#include "relax/op/op.h"
#include "relax/sdk/plugin.h"
#include "rewrite_util.h"

namespace relax::layout {

using arith::IndexMap;

namespace {

/// The one block of `func` (root's only nest), or null.
const tir::Block* only_block(const tir::PrimFunc& func) {
  auto* root = func.body.as<tir::BlockRealize>();
  if (root == nullptr || !root->block->alloc_buffers.empty()) return nullptr;
  tir::Stmt cur = root->block->body;
  while (auto* f = cur.as<tir::For>()) cur = f->body;
  auto* br = cur.as<tir::BlockRealize>();
  if (br == nullptr || br->block->init.defined()) return nullptr;
  for (const auto& iv : br->block->iter_vars)
    if (iv->type != tir::IterVarType::kSpatial) return nullptr;
  return br->block.get();
}

/// `idx` as distinct variables among `vars`, or nothing.
std::optional<std::vector<Ref<tir::Var>>> as_vars(const std::vector<PrimExpr>& idx) {
  std::vector<Ref<tir::Var>> out;
  for (const PrimExpr& e : idx) {
    auto* v = e.as<tir::Var>();
    if (v == nullptr) return std::nullopt;
    for (const auto& o : out)
      if (o.get() == v) return std::nullopt;
    out.push_back(Ref<tir::Var>(v));
  }
  return out;
}

/// Per-axis constant offsets: idx[d] == vars[d] + c[d].
std::optional<std::vector<int64_t>> offsets(const std::vector<PrimExpr>& idx,
                                            const std::vector<Ref<tir::Var>>& vars) {
  if (idx.size() != vars.size()) return std::nullopt;
  std::vector<int64_t> c;
  for (size_t d = 0; d < idx.size(); ++d) {
    PrimExpr diff = arith::simplify(idx[d] - PrimExpr(vars[d]));
    const int64_t* k = tir::as_const_int(diff);
    if (k == nullptr) return std::nullopt;
    c.push_back(*k);
  }
  return c;
}

/// The compact op the PrimFunc computes on `src` into a tensor of `out` shape, or nothing.
std::optional<Expr> compact(const tir::PrimFunc& func, const Expr& src,
                            const std::vector<PrimExpr>& out) {
  const tir::Block* b = only_block(func);
  if (b == nullptr || func.params.size() != 2) return std::nullopt;
  Ref<tir::Buffer> S = func.param_buffer(0), T = func.param_buffer(1);
  auto* store = b->body.as<tir::BufferStore>();
  if (!S || !T || store == nullptr || store->buffer.get() != T.get()) return std::nullopt;
  const tir::BufferLoad* load = store->value.as<tir::BufferLoad>();
  std::optional<double> pad;
  if (auto* c = store->value.as<tir::Call>(); c && c->op == tir::Intrinsic::kIfThenElse) {
    load = c->args[1].as<tir::BufferLoad>();
    if (auto* f = c->args[2].as<tir::FloatImm>()) pad = f->value;
    if (auto* i = c->args[2].as<tir::IntImm>()) pad = double(i->value);
    if (!pad) return std::nullopt;
  }
  if (load == nullptr || load->buffer.get() != S.get()) return std::nullopt;
  // Scatter form: T[f(u)] = S[u].
  if (auto u = as_vars(load->indices); u && !pad && u->size() == S->shape.size()) {
    IndexMap f{*u, store->indices};
    bool padded = false;
    if (arith::inverse_map(f, S->shape, &padded) && !padded) return apply_map(src, f);
  }
  auto v = as_vars(store->indices);
  if (!v) return std::nullopt;
  // Shifts: crop and pad.
  if (auto c = offsets(load->indices, *v)) {
    bool all_pos = true, all_neg = true;
    for (int64_t k : *c) {
      all_pos &= k >= 0;
      all_neg &= k <= 0;
    }
    if (all_pos && !pad) {
      std::vector<int64_t> sizes;
      for (const PrimExpr& d : out) {
        const int64_t* k = tir::as_const_int(d);
        if (k == nullptr) return std::nullopt;
        sizes.push_back(*k);
      }
      return op::crop(src, *c, sizes);
    }
    if (all_neg && pad) {
      std::vector<int64_t> pw;
      for (size_t d = 0; d < c->size(); ++d) {
        const int64_t* o = tir::as_const_int(out[d]);
        const int64_t* s = tir::as_const_int(S->shape[d]);
        if (o == nullptr || s == nullptr) return std::nullopt;
        pw.push_back(-(*c)[d]);
        pw.push_back(*o - *s + (*c)[d]);
      }
      return op::rx_pad(src, pw, *pad);
    }
  }
  // Gather form: T[v] = S[g(v)], g a rearrangement of T's shape (padded when it reaches past S).
  IndexMap g{*v, load->indices};
  bool padded = false;
  auto inv = arith::inverse_map(g, T->shape, &padded);
  if (!inv || padded) return std::nullopt;
  auto reach = arith::mapped_shape(g, T->shape);
  bool exact = reach->size() == S->shape.size();
  for (size_t d = 0; exact && d < reach->size(); ++d)
    exact = arith::prove_equal((*reach)[d], S->shape[d]);
  if (exact == pad.has_value()) return std::nullopt;
  if (!pad) return apply_map(src, *inv);
  IndexMap m = fresh_copy(*inv);
  return op::layout_transform(src, m.vars, m.results, pad);
}

class Compactor : public ExprMutator {
 public:
  explicit Compactor(IRModule mod) : ExprMutator(mod), mod_(std::move(mod)) {}
  using ExprMutator::visit_;

  Expr visit_(const Call* op) override {
    Expr e = ExprMutator::visit_(op);
    auto* call = e.as<Call>();
    if (call == nullptr || op_name(*call) != "relax.call_tir" || call->args.size() != 2 ||
        call->sinfo_args.size() != 1)
      return e;
    auto* gv = call->args[0].as<GlobalVar>();
    auto* args = call->args[1].as<Tuple>();
    auto* out = call->sinfo_args[0].as<TensorStructInfo>();
    if (gv == nullptr || args == nullptr || args->fields.size() != 1 || out == nullptr ||
        !out->shape)
      return e;
    auto prim = mod_.lookup(gv->name).as_ref<tir::PrimFunc>();
    if (!prim) return e;
    auto c = compact(*prim, args->fields[0], *out->shape);
    if (!c) return e;
    Expr n = builder_.normalize(*c);
    auto shape = shape_of(n);
    if (!shape || shape->size() != out->shape->size()) return e;
    for (size_t d = 0; d < shape->size(); ++d)
      if (!arith::prove_equal((*shape)[d], (*out->shape)[d])) return e;
    return n;
  }

 private:
  IRModule mod_;
};

IRModule compact_layout_rewrite(const IRModule& in, const transform::PassOptions&,
                                transform::PassContext&) {
  IRModule mod = in;
  Compactor c(in);
  for (const auto& e : in.functions())
    if (auto* f = e.func.as<Function>())
      mod.update(e.gv, c.visit_expr(Expr(f)).as_ref<Function>());
  return mod;
}

}  // namespace

void register_compact_layout_rewrite(transform::PluginRegistrar& r) {
  r.add_pass({"compact-layout-rewrite",
              "Turn call_tir of data-moving PrimFuncs into layout_transform, pad and crop",
              transform::Granularity::kModule,
              {}},
             transform::ModuleTransform(compact_layout_rewrite));
}

}  // namespace relax::layout
