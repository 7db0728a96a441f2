// Layout: transform_layout (tir/schedule.h).
//
// Gives a buffer a new shape through an IndexMap and rewrites every access B[idx] in the
// function as B'[map(idx)]; blocks that access B get their regions recomputed, allocations
// and (for a parameter) the buffer map take B'. Expects a map that is a bijection between
// the two shapes: the new shape is each final index's range over the old one, starting at 0,
// and the element count must not change (padding is not supported). The bijection itself is
// not proven: a map that folds two indices onto one passes when the counts happen to match.
#include "relax/arith/analyzer.h"
#include "relax/support/diagnostic.h"
#include "schedule_internal.h"

namespace relax::tir {

namespace {

class LayoutRewriter : public StmtExprMutator {
 public:
  LayoutRewriter(const Buffer* from, Ref<Buffer> to, const IndexMap& map)
      : from_(from), to_(std::move(to)), map_(map) {}
  using StmtExprMutator::visit_;
  PrimExpr visit_(const BufferLoad* op) override {
    if (op->buffer.get() != from_) return StmtExprMutator::visit_(op);
    std::vector<PrimExpr> idx;
    for (const auto& i : op->indices) idx.push_back(visit_expr(i));
    hit_ = true;
    return buffer_load(to_, map_.map_indices(idx));
  }
  Stmt visit_(const BufferStore* op) override {
    if (op->buffer.get() != from_) return StmtExprMutator::visit_(op);
    std::vector<PrimExpr> idx;
    for (const auto& i : op->indices) idx.push_back(visit_expr(i));
    hit_ = true;
    return buffer_store(to_, visit_expr(op->value), map_.map_indices(idx));
  }
  Stmt visit_(const Block* op) override {
    bool saved = hit_;
    hit_ = false;
    // Regions keep the old buffer (of the old rank) until they are recomputed here.
    Ref<Block> b = StmtExprMutator::visit_(op).as_ref<Block>();
    bool mentioned = false;
    for (const auto* rs : {&b->reads, &b->writes})
      for (const auto& r : *rs) mentioned |= r.buffer.get() == from_;
    auto allocs = b->alloc_buffers;
    for (auto& a : allocs)
      if (a.get() == from_) {
        a = to_;
        mentioned = true;
      }
    if (hit_ || mentioned) {
      b = sched::with_inferred_regions(make_ref<Block>(b->name, b->iter_vars, b->reads, b->writes,
                                                       b->body, b->init, allocs, b->match_buffers,
                                                       b->annotations));
    }
    hit_ = saved;
    return b;
  }

 private:
  const Buffer* from_;
  Ref<Buffer> to_;
  const IndexMap& map_;
  bool hit_ = false;
};

}  // namespace

void Schedule::transform_layout(const BlockRV& block, BufferIndex which, const IndexMap& map) {
  constexpr const char* kPrim = "transform_layout";
  sched::BlockLoc loc = sched::find_block(func_->body, block.name, kPrim);
  const Block& b = *loc.realize->block;
  const auto& regions = which.kind == BufferIndex::Kind::kRead ? b.reads : b.writes;
  const char* what = which.kind == BufferIndex::Kind::kRead ? "read" : "write";
  RX_CHECK(which.index >= 0 && size_t(which.index) < regions.size())
      << kPrim << ": block " << b.name << " has " << regions.size() << " " << what << " regions; "
      << which.index << " is out of range";
  const Ref<Buffer>& buf = regions[size_t(which.index)].buffer;
  RX_CHECK(map.initial_indices.size() == buf->ndim())
      << kPrim << ": the index map takes " << map.initial_indices.size() << " indices but "
      << buf->name << " has " << buf->ndim() << " dimensions";
  RX_CHECK(buf->is_compact()) << kPrim << ": " << buf->name << " has explicit strides";

  arith::Analyzer ana(arith::AnalyzerOptions{true});
  for (size_t d = 0; d < buf->ndim(); ++d)
    ana.bind_range(map.initial_indices[d], int_imm(0, buf->shape[d]->dtype), buf->shape[d]);
  std::vector<PrimExpr> shape;
  for (const auto& e : map.final_indices) {
    PrimExpr s = ana.simplify(e);
    const PrimExpr* same_dim = nullptr;
    for (size_t d = 0; d < buf->ndim(); ++d)
      if (s.same_as(map.initial_indices[d])) same_dim = &buf->shape[d];
    if (same_dim) {
      shape.push_back(*same_dim);
      continue;
    }
    arith::ConstIntBound bound = ana.const_int_bound(s);
    RX_CHECK(bound.min_value == 0 && bound.max_value != arith::ConstIntBound::kPosInf)
        << kPrim << ": the new index " << to_string(e) << " of " << buf->name << " ranges over "
        << bound.to_string() << "; each new index must range over [0, extent) for a "
        << "constant extent or be an old index";
    shape.push_back(int_imm(bound.max_value + 1, e->dtype));
  }
  PrimExpr old_count = int_imm(1), new_count = int_imm(1);
  for (const auto& s : buf->shape) old_count = old_count * cast(DataType::Int(64), s);
  for (const auto& s : shape) new_count = new_count * cast(DataType::Int(64), s);
  RX_CHECK(ana.prove_equal(old_count, new_count))
      << kPrim << ": the map changes the element count of " << buf->name << " from "
      << to_string(ana.simplify(old_count)) << " to " << to_string(ana.simplify(new_count))
      << "; padding is not supported";
  Ref<Buffer> nb =
      make_buffer(buf->data, buf->dtype, shape, buf->name, {}, buf->elem_offset, buf->scope);
  LayoutRewriter rw(buf.get(), nb, map);
  Stmt body = rw.visit_stmt(func_->body);
  auto buffer_map = func_->buffer_map;
  for (auto& [param, b] : buffer_map)
    if (b.same_as(buf)) b = nb;
  func_ = make_ref<PrimFunc>(func_->params, body, buffer_map, func_->attrs, func_->ret_type);
}

}  // namespace relax::tir
