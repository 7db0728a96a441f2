// Default CPU schedule rules (schedule_rules.h): per block, classify its loop nest, then apply
// the injective, tiled-reduction or spatial-prefix rule through tir::Schedule, falling back to
// simpler rules when a primitive refuses.
//
// The analysis (BlockInfo) is read from the function as it stands before the block's rule, so
// the blocks scheduled earlier do not matter: every rule touches only the loops of its block.
// Parallel safety is decided here, not left to the primitives: Schedule::parallel only checks
// that the loop binds no reduce variable, which does not rule out two iterations writing one
// element (a scatter) or reading what another writes (a scan written as a spatial block).
#include "schedule_rules_internal.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "relax/ir/structural_equal.h"
#include "relax/support/diagnostic.h"
#include "relax/kernel/schedule.h"
#include "relax/tir/stmt_functor.h"

namespace relax::llvm_backend::detail {

// ---- Analysis.

/// Finds the block named `name` with its loops; counts the blocks under each loop on the way.
class BlockFinder : public tir::StmtVisitor {
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

BlockInfo analyze(const Ref<PrimFunc>& func, const std::string& name) {
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
    if (tir::as_const_int(value)) continue;
    auto* v = value.as<tir::Var>();
    auto it = std::find_if(info.loops.begin(), info.loops.end(),
                           [&](const For* f) { return f->loop_var.get() == v; });
    if (!v || it == info.loops.end() || loop_binding[size_t(it - info.loops.begin())] >= 0) {
      canonical = false;
      continue;
    }
    loop_binding[size_t(it - info.loops.begin())] = int(i);
  }
  for (size_t l = 0; l < info.loops.size(); ++l)
    if (loop_binding[l] < 0 && !tir::is_const_int(info.loops[l]->extent, 1)) canonical = false;
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
    const tir::Var* last = block.iter_vars[size_t(loop_binding[info.n_spatial - 1])]->var.get();
    info.last_spatial_contiguous = true;
    for (const BufferStore* store : acc.stores) {
      const auto& idx = store->indices;
      bool ok = !idx.empty() && idx.back().get() == last;
      for (size_t k = 0; ok && k + 1 < idx.size(); ++k) ok = !uses_var(idx[k], last);
      info.last_spatial_contiguous &= ok;
    }
    auto load_uses = [&](const BufferLoad* load, const tir::Var* v) {
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
    for (size_t l = info.n_spatial - 1; l-- > 0;) {
      if (loop_binding[l] < 0) continue;
      const tir::IterVar& iv = *block.iter_vars[size_t(loop_binding[l])];
      const tir::Var* v = iv.var.get();
      bool shared = true;
      for (const BufferLoad* load : acc.loads)
        if (!is_stored(load) && load_uses(load, last) && load_uses(load, v)) shared = false;
      if (!shared) continue;
      const int64_t* extent = tir::as_const_int(iv.dom.extent);
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
  }
  return info;
}

/// The names of the blocks of `func` in program order (the root block included).
std::vector<std::string> block_names(const Ref<PrimFunc>& func) {
  std::vector<std::string> names;
  struct V : tir::StmtVisitor {
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
PrimExpr extent_of(const Schedule& s, const LoopRV& loop) {
  PrimExpr extent;
  tir::post_order_visit(s.func()->body, [&](const Stmt& st) {
    if (auto* f = st.as<For>(); f && f->loop_var.get() == loop.var.get()) extent = f->extent;
  });
  RX_ICHECK(extent.defined()) << "default schedule: loop " << loop.var->name << " vanished";
  return extent;
}

/// The extent of a loop when it is a constant.
std::optional<int64_t> const_extent(const Schedule& s, const LoopRV& loop) {
  const int64_t* c = tir::as_const_int(extent_of(s, loop));
  return c ? std::optional<int64_t>(*c) : std::nullopt;
}

// ---- Rules.

/// Vector lanes for elements of `dtype` (bool and narrow types count as bytes).
int64_t vector_lanes(DataType dtype, const CpuScheduleOptions& o) {
  return std::max<int64_t>(1, o.vector_bits / std::max<int>(8, dtype.bits));
}

/// How to split a constant extent into pieces of at most `limit`: the largest divisor of
/// `extent` not above `limit` (a power of two when `pow2`) when it is at least half of `limit`,
/// so no predicate is needed; otherwise `limit` itself (the split adds a predicate).
int64_t piece(int64_t extent, int64_t limit, bool pow2) {
  for (int64_t d = limit; d >= std::max<int64_t>(1, limit / 2); --d) {
    if (pow2 && (d & (d - 1)) != 0) continue;
    if (extent % d == 0) return d;
  }
  return limit;
}

LoopRV fuse_all(Schedule& s, const std::vector<LoopRV>& loops) {
  return loops.size() == 1 ? loops[0] : s.fuse(loops);
}

/// Marks `loop` parallel unless its constant extent is too small to share.
void parallel_if_worth(Schedule& s, const LoopRV& loop, const CpuScheduleOptions& o) {
  std::optional<int64_t> c = const_extent(s, loop);
  if (c && *c < o.min_parallel_extent) return;
  s.parallel(loop);
}

/// The leading spatial loops fused and parallel (reductions; the fallback of other rules).
void spatial_prefix_rule(Schedule& s, const std::vector<LoopRV>& loops, const BlockInfo& info,
                         const CpuScheduleOptions& o) {
  std::vector<LoopRV> prefix(loops.begin(), loops.begin() + long(info.n_spatial));
  parallel_if_worth(s, fuse_all(s, prefix), o);
}

}  // namespace relax::llvm_backend::detail

namespace relax::llvm_backend {

namespace {

using namespace detail;

/// Applies the first rule that works to block `name` (see the header comment).
void schedule_block(Schedule& s, const std::string& name, const CpuScheduleOptions& o) {
  BlockInfo info = analyze(s.func(), name);
  if (!info.realize || info.loops.empty() || !info.parallel_safe) return;
  BlockRV block = s.get_block(name);
  std::vector<LoopRV> loops = s.get_loops(block);
  if (loops.size() != info.loops.size()) return;
  const Schedule saved = s;
  auto attempt = [&](const auto& rule) {
    try {
      rule();
      return true;
    } catch (const Error& e) {
      s = saved;
      return false;
    }
  };
  if (!info.has_reduce && info.n_spatial == loops.size() &&
      attempt([&] { injective_rule(s, loops, info, o); }))
    return;
  if (info.has_reduce && info.n_spatial >= 2 && info.n_spatial < loops.size() &&
      o.register_blocking && info.last_spatial_contiguous && info.row_loop >= 0 &&
      attempt([&] { register_blocked_rule(s, block, loops, info, o); }))
    return;
  if (info.has_reduce && info.n_spatial >= 2 && info.n_spatial < loops.size() &&
      o.register_blocking && info.last_spatial_contiguous && info.row_loop < 0 &&
      attempt([&] { channel_rule(s, block, loops, info, o); }))
    return;
  if (info.has_reduce && info.n_spatial >= 2 &&
      attempt([&] { tiled_reduction_rule(s, block, loops, info, o); }))
    return;
  if (info.n_spatial >= 1 && attempt([&] { spatial_prefix_rule(s, loops, info, o); })) return;
  if (info.n_spatial >= 1) attempt([&] { parallel_if_worth(s, loops[0], o); });
}

}  // namespace

bool needs_default_schedule(const Ref<PrimFunc>& func) {
  if (!func.defined()) return false;
  if (const AttrValue* v = func->attrs.defined() ? func->attrs->find(kAttrScheduled) : nullptr) {
    if (auto* b = std::get_if<bool>(v); b && *b) return false;
    if (auto* i = std::get_if<int64_t>(v); i && *i != 0) return false;
  }
  bool has_block = false, all_serial = true;
  tir::post_order_visit(func->body, [&](const Stmt& s) {
    if (auto* f = s.as<For>()) all_serial &= f->kind == ForKind::kSerial;
    if (s.as<BlockRealize>()) has_block = true;
  });
  return has_block && all_serial;
}

Ref<PrimFunc> apply_default_cpu_schedule(Ref<PrimFunc> func, const CpuScheduleOptions& options) {
  if (!needs_default_schedule(func)) return func;
  std::optional<Schedule> s;
  try {
    s.emplace(func);
  } catch (const Error&) {
    return func;  // not schedulable (duplicate block names): left as it is
  }
  inline_elementwise_blocks(*s);
  for (const std::string& name : block_names(s->func())) schedule_block(*s, name, options);
  const Ref<PrimFunc>& out = s->func();
  return make_ref<PrimFunc>(out->params, out->body, out->buffer_map,
                            with_attr(out->attrs, kAttrScheduled, true), out->ret_type);
}

}  // namespace relax::llvm_backend
