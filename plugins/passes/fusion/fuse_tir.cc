// fuse-tir (module pass): replaces each `Primitive` Relax function (made by fuse-ops) by one
// PrimFunc of the same name that runs its parts in sequence, and each call of it by one
// call_tir.
//
// Input: primitive functions as fuse-ops makes them — parameters that are tensors of known
// shape or shapes, one dataflow block of call_tir bindings (one tensor output each) of
// PrimFuncs of the module, ending in the function's tensor result. Anything else is a
// relax::Error naming the function and the binding. Constants in the call_tirs (composites of
// fuse-ops-by-pattern keep theirs) are first made parameters (lift_constants.cc).
//
// The fused PrimFunc takes a buffer per tensor parameter, then the output buffer, then a scalar
// for each symbolic variable that no buffer dimension defines (the call passes those as
// tir_vars). Each part's body is copied with fresh loop, block and let variables (a PrimFunc
// may appear twice in a group), its parameters' buffers mapped to the fused buffers, its
// symbolic variables replaced by the dimensions of the values it is called with (matched on
// the shapes of its buffers) and its scalar parameters by the call's tir_vars. The group's
// intermediate values become alloc_buffers of the fused root block, so they are local to the
// kernel; the parts' own root alloc_buffers join them. Block names are made unique.
//
// Guarantees: no Primitive functions remain; the PrimFuncs only the fused functions called are
// removed; the result lowers (tir::lower) like the parts did.
#include <unordered_map>
#include <unordered_set>

#include "fusion.h"
#include "relax/ir/expr_functor.h"
#include "relax/ir/struct_info_analysis.h"
#include "relax/tir/expr_functor.h"
#include "relax/tir/stmt_functor.h"
#include "relax/transform/pass.h"

namespace relax::fusion {
namespace {

using tir::Buffer;
using tir::PrimExpr;
using tir::Stmt;

/// Copies one part's statements into the fused function: fresh definitions, buffers and
/// variables mapped.
class PartCopier : public tir::StmtExprMutator {
 public:
  PartCopier(std::unordered_map<const tir::Var*, PrimExpr> vmap,
             std::unordered_map<const Buffer*, Ref<Buffer>> bmap,
             std::unordered_set<std::string>* block_names)
      : vmap_(std::move(vmap)), bmap_(std::move(bmap)), block_names_(block_names) {}
  using tir::StmtExprMutator::visit_;

  PrimExpr visit_(const tir::Var* op) override {
    auto it = vmap_.find(op);
    return it != vmap_.end() ? it->second : PrimExpr(op);
  }

  Ref<Buffer> visit_buffer(const Ref<Buffer>& b) override {
    auto it = bmap_.find(b.get());
    if (it != bmap_.end()) return it->second;
    // A buffer the part allocates: same layout over the mapped shape, new data variable.
    std::vector<PrimExpr> shape, strides;
    for (const auto& e : b->shape) shape.push_back(visit_expr(e));
    for (const auto& e : b->strides) strides.push_back(visit_expr(e));
    auto data_it = vmap_.find(b->data.get());
    Ref<tir::Var> data = data_it != vmap_.end() ? data_it->second.as_ref<tir::Var>()
                                                : tir::var(b->data->name, b->data->dtype);
    Ref<Buffer> nb = tir::make_buffer(data, b->dtype, std::move(shape), b->name, std::move(strides),
                                      visit_expr(b->elem_offset), b->scope);
    bmap_[b.get()] = nb;
    return nb;
  }

  Stmt visit_(const tir::For* op) override {
    Ref<tir::Var> v = renew(op->loop_var);
    PrimExpr min = visit_expr(op->min), extent = visit_expr(op->extent);
    return make_ref<tir::For>(v, min, extent, op->kind, visit_stmt(op->body), op->thread_tag,
                              op->annotations);
  }

  Stmt visit_(const tir::LetStmt* op) override {
    PrimExpr value = visit_expr(op->value);
    Ref<tir::Var> v = renew(op->var);
    return make_ref<tir::LetStmt>(v, value, visit_stmt(op->body));
  }

  PrimExpr visit_(const tir::Let* op) override {
    PrimExpr value = visit_expr(op->value);
    Ref<tir::Var> v = renew(op->var);
    return make_ref<tir::Let>(v, value, visit_expr(op->body));
  }

  Stmt visit_(const tir::Allocate* op) override {
    std::vector<PrimExpr> extents;
    for (const auto& e : op->extents) extents.push_back(visit_expr(e));
    Ref<tir::Var> v = renew(op->buffer_var);
    return make_ref<tir::Allocate>(v, op->dtype, std::move(extents), op->scope, visit_stmt(op->body),
                                   op->annotations);
  }

  Stmt visit_(const tir::Block* op) override {
    std::vector<Ref<tir::IterVar>> iter_vars;
    for (const auto& iv : op->iter_vars) {
      Range dom{visit_expr(iv->dom.min), visit_expr(iv->dom.extent)};
      iter_vars.push_back(make_ref<tir::IterVar>(renew(iv->var), dom, iv->type));
    }
    std::vector<tir::BufferRegion> reads, writes;
    if (!mutate_regions(op->reads, &reads)) reads = op->reads;
    if (!mutate_regions(op->writes, &writes)) writes = op->writes;
    std::vector<Ref<Buffer>> allocs;
    for (const auto& b : op->alloc_buffers) allocs.push_back(visit_buffer(b));
    std::vector<tir::MatchBufferRegion> matches;
    bool changed = false;
    for (const auto& m : op->match_buffers)
      matches.push_back({visit_buffer(m.buffer), mutate_region(m.source, &changed)});
    Stmt init = visit_opt(op->init);
    Stmt body = visit_stmt(op->body);
    return make_ref<tir::Block>(unique_name(op->name), std::move(iter_vars), std::move(reads),
                                std::move(writes), body, init, std::move(allocs),
                                std::move(matches), op->annotations);
  }

 private:
  using Range = tir::Range;

  Ref<tir::Var> renew(const Ref<tir::Var>& v) {
    Ref<tir::Var> nv = tir::var(v->name, v->dtype);
    vmap_[v.get()] = nv;
    return nv;
  }

  std::string unique_name(const std::string& name) {
    std::string n = name;
    for (int k = 1; !block_names_->insert(n).second; ++k) n = name + "_" + std::to_string(k);
    return n;
  }

  std::unordered_map<const tir::Var*, PrimExpr> vmap_;
  std::unordered_map<const Buffer*, Ref<Buffer>> bmap_;
  std::unordered_set<std::string>* block_names_;
};

const TensorStructInfo& known_tensor(const StructInfo& s, const std::string& func,
                                     const std::string& what) {
  auto* t = s.as<TensorStructInfo>();
  if (!t || !t->shape || t->dtype.is_void())
    RX_THROW() << "fuse-tir: in primitive function '" << func << "', " << what
               << " must be a tensor of known shape and dtype";
  return *t;
}

/// The fused PrimFunc of one primitive function, and the symbolic variables (of `func`) its
/// scalar parameters stand for.
struct Fused {
  Ref<tir::PrimFunc> prim;
  std::vector<Ref<tir::Var>> scalar_vars;
};

Fused fuse_function(const std::string& name, const Function& func, const IRModule& mod) {
  // Fresh TIR variables for the symbolic variables of the function's parameters.
  std::unordered_map<const tir::Var*, PrimExpr> sym;
  std::vector<Ref<tir::Var>> sym_order;
  auto define = [&](const Ref<tir::Var>& v) {
    if (sym.count(v.get())) return;
    sym[v.get()] = tir::var(v->name, v->dtype);
    sym_order.push_back(v);
  };
  for (const auto& p : func.params) {
    for (const auto& v : defined_symbolic_vars(p->struct_info)) define(v);
    if (auto* s = p->struct_info.as<ShapeStructInfo>(); s && s->values)
      for (const auto& e : *s->values)
        if (auto* v = e.as<tir::Var>()) define(Ref<tir::Var>(v));
  }
  auto sub = [&](const PrimExpr& e) {
    return tir::substitute(e, [&](const tir::Var* v) -> PrimExpr {
      auto it = sym.find(v);
      return it != sym.end() ? it->second : PrimExpr();
    });
  };
  auto sub_shape = [&](const TensorStructInfo& t) {
    std::vector<PrimExpr> out;
    for (const auto& e : *t.shape) out.push_back(sub(e));
    return out;
  };

  std::vector<Ref<Buffer>> buffers;
  std::unordered_map<const VarNode*, Ref<Buffer>> value_buffer;
  for (const auto& p : func.params) {
    if (p->struct_info.is<ShapeStructInfo>()) continue;
    const TensorStructInfo& t = known_tensor(p->struct_info, name, "parameter '" + p->name + "'");
    Ref<Buffer> b = tir::decl_buffer(sub_shape(t), t.dtype, p->name);
    buffers.push_back(b);
    value_buffer[p.get()] = b;
  }
  auto* seq = func.body.as<SeqExpr>();
  auto* out_var = seq ? seq->body.as<VarNode>() : nullptr;
  if (!seq || seq->blocks.size() != 1 || !out_var)
    RX_THROW() << "fuse-tir: primitive function '" << name
               << "' must be one dataflow block ending in a variable";
  const TensorStructInfo& out_t = known_tensor(out_var->struct_info, name, "the result");
  Ref<Buffer> out_buffer = tir::decl_buffer(sub_shape(out_t), out_t.dtype, out_var->name);
  buffers.push_back(out_buffer);

  std::vector<Ref<Buffer>> allocs;
  std::vector<Stmt> parts;
  std::unordered_set<std::string> block_names{"root"};
  int64_t weight_panel = 0;
  for (const Binding& b : seq->blocks[0]->bindings) {
    auto* call = b->value.as<Call>();
    auto* op = call ? call->op.as<Op>() : nullptr;
    auto* gv = op && op->name == "relax.call_tir" ? call->args[0].as<GlobalVar>() : nullptr;
    BaseFunc callee = gv ? mod.find(gv->name) : BaseFunc();
    auto part = callee.as_ref<tir::PrimFunc>();
    if (!b.is<VarBinding>() || !part)
      RX_THROW() << "fuse-tir: in primitive function '" << name << "', binding '" << b->var->name
                 << "' must be a call_tir of a PrimFunc of the module";
    const TensorStructInfo& t = known_tensor(b->var->struct_info, name, "'" + b->var->name + "'");
    Ref<Buffer> dst;
    if (b->var.get() == out_var) {
      dst = out_buffer;
    } else {
      dst = tir::decl_buffer(sub_shape(t), t.dtype, b->var->name);
      allocs.push_back(dst);
    }
    value_buffer[b->var.get()] = dst;
    // The part's parameters: tensor arguments, the output, then scalars from tir_vars.
    std::vector<Ref<Buffer>> actual;
    for (const Expr& a : call->args[1].as<Tuple>()->fields) {
      auto* v = a.as<VarNode>();
      auto it = v ? value_buffer.find(v) : value_buffer.end();
      if (it == value_buffer.end())
        RX_THROW() << "fuse-tir: in primitive function '" << name << "', an argument of '"
                   << b->var->name << "' is neither a parameter nor an earlier value of the group";
      actual.push_back(it->second);
    }
    actual.push_back(dst);
    std::vector<PrimExpr> scalars;
    if (call->args.size() > 2)
      for (const auto& e : call->args[2].as<ShapeExpr>()->values) scalars.push_back(sub(e));
    if (part->params.size() != actual.size() + scalars.size())
      RX_THROW() << "fuse-tir: in primitive function '" << name << "', PrimFunc '" << gv->name
                 << "' takes " << part->params.size() << " parameters but '" << b->var->name
                 << "' passes " << actual.size() + scalars.size();
    std::unordered_map<const tir::Var*, PrimExpr> vmap;
    std::unordered_map<const Buffer*, Ref<Buffer>> bmap;
    for (size_t i = 0; i < actual.size(); ++i) {
      Ref<Buffer> formal = part->param_buffer(i);
      if (!formal || formal->ndim() != actual[i]->ndim() || formal->dtype != actual[i]->dtype)
        RX_THROW() << "fuse-tir: in primitive function '" << name << "', parameter " << i
                   << " of PrimFunc '" << gv->name << "' does not match the buffer "
                   << tir::to_string(actual[i]) << " it is called with";
      bmap[formal.get()] = actual[i];
      for (size_t d = 0; d < formal->ndim(); ++d)
        if (auto* v = formal->shape[d].as<tir::Var>(); v && !vmap.count(v))
          vmap[v] = actual[i]->shape[d];
    }
    for (size_t i = 0; i < scalars.size(); ++i) vmap[part->params[actual.size() + i].get()] = scalars[i];
    // A part's packed-weight panel (the LLVM rules' weight_panel: its right operand is stored
    // in panels of that width) holds for the fused function; parts that disagree drop it.
    if (int64_t panel = part->attrs.defined() ? get_int(part->attrs, "weight_panel", 0) : 0)
      weight_panel = weight_panel == 0 || weight_panel == panel ? panel : -1;
    PartCopier copier(std::move(vmap), std::move(bmap), &block_names);
    auto* realize = part->body.as<tir::BlockRealize>();
    if (realize && realize->block->name == "root" && realize->block->iter_vars.empty() &&
        !realize->block->init.defined()) {
      for (const auto& a : realize->block->alloc_buffers) allocs.push_back(copier.visit_buffer(a));
      parts.push_back(copier.visit_stmt(realize->block->body));
    } else {
      parts.push_back(copier.visit_stmt(part->body));
    }
  }

  // Scalars for the symbolic variables no buffer dimension defines.
  std::unordered_set<const tir::Var*> by_buffer;
  for (const auto& b : buffers)
    for (const auto& e : b->shape)
      if (auto* v = e.as<tir::Var>()) by_buffer.insert(v);
  Fused fused;
  std::vector<Ref<tir::Var>> scalar_params;
  for (const auto& v : sym_order) {
    auto fresh = sym[v.get()].as_ref<tir::Var>();
    if (by_buffer.count(fresh.get())) continue;
    scalar_params.push_back(fresh);
    fused.scalar_vars.push_back(v);
  }
  auto root = make_ref<tir::Block>("root", std::vector<Ref<tir::IterVar>>{},
                                   std::vector<tir::BufferRegion>{}, std::vector<tir::BufferRegion>{},
                                   tir::seq_stmt(std::move(parts)), Stmt(), std::move(allocs));
  Attrs attrs = make_attrs({{tir::kAttrNoAlias, true}});
  if (weight_panel > 0) attrs = with_attr(attrs, "weight_panel", weight_panel);
  fused.prim = tir::make_prim_func(buffers, tir::block_realize({}, root), std::move(scalar_params),
                                   attrs);
  return fused;
}

/// Rewrites calls of primitive functions into call_tir of their fused PrimFuncs.
class CallRewriter : public BranchKeepingMutator {
 public:
  struct Target {
    Ref<GlobalVar> gv;
    const Function* func;
    std::vector<Ref<tir::Var>> scalar_vars;
  };
  explicit CallRewriter(std::unordered_map<std::string, Target> targets)
      : targets_(std::move(targets)) {}
  using BranchKeepingMutator::visit_;

  Expr visit_(const Call* op) override {
    auto* gv = op->op.as<GlobalVar>();
    auto it = gv ? targets_.find(gv->name) : targets_.end();
    if (it == targets_.end()) {
      Expr out = ExprMutatorBase::visit_(op);
      if (out.get() == op) return out;
      auto* c = out.as<Call>();
      return make_ref<Call>(c->op, c->args, c->attrs, c->sinfo_args, op->struct_info);
    }
    const Target& t = it->second;
    SymbolicVarMap bindings;
    std::vector<Expr> tensors;
    for (size_t i = 0; i < op->args.size() && i < t.func->params.size(); ++i) {
      bind_symbolic_vars(t.func->params[i]->struct_info, op->args[i]->struct_info, &bindings);
      if (!op->args[i]->struct_info.is<ShapeStructInfo>()) tensors.push_back(op->args[i]);
    }
    std::vector<Expr> call_args{t.gv, make_ref<Tuple>(std::move(tensors))};
    if (!t.scalar_vars.empty()) {
      std::vector<PrimExpr> values;
      for (const auto& v : t.scalar_vars) {
        auto b = bindings.find(v.get());
        if (b == bindings.end())
          RX_THROW() << "fuse-tir: the call of '" << gv->name
                     << "' does not determine its symbolic variable '" << v->name << "'";
        values.push_back(b->second);
      }
      call_args.push_back(make_shape(std::move(values)));
    }
    return make_ref<Call>(get_op("relax.call_tir"), std::move(call_args), Attrs(),
                          std::vector<StructInfo>{op->struct_info}, op->struct_info);
  }


 private:
  std::unordered_map<std::string, Target> targets_;
};

/// Names of the module functions `e` refers to.
void collect_callees(const Expr& e, std::unordered_set<std::string>* out) {
  post_order_visit(e, [&](const Expr& x) {
    if (auto* gv = x.as<GlobalVar>()) out->insert(gv->name);
  });
}

IRModule fuse_tir(const IRModule& input, const transform::PassOptions&, transform::PassContext&) {
  // Composite functions (fuse-ops-by-pattern) may keep constants; kernels take them as buffers.
  IRModule mod = lift_primitive_constants(input);
  IRModule out = mod;
  std::unordered_map<std::string, CallRewriter::Target> targets;
  std::unordered_set<std::string> part_names;
  for (const auto& e : mod.functions()) {
    auto* f = e.func.as<Function>();
    if (!f || get_int(f->attrs, kAttrPrimitive, 0) == 0) continue;
    Fused fused = fuse_function(e.gv->name, *f, mod);
    collect_callees(e.func, &part_names);
    out.remove(e.gv->name);
    Ref<GlobalVar> gv = out.add(e.gv->name, fused.prim);
    targets[e.gv->name] = {gv, f, std::move(fused.scalar_vars)};
  }
  if (targets.empty()) return mod;
  CallRewriter rewriter(std::move(targets));
  std::unordered_set<std::string> used;
  for (const auto& e : out.functions()) {
    if (!e.func.is<Function>()) continue;
    Expr nf = rewriter.visit_expr(e.func);
    if (!nf.same_as(e.func)) out.update(e.gv->name, nf.as_ref<Function>());
    collect_callees(nf, &used);
  }
  for (const auto& n : part_names)
    if (!used.count(n) && out.find(n).is<tir::PrimFunc>()) out.remove(n);
  return out;
}

}  // namespace

void register_fuse_tir(transform::PluginRegistrar& r) {
  r.add_pass({"fuse-tir",
              "Turn each Primitive function into one PrimFunc called by one call_tir",
              transform::Granularity::kModule,
              {}},
             transform::ModuleTransform(fuse_tir));
}

}  // namespace relax::fusion
