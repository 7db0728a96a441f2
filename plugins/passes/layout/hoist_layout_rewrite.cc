// hoist-layout-rewrite: the design's HoistLayoutRewrite (appendix). A PrimFunc whose prologue
// relays out an input into a buffer it allocates (or whose epilogue relays out a buffer it
// allocates into its output),
//
//   B_ = T.alloc_buffer((16, 4, 4))
//   for i0, i1: with T.block("layout_rewrite"): B_[i1, i0 // 4, i0 % 4] = B[i0, i1]
//   ... the computation reads B_ ...
//
// loses that prologue: the parameter B takes B_'s shape and the computation reads it directly;
// the rewrite becomes a PrimFunc of its own (`layout_rewrite`, SRC -> TGT) called before it,
// or, with compact=true, the compact R.layout_transform of the same index map, which
// flow-layout and fold-layout can then move, cancel or fold into a constant weight. The
// computation is marked "layout_frozen": its layouts were chosen (by a schedule) and stay.
//
// An epilogue `out[f(u)] = tmp[u]` is the mirror image: the output parameter takes tmp's
// layout and the rewrite follows the call. A prologue block qualifies when it is a top-level loop nest of the root block holding one
// block of spatial variables bound to the loops, whose body is `T[f(v)] = S[v]` with S an
// input parameter read nowhere else, T a root allocation, v the block variables (in any
// order) and f a padding-free rearrangement of S's shape onto T's (arith::IndexMap); the
// "meta_schedule.layout_rewrite_preproc" annotation is accepted but not needed. Every call_tir
// of the PrimFunc in the module's Relax functions is updated. A PrimFunc with no such block is
// left alone.
#include <map>

#include "relax/ir/block_builder.h"
#include "relax/ir/expr_functor.h"
#include "relax/op/op.h"
#include "relax/sdk/plugin.h"
#include "rewrite_util.h"
#include "tir_relayout.h"

namespace relax::layout {

using arith::IndexMap;

namespace {

/// A hoistable prologue of one PrimFunc.
struct Hoist {
  bool epilogue = false;   // out[f(u)] = tmp[u] at the end, instead of tmp[f(u)] = in[u]
  size_t stmt_index = 0;   // position among the root block's statements
  size_t param = 0;        // the parameter relaid out (an input; the output for an epilogue)
  Ref<tir::Buffer> src, dst;
  IndexMap map;            // dst[map(v)] = src[v]
  tir::Stmt nest;          // the loop nest
};

/// The single BlockRealize at the bottom of a nest of For loops, or null.
const tir::BlockRealize* nest_block(const tir::Stmt& s) {
  tir::Stmt cur = s;
  while (auto* f = cur.as<tir::For>()) cur = f->body;
  return cur.as<tir::BlockRealize>();
}

bool reads_buffer(const tir::Stmt& s, const tir::Buffer* b) {
  struct Finder : tir::StmtExprVisitor {
    const tir::Buffer* b;
    bool found = false;
    using tir::StmtExprVisitor::visit_;
    void visit_(const tir::BufferLoad* op) override {
      found |= op->buffer.get() == b;
      tir::StmtExprVisitor::visit_(op);
    }
    void visit_(const tir::BufferStore* op) override {
      found |= op->buffer.get() == b;
      tir::StmtExprVisitor::visit_(op);
    }
  } f;
  f.b = b;
  f(s);
  return f.found;
}

std::vector<tir::Stmt> root_stmts(const tir::Block& root) {
  if (auto* seq = root.body.as<tir::SeqStmt>()) return seq->seq;
  return {root.body};
}

std::optional<Hoist> find_hoist(const Ref<tir::PrimFunc>& func, size_t num_inputs) {
  auto* root_realize = func->body.as<tir::BlockRealize>();
  if (root_realize == nullptr) return std::nullopt;
  const tir::Block& root = *root_realize->block;
  std::vector<tir::Stmt> stmts = root_stmts(root);
  auto allocated = [&](const tir::Buffer* b) {
    for (const auto& a : root.alloc_buffers)
      if (a.get() == b) return true;
    return false;
  };
  auto param_of = [&](const tir::Buffer* b) {
    for (size_t p = 0; p < func->params.size(); ++p)
      if (func->param_buffer(p).get() == b) return p;
    return func->params.size();
  };
  for (size_t k = 0; k < stmts.size(); ++k) {
    const tir::BlockRealize* br = nest_block(stmts[k]);
    if (br == nullptr) continue;
    const tir::Block& b = *br->block;
    auto* store = b.body.as<tir::BufferStore>();
    auto* load = store == nullptr ? nullptr : store->value.as<tir::BufferLoad>();
    if (load == nullptr || b.init.defined()) continue;
    bool spatial = true;
    for (const auto& iv : b.iter_vars) spatial &= iv->type == tir::IterVarType::kSpatial;
    if (!spatial || load->indices.size() != b.iter_vars.size()) continue;
    Hoist h;
    size_t lp = param_of(load->buffer.get()), sp = param_of(store->buffer.get());
    if (lp < num_inputs && allocated(store->buffer.get())) {
      h.param = lp;  // prologue: tmp[f(u)] = in[u]
    } else if (sp >= num_inputs && sp < func->params.size() && allocated(load->buffer.get())) {
      h.epilogue = true;  // epilogue: out[f(u)] = tmp[u]
      h.param = sp;
    } else {
      continue;
    }
    for (const PrimExpr& i : load->indices) {
      auto* v = i.as<tir::Var>();
      if (v == nullptr) break;
      h.map.vars.push_back(Ref<tir::Var>(v));
    }
    if (h.map.vars.size() != load->indices.size()) continue;
    h.map.results = store->indices;
    bool padded = false;
    auto shape = arith::mapped_shape(h.map, load->buffer->shape);
    if (!shape || !arith::inverse_map(h.map, load->buffer->shape, &padded) || padded) continue;
    bool same = shape->size() == store->buffer->shape.size();
    for (size_t d = 0; same && d < shape->size(); ++d)
      same = arith::prove_equal((*shape)[d], store->buffer->shape[d]);
    if (!same) continue;
    // The parameter must be touched only here.
    const tir::Buffer* param = h.epilogue ? store->buffer.get() : load->buffer.get();
    bool elsewhere = false;
    for (size_t j = 0; j < stmts.size(); ++j)
      if (j != k) elsewhere |= reads_buffer(stmts[j], param);
    if (elsewhere) continue;
    h.stmt_index = k;
    h.src = load->buffer;
    h.dst = store->buffer;
    h.nest = stmts[k];
    return h;
  }
  return std::nullopt;
}

tir::Stmt root_of(tir::Stmt body, std::vector<Ref<tir::Buffer>> allocs) {
  auto block = make_ref<tir::Block>("root", std::vector<Ref<tir::IterVar>>{},
                                    std::vector<tir::BufferRegion>{},
                                    std::vector<tir::BufferRegion>{}, std::move(body), tir::Stmt(),
                                    std::move(allocs));
  return tir::block_realize({}, block);
}

/// The computation without its prologue, and the prologue as a PrimFunc of its own.
std::pair<Ref<tir::PrimFunc>, Ref<tir::PrimFunc>> split(const Ref<tir::PrimFunc>& func,
                                                        const Hoist& h) {
  const tir::Block& root = *func->body.as<tir::BlockRealize>()->block;
  std::vector<tir::Stmt> stmts = root_stmts(root);
  stmts.erase(stmts.begin() + long(h.stmt_index));
  // The parameter now holds the allocation's data: a buffer of its shape over the handle.
  const Ref<tir::Buffer>& old_param = h.epilogue ? h.dst : h.src;
  const Ref<tir::Buffer>& tmp = h.epilogue ? h.src : h.dst;
  std::vector<Ref<tir::Buffer>> allocs;
  for (const auto& a : root.alloc_buffers)
    if (a.get() != tmp.get()) allocs.push_back(a);
  Ref<tir::Buffer> param = tir::make_buffer(old_param->data, tmp->dtype, tmp->shape, old_param->name);
  tir::Stmt body = replace_buffers(tir::seq_stmt(stmts), {{tmp, param}});
  std::vector<std::pair<Ref<tir::Var>, Ref<tir::Buffer>>> bmap = func->buffer_map;
  for (auto& [v, b] : bmap)
    if (b.get() == old_param.get()) b = param;
  Ref<tir::PrimFunc> main = make_ref<tir::PrimFunc>(
      func->params, root_of(body, allocs), bmap, with_attr(func->attrs, "layout_frozen", true),
      func->ret_type);
  Ref<tir::Buffer> src = tir::decl_buffer(h.src->shape, h.src->dtype, "SRC");
  Ref<tir::Buffer> tgt = tir::decl_buffer(h.dst->shape, h.dst->dtype, "TGT");
  tir::Stmt nest = replace_buffers(h.nest, {{h.src, src}, {h.dst, tgt}});
  Ref<tir::PrimFunc> rewrite = tir::make_prim_func({src, tgt}, root_of(nest, {}),
                                                   {}, make_attrs({{"tir.noalias", true}}));
  return {main, rewrite};
}

/// Rewrites every call_tir of a hoisted PrimFunc.
class CallUpdater : public ExprMutator {
 public:
  struct Entry {
    Hoist hoist;
    Ref<GlobalVar> rewrite;  // the hoisted PrimFunc (unused with compact)
  };
  using Entries = std::map<std::string, std::vector<Entry>>;
  CallUpdater(IRModule mod, Entries entries, bool compact)
      : ExprMutator(std::move(mod)), entries_(std::move(entries)), compact_(compact) {}
  using ExprMutator::visit_;

  Expr visit_(const Call* op) override {
    Expr e = ExprMutator::visit_(op);
    auto* call = e.as<Call>();
    if (call == nullptr || op_name(*call) != "relax.call_tir") return e;
    auto* gv = call->args[0].as<GlobalVar>();
    auto* args = call->args[1].as<Tuple>();
    auto it = gv == nullptr ? entries_.end() : entries_.find(gv->name);
    if (it == entries_.end() || args == nullptr) return e;
    std::vector<Expr> fields = args->fields;
    std::vector<StructInfo> out = call->sinfo_args;
    std::vector<const Entry*> epilogues;
    for (const Entry& en : it->second) {
      const Hoist& h = en.hoist;
      if (h.epilogue) {
        if (out.size() != 1 || h.param != fields.size()) return e;
        out[0] = tensor_sinfo(h.src->shape, h.src->dtype);
        epilogues.push_back(&en);
        continue;
      }
      fields[h.param] = builder_.emit(rewrite_of(en, fields[h.param]), "layout_rewrite");
    }
    std::vector<Expr> new_args = call->args;
    new_args[1] = make_tuple(fields);
    Expr result = make_ref<Call>(call->op, new_args, call->attrs, out);
    for (const Entry* en : epilogues)
      result = rewrite_of(*en, builder_.emit(result, "computed"));
    return result;
  }

 private:
  Expr rewrite_of(const Entry& en, const Expr& x) const {
    const Hoist& h = en.hoist;
    if (compact_) return apply_map(x, h.map);
    return op::call_tir(en.rewrite, {x}, {tensor_sinfo(h.dst->shape, h.dst->dtype)});
  }

  Entries entries_;
  bool compact_;
};

/// The number of tensor inputs of the PrimFunc, from one of its call_tir sites.
std::map<std::string, size_t> input_counts(const IRModule& mod) {
  std::map<std::string, size_t> out;
  struct Finder : ExprVisitor {
    std::map<std::string, size_t>* out;
    using ExprVisitor::visit_;
    void visit_(const Call* op) override {
      if (op_name(*op) == "relax.call_tir" && op->args.size() >= 2)
        if (auto* gv = op->args[0].as<GlobalVar>())
          if (auto* t = op->args[1].as<Tuple>()) (*out)[gv->name] = t->fields.size();
      ExprVisitor::visit_(op);
    }
  } f;
  f.out = &out;
  for (const auto& e : mod.functions())
    if (e.func.is<Function>()) f(e.func);
  return out;
}

IRModule hoist_layout_rewrite(const IRModule& in, const transform::PassOptions& opts,
                              transform::PassContext&) {
  bool compact = opts.get_bool("compact");
  IRModule mod = in;
  CallUpdater::Entries entries;
  for (const auto& [name, inputs] : input_counts(in)) {
    auto prim = in.lookup(name).as_ref<tir::PrimFunc>();
    for (int round = 0; prim && round < 16; ++round) {
      auto h = find_hoist(prim, inputs);
      if (!h) break;
      auto [main, rewrite] = split(prim, *h);
      prim = main;
      mod.update(name, main);
      Ref<GlobalVar> rgv;
      if (!compact) {
        std::string n = "layout_rewrite";
        auto taken = [&](const std::string& s) {
          for (const auto& e : mod.functions())
            if (e.gv->name == s) return true;
          return false;
        };
        for (int k = 1; taken(n); ++k) n = "layout_rewrite" + std::to_string(k);
        rgv = mod.add(n, rewrite);
      }
      entries[name].push_back({*h, rgv});
    }
  }
  if (entries.empty()) return in;
  CallUpdater up(mod, entries, compact);
  std::vector<std::pair<Ref<GlobalVar>, BaseFunc>> updated;
  for (const auto& e : mod.functions())
    if (auto* f = e.func.as<Function>()) updated.emplace_back(e.gv, up.visit_expr(Expr(f)).as_ref<Function>());
  IRModule result = up.builder().get_module();
  for (const auto& [gv, f] : updated) result.update(gv, f);
  return result;
}

}  // namespace

void register_hoist_layout_rewrite(transform::PluginRegistrar& r) {
  r.add_pass({"hoist-layout-rewrite",
              "Lift layout-rewrite prologue blocks out of PrimFuncs into their own calls",
              transform::Granularity::kModule,
              {{"compact", transform::OptionType::kBool, false,
                "emit R.layout_transform instead of a call_tir of the hoisted PrimFunc"}}},
             transform::ModuleTransform(hoist_layout_rewrite));
}

}  // namespace relax::layout
