// Default CPU schedule rules (schedule_rules.h): per block, classify its loop nest (the block
// analysis of relax/kernel/block_info.h), then apply
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
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "relax/ir/structural_equal.h"
#include "relax/support/diagnostic.h"
#include "relax/kernel/schedule.h"
#include "relax/tir/stmt_functor.h"

namespace relax::llvm_backend::detail {

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

/// Vectorizes the panel loop `col` of constant extent `c`. A panel wider than a vector but not
/// whole vectors (a packed panel of 24 at 16 lanes) goes as vectors of the largest power of
/// two dividing it (3 x 8, the 3 unrolled): LLVM's code for a <24 x float> tile was 13x slower
/// (MobileNetV2's 144 -> 24 1x1 conv: 8 ms against 0.6 with 8-wide panels). The same for whole
/// vectors of a count that is not a power of two (48 = 3 x 16), which LLVM legalises by
/// widening: MobileNetV2's 24 -> 144 1x1 conv (48-wide panels) took 9 ms (0.9 split). The
/// channel-wise rule too, now that its pads are inlined (MobileNetV2's 144-channel depthwise
/// conv ran 5x slower as <48 x float> tiles of padded taps than as three vectors of 16; the
/// unrolled vectors stay accumulators in registers: codegen_promote.cc).
void vectorize_panel(Schedule& s, LoopRV col, int64_t c, int64_t lanes) {
  int64_t v = 1;
  while (v * 2 <= lanes && c % (v * 2) == 0) v *= 2;
  int64_t count = c / lanes;
  bool odd_count = c % lanes == 0 && (count & (count - 1)) != 0;
  if (c > lanes && (c % lanes != 0 || odd_count) && v >= 4) {
    std::vector<LoopRV> parts = s.split(col, {-1, v});
    s.unroll(parts[0]);
    col = parts[1];
  }
  s.vectorize(col);
}

/// Marks `loop` parallel unless its constant extent is too small to share.
void parallel_if_worth(Schedule& s, const LoopRV& loop, const CpuScheduleOptions& o) {
  std::optional<int64_t> c = const_loop_extent(s, loop);
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

/// Whether `load` indexes its buffer by exactly the iteration variables of `block`, in order.
bool at_own_indices(const std::vector<PrimExpr>& indices, const Block& block) {
  if (indices.size() != block.iter_vars.size()) return false;
  for (size_t i = 0; i < indices.size(); ++i)
    if (indices[i].get() != block.iter_vars[i]->var.get()) return false;
  return true;
}

/// The write-back of the register-blocked or channel-wise reduction `producer`, whose task loop
/// is `task`: the blocks after it that read its result elementwise, at their own iteration
/// variables, and store at them too (a bias, a residual add, an activation, fused after the
/// reduction and inlined into one block) move to the end of the task (reverse_compute_at), so
/// each task applies them to its row block of outputs while they are in cache rather than in a
/// second pass over the whole intermediate from memory (ResNet-50's 56 x 56 x 256 outputs: 3.2 MB written, read back and written again). Their
/// innermost loop is vectorized. The task's outputs are a box of the output (the rule keeps
/// joined row blocks whole rows), so the region the consumer computes there is exactly what
/// the task wrote. Returns the names of the blocks moved; a block the primitive refuses stays
/// (with the injective rule) and ends the walk.
std::vector<std::string> attach_epilogues(Schedule& s, const std::string& producer,
                                          const LoopRV& task, const CpuScheduleOptions& o) {
  std::vector<std::string> moved;
  BlockInfo pinfo = analyze_block(s.func(), producer);
  if (!pinfo.realize || pinfo.realize->block->writes.size() != 1) return moved;
  const tir::Buffer* result = pinfo.realize->block->writes[0].buffer.get();
  std::vector<std::string> names = block_names(s.func());
  auto it = std::find(names.begin(), names.end(), producer);
  if (it == names.end()) return moved;
  for (++it; it != names.end(); ++it) {
    BlockInfo info = analyze_block(s.func(), *it);
    if (!info.realize || info.has_reduce || !info.parallel_safe ||
        info.n_spatial != info.loops.size())
      continue;
    const Block& block = *info.realize->block;
    Accesses acc;
    acc.visit_stmt(block.body);
    bool reads = false, elementwise = acc.stores.size() == 1 &&
                                      at_own_indices(acc.stores[0]->indices, block);
    for (const BufferLoad* load : acc.loads)
      if (load->buffer.get() == result) {
        reads = true;
        elementwise &= at_own_indices(load->indices, block);
      }
    if (!reads) continue;
    if (!elementwise) break;
    const Schedule saved = s;
    try {
      BlockRV b = s.get_block(*it);
      s.reverse_compute_at(b, task);
      std::vector<LoopRV> loops = s.get_loops(b);
      std::optional<int64_t> c = const_loop_extent(s, loops.back());
      if (info.last_spatial_contiguous && c && *c > 1 && loops.size() > 1)
        vectorize_panel(s, loops.back(), *c, vector_lanes(info.dtype, o));
    } catch (const Error&) {
      s = saved;
      break;
    }
    moved.push_back(*it);
  }
  return moved;
}

/// The in-place write-back (the last step of apply_default_cpu_schedule): a buffer the function
/// allocates, written by a reduction (and its init) and read besides by one block that maps it
/// elementwise (at that block's own iteration variables, load and store) onto a parameter of the
/// same shape and type that nothing else touches, is replaced by that parameter. The reduction then
/// accumulates in the output and its epilogue (bias, activation, residual add) rewrites each
/// element in place, after the reduction's last write to it: the intermediate, as large as the
/// output (MobileNetV2's 112 x 112 x 96: 4.8 MB), is neither written nor read back. Returns `func`
/// itself when no buffer qualifies.
Ref<PrimFunc> write_back_in_place(const Ref<PrimFunc>& func) {
  struct Entry {
    const Block* block;
    Accesses acc;
  };
  std::deque<Entry> blocks;
  std::vector<Ref<tir::Buffer>> allocated;
  tir::post_order_visit(func->body, [&](const Stmt& st) {
    const auto* r = st.as<BlockRealize>();
    if (!r) return;
    Entry& e = blocks.emplace_back();
    e.block = r->block.get();
    e.acc.visit_stmt(r->block->body);
    if (r->block->init.defined()) e.acc.visit_stmt(r->block->init);
    allocated.insert(allocated.end(), r->block->alloc_buffers.begin(),
                     r->block->alloc_buffers.end());
  });
  auto stores_to = [](const Entry& e, const tir::Buffer* b) {
    return std::any_of(e.acc.stores.begin(), e.acc.stores.end(),
                       [&](const BufferStore* st) { return st->buffer.get() == b; });
  };
  auto loads_from = [](const Entry& e, const tir::Buffer* b) {
    return std::any_of(e.acc.loads.begin(), e.acc.loads.end(),
                       [&](const BufferLoad* ld) { return ld->buffer.get() == b; });
  };
  auto same_exprs = [](const std::vector<PrimExpr>& a, const std::vector<PrimExpr>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!structural_equal(a[i], b[i], false)) return false;
    return true;
  };
  for (const Ref<tir::Buffer>& buf : allocated) {
    // The writers: the reduction and its init (a block of its own after decompose_reduction).
    // Every writer comes before the reader (post order is program order for sibling blocks).
    const Entry* reader = nullptr;
    int readers = 0;
    bool reduces = false, writer_after_reader = false;
    for (const Entry& e : blocks) {
      if (stores_to(e, buf.get())) {
        reduces |= std::any_of(
            e.block->iter_vars.begin(), e.block->iter_vars.end(),
            [](const Ref<tir::IterVar>& iv) { return iv->type == IterVarType::kReduce; });
        writer_after_reader |= reader != nullptr;
      } else if (loads_from(e, buf.get())) {
        reader = &e;
        ++readers;
      }
    }
    if (!reduces || writer_after_reader || readers != 1 || reader->acc.stores.size() != 1)
      continue;
    const BufferStore* out = reader->acc.stores[0];
    const Ref<tir::Buffer>& o = out->buffer;
    bool param = std::any_of(func->buffer_map.begin(), func->buffer_map.end(),
                             [&](const auto& kv) { return kv.second.get() == o.get(); });
    if (!param || o->dtype != buf->dtype || !same_exprs(o->shape, buf->shape) ||
        !o->strides.empty() || !buf->strides.empty() ||
        !structural_equal(o->elem_offset, buf->elem_offset, false) ||
        !at_own_indices(out->indices, *reader->block) || loads_from(*reader, o.get()))
      continue;
    bool elementwise = std::all_of(
        reader->acc.loads.begin(), reader->acc.loads.end(), [&](const BufferLoad* ld) {
          return ld->buffer.get() != buf.get() || at_own_indices(ld->indices, *reader->block);
        });
    bool alone = std::none_of(blocks.begin(), blocks.end(), [&](const Entry& e) {
      return &e != reader && (stores_to(e, o.get()) || loads_from(e, o.get()));
    });
    if (!elementwise || !alone) continue;
    struct Replace : tir::StmtExprMutator {
      const tir::Buffer* from;
      Ref<tir::Buffer> to;
      using tir::StmtExprMutator::visit_;
      Ref<tir::Buffer> visit_buffer(const Ref<tir::Buffer>& b) override {
        return b.get() == from ? to : b;
      }
      Stmt visit_(const Block* op) override {
        Stmt st = tir::StmtExprMutator::visit_(op);
        const auto* b = st.as<Block>();
        auto& allocs = b->alloc_buffers;
        if (std::find(allocs.begin(), allocs.end(), to) == allocs.end()) return st;
        std::vector<Ref<tir::Buffer>> kept;
        for (const Ref<tir::Buffer>& a : allocs)
          if (!a.same_as(to)) kept.push_back(a);
        return make_ref<Block>(b->name, b->iter_vars, b->reads, b->writes, b->body, b->init,
                               std::move(kept), b->match_buffers, b->annotations);
      }
    } replace;
    replace.from = buf.get();
    replace.to = o;
    Stmt body = replace.visit_stmt(func->body);
    // One buffer at a time: the entries above point into the old body.
    return write_back_in_place(make_ref<PrimFunc>(func->params, body, func->buffer_map,
                                                  func->attrs, func->ret_type));
  }
  return func;
}

/// Applies the first rule that works to block `name` (see the header comment); returns the
/// blocks it also scheduled (a reduction's write-back: attach_epilogues).
std::vector<std::string> schedule_block(Schedule& s, const std::string& name,
                                        const CpuScheduleOptions& o) {
  BlockInfo info = analyze_block(s.func(), name);
  if (!info.realize || info.loops.empty() || !info.parallel_safe) return {};
  BlockRV block = s.get_block(name);
  std::vector<LoopRV> loops = s.get_loops(block);
  if (loops.size() != info.loops.size()) return {};
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
    return {};
  std::optional<LoopRV> task;
  if (info.has_reduce && info.n_spatial >= 2 && info.n_spatial < loops.size() &&
      o.register_blocking && info.last_spatial_contiguous && info.row_loop >= 0 &&
      attempt([&] { task = register_blocked_rule(s, block, loops, info, o); }))
    return attach_epilogues(s, name, *task, o);
  if (info.has_reduce && info.n_spatial >= 2 && info.n_spatial < loops.size() &&
      o.register_blocking && info.last_spatial_contiguous && info.row_loop < 0 &&
      attempt([&] { task = channel_rule(s, block, loops, info, o); }))
    return task ? attach_epilogues(s, name, *task, o) : std::vector<std::string>{};
  if (info.has_reduce && info.n_spatial >= 2 &&
      attempt([&] { tiled_reduction_rule(s, block, loops, info, o); }))
    return {};
  if (info.n_spatial >= 1 && attempt([&] { spatial_prefix_rule(s, loops, info, o); })) return {};
  if (info.n_spatial >= 1) attempt([&] { parallel_if_worth(s, loops[0], o); });
  return {};
}

}  // namespace

CpuScheduleOptions cpu_schedule_options_for(int vector_bits) {
  CpuScheduleOptions o;
  o.vector_bits = vector_bits;
  if (vector_bits >= 512) {
    // AVX-512 (32 zmm): a 4 x 64 tile, 16 accumulators of four zmm per row. Measured on
    // Sapphire Rapids (CPU time per run, 1 thread, GEMM 1024^3 with B a parameter): 4 x 64
    // 77 GFLOP/s, 5 x 64 66, 6 x 32 45, 8 x 32 43, 6 x 64 and 12 x 32 (24 accumulators,
    // spilling) 30 and 17; the 256-bit 6 x 16 tile 32. Packed 32-wide panels take 8 rows.
    // k chunks of 128: the chunk's 128 x 64 floats of the right operand (32 KiB) stay in a
    // 48 KiB L1 across the row tiles, 256 x 64 (64 KiB) did not: on Zen 5 (2 threads)
    // ResNet-50 -1%, ResNet-18 -1%, BERT -0.4%, the 14 x 14 3x3 conv of peak.sh 440 -> 474
    // GFLOP/s, GEMM 1024^3 unchanged.
    o.mr = 4;
    o.nr = 64;
    o.kc = 128;
    o.mc = 64;
  } else if (vector_bits < 256) {
    // 128-bit vectors: 6 x 8, two registers per row as in the 256-bit tile.
    o.nr = 8;
  }
  return o;
}

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
  std::vector<std::string> done;
  for (const std::string& name : block_names(s->func())) {
    if (std::find(done.begin(), done.end(), name) != done.end()) continue;
    std::vector<std::string> more = schedule_block(*s, name, options);
    done.insert(done.end(), more.begin(), more.end());
  }
  Ref<PrimFunc> out = write_back_in_place(s->func());
  return make_ref<PrimFunc>(out->params, out->body, out->buffer_map,
                            with_attr(out->attrs, kAttrScheduled, true), out->ret_type);
}

}  // namespace relax::llvm_backend
