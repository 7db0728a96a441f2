// flow-layout: moves layout rewrites from the results of operations to their operands (the
// design's F1, "Minimize Layout Rewrite Cost in Graph"), so that fold-layout can then cancel
// them against other rewrites or fold them into constants.
//
//   y = R.add(c, bias)                                  t = R.layout_transform(c, M)
//   r = R.layout_transform(y, M)          becomes       b = R.layout_transform(bias, M_bias)
//                                                        r = R.add(t, b)
//
// A rewrite r = R(y) flows when R is a padding-free index map (layout_transform or
// permute_dims) and y is bound in the same dataflow block to a call of a
// Relax op that legalises or to a call_tir, and is not frozen (a PrimFunc with the
// "layout_frozen" attribute; freeze-layout marks the layout-critical ones). The operand
// rewrites come from a flow callback registered for the op or the PrimFunc
// (flow_callbacks.h), else from the PrimFunc itself — the call_tir's, or the one the op
// legalises to ("peek at the PrimFunc") — by reading the block that writes the result
// (tir_relayout.h: element-wise, broadcast and reduction blocks). An element-wise or broadcast
// Relax op is then re-emitted on the rewritten operands (its semantics do not depend on the
// layout, checked by inference); any other op becomes a call_tir of its PrimFunc with the
// buffers transformed (transform_layout). When y has other uses, y is computed rewritten and
// they read it back through the inverse rewrite (a residual connection: the rewrite flowing
// up the other branch cancels it). A rewrite that cannot flow stays where it is
// (multi-result ops, a tiling of an axis the op reads through a window, frozen functions).
//
// Minimising the cost: a flow is kept only when, after folding (fold-layout's rules, applied
// by this pass as it goes), the elements moved by the live rewrites of non-constants do not
// grow — so a rewrite moves up to cancel against another one or to fold into a constant, and
// not past an op where it would only multiply. A flow that grows the cost is kept when a few
// further flows of the rewrites it created (up to six deep) bring it back down: through a
// pooling (the rewrite grows) and the activation and bias before it to cancel at the
// convolution that produced them. greedy=true keeps every flow that is possible
// (the design's mechanism alone, without the cost check or the folding).
//
// Runs to a fixed point inside each dataflow block. Expects: normalized IR. Guarantees: the
// same values; the function's signature and results unchanged.
#include <algorithm>
#include <unordered_map>

#include "flow_callbacks.h"
#include "layout_util.h"
#include "relax/ir/block_builder.h"
#include "relax/ir/expr_functor.h"
#include "relax/op/op.h"
#include "relax/sdk/plugin.h"
#include "rewrite_util.h"
#include "tir_relayout.h"

namespace relax::layout {

using arith::IndexMap;

namespace {

bool is_rewrite_op(const std::string& name) {
  return name == "relax.layout_transform" || name == "relax.permute_dims" ||
         name == "relax.pad" || name == "relax.crop";
}

/// The axis permutation `map` performs on a tensor of `shape`: arith::as_permutation, where a
/// constant 0 result also stands for an axis of extent 1 that no other result names (the maps
/// write a batch of 1 as 0: `lambda n, c, h, w: (0, h, w, c)`). Nothing for other maps.
std::optional<std::vector<int64_t>> permutation_on(const IndexMap& map,
                                                   const std::vector<PrimExpr>& shape) {
  if (auto perm = arith::as_permutation(map)) return perm;
  size_t n = map.vars.size();
  if (map.results.size() != n || shape.size() != n) return std::nullopt;
  std::vector<int64_t> perm(n, -1);
  std::vector<bool> used(n, false);
  for (size_t k = 0; k < n; ++k)
    for (size_t v = 0; v < n; ++v)
      if (map.results[k].get() == map.vars[v].get() && !used[v]) {
        perm[k] = int64_t(v);
        used[v] = true;
      }
  for (size_t k = 0; k < n; ++k) {
    if (perm[k] >= 0) continue;
    if (!tir::is_const_int(map.results[k], 0)) return std::nullopt;
    for (size_t v = 0; v < n && perm[k] < 0; ++v)
      if (!used[v] && tir::is_const_int(shape[v], 1)) {
        perm[k] = int64_t(v);
        used[v] = true;
      }
    if (perm[k] < 0) return std::nullopt;
  }
  return perm;
}

/// How many times each variable is used in `e`.
class UseCounter : public ExprVisitor {
 public:
  using ExprVisitor::visit_;
  void visit_(const Var* op) override { ++uses[op]; }
  void visit_(const DataflowVar* op) override { ++uses[op]; }
  std::unordered_map<const Object*, int> uses;
};

class Flow {
 public:
  Flow(IRModule& mod, bool greedy) : mod_(mod), greedy_(greedy) {}

  Ref<Function> run(const Ref<Function>& func) {
    if (!func->body.is<SeqExpr>()) return func;
    Ref<Function> cur = greedy_ ? func : fold_layout_rewrites(func);
    int64_t cost = rewrite_cost(*cur);
    // Each round scans the bindings from last to first, going on after a flow from where it
    // was (the operand rewrites it created come next, so a chain moves up in one round);
    // rounds repeat until one moves nothing.
    for (int round = 0; round < 100000; ++round) {
      bool moved = false;
      for (size_t bi = cur->body.as<SeqExpr>()->blocks.size(); bi-- > 0;) {
        for (size_t k = cur->body.as<SeqExpr>()->blocks[bi]->bindings.size(); k-- > 0;) {
          auto* seq = cur->body.as<SeqExpr>();
          if (bi >= seq->blocks.size() || !seq->blocks[bi]->is_dataflow() ||
              seq->blocks[bi]->bindings.empty())
            break;
          k = std::min(k, seq->blocks[bi]->bindings.size() - 1);
          IRModule saved = mod_;
          bool shared = false;
          std::optional<Ref<Function>> flowed = flow_binding(*cur, bi, k, !greedy_, &shared);
          if (!flowed) {
            mod_ = saved;
            continue;
          }
          Ref<Function> next = *flowed;
          if (!greedy_) {
            int64_t c = rewrite_cost(*next);
            // A flow past a shared value must gain (else it could flow back and forth).
            int64_t bound = shared ? cost - 1 : cost;
            if (c > bound) {
              auto ahead = look_ahead(*cur, next, bound, kLookAhead, &c);
              if (!ahead) {
                mod_ = saved;
                continue;
              }
              next = *ahead;
            }
            cost = c;
          }
          cur = next;
          moved = true;
        }
      }
      if (!moved) break;
    }
    return cur;
  }

 private:
  /// `func` with the rewrite bound at binding k of block bi flowed (flow_at), then folded
  /// unless greedy; nothing when it cannot flow. Either way the module may have grown (the
  /// PrimFuncs peeked at or relaid out): a caller that drops the result restores it.
  std::optional<Ref<Function>> flow_binding(const Function& func, size_t bi, size_t k,
                                            bool allow_shared, bool* shared) {
    auto* seq = func.body.as<SeqExpr>();
    std::vector<Binding> bindings = seq->blocks[bi]->bindings;
    if (!flow_at(bindings, k, func, allow_shared, shared)) return std::nullopt;
    std::vector<Block> blocks = seq->blocks;
    blocks[bi] = make_block(bindings, true);
    Ref<Function> next = make_ref<Function>(func.params, make_ref<SeqExpr>(blocks, seq->body),
                                            func.ret_struct_info, func.is_pure, func.attrs,
                                            func.span);
    return greedy_ ? next : fold_layout_rewrites(next);
  }

  /// How many further flows a flow that raises the cost may take to bring it back down.
  static constexpr int kLookAhead = 6;

  /// A flow raised the cost from `bound` (`before` -> `after`): flows of the rewrites it
  /// created (new bindings of `after`), up to `depth` deep, that bring the cost back to
  /// `bound` or below — a rewrite moving up through a pooling grows before it cancels three
  /// ops later. The first such function (its cost in `cost`), or nothing (module restored).
  std::optional<Ref<Function>> look_ahead(const Function& before, const Ref<Function>& after,
                                          int64_t bound, int depth, int64_t* cost) {
    if (depth == 0) return std::nullopt;
    std::unordered_map<const Object*, int> old;
    for (const Block& b : before.body.as<SeqExpr>()->blocks)
      for (const Binding& bind : b->bindings) old[bind->var.get()] = 1;
    auto* seq = after->body.as<SeqExpr>();
    for (size_t bi = seq->blocks.size(); bi-- > 0;) {
      if (!seq->blocks[bi]->is_dataflow()) continue;
      for (size_t k = seq->blocks[bi]->bindings.size(); k-- > 0;) {
        if (old.count(seq->blocks[bi]->bindings[k]->var.get())) continue;
        IRModule saved = mod_;
        bool shared = false;
        std::optional<Ref<Function>> next = flow_binding(*after, bi, k, false, &shared);
        if (!next) {
          mod_ = saved;
          continue;
        }
        int64_t c = rewrite_cost(**next);
        if (c <= bound) {
          *cost = c;
          return next;
        }
        if (auto deeper = look_ahead(*after, *next, bound, depth - 1, cost)) return deeper;
        mod_ = saved;
      }
    }
    return std::nullopt;
  }

  /// The elements the live rewrites of non-constants move (a rewrite of unknown size counts 1).
  static int64_t rewrite_cost(const Function& func) {
    auto* seq = func.body.as<SeqExpr>();
    UseCounter live;
    live(seq->body);
    int64_t cost = 0;
    for (size_t bi = seq->blocks.size(); bi-- > 0;) {
      const auto& bs = seq->blocks[bi]->bindings;
      for (size_t k = bs.size(); k-- > 0;) {
        if (!live.uses.count(bs[k]->var.get())) continue;
        live(bs[k]->value);
        auto* call = bs[k]->value.as<Call>();
        if (call == nullptr || !is_rewrite_op(op_name(*call)) || call->args[0].is<Constant>())
          continue;
        int64_t n = 1;
        if (auto shape = shape_of(bs[k]->var))
          for (const PrimExpr& d : *shape)
            if (const int64_t* c = tir::as_const_int(d)) n *= *c;
        cost += n;
      }
    }
    return cost;
  }

  /// Flows the rewrite bound at bindings[k] into its operand's op; false when it cannot.
  /// `allow_shared`: also when the operand has other uses (`shared` says so).
  bool flow_at(std::vector<Binding>& bindings, size_t k, const Function& func, bool allow_shared,
               bool* shared_out) {
    UseCounter counter;
    counter(Expr(&func));
    std::unordered_map<const Object*, size_t> index;
    for (size_t j = 0; j < bindings.size(); ++j) index[bindings[j]->var.get()] = j;
    auto* r = bindings[k]->value.as<Call>();
    if (r == nullptr || !bindings[k].is<VarBinding>()) return false;
    std::string name = op_name(*r);
    if (name != "relax.layout_transform" && name != "relax.permute_dims") return false;
    auto map = rewrite_map(*r);
    auto it = index.find(r->args[0].get());
    if (!map || it == index.end()) return false;
    const Binding& ybind = bindings[it->second];
    bool shared = counter.uses[r->args[0].get()] != 1;
    if (ybind.is<MatchCast>() && !shared) return flow_match_cast(bindings, k, it->second, *map);
    auto* y = ybind->value.as<Call>();
    if (y == nullptr || !ybind.is<VarBinding>()) return false;
    // y used elsewhere too: it is computed rewritten, and the other uses read it back through
    // the inverse (which a rewrite flowing up from them cancels later).
    if (shared && !allow_shared) return false;
    *shared_out = shared;
    std::optional<arith::IndexMap> inverse;
    if (shared) {
      auto shape = shape_of(ybind->var);
      bool padded = false;
      if (shape) inverse = arith::inverse_map(*map, *shape, &padded);
      if (!inverse || padded) return false;
    }
    std::vector<Binding> emitted;
    std::optional<Expr> moved = flow(*y, *map, &emitted);
    if (!moved) return false;
    Binding result = make_ref<VarBinding>(bindings[k]->var, *moved);
    std::vector<Binding> out;
    for (size_t j = 0; j < bindings.size(); ++j) {
      if (j == it->second && shared) {
        out.insert(out.end(), emitted.begin(), emitted.end());
        out.push_back(result);
        BlockBuilder bb(mod_);
        out.push_back(make_ref<VarBinding>(ybind->var, bb.normalize(apply_map(bindings[k]->var, *inverse))));
        continue;
      }
      if (j == it->second || (j == k && shared)) continue;
      if (j == k) {
        out.insert(out.end(), emitted.begin(), emitted.end());
        out.push_back(result);
        continue;
      }
      out.push_back(bindings[j]);
    }
    bindings = std::move(out);
    return true;
  }

  /// A permutation r = permute_dims(y) of y = match_cast(x, S) used nowhere else: x is permuted
  /// and cast to S permuted (the same dimensions checked, in their new places). The importers
  /// cast where broadcasting needs equal symbolic shapes (a text detector's upsampled
  /// (h + 15) // 16 * 2 rows added to (h + 7) // 8 rows), and a flow stopping there left a
  /// transpose on each side of every feature-pyramid level.
  bool flow_match_cast(std::vector<Binding>& bindings, size_t k, size_t yi, const IndexMap& map) {
    const Expr& x = bindings[yi]->value;
    auto shape = shape_of(bindings[yi]->var);
    auto perm = shape ? permutation_on(map, *shape) : std::nullopt;
    if (!perm) return false;
    BlockBuilder bb(mod_);
    Expr value = bb.normalize(op::permute_dims(x, *perm));
    Ref<VarNode> v = make_dataflow_var(var_name(x), get_struct_info(value));
    std::vector<Binding> out;
    for (size_t j = 0; j < bindings.size(); ++j) {
      if (j == yi) continue;
      if (j == k) {
        out.push_back(make_ref<VarBinding>(v, value));
        out.push_back(make_ref<MatchCast>(bindings[k]->var, v, get_struct_info(bindings[k]->var)));
        continue;
      }
      out.push_back(bindings[j]);
    }
    bindings = std::move(out);
    return true;
  }

  /// An op with a `layout` attribute (relax.image.resize2d) under a permutation of its result:
  /// the op again on its permuted operand, the attribute permuted the same way ("NCHW" ->
  /// "NHWC"), where the op supports that layout (its inference checks; nothing otherwise). The
  /// PrimFunc route would keep the loops of the old layout.
  std::optional<Expr> flow_layout_attr(const Call& call, const IndexMap& map,
                                       const std::vector<PrimExpr>& out_shape,
                                       std::vector<Binding>* emitted) {
    auto* op = call.op.as<Op>();
    auto shape = shape_of(Expr(&call));
    auto perm = shape ? permutation_on(map, *shape) : std::nullopt;
    if (!perm || op == nullptr || call.args.empty()) return std::nullopt;
    std::string layout = layout_attr(call);
    if (layout.size() != perm->size()) return std::nullopt;
    Perm p(perm->begin(), perm->end());
    std::string now = permute_layout(layout, p);
    if (op->name == "relax.image.resize2d" && now != "NCHW" && now != "NHWC") return std::nullopt;
    BlockBuilder bb(mod_);
    Expr value = bb.normalize(op::permute_dims(call.args[0], *perm));
    Ref<VarNode> v = make_dataflow_var(var_name(call.args[0]), get_struct_info(value));
    std::vector<Expr> args = call.args;
    args[0] = v;
    Expr again;
    try {
      again = bb.normalize(
          make_ref<Call>(call.op, args, with_attr(call.attrs, "layout", now), call.sinfo_args));
    } catch (const Error&) {
      return std::nullopt;
    }
    auto* t = get_struct_info(again).as<TensorStructInfo>();
    if (t == nullptr || !t->shape || t->shape->size() != out_shape.size()) return std::nullopt;
    for (size_t i = 0; i < out_shape.size(); ++i)
      if (!arith::prove_equal((*t->shape)[i], out_shape[i])) return std::nullopt;
    emitted->push_back(make_ref<VarBinding>(v, value));
    return again;
  }

  /// `call` computing its result already rewritten by `map`, its operands' rewrites bound in
  /// `emitted`; nothing when the rewrite cannot flow through it.
  std::optional<Expr> flow(const Call& call, const IndexMap& map, std::vector<Binding>* emitted) {
    std::string name = op_name(call);
    if (is_rewrite_op(name)) return std::nullopt;
    auto* out = get_struct_info(Expr(&call)).as<TensorStructInfo>();
    if (out == nullptr || !out->shape) return std::nullopt;
    auto out_shape = arith::mapped_shape(map, *out->shape);
    if (!out_shape) return std::nullopt;
    if (name == "relax.image.resize2d") return flow_layout_attr(call, map, *out_shape, emitted);
    // The PrimFunc, its tensor inputs, and how to name it.
    BlockBuilder bb(mod_);
    Ref<tir::PrimFunc> prim;
    std::vector<Expr> inputs;
    std::string callee, base;
    std::optional<std::vector<PrimExpr>> tir_vars;
    if (name == "relax.call_tir") {
      auto* gv = call.args[0].as<GlobalVar>();
      auto* args = call.args[1].as<Tuple>();
      if (gv == nullptr || args == nullptr || call.sinfo_args.size() != 1) return std::nullopt;
      prim = mod_.lookup(gv->name).as_ref<tir::PrimFunc>();
      inputs = args->fields;
      callee = base = gv->name;
      if (call.args.size() > 2)
        if (auto* s = call.args[2].as<ShapeExpr>()) tir_vars = s->values;
    } else if (auto* op = call.op.as<Op>(); op != nullptr && op->info->legalize) {
      Expr legal = op->info->legalize(bb, call);
      auto* lc = legal.as<Call>();
      if (lc == nullptr || op_name(*lc) != "relax.call_tir") return std::nullopt;
      auto* gv = lc->args[0].as<GlobalVar>();
      auto* args = lc->args[1].as<Tuple>();
      if (gv == nullptr || args == nullptr) return std::nullopt;
      prim = bb.module().lookup(gv->name).as_ref<tir::PrimFunc>();
      inputs = args->fields;
      if (lc->args.size() > 2) {  // symbolic shapes: the PrimFunc's extra shape parameters
        auto* s = lc->args[2].as<ShapeExpr>();
        if (s == nullptr) return std::nullopt;
        tir_vars = s->values;
      }
      callee = name;
      base = gv->name;
    } else {
      return std::nullopt;
    }
    if (!prim || (prim->attrs.defined() && get_bool(prim->attrs, "layout_frozen", false)))
      return std::nullopt;
    // The operand maps: a callback's, else the writing block's access pattern.
    std::optional<std::vector<std::optional<IndexMap>>> maps;
    std::vector<std::pair<Ref<tir::Buffer>, IndexMap>> allocs;
    if (const FlowCallback* cb = find_flow_callback(callee)) {
      maps = (*cb)(call, map);
    } else {
      maps = flow_to_operands(prim, inputs.size(), map, nullptr, &allocs);
    }
    if (!maps || maps->size() != inputs.size()) return std::nullopt;
    // The rewritten operands.
    std::vector<Expr> new_inputs;
    for (size_t i = 0; i < inputs.size(); ++i) {
      const auto& m = (*maps)[i];
      auto shape = shape_of(inputs[i]);
      if (!m || !shape || arith::is_identity_map(*m, *shape)) {
        new_inputs.push_back(inputs[i]);
        continue;
      }
      Expr value = bb.normalize(apply_map(inputs[i], *m));
      Ref<VarNode> v = make_dataflow_var(var_name(inputs[i]), get_struct_info(value));
      emitted->push_back(make_ref<VarBinding>(v, value));
      new_inputs.push_back(v);
    }
    // A layout-agnostic Relax op keeps its form when inference agrees with the map.
    if (auto* op = call.op.as<Op>(); op != nullptr && name != "relax.call_tir" && allocs.empty() &&
                                      op->info->pattern <= OpPattern::kBroadcast &&
                                      inputs.size() == call.args.size()) {
      bool same = true;
      for (size_t i = 0; i < inputs.size(); ++i) same &= inputs[i].same_as(call.args[i]);
      if (same) {
        Expr again = bb.normalize(make_ref<Call>(call.op, new_inputs, call.attrs, call.sinfo_args));
        auto* t = get_struct_info(again).as<TensorStructInfo>();
        if (t != nullptr && t->shape && t->shape->size() == out_shape->size()) {
          bool equal = true;
          for (size_t k = 0; k < out_shape->size(); ++k)
            equal &= arith::prove_equal((*t->shape)[k], (*out_shape)[k]);
          if (equal) return again;
        }
      }
    }
    // Otherwise the PrimFunc with its buffers transformed.
    std::vector<std::optional<IndexMap>> all = *maps;
    all.push_back(map);
    all.resize(prim->params.size());
    auto relaid = relayout_prim_func(prim, all, nullptr, allocs);
    if (!relaid) return std::nullopt;
    // transform_block_layout: the writing block walks the result in its new memory order.
    relaid = realign_writers(prim, *relaid, allocs, inputs.size(), map);
    Ref<GlobalVar> gv = mod_.add(fresh_name(base + "_relayout"), *relaid);
    return bb.normalize(op::call_tir(gv, new_inputs, {tensor_sinfo(*out_shape, out->dtype, out->vdevice)},
                                     tir_vars));
  }

  static std::string var_name(const Expr& e) {
    if (auto* v = e.as<VarNode>()) return v->name + "_t";
    return "c_t";
  }
  std::string fresh_name(const std::string& base) {
    for (int k = 0;; ++k) {
      std::string n = k == 0 ? base : base + std::to_string(k);
      bool taken = false;
      for (const auto& e : mod_.functions()) taken |= e.gv->name == n;
      if (!taken) return n;
    }
  }

  IRModule& mod_;
  bool greedy_;
};

IRModule flow_layout(const IRModule& in, const transform::PassOptions& opts,
                     transform::PassContext&) {
  IRModule mod = in;
  Flow flow(mod, opts.get_bool("greedy"));
  for (const auto& e : in.functions())
    if (auto* f = e.func.as<Function>()) mod.update(e.gv, flow.run(Ref<Function>(f)));
  return mod;
}

}  // namespace

void register_flow_layout(transform::PluginRegistrar& r) {
  r.add_pass({"flow-layout",
              "Move layout rewrites from results to operands through ops and PrimFuncs",
              transform::Granularity::kModule,
              {{"greedy", transform::OptionType::kBool, false,
                "move every rewrite that can move, without the cost check or folding"}}},
             transform::ModuleTransform(flow_layout));
}

}  // namespace relax::layout
