// annotate-op-pattern (module pass): classifies every PrimFunc of the module from its TIR and
// records the kind as the PrimFunc attribute `op_pattern` (an int, TVM's numbering:
// 0 elementwise, 1 broadcast, 2 injective, 3 comm-reduce, 4 out-elemwise-fusable, 8 opaque).
//
// The classification reads the blocks, never the op a PrimFunc came from, so hand-written and
// already fused kernels are classified like legalised ones. Input: any module; it runs after
// legalize-ops. Each compute block (every block but the root) is one `out[...] = value` store,
// optionally with an init, and gets a kind:
//   elementwise   every load (other than of `out` itself) uses exactly the store's indices;
//   broadcast     the store's indices are distinct block variables and every load uses an
//                 ordered subset of them (a constant 0 standing for a dimension of extent 1);
//   injective     any other block with spatial iteration variables only;
//   comm-reduce   a block with reduce iteration variables;
//   out-elemwise-fusable  a reduction block that writes a parameter no other block reads, with
//                 at least two spatial iteration variables and loads of two distinct inputs,
//                 each a parameter or what an earlier block without reduce variables writes
//                 (matmul, conv2d; a padded conv2d reads the padded copy of its input);
//   opaque        anything that is not such a block: an opaque iteration variable, a body
//                 that is not a single store (a guarded store is accepted only as a
//                 reduction step: in a block with reduce variables and an init, under an `if`
//                 without else whose condition loads nothing, as pooling over a padded window
//                 is written), an extern call,
//                 statements outside blocks, a block writing several outputs of a reduction.
// The PrimFunc's kind is the largest kind of its blocks (no block at all: opaque). The pass
// guarantees every PrimFunc carries `op_pattern`; an existing value is overwritten.
#include <algorithm>
#include <unordered_set>

#include "fusion.h"
#include "relax/tir/stmt_functor.h"

namespace relax::fusion {
namespace {

using tir::BufferLoad;
using tir::PrimExpr;

/// Collects the loads of an expression (including loads nested in indices) and notes calls
/// of external functions.
struct LoadCollector : tir::StmtExprVisitor {
  std::vector<const BufferLoad*> loads;
  bool has_extern_call = false;
  using tir::StmtExprVisitor::visit_;
  void visit_(const BufferLoad* op) override {
    loads.push_back(op);
    tir::StmtExprVisitor::visit_(op);
  }
  void visit_(const tir::Call* op) override {
    if (op->op == tir::Intrinsic::kExtern) has_extern_call = true;
    tir::StmtExprVisitor::visit_(op);
  }
};

bool same_index(const PrimExpr& a, const PrimExpr& b) {
  if (a.same_as(b)) return true;
  auto* va = a.as<tir::Var>();
  auto* vb = b.as<tir::Var>();
  if (va || vb) return false;  // variables are compared by identity
  auto* ia = a.as<tir::IntImm>();
  auto* ib = b.as<tir::IntImm>();
  return ia && ib && ia->value == ib->value;
}

bool is_elementwise_load(const tir::BufferStore& store, const BufferLoad& load) {
  if (load.indices.size() != store.indices.size()) return false;
  for (size_t i = 0; i < load.indices.size(); ++i)
    if (!same_index(load.indices[i], store.indices[i])) return false;
  return true;
}

/// The load's indices are an ordered subset of the store's (distinct) variables, or 0 for a
/// dimension of extent 1.
bool is_broadcast_load(const tir::BufferStore& store, const BufferLoad& load) {
  std::vector<const tir::Var*> store_vars;
  for (const PrimExpr& e : store.indices) {
    auto* v = e.as<tir::Var>();
    if (!v || std::find(store_vars.begin(), store_vars.end(), v) != store_vars.end()) return false;
    store_vars.push_back(v);
  }
  size_t next = 0;
  for (size_t d = 0; d < load.indices.size(); ++d) {
    const PrimExpr& e = load.indices[d];
    if (auto* v = e.as<tir::Var>()) {
      auto it = std::find(store_vars.begin() + long(next), store_vars.end(), v);
      if (it == store_vars.end()) return false;
      next = size_t(it - store_vars.begin()) + 1;
    } else if (!tir::is_const_int(e, 0) || !tir::is_const_int(load.buffer->shape[d], 1)) {
      return false;
    }
  }
  return true;
}

class Classifier : public tir::StmtVisitor {
 public:
  explicit Classifier(const tir::PrimFunc& func) {
    for (const auto& [param, buffer] : func.buffer_map) params_.insert(buffer.get());
  }

  OpPattern run(const tir::Stmt& body) {
    visit_stmt(body);
    if (opaque_ || blocks_.empty()) return OpPattern::kOpaque;
    // A reduction is out-elemwise-fusable only when nothing else in the function reads what
    // it writes (the epilogue is what fusion adds).
    std::unordered_set<const tir::Buffer*> read_by_blocks;
    for (const BlockInfo& b : blocks_)
      for (const BufferLoad* l : b.loads)
        if (l->buffer.get() != b.store->buffer.get()) read_by_blocks.insert(l->buffer.get());
    OpPattern kind = OpPattern::kElemWise;
    for (const BlockInfo& b : blocks_) {
      OpPattern k = b.kind;
      if (k == OpPattern::kOutEWiseFusable && read_by_blocks.count(b.store->buffer.get()))
        k = OpPattern::kCommReduce;
      kind = std::max(kind, k);
    }
    return kind;
  }

  using tir::StmtVisitor::visit_;
  void visit_(const tir::BlockRealize* op) override {
    const tir::Block& block = *op->block;
    if (!in_root_ && block.name == "root" && block.iter_vars.empty() && !block.init.defined()) {
      in_root_ = true;
      visit_stmt(block.body);
      return;
    }
    classify_block(block);
  }
  void visit_(const tir::For* op) override { visit_stmt(op->body); }
  void visit_(const tir::SeqStmt* op) override {
    for (const auto& s : op->seq) visit_stmt(s);
  }
  void visit_(const tir::Evaluate* op) override {
    if (!tir::is_no_op(tir::Stmt(op))) opaque_ = true;
  }
  void visit_stmt_default(const tir::StmtNode*) override { opaque_ = true; }

 private:
  struct BlockInfo {
    const tir::BufferStore* store;
    std::vector<const BufferLoad*> loads;
    OpPattern kind;
  };

  void classify_block(const tir::Block& block) {
    const auto* store = block.body.as<tir::BufferStore>();
    bool has_reduce = false;
    size_t spatial = 0;
    for (const auto& iv : block.iter_vars) {
      if (iv->type == tir::IterVarType::kOpaque) opaque_ = true;
      has_reduce |= iv->type == tir::IterVarType::kReduce;
      spatial += iv->type == tir::IterVarType::kSpatial;
    }
    // A guarded reduction step (pooling over a padded window): `if cond: out[...] = ...` with
    // no else, a condition over iteration values only, in a reduction block with an init.
    if (auto* guard = block.body.as<tir::IfThenElse>();
        guard && has_reduce && block.init.defined() && !guard->else_case.defined()) {
      LoadCollector in_cond;
      in_cond.visit_expr(guard->condition);
      if (in_cond.loads.empty() && !in_cond.has_extern_call)
        store = guard->then_case.as<tir::BufferStore>();
    }
    if (!store || opaque_) {
      opaque_ = true;
      return;
    }
    if (block.init.defined() && !block.init.is<tir::BufferStore>()) {
      opaque_ = true;
      return;
    }
    LoadCollector collector;
    collector.visit_expr(store->value);
    for (const PrimExpr& i : store->indices) collector.visit_expr(i);
    if (collector.has_extern_call) {
      opaque_ = true;
      return;
    }
    BlockInfo info{store, collector.loads, OpPattern::kElemWise};
    if (has_reduce) {
      std::unordered_set<const tir::Buffer*> inputs;
      for (const BufferLoad* l : info.loads)
        if (l->buffer.get() != store->buffer.get() &&
            (params_.count(l->buffer.get()) || mapped_.count(l->buffer.get())))
          inputs.insert(l->buffer.get());
      bool writes_param = params_.count(store->buffer.get()) != 0;
      info.kind = writes_param && spatial >= 2 && inputs.size() >= 2 ? OpPattern::kOutEWiseFusable
                                                                      : OpPattern::kCommReduce;
    } else {
      for (const BufferLoad* l : info.loads) {
        if (l->buffer.get() == store->buffer.get()) {
          info.kind = OpPattern::kInjective;  // reads its own output: not a pure map
        } else if (is_elementwise_load(*store, *l)) {
          continue;
        } else if (is_broadcast_load(*store, *l)) {
          info.kind = std::max(info.kind, OpPattern::kBroadcast);
        } else {
          info.kind = OpPattern::kInjective;
        }
      }
    }
    if (!has_reduce) mapped_.insert(store->buffer.get());
    blocks_.push_back(std::move(info));
  }

  std::unordered_set<const tir::Buffer*> params_;
  /// Buffers written by the blocks without reduce variables seen so far (a pad, a relayout).
  std::unordered_set<const tir::Buffer*> mapped_;
  std::vector<BlockInfo> blocks_;
  bool in_root_ = false;
  bool opaque_ = false;
};

IRModule annotate_op_pattern(const IRModule& mod, const transform::PassOptions&,
                             transform::PassContext&) {
  IRModule out = mod;
  for (const auto& e : mod.functions()) {
    auto func = e.func.as_ref<tir::PrimFunc>();
    if (!func) continue;
    int64_t kind = int64_t(classify_prim_func(func));
    const AttrValue* old = func->attrs.defined() ? func->attrs->find(kAttrOpPattern) : nullptr;
    if (old && std::holds_alternative<int64_t>(*old) && std::get<int64_t>(*old) == kind) continue;
    out.update(e.gv->name,
               make_ref<tir::PrimFunc>(func->params, func->body, func->buffer_map,
                                       with_attr(func->attrs, kAttrOpPattern, kind), func->ret_type));
  }
  return out;
}

}  // namespace

OpPattern classify_prim_func(const Ref<tir::PrimFunc>& func) {
  return Classifier(*func).run(func->body);
}

void register_annotate_op_pattern(transform::PluginRegistrar& r) {
  r.add_pass({"annotate-op-pattern",
              "Record each PrimFunc's fusion pattern kind (attribute op_pattern) from its TIR",
              transform::Granularity::kModule,
              {}},
             transform::ModuleTransform(annotate_op_pattern));
}

}  // namespace relax::fusion
