// Block analysis and shared helpers of the default schedule rules (kernel/block_info.h).
#include "relax/kernel/block_info.h"

#include <algorithm>

#include "relax/ir/structural_equal.h"
#include "relax/support/diagnostic.h"

namespace relax::tir {

namespace {

/// Finds the block named `name` with its loops; counts the blocks under each loop on the way.
class BlockFinder : public StmtVisitor {
 public:
  explicit BlockFinder(std::string name) : name_(std::move(name)) {}

  const BlockRealize* realize = nullptr;
  std::vector<const For*> loops;
  /// Block realizes under the outermost of `loops` (this block included).
  int blocks_under_outermost = 0;

  using StmtVisitor::visit_;
  void visit_(const For* op) override {
    bool outermost_of_nest = stack_.empty();
    int before = realizes_seen_;
    stack_.push_back(op);
    StmtVisitor::visit_(op);
    stack_.pop_back();
    if (outermost_of_nest && !loops.empty() && loops.front() == op)
      blocks_under_outermost = realizes_seen_ - before;
  }
  void visit_(const BlockRealize* op) override {
    ++realizes_seen_;
    if (op->block->name == name_ && !realize) {
      realize = op;
      loops = stack_;
    }
    // The loops of blocks nested inside start at their enclosing block.
    std::vector<const For*> saved;
    saved.swap(stack_);
    StmtVisitor::visit_(op);
    stack_.swap(saved);
  }

 private:
  std::string name_;
  std::vector<const For*> stack_;
  int realizes_seen_ = 0;
};

bool same_indices(const std::vector<PrimExpr>& a, const std::vector<PrimExpr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!structural_equal(a[i], b[i], /*map_free_vars=*/false)) return false;
  return true;
}

/// Whether a load in `block` reads one element in several iterations of a reduction block: an
/// index mixes a spatial and a reduce variable (a convolution's window), or a spatial variable
/// indexes none of it (a matmul operand, read once per column).
bool reread_by_reduction(const Block& block, const BufferLoad& load) {
  bool has_reduce = false;
  for (const auto& iv : block.iter_vars) has_reduce |= iv->type == IterVarType::kReduce;
  if (!has_reduce) return false;
  for (const auto& iv : block.iter_vars) {
    if (iv->type != IterVarType::kSpatial) continue;
    bool used = false;
    for (const PrimExpr& e : load.indices) {
      if (!uses_var(e, iv->var.get())) continue;
      used = true;
      for (const auto& r : block.iter_vars)
        if (r->type == IterVarType::kReduce && uses_var(e, r->var.get())) return true;
    }
    if (!used) return true;
  }
  return false;
}

/// Whether `load` in `block` indexes its last axis by the block's innermost spatial variable
/// (the last index of its store) at unit stride, and no other index uses it: along the vector
/// lanes of a channel-wise reduction (a depthwise convolution, a pooling), anything inlined
/// there whose condition does not use that variable (a pad's) is tested once per vector.
bool channel_wise_read(const Block& block, const BufferLoad& load) {
  const BufferStore* store = block.body.as<BufferStore>();
  if (!store || store->indices.empty() || load.indices.empty()) return false;
  auto* v = store->indices.back().as<Var>();
  // A grouped conv's channel is v + the reduce axis of the group's input channels (of extent
  // 1 when depthwise).
  if (!v || !unit_stride_in(load.indices.back(), v)) return false;
  for (size_t i = 0; i + 1 < load.indices.size(); ++i)
    if (uses_var(load.indices[i], v)) return false;
  for (size_t i = 0; i + 1 < store->indices.size(); ++i)
    if (uses_var(store->indices[i], v)) return false;
  return true;
}

/// Whether inlining the block `name` would repeat a costly computation: its value calls an
/// intrinsic (exp, erf, sqrt...; a pad's if_then_else) and its buffer is read at more than one
/// place, or by a reduction that reads an element more than once (a select per multiply-add of
/// a padded convolution) — unless that reduction reads it along its vector lanes
/// (channel_wise_read: a depthwise convolution tests the pad's condition once per vector of
/// channels, and the padded copy it saves was most of its time: MobileNetV2's stride-2
/// depthwise convolutions 0.25 -> 0.09 ms).
bool inlining_repeats_work(const Schedule& s, const std::string& name) {
  const BufferStore* store = nullptr;
  post_order_visit(s.func()->body, [&](const Stmt& st) {
    if (auto* b = st.as<Block>(); b && b->name == name) store = b->body.as<BufferStore>();
  });
  if (!store) return false;
  struct Count : StmtExprVisitor {
    const Buffer* buffer = nullptr;
    const Block* block = nullptr;
    int reads = 0, calls = 0;
    using StmtExprVisitor::visit_;
    void visit_(const BlockRealize* op) override {
      const Block* outer = block;
      block = op->block.get();
      StmtExprVisitor::visit_(op);
      block = outer;
    }
    void visit_(const BufferLoad* op) override {
      if (op->buffer.get() == buffer)
        reads += block && reread_by_reduction(*block, *op) && !channel_wise_read(*block, *op)
                     ? 2
                     : 1;
      StmtExprVisitor::visit_(op);
    }
    void visit_(const Call* op) override {
      ++calls;
      StmtExprVisitor::visit_(op);
    }
  };
  Count value;
  value.visit_expr(store->value);
  if (value.calls == 0) return false;
  Count uses;
  uses.buffer = store->buffer.get();
  uses.visit_stmt(s.func()->body);
  return uses.reads > 1;
}

}  // namespace

BlockInfo analyze_block(const Ref<PrimFunc>& func, const std::string& name) {
  BlockInfo info;
  BlockFinder finder(name);
  finder.visit_stmt(func->body);
  if (!finder.realize) return info;
  info.realize = finder.realize;
  info.loops = finder.loops;
  const Block& block = *finder.realize->block;

  // Canonical bindings: each iteration variable bound to one of the block's loop variables
  // (each loop at most once) or to a constant; loops bound to nothing have extent 1.
  std::vector<int> loop_binding(info.loops.size(), -1);  // loop -> iteration variable
  bool canonical = true;
  for (size_t i = 0; i < block.iter_vars.size(); ++i) {
    IterVarType type = block.iter_vars[i]->type;
    if (type == IterVarType::kReduce) info.has_reduce = true;
    if (type == IterVarType::kOpaque) canonical = false;
    const PrimExpr& value = finder.realize->iter_values[i];
    if (as_const_int(value)) continue;
    auto* v = value.as<Var>();
    auto it = std::find_if(info.loops.begin(), info.loops.end(),
                           [&](const For* f) { return f->loop_var.get() == v; });
    if (!v || it == info.loops.end() || loop_binding[size_t(it - info.loops.begin())] >= 0) {
      canonical = false;
      continue;
    }
    loop_binding[size_t(it - info.loops.begin())] = int(i);
  }
  for (size_t l = 0; l < info.loops.size(); ++l)
    if (loop_binding[l] < 0 && !is_const_int(info.loops[l]->extent, 1)) canonical = false;
  if (!info.loops.empty() && finder.blocks_under_outermost != 1) canonical = false;

  Accesses acc;
  acc.visit_stmt(block.body);
  if (block.init.defined()) acc.visit_stmt(block.init);
  if (acc.nested_block || acc.stores.empty()) canonical = false;
  // Every store names every spatial iteration variable as a whole index: distinct spatial
  // instances store to distinct elements.
  for (const BufferStore* store : acc.stores)
    for (const auto& iv : block.iter_vars) {
      if (iv->type != IterVarType::kSpatial) continue;
      bool named = std::any_of(store->indices.begin(), store->indices.end(),
                               [&](const PrimExpr& e) { return e.get() == iv->var.get(); });
      if (!named) canonical = false;
    }
  // A written buffer is read only where this instance writes it (an accumulator).
  for (const BufferLoad* load : acc.loads)
    for (const BufferStore* store : acc.stores)
      if (store->buffer.get() == load->buffer.get() && !same_indices(store->indices, load->indices))
        canonical = false;
  info.parallel_safe = canonical;
  if (!acc.stores.empty()) info.dtype = acc.stores[0]->value->dtype.element_of();

  // Leading loops bound to spatial iteration variables.
  while (info.n_spatial < info.loops.size()) {
    int b = loop_binding[info.n_spatial];  // unbound: an extent-1 loop, harmless anywhere
    if (b >= 0 && block.iter_vars[size_t(b)]->type != IterVarType::kSpatial) break;
    ++info.n_spatial;
  }
  if (info.n_spatial > 0 && canonical && loop_binding[info.n_spatial - 1] >= 0) {
    const Var* last = block.iter_vars[size_t(loop_binding[info.n_spatial - 1])]->var.get();
    info.last_spatial_contiguous = true;
    for (const BufferStore* store : acc.stores) {
      const auto& idx = store->indices;
      bool ok = !idx.empty() && idx.back().get() == last;
      for (size_t k = 0; ok && k + 1 < idx.size(); ++k) ok = !uses_var(idx[k], last);
      info.last_spatial_contiguous &= ok;
    }
    auto load_uses = [&](const BufferLoad* load, const Var* v) {
      return std::any_of(load->indices.begin(), load->indices.end(),
                         [&](const PrimExpr& e) { return uses_var(e, v); });
    };
    auto is_stored = [&](const BufferLoad* load) {
      return std::any_of(acc.stores.begin(), acc.stores.end(),
                         [&](const BufferStore* st) {
                           return st->buffer.get() == load->buffer.get();
                         });
    };
    // The innermost candidate, unless its extent is symbolic and an outer candidate's is a
    // constant of at least kLongRows: a (seq, batch, hidden) x (hidden, n) matmul then blocks
    // the 128 sequence rows rather than the batch (1 at run time: a tile of one valid row).
    constexpr int64_t kLongRows = 16;
    int symbolic_row = -1;
    // Whether loop l is bound to a spatial variable that indexes no load the last one indexes.
    auto row_candidate = [&](size_t l) {
      if (loop_binding[l] < 0) return false;
      const Var* v = block.iter_vars[size_t(loop_binding[l])]->var.get();
      for (const BufferLoad* load : acc.loads)
        if (!is_stored(load) && load_uses(load, last) && load_uses(load, v)) return false;
      return true;
    };
    auto const_extent = [&](size_t l) {
      return as_const_int(block.iter_vars[size_t(loop_binding[l])]->dom.extent);
    };
    for (size_t l = info.n_spatial - 1; l-- > 0;) {
      if (!row_candidate(l)) continue;
      const int64_t* extent = const_extent(l);
      if (!extent) {
        if (symbolic_row < 0) symbolic_row = int(l);
        continue;
      }
      if (symbolic_row < 0 || *extent >= kLongRows) {
        info.row_loop = int(l);
        break;
      }
    }
    if (info.row_loop < 0) info.row_loop = symbolic_row;
    size_t row = size_t(info.row_loop);
    if (info.row_loop > 0 && const_extent(row) && row_candidate(row - 1) && const_extent(row - 1))
      info.row_outer_loop = info.row_loop - 1;
  }
  return info;
}

/// The names of the blocks of `func` in program order (the root block included).
std::vector<std::string> block_names(const Ref<PrimFunc>& func) {
  std::vector<std::string> names;
  struct V : StmtVisitor {
    std::vector<std::string>* names;
    using StmtVisitor::visit_;
    void visit_(const BlockRealize* op) override {
      names->push_back(op->block->name);
      StmtVisitor::visit_(op);
    }
  } v;
  v.names = &names;
  v.visit_stmt(func->body);
  return names;
}

/// The extent of a loop of the schedule's current function.
PrimExpr loop_extent(const Schedule& s, const LoopRV& loop) {
  PrimExpr extent;
  post_order_visit(s.func()->body, [&](const Stmt& st) {
    if (auto* f = st.as<For>(); f && f->loop_var.get() == loop.var.get()) extent = f->extent;
  });
  RX_ICHECK(extent.defined()) << "default schedule: loop " << loop.var->name << " vanished";
  return extent;
}

/// The extent of a loop when it is a constant.
std::optional<int64_t> const_loop_extent(const Schedule& s, const LoopRV& loop) {
  const int64_t* c = as_const_int(loop_extent(s, loop));
  return c ? std::optional<int64_t>(*c) : std::nullopt;
}

LoopRV fuse_all(Schedule& s, const std::vector<LoopRV>& loops) {
  return loops.size() == 1 ? loops[0] : s.fuse(loops);
}

void inline_elementwise_blocks(Schedule& s, bool avoid_repeated_work) {
  for (const std::string& name : block_names(s.func())) {
    if (avoid_repeated_work && inlining_repeats_work(s, name)) continue;
    const Schedule saved = s;
    try {
      s.compute_inline(s.get_block(name));
    } catch (const Error&) {
      s = saved;  // not inlinable (a reduction, an output, several writers...): kept
    }
  }
}

}  // namespace relax::tir
