// fuse-ops' first step (see fuse_ops.cc): per dataflow block, a call_tir of several outputs
// that the block reads one of (through a single `x = lv[k]`, lv used nowhere else) is replaced
// by `x = call_tir(f_out<k>, ...)`, a copy of the PrimFunc without the other outputs and the
// root-block statements that only compute them (batch_norm in inference also returns the moving
// mean and variance), so that the call can fuse. The copy is classified like
// annotate-op-pattern does; fuse-ops removes the original when nothing calls it any more.
//
// Expects the input of fuse-ops (legalised IR, PrimFuncs annotated). Guarantees: the same
// values; a PrimFunc is only copied when dropping the statements is sure to keep the result
// (keep_one_output), otherwise the binding stays as it was.
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "fusion.h"
#include "relax/tir/stmt_functor.h"

namespace relax::fusion {
namespace {

/// The buffers a statement stores to and loads from.
struct BufferAccesses : tir::StmtExprVisitor {
  std::unordered_set<const tir::Buffer*> writes, reads;
  bool opaque = false;  // an Evaluate or Allocate: effects we do not track
  using tir::StmtExprVisitor::visit_;
  void visit_(const tir::BufferStore* op) override {
    writes.insert(op->buffer.get());
    tir::StmtExprVisitor::visit_(op);
  }
  void visit_(const tir::BufferLoad* op) override {
    reads.insert(op->buffer.get());
    tir::StmtExprVisitor::visit_(op);
  }
  void visit_(const tir::Evaluate* op) override {
    opaque |= !tir::is_no_op(tir::Stmt(op));
    tir::StmtExprVisitor::visit_(op);
  }
  void visit_(const tir::Allocate* op) override {
    opaque = true;
    tir::StmtExprVisitor::visit_(op);
  }
};

/// `f` (called with `num_inputs` tensors, its outputs the next `num_outputs` buffer
/// parameters) reduced to output `keep`: the other output parameters go, and so do the
/// statements of the root block that only compute them. Null when that is not sure to keep
/// the result: a body that is not a root block over statements, a dropped statement that
/// writes something else than a dropped output or a root-allocated buffer, a kept one that
/// writes a dropped output.
Ref<tir::PrimFunc> keep_one_output(const tir::PrimFunc& f, size_t num_inputs, size_t num_outputs,
                                   size_t keep) {
  auto* realize = f.body.as<tir::BlockRealize>();
  if (!realize || !realize->block->iter_vars.empty() || realize->block->init.defined()) return {};
  const tir::Block& root = *realize->block;
  if (f.params.size() < num_inputs + num_outputs) return {};
  std::unordered_set<const tir::Buffer*> dropped, local;
  const tir::Buffer* kept = nullptr;
  for (size_t i = 0; i < num_outputs; ++i) {
    Ref<tir::Buffer> b = f.param_buffer(num_inputs + i);
    if (!b) return {};
    if (i == keep) {
      kept = b.get();
    } else {
      dropped.insert(b.get());
    }
  }
  for (const auto& b : root.alloc_buffers) local.insert(b.get());
  std::vector<tir::Stmt> stmts;
  if (auto* seq = root.body.as<tir::SeqStmt>()) {
    stmts = seq->seq;
  } else {
    stmts.push_back(root.body);
  }
  std::unordered_set<const tir::Buffer*> needed{kept};
  std::vector<bool> keep_stmt(stmts.size(), false);
  for (size_t i = stmts.size(); i-- > 0;) {
    BufferAccesses acc;
    acc.visit_stmt(stmts[i]);
    if (acc.opaque || acc.writes.empty()) return {};
    bool used = false;
    for (const tir::Buffer* w : acc.writes) used |= needed.count(w) != 0;
    for (const tir::Buffer* w : acc.writes) {
      if (used && dropped.count(w)) return {};
      if (!used && !dropped.count(w) && !local.count(w)) return {};
    }
    if (!used) continue;
    keep_stmt[i] = true;
    needed.insert(acc.reads.begin(), acc.reads.end());
  }
  std::vector<tir::Stmt> body;
  for (size_t i = 0; i < stmts.size(); ++i)
    if (keep_stmt[i]) body.push_back(stmts[i]);
  auto new_root = make_ref<tir::Block>(root.name, root.iter_vars, root.reads, root.writes,
                                       tir::seq_stmt(std::move(body)), root.init,
                                       root.alloc_buffers, root.match_buffers, root.annotations);
  std::vector<Ref<tir::Var>> params;
  std::vector<std::pair<Ref<tir::Var>, Ref<tir::Buffer>>> buffer_map;
  for (size_t i = 0; i < f.params.size(); ++i) {
    Ref<tir::Buffer> b = f.param_buffer(i);
    if (b && dropped.count(b.get())) continue;
    params.push_back(f.params[i]);
    if (b) buffer_map.emplace_back(f.params[i], b);
  }
  auto out = make_ref<tir::PrimFunc>(
      params, make_ref<tir::BlockRealize>(realize->iter_values, realize->predicate, new_root),
      buffer_map, f.attrs, f.ret_type);
  return make_ref<tir::PrimFunc>(out->params, out->body, out->buffer_map,
                                 with_attr(f.attrs, kAttrOpPattern,
                                           int64_t(classify_prim_func(out))),
                                 f.ret_type);
}

}  // namespace

/// Before partitioning: a call_tir of several outputs of which the block uses one, through a
/// single `x = lv[k]`, becomes `x = call_tir(f_out<k>, ...)` of a PrimFunc computing that
/// output only (keep_one_output), so that it can fuse (batch_norm in inference returns the
/// moving mean and variance too). `reduced` maps "f/k" to the PrimFunc added for it (once).
Block prune_unused_outputs(const Block& block, IRModule* mod,
                           std::map<std::string, Ref<GlobalVar>>* reduced) {
  std::unordered_map<const VarNode*, int> uses;
  std::unordered_map<const VarNode*, const Binding*> projection;  // tuple var -> its `x = lv[k]`
  for (const Binding& b : block->bindings) {
    post_order_visit(b->value, [&](const Expr& e) {
      if (auto* v = e.as<VarNode>()) ++uses[v];
    });
    if (auto* get = b->value.as<TupleGetItem>(); get && b.is<VarBinding>())
      if (auto* v = get->tuple.as<VarNode>()) projection[v] = &b;
  }
  std::unordered_map<const BindingNode*, Binding> replace;  // tuple binding -> new call
  std::unordered_set<const BindingNode*> drop;               // the projections replaced
  for (const Binding& b : block->bindings) {
    auto* call = b->value.as<Call>();
    auto* op = call ? call->op.as<Op>() : nullptr;
    auto* tuple_sinfo = b->var->struct_info.as<TupleStructInfo>();
    if (!op || op->name != "relax.call_tir" || !tuple_sinfo || !b.is<VarBinding>() ||
        !b->var.is<DataflowVar>() || uses[b->var.get()] != 1 || !projection.count(b->var.get()))
      continue;
    const Binding& proj = *projection[b->var.get()];
    int k = proj->value.as<TupleGetItem>()->index;
    auto* gv = call->args[0].as<GlobalVar>();
    BaseFunc callee = gv ? mod->find(gv->name) : BaseFunc();
    auto* prim = callee.defined() ? callee.as<tir::PrimFunc>() : nullptr;
    if (!prim || k < 0 || size_t(k) >= tuple_sinfo->fields.size()) continue;
    std::string key = gv->name + "/" + std::to_string(k);
    Ref<GlobalVar> new_gv;
    if (auto it = reduced->find(key); it != reduced->end()) {
      new_gv = it->second;
    } else {
      Ref<tir::PrimFunc> func = keep_one_output(*prim, call_tir_args(b->value).size(),
                                                tuple_sinfo->fields.size(), size_t(k));
      if (!func) continue;
      std::string name = gv->name + "_out" + std::to_string(k), unique = name;
      for (int n = 1; mod->contains(unique); ++n) unique = name + "_" + std::to_string(n);
      new_gv = mod->add(unique, func);
      (*reduced)[key] = new_gv;
    }
    std::vector<Expr> args = call->args;
    args[0] = new_gv;
    const StructInfo& out = tuple_sinfo->fields[size_t(k)];
    replace[b.get()] = make_ref<VarBinding>(
        proj->var, make_ref<Call>(call->op, std::move(args), call->attrs,
                                  std::vector<StructInfo>{out}, out));
    drop.insert(proj.get());
  }
  if (replace.empty()) return block;
  std::vector<Binding> out;
  for (const Binding& b : block->bindings) {
    if (drop.count(b.get())) continue;
    auto it = replace.find(b.get());
    out.push_back(it != replace.end() ? it->second : b);
  }
  return make_block(std::move(out), true);
}

}  // namespace relax::fusion
