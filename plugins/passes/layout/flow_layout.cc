// flow-layout: moves layout rewrites from the results of operations to their operands (the
// design's F1, "Minimize Layout Rewrite Cost in Graph"), so that fold-layout can then cancel
// them against other rewrites or fold them into constants.
//
//   y = R.add(c, bias)                                  t = R.layout_transform(c, M)
//   r = R.layout_transform(y, M)          becomes       b = R.layout_transform(bias, M_bias)
//                                                        r = R.add(t, b)
//
// A rewrite r = R(y) flows when R is a padding-free index map (layout_transform or
// permute_dims) and y is used only by it, is bound in the same dataflow block to a call of a
// Relax op that legalises or to a call_tir, and is not frozen (a PrimFunc with the
// "layout_frozen" attribute; freeze-layout marks the layout-critical ones). The operand
// rewrites come from a flow callback registered for the op or the PrimFunc
// (flow_callbacks.h), else from the PrimFunc itself — the call_tir's, or the one the op
// legalises to ("peek at the PrimFunc") — by reading the block that writes the result
// (tir_relayout.h: element-wise, broadcast and reduction blocks). An element-wise or broadcast
// Relax op is then re-emitted on the rewritten operands (its semantics do not depend on the
// layout, checked by inference); any other op becomes a call_tir of its PrimFunc with the
// buffers transformed (transform_layout). A rewrite that cannot flow stays where it is
// (multi-result ops, convolution windows, frozen functions, several uses).
//
// Minimising the cost: a flow is kept only when, after folding (fold-layout's rules, applied
// by this pass as it goes), the elements moved by the live rewrites of non-constants do not
// grow — so a rewrite moves up to cancel against another one or to fold into a constant, and
// not past an op where it would only multiply. greedy=true keeps every flow that is possible
// (the design's mechanism alone, without the cost check or the folding).
//
// Runs to a fixed point inside each dataflow block. Expects: normalized IR. Guarantees: the
// same values; the function's signature and results unchanged.
#include <unordered_map>

#include "flow_callbacks.h"
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
    for (int round = 0; round < 100000; ++round) {
      auto* seq = cur->body.as<SeqExpr>();
      bool moved = false;
      for (size_t bi = seq->blocks.size(); bi-- > 0 && !moved;) {
        if (!seq->blocks[bi]->is_dataflow()) continue;
        for (size_t k = seq->blocks[bi]->bindings.size(); k-- > 0 && !moved;) {
          IRModule saved = mod_;
          std::vector<Binding> bindings = seq->blocks[bi]->bindings;
          if (!flow_at(bindings, k, *cur)) continue;
          std::vector<Block> blocks = seq->blocks;
          blocks[bi] = make_block(bindings, true);
          Ref<Function> next = make_ref<Function>(cur->params, make_ref<SeqExpr>(blocks, seq->body),
                                                  cur->ret_struct_info, cur->is_pure,
                                                  cur->attrs, cur->span);
          if (!greedy_) {
            next = fold_layout_rewrites(next);
            int64_t c = rewrite_cost(*next);
            if (c > cost) {
              mod_ = saved;
              continue;
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
  bool flow_at(std::vector<Binding>& bindings, size_t k, const Function& func) {
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
    if (!map || it == index.end() || counter.uses[r->args[0].get()] != 1) return false;
    auto* y = bindings[it->second]->value.as<Call>();
    if (y == nullptr || !bindings[it->second].is<VarBinding>()) return false;
    std::vector<Binding> emitted;
    std::optional<Expr> moved = flow(*y, *map, &emitted);
    if (!moved) return false;
    Binding result = make_ref<VarBinding>(bindings[k]->var, *moved);
    std::vector<Binding> out;
    for (size_t j = 0; j < bindings.size(); ++j) {
      if (j == it->second) continue;
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

  /// `call` computing its result already rewritten by `map`, its operands' rewrites bound in
  /// `emitted`; nothing when the rewrite cannot flow through it.
  std::optional<Expr> flow(const Call& call, const IndexMap& map, std::vector<Binding>* emitted) {
    std::string name = op_name(call);
    if (is_rewrite_op(name)) return std::nullopt;
    auto* out = get_struct_info(Expr(&call)).as<TensorStructInfo>();
    if (out == nullptr || !out->shape) return std::nullopt;
    auto out_shape = arith::mapped_shape(map, *out->shape);
    if (!out_shape) return std::nullopt;
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
      if (gv == nullptr || args == nullptr || lc->args.size() > 2) return std::nullopt;
      prim = bb.module().lookup(gv->name).as_ref<tir::PrimFunc>();
      inputs = args->fields;
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
    if (auto aligned = realign_writer(prim, *relaid, inputs.size(), map)) relaid = aligned;
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
