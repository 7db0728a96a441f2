// create_prim_func: the stages of a compute-DSL graph as one PrimFunc (tir/compute.h).
//
// Expects tensors built by placeholder/compute. Produces a root block "root" whose
// alloc_buffers are the intermediate stages and whose body is, per stage in dependence order,
// a loop nest (spatial loops i0.., then the reduce loops) around one Block named after the
// stage, with iteration variables v_i0.. (spatial) and v_k.. (reduce) bound to the loops,
// read regions covering the loads of the body, point write regions, and for a reduction an
// init storing the identity. A reduction's read of its own output (the accumulator) is not
// listed among the reads, as in TVM.
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "relax/arith/analyzer.h"
#include "relax/support/diagnostic.h"
#include "relax/op/compute.h"
#include "relax/tir/stmt_functor.h"

namespace relax::te {

namespace {

using tir::as_const_int;
using tir::Block;
using tir::block_realize;
using tir::Buffer;
using tir::buffer_load;
using tir::buffer_store;
using tir::BufferLoad;
using tir::BufferRegion;
using tir::ExprVisitor;
using tir::For;
using tir::ForKind;
using tir::IfThenElse;
using tir::int_imm;
using tir::IterVar;
using tir::IterVarType;
using tir::Let;
using tir::LetStmt;
using tir::make_iter_var;
using tir::PrimFunc;
using tir::Range;
using tir::seq_stmt;
using tir::Stmt;
using tir::StmtExprVisitor;
using tir::Var;
using tir::var;

/// Collects the BufferLoads of expressions, by buffer in first-use order.
struct LoadCollector : ExprVisitor {
  std::vector<const Buffer*> order;
  std::unordered_map<const Buffer*, std::pair<Ref<Buffer>, std::vector<std::vector<PrimExpr>>>>
      loads;
  using ExprVisitor::visit_;
  void visit_(const BufferLoad* op) override {
    auto [it, fresh] = loads.try_emplace(op->buffer.get());
    if (fresh) {
      order.push_back(op->buffer.get());
      it->second.first = op->buffer;
    }
    it->second.second.push_back(op->indices);
    ExprVisitor::visit_(op);
  }
};

/// A read region covering every access of one buffer: per dimension, the single index when
/// all accesses agree, the span of the constant offsets when they differ by constants only
/// (stencils), the whole dimension otherwise.
BufferRegion cover(const Ref<Buffer>& buffer, const std::vector<std::vector<PrimExpr>>& accesses) {
  std::vector<Range> region;
  for (size_t d = 0; d < buffer->ndim(); ++d) {
    const PrimExpr& first = accesses[0][d];
    int64_t lo = 0, hi = 0;
    bool constant_offsets = true;
    for (const auto& acc : accesses) {
      if (acc[d].same_as(first)) continue;
      PrimExpr diff = arith::simplify(acc[d] - first);
      const int64_t* c = as_const_int(diff);
      if (c == nullptr) {
        constant_offsets = false;
        break;
      }
      lo = std::min(lo, *c);
      hi = std::max(hi, *c);
    }
    if (!constant_offsets) {
      region.push_back(Range::upto(buffer->shape[d]));
    } else if (lo == 0 && hi == 0) {
      region.push_back(Range::point(first));
    } else {
      region.push_back(Range::from_min_extent(arith::simplify(first + lo), int_imm(hi - lo + 1)));
    }
  }
  return BufferRegion{buffer, std::move(region)};
}

PrimExpr subst(const PrimExpr& e, const std::unordered_map<const Var*, PrimExpr>& vmap) {
  return tir::substitute(e, [&](const Var* v) -> PrimExpr {
    auto it = vmap.find(v);
    return it == vmap.end() ? PrimExpr() : it->second;
  });
}

/// The loop nest and block of one compute stage.
Stmt build_stage(const Operation& op) {
  std::vector<Ref<IterVar>> iter_vars;
  std::vector<Ref<Var>> loop_vars;
  std::vector<Range> loop_doms;
  std::unordered_map<const Var*, PrimExpr> vmap;
  std::vector<PrimExpr> out_index;
  for (size_t d = 0; d < op.axes.size(); ++d) {
    const auto& axis = op.axes[d];
    Ref<Var> loop = var(axis->name);
    Ref<Var> bv = var("v_" + axis->name);
    iter_vars.push_back(make_iter_var(bv, op.shape[d], IterVarType::kSpatial));
    loop_vars.push_back(loop);
    loop_doms.push_back(Range::upto(op.shape[d]));
    vmap[axis.get()] = bv;
    out_index.push_back(bv);
  }
  const Reduction* red = op.body.reduction.get();
  if (red != nullptr) {
    for (const auto& axis : red->axes) {
      RX_CHECK(!vmap.count(axis.var.get())) << "stage " << op.name << " reduces over "
                                            << axis.var->name << " twice (or over a spatial axis)";
      Ref<Var> loop = var(axis.var->name);
      Ref<Var> bv = var("v_" + axis.var->name);
      iter_vars.push_back(make_ref<IterVar>(bv, axis.dom, IterVarType::kReduce));
      loop_vars.push_back(loop);
      loop_doms.push_back(axis.dom);
      vmap[axis.var.get()] = bv;
    }
  }

  // The body, and the expressions whose loads are the stage's reads.
  std::vector<PrimExpr> read_exprs;
  Stmt body, init;
  if (red == nullptr) {
    std::vector<Stmt> stores;
    for (size_t j = 0; j < op.outputs.size(); ++j) {
      PrimExpr v = subst(op.body.values[j], vmap);
      read_exprs.push_back(v);
      stores.push_back(buffer_store(op.outputs[j], v, out_index));
    }
    body = seq_stmt(std::move(stores));
  } else {
    const Reducer& r = red->reducer;
    std::unordered_map<const Var*, PrimExpr> cmap;
    std::vector<Stmt> inits;
    for (size_t j = 0; j < op.outputs.size(); ++j) {
      PrimExpr src = subst(red->sources[j], vmap);
      read_exprs.push_back(src);
      cmap[r.lhs[j].get()] = buffer_load(op.outputs[j], out_index);
      cmap[r.rhs[j].get()] = src;
      inits.push_back(buffer_store(op.outputs[j], r.identity[j], out_index));
    }
    init = seq_stmt(std::move(inits));
    if (op.outputs.size() == 1) {
      body = buffer_store(op.outputs[0], subst(r.result[0], cmap), out_index);
    } else {
      // Every combined value reads the old accumulators: compute all before storing any.
      std::vector<Ref<Var>> temps;
      std::vector<Stmt> stores;
      for (size_t j = 0; j < op.outputs.size(); ++j) {
        temps.push_back(var(op.outputs[j]->name + "_new", op.outputs[j]->dtype));
        stores.push_back(buffer_store(op.outputs[j], temps[j], out_index));
      }
      body = seq_stmt(std::move(stores));
      for (size_t j = op.outputs.size(); j-- > 0;)
        body = make_ref<LetStmt>(temps[j], subst(r.result[j], cmap), body);
    }
    if (red->condition.defined()) {
      PrimExpr c = subst(red->condition, vmap);
      read_exprs.push_back(c);
      body = make_ref<IfThenElse>(c, body);
    }
  }

  LoadCollector loads;
  for (const auto& e : read_exprs) loads(e);
  std::vector<BufferRegion> reads;
  for (const Buffer* b : loads.order) {
    const auto& [buf, accesses] = loads.loads.at(b);
    reads.push_back(cover(buf, accesses));
  }
  std::vector<BufferRegion> writes;
  for (const auto& out : op.outputs) writes.push_back(BufferRegion::from_point(out, out_index));

  auto block = make_ref<Block>(op.name, iter_vars, std::move(reads), std::move(writes), body, init);
  std::vector<PrimExpr> iter_values(loop_vars.begin(), loop_vars.end());
  Stmt s = block_realize(std::move(iter_values), block);
  for (size_t d = loop_vars.size(); d-- > 0;)
    s = make_ref<For>(loop_vars[d], loop_doms[d].min, loop_doms[d].extent, ForKind::kSerial, s);
  return s;
}

/// The variables used but not defined in a statement (and in the shapes of its buffers), in
/// order of first use.
struct FreeVars : StmtExprVisitor {
  std::unordered_set<const Var*> defined, seen;
  std::vector<Ref<Var>> order;
  using StmtExprVisitor::visit_;
  void visit_(const Var* op) override {
    if (seen.insert(op).second) order.push_back(Ref<Var>(op));
  }
  void visit_(const Let* op) override {
    defined.insert(op->var.get());
    StmtExprVisitor::visit_(op);
  }
  void visit_(const LetStmt* op) override {
    defined.insert(op->var.get());
    StmtExprVisitor::visit_(op);
  }
  void visit_(const For* op) override {
    defined.insert(op->loop_var.get());
    StmtExprVisitor::visit_(op);
  }
  void visit_(const Block* op) override {
    for (const auto& iv : op->iter_vars) defined.insert(iv->var.get());
    StmtExprVisitor::visit_(op);
  }
  void visit_buffer(const Ref<Buffer>& b) override {
    defined.insert(b->data.get());
    for (const auto& d : b->shape) visit_expr(d);
    for (const auto& d : b->strides) visit_expr(d);
    visit_expr(b->elem_offset);
  }
};

void topo_visit(const std::shared_ptr<const Operation>& op,
                std::unordered_set<const Operation*>& visited,
                std::vector<std::shared_ptr<const Operation>>& order) {
  if (!visited.insert(op.get()).second) return;
  for (const auto& in : op->inputs) topo_visit(in.op(), visited, order);
  order.push_back(op);
}

}  // namespace

Ref<PrimFunc> create_prim_func(const std::vector<Tensor>& args, std::vector<Ref<Var>> scalar_params,
                               const std::string& global_symbol) {
  // Parameters and the stages they depend on.
  std::unordered_set<const Buffer*> param_buffers;
  std::vector<Ref<Buffer>> params;
  for (size_t i = 0; i < args.size(); ++i) {
    RX_CHECK(args[i].defined()) << "create_prim_func: argument " << i << " is an undefined tensor";
    RX_CHECK(param_buffers.insert(args[i].buffer().get()).second)
        << "create_prim_func: tensor " << args[i].name() << " is passed twice";
    params.push_back(args[i].buffer());
  }
  std::unordered_set<const Operation*> visited;
  std::vector<std::shared_ptr<const Operation>> order;
  for (const auto& a : args) topo_visit(a.op(), visited, order);

  std::unordered_set<const Buffer*> known;
  std::vector<Ref<Buffer>> intermediates;
  std::vector<Stmt> stages;
  for (const auto& op : order) {
    for (const auto& b : op->outputs) known.insert(b.get());
    if (op->is_placeholder()) {
      RX_CHECK(param_buffers.count(op->outputs[0].get()))
          << "create_prim_func: placeholder " << op->name
          << " is read by the computation but is not among the arguments";
      continue;
    }
    for (const auto& b : op->outputs)
      if (!param_buffers.count(b.get())) intermediates.push_back(b);
  }
  for (const auto& op : order) {
    if (op->is_placeholder()) continue;
    // Every load must be of a tensor this function computes or takes.
    LoadCollector loads;
    for (const auto& v : op->body.values) loads(v);
    if (op->body.reduction) {
      for (const auto& s : op->body.reduction->sources) loads(s);
      if (op->body.reduction->condition.defined()) loads(op->body.reduction->condition);
    }
    for (const Buffer* b : loads.order)
      RX_CHECK(known.count(b))
          << "create_prim_func: stage " << op->name << " reads buffer " << b->name
          << ", which no tensor of this computation owns (index tensors inside the "
             "compute function, so that the stage records them)";
    stages.push_back(build_stage(*op));
  }

  auto root = make_ref<Block>("root", std::vector<Ref<IterVar>>{}, std::vector<BufferRegion>{},
                              std::vector<BufferRegion>{}, seq_stmt(std::move(stages)), Stmt(),
                              intermediates);
  Stmt body = block_realize({}, root);

  // Symbolic variables: bound by a whole dimension of a parameter buffer, else scalar params.
  std::unordered_set<const Var*> bound;
  for (const auto& b : params)
    for (const auto& d : b->shape)
      if (auto* v = d.as<Var>()) bound.insert(v);
  for (const auto& s : scalar_params) {
    RX_CHECK(s.defined() && s->dtype.is_scalar() && !s->dtype.is_handle())
        << "create_prim_func: scalar parameters must be scalar variables";
    bound.insert(s.get());
  }
  FreeVars fv;
  for (const auto& b : params) fv.visit_buffer(b);
  fv(body);
  for (const auto& v : fv.order) {
    if (fv.defined.count(v.get()) || bound.count(v.get())) continue;
    RX_CHECK(v->dtype.is_integer_like() && v->dtype.is_scalar())
        << "create_prim_func: free variable " << v->name << " of type " << v->dtype.to_string()
        << " cannot become a scalar parameter";
    scalar_params.push_back(v);
    bound.insert(v.get());
  }

  std::vector<std::pair<std::string, relax::AttrValue>> attrs;
  if (!global_symbol.empty()) attrs.emplace_back(tir::kAttrGlobalSymbol, global_symbol);
  attrs.emplace_back(tir::kAttrNoAlias, true);
  return make_prim_func(params, body, std::move(scalar_params),
                        relax::make_attrs(std::move(attrs)));
}

}  // namespace relax::te
