// The default GPU schedule rules (kernel/gpu_rules.h).
//
// The rules work nest by nest: each statement of the root block's body holds one block (or a
// block with nested ones, or loops without blocks), and becomes one kernel after the host /
// device split. A rule runs on a copy of the schedule; when a primitive refuses (or the
// rule finds a limit it cannot meet), the copy is dropped and the next rule runs.
#include "relax/kernel/gpu_rules.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <sstream>

#include "relax/kernel/block_info.h"
#include "relax/kernel/gpu_lower.h"
#include "relax/support/diagnostic.h"
#include "schedule_internal.h"

namespace relax::tir {

namespace {

/// Threads per block the rules aim for: enough to hide latency, few enough to leave
/// registers and shared memory to the kernel.
constexpr int64_t kThreadsPerBlock = 256;
/// Below this many reduce iterations per output a reduction stays serial in each thread.
constexpr int64_t kMinCrossThreadReduce = 32;
/// The largest grid dimension every device has (CUDA's y/z, Vulkan's minimum).
constexpr int64_t kInt32Max = 2147483647;

/// With RELAX_GPU_RULES_DEBUG set, says on stderr why a rule or a schedule level was refused.
void debug_refusal(const std::string& what, const std::string& why) {
  if (std::getenv("RELAX_GPU_RULES_DEBUG")) std::fprintf(stderr, "%s: %s\n", what.c_str(), why.c_str());
}

/// Why a rule does not apply: thrown inside a rule, caught by the dispatch.
[[noreturn]] void refuse(const std::string& why) { RX_THROW() << why; }

int64_t threads_cap(const GpuLimits& l) {
  return std::max<int64_t>(1, std::min({kThreadsPerBlock, l.max_threads_per_block,
                                        l.max_block[0]}));
}

/// Threads for a loop of `extent` (all of it when it is smaller than `cap`).
int64_t threads_for(std::optional<int64_t> extent, int64_t cap) {
  if (!extent) return cap;
  return std::clamp<int64_t>(*extent, 1, cap);
}

/// The loops of `block` that bind a reduce iteration variable.
std::vector<bool> reduce_loops(const BlockInfo& info) {
  const Block& block = *info.realize->block;
  std::vector<bool> out;
  for (const For* f : info.loops) {
    bool reduce = false;
    for (size_t i = 0; i < block.iter_vars.size(); ++i)
      if (block.iter_vars[i]->type != IterVarType::kSpatial &&
          uses_var(info.realize->iter_values[i], f->loop_var.get()))
        reduce = true;
    out.push_back(reduce);
  }
  return out;
}

/// The loops of a block split into spatial and reduce loops, reordered so that the spatial
/// ones come first.
struct SplitLoops {
  std::vector<LoopRV> spatial, reduce;
};

SplitLoops spatial_first(Schedule& s, const BlockRV& block, const BlockInfo& info) {
  std::vector<LoopRV> loops = s.get_loops(block);
  std::vector<bool> is_reduce = reduce_loops(info);
  RX_ICHECK(loops.size() == is_reduce.size());
  SplitLoops out;
  for (size_t i = 0; i < loops.size(); ++i)
    (is_reduce[i] ? out.reduce : out.spatial).push_back(loops[i]);
  std::vector<LoopRV> order = out.spatial;
  order.insert(order.end(), out.reduce.begin(), out.reduce.end());
  bool moved = false;
  for (size_t i = 0; i < order.size(); ++i) moved |= order[i].var.get() != loops[i].var.get();
  if (moved) s.reorder(order);
  return out;
}

/// Binds `loop` onto blocks x threads: [blockIdx.x, threadIdx.x], or, when the blocks could
/// exceed the grid limit, [blockIdx.x, threadIdx.x, serial] (a grid-stride loop). With a
/// symbolic extent the grid is sized by the data, max(1, min(ceil(n / t), max_grid)) blocks,
/// so a small tensor launches few blocks however large the device's limit.
void bind_blocks_threads(Schedule& s, const LoopRV& loop, const GpuLimits& l) {
  std::optional<int64_t> n = const_loop_extent(s, loop);
  int64_t t = threads_for(n, threads_cap(l));
  int64_t grid = l.max_grid[0];
  bool fits = n ? (*n + t - 1) / t <= grid : grid >= kInt32Max;
  std::vector<LoopRV> parts = s.split(loop, {-1, t});
  if (fits) {
    s.bind(parts[0], "blockIdx.x");
    s.bind(parts[1], "threadIdx.x");
    return;
  }
  PrimExpr blocks = int_imm(grid, loop.var->dtype);
  if (!n) {
    PrimExpr needed = loop_extent(s, parts[0]);
    blocks = max(int_imm(1, needed->dtype), min(needed, int_imm(grid, needed->dtype)));
  }
  std::vector<LoopRV> outer = s.split_exprs(parts[0], {PrimExpr(), blocks});
  s.reorder({outer[1], parts[1], outer[0]});
  s.bind(outer[1], "blockIdx.x");
  s.bind(parts[1], "threadIdx.x");
}

void injective_rule(Schedule& s, const BlockRV& block, const GpuLimits& l) {
  std::vector<LoopRV> loops = s.get_loops(block);
  if (loops.empty()) refuse("no loops");
  bind_blocks_threads(s, fuse_all(s, loops), l);
}

/// The product of the loops' constant extents; nullopt when one is symbolic.
std::optional<int64_t> const_product(const Schedule& s, const std::vector<LoopRV>& loops) {
  int64_t p = 1;
  for (const LoopRV& loop : loops) {
    std::optional<int64_t> c = const_loop_extent(s, loop);
    if (!c) return std::nullopt;
    p *= *c;
  }
  return p;
}

/// Each thread of a reduction accumulates its output in a register (a "local" cache of the
/// region it writes under `thread_loop`, the innermost thread-bound loop above the reduce
/// loops), stored to the output once after the reduction: otherwise every step of the
/// reduction loads and stores global memory. Keeps the schedule as it is where the cache does
/// not apply (an output written by another block of the nest, say).
void accumulate_in_registers(Schedule& s, const BlockRV& block, const LoopRV& thread_loop) {
  const Schedule saved = s;
  try {
    s.cache_write(block, 0, "local", thread_loop);
  } catch (const Error& e) {
    debug_refusal("registers for the accumulator", e.message());
    s = saved;
  }
}

void matmul_rule(Schedule& s, const BlockRV& block, const BlockInfo& info, const GpuLimits& l) {
  SplitLoops sl = spatial_first(s, block, info);
  if (sl.spatial.size() < 2 || sl.reduce.empty()) refuse("not a two-axis reduction");
  LoopRV i = sl.spatial[sl.spatial.size() - 2], j = sl.spatial.back();
  int64_t cap = threads_cap(l);
  int64_t tx = threads_for(const_loop_extent(s, j), std::min<int64_t>(32, cap));
  int64_t ty = threads_for(const_loop_extent(s, i), std::max<int64_t>(1, cap / tx));
  ty = std::min(ty, l.max_block[1]);
  std::vector<LoopRV> is = s.split(i, {-1, ty});
  std::vector<LoopRV> js = s.split(j, {-1, tx});
  std::vector<LoopRV> outer(sl.spatial.begin(), sl.spatial.end() - 2);
  outer.push_back(is[0]);
  outer.push_back(js[0]);
  std::vector<LoopRV> order = outer;
  order.push_back(is[1]);
  order.push_back(js[1]);
  s.reorder(order);
  LoopRV blocks = fuse_all(s, outer);
  std::optional<int64_t> nb = const_loop_extent(s, blocks);
  if (nb ? *nb > l.max_grid[0] : l.max_grid[0] < kInt32Max) refuse("grid too large");
  s.bind(blocks, "blockIdx.x");
  s.bind(is[1], "threadIdx.y");
  s.bind(js[1], "threadIdx.x");
  accumulate_in_registers(s, block, js[1]);
}

/// The bytes of the shared-scope buffers the root block allocates.
int64_t shared_bytes(const Ref<PrimFunc>& func) {
  const Block* root = sched::root_block(func);
  int64_t total = 0;
  for (const Ref<Buffer>& b : root ? root->alloc_buffers : std::vector<Ref<Buffer>>{}) {
    if (b->scope != "shared") continue;
    int64_t n = (b->dtype.bits * b->dtype.lanes + 7) / 8;
    for (const PrimExpr& d : b->shape) {
      const int64_t* c = as_const_int(d);
      if (!c) refuse("a shared tile of symbolic size");
      n *= *c;
    }
    total += n;
  }
  return total;
}

/// gpu.matmul with shared tiles: a block of TY x TX threads computes a TY x TX tile of the
/// two innermost spatial axes, one output per thread, accumulated in a register. Inside the
/// threads, the fused reduction steps by kStep, and at each step the threads copy the
/// operands' tiles into shared memory together (the copy loops bound to threadIdx.y/x again,
/// inside the thread loops: the same threads, each copying its share), then each thread
/// accumulates its output from them; after the reduction it stores the output once. The GPU
/// lowering puts the barriers between the copies and their uses.
void matmul_shared_rule(Schedule& s, const BlockRV& block, const BlockInfo& info,
                        const GpuLimits& l) {
  constexpr int64_t kTile = 16, kStep = 16;
  SplitLoops sl = spatial_first(s, block, info);
  if (sl.spatial.size() < 2 || sl.reduce.empty()) refuse("not a two-axis reduction");
  std::optional<int64_t> ki = const_product(s, sl.reduce);
  if (ki && *ki < kStep) refuse("short reduction");
  LoopRV i = sl.spatial[sl.spatial.size() - 2], j = sl.spatial.back();
  std::optional<int64_t> ni = const_loop_extent(s, i), nj = const_loop_extent(s, j);
  if ((ni && *ni < kTile / 2) || (nj && *nj < kTile / 2)) refuse("skinny output");
  int64_t ty = std::min({kTile, l.max_block[1]}), tx = std::min({kTile, l.max_block[0]});
  if (ty * tx > l.max_threads_per_block) refuse("tile exceeds the threads per block");
  LoopRV k = fuse_all(s, sl.reduce);
  std::vector<LoopRV> is = s.split(i, {-1, ty});
  std::vector<LoopRV> js = s.split(j, {-1, tx});
  std::vector<LoopRV> ks = s.split(k, {-1, kStep});
  std::vector<LoopRV> outer(sl.spatial.begin(), sl.spatial.end() - 2);
  outer.push_back(is[0]);
  outer.push_back(js[0]);
  std::vector<LoopRV> order = outer;
  for (const LoopRV& loop : {is[1], js[1], ks[0], ks[1]}) order.push_back(loop);
  s.reorder(order);
  LoopRV blocks = fuse_all(s, outer);
  std::optional<int64_t> nb = const_loop_extent(s, blocks);
  if (nb ? *nb > l.max_grid[0] : l.max_grid[0] < kInt32Max) refuse("grid too large");
  s.bind(blocks, "blockIdx.x");
  s.bind(is[1], "threadIdx.y");
  s.bind(js[1], "threadIdx.x");
  s.cache_write(block, 0, "local", js[1]);
  s.decompose_reduction(block, ks[0]);
  // Cache every operand (the reads other than the accumulator) at the reduction step.
  Ref<Block> b = sched::find_block(s.func()->body, block.name, "gpu.matmul.shared").realize->block;
  std::vector<int> operands;
  for (size_t r = 0; r < b->reads.size(); ++r) {
    bool written = false;
    for (const BufferRegion& w : b->writes) written |= w.buffer.get() == b->reads[r].buffer.get();
    if (!written) operands.push_back(int(r));
  }
  if (operands.empty()) refuse("no operands");
  // Caching shifts the read indices: cache the last operand first.
  for (auto it = operands.rbegin(); it != operands.rend(); ++it) {
    BlockRV copy = s.cache_read(block, *it, "shared", ks[0]);
    std::vector<LoopRV> copy_loops = s.get_loops(copy);
    // Under blockIdx, threadIdx.y/x and the step loop.
    if (copy_loops.size() <= 4) refuse("a copy without loops");
    std::vector<LoopRV> inner(copy_loops.begin() + 4, copy_loops.end());
    std::vector<LoopRV> parts = s.split(fuse_all(s, inner), {-1, ty, tx});
    s.bind(parts[1], "threadIdx.y");
    s.bind(parts[2], "threadIdx.x");
  }
  if (shared_bytes(s.func()) > l.max_shared_memory_bytes) refuse("tiles exceed shared memory");
}

void cross_thread_reduction_rule(Schedule& s, const BlockRV& block, const BlockInfo& info,
                                 const GpuLimits& l) {
  SplitLoops sl = spatial_first(s, block, info);
  if (sl.reduce.empty()) refuse("no reduce loops");
  std::optional<int64_t> r = const_product(s, sl.reduce);
  if (r && *r < kMinCrossThreadReduce && !sl.spatial.empty()) refuse("short reduction");
  std::optional<int64_t> n = const_product(s, sl.spatial);
  if (!sl.spatial.empty() && (n ? *n > l.max_grid[0] : l.max_grid[0] < kInt32Max))
    refuse("grid too large");
  LoopRV red = fuse_all(s, sl.reduce);
  int64_t t = threads_for(r, threads_cap(l));
  std::vector<LoopRV> rs = s.split(red, {-1, t});
  s.reorder({rs[1], rs[0]});
  if (!sl.spatial.empty()) s.bind(fuse_all(s, sl.spatial), "blockIdx.x");
  s.bind(rs[1], "threadIdx.x");
}

void serial_reduction_rule(Schedule& s, const BlockRV& block, const BlockInfo& info,
                           const GpuLimits& l) {
  SplitLoops sl = spatial_first(s, block, info);
  if (sl.spatial.empty()) refuse("no spatial loops");
  bind_blocks_threads(s, fuse_all(s, sl.spatial), l);
  std::vector<LoopRV> loops = s.get_loops(block);  // blocks, threads[, grid stride], reduce...
  accumulate_in_registers(s, block, loops[loops.size() - sl.reduce.size() - 1]);
}

/// gpu.general_reduction (softmax, layer norm): a function whose last nest is a spatial block
/// over (rows..., columns) and whose other nests produce per-row values it reads. One block
/// per row: the earlier nests move under the row loop (compute_at), each spreads its loops
/// over threadIdx.x (a reduction becomes a cross-thread reduction), their results live in
/// shared memory, and the last block's columns go to the threads.
void general_reduction_rule(Schedule& s, const GpuLimits& l) {
  std::vector<std::string> names;
  for (const std::string& n : block_names(s.func()))
    if (n != "root") names.push_back(n);
  if (names.size() < 2) refuse("a single block");
  const std::string last = names.back();
  BlockInfo info = analyze_block(s.func(), last);
  if (!info.realize || info.has_reduce || !info.parallel_safe || info.loops.size() < 2)
    refuse("the last block is not a spatial nest over rows and columns");
  for (size_t i = 0; i + 1 < names.size(); ++i) {
    BlockInfo b = analyze_block(s.func(), names[i]);
    if (!b.realize || !b.parallel_safe) refuse("a stage is not safe to run concurrently");
  }
  int64_t t = threads_cap(l);
  std::vector<LoopRV> loops = s.get_loops(s.get_block(last));
  LoopRV row = fuse_all(s, std::vector<LoopRV>(loops.begin(), loops.end() - 1));
  std::optional<int64_t> nrows = const_loop_extent(s, row);
  if (nrows ? *nrows > l.max_grid[0] : l.max_grid[0] < kInt32Max) refuse("grid too large");
  std::vector<LoopRV> cols = s.split(loops.back(), {-1, t});
  s.reorder({cols[1], cols[0]});
  // Producers, the last first: each moves under the row loop with its result in shared memory.
  for (size_t i = names.size() - 1; i-- > 0;) {
    BlockRV b = s.get_block(names[i]);
    s.set_scope(b, 0, "shared");
    s.compute_at(b, row);
    std::vector<LoopRV> inner = s.get_loops(b);
    inner.erase(inner.begin());  // the row loop
    if (inner.empty()) refuse("a stage without loops under the row");
    // Under the row, a stage is a reduction of one value per row (all its loops reduce) or
    // an elementwise stage (none does); a mix (a matmul's columns and K) is not row-wise.
    std::vector<bool> is_reduce = reduce_loops(analyze_block(s.func(), names[i]));
    size_t n_reduce = size_t(std::count(is_reduce.begin(), is_reduce.end(), true));
    if (n_reduce != 0 && n_reduce != inner.size()) refuse("a stage is not row-wise");
    std::vector<LoopRV> parts = s.split(fuse_all(s, inner), {-1, t});
    s.reorder({parts[1], parts[0]});
    s.bind(parts[1], "threadIdx.x");
  }
  if (shared_bytes(s.func()) > l.max_shared_memory_bytes) refuse("rows exceed shared memory");
  s.bind(row, "blockIdx.x");
  s.bind(cols[1], "threadIdx.x");
}

/// `func` with `stmt` (one of its statements) wrapped in one-thread blockIdx.x / threadIdx.x
/// loops.
Ref<PrimFunc> wrap_on_one_thread(const Ref<PrimFunc>& func, const StmtNode* stmt) {
  Stmt nest;
  post_order_visit(func->body, [&](const Stmt& st) {
    if (st.get() == stmt) nest = st;
  });
  RX_ICHECK(nest.defined()) << "gpu rules: nest vanished";
  Ref<Var> bx = var("blockIdx_x", DataType::Int(32)), tx = var("threadIdx_x", DataType::Int(32));
  PrimExpr zero = int_imm(0, DataType::Int(32)), one = int_imm(1, DataType::Int(32));
  Stmt wrapped = make_ref<For>(bx, zero, one, ForKind::kThreadBinding,
                               make_ref<For>(tx, zero, one, ForKind::kThreadBinding, nest,
                                             "threadIdx.x"),
                               "blockIdx.x");
  Stmt body = stmt == func->body.get() ? wrapped : sched::replace_stmt(func->body, stmt, wrapped);
  return make_ref<PrimFunc>(func->params, body, func->buffer_map, func->attrs, func->ret_type);
}

Schedule on_one_thread(const Schedule& s, const StmtNode* stmt) {
  return Schedule(wrap_on_one_thread(s.func(), stmt));
}

/// The statements of the root block's body (the nests).
std::vector<const StmtNode*> nests(const Ref<PrimFunc>& func) {
  const Block* root = sched::root_block(func);
  RX_ICHECK(root) << "gpu rules: no root block";
  std::vector<const StmtNode*> out;
  if (auto* seq = root->body.as<SeqStmt>()) {
    for (const Stmt& st : seq->seq) out.push_back(st.get());
  } else {
    out.push_back(root->body.get());
  }
  return out;
}

bool has_thread_binding(const Stmt& s) {
  bool found = false;
  post_order_visit(s, [&](const Stmt& st) {
    if (auto* f = st.as<For>(); f && f->kind == ForKind::kThreadBinding) found = true;
  });
  return found;
}

class RuleDispatch {
 public:
  /// `cooperative`: the rules whose threads share memory (shared tiles, cross-thread
  /// reductions) may run; without, only rules whose threads are independent.
  RuleDispatch(Schedule& s, const GpuLimits& l, const std::string& fname, GpuScheduleReport& r,
               bool cooperative)
      : s_(s), l_(l), fname_(fname), report_(r), cooperative_(cooperative) {}

  /// Schedules the nest at `index` of the root block.
  void schedule_nest(size_t index) {
    const StmtNode* nest = nests(s_.func())[index];
    std::vector<const BlockRealize*> realizes = sched::realizes_under(Stmt(nest));
    if (realizes.empty()) {
      return single_thread(nest, "(loops without a block)", "it has no block to analyse");
    }
    const std::string name = realizes[0]->block->name;
    if (realizes.size() > 1)
      return single_thread(nest, name, "its nest holds " + std::to_string(realizes.size()) +
                                           " blocks");
    BlockInfo info = analyze_block(s_.func(), name);
    if (info.loops.empty()) {
      s_ = on_one_thread(s_, nest);
      report_.blocks.emplace_back(name, "gpu.scalar");
      return;
    }
    if (!info.parallel_safe)
      return single_thread(nest, name, "its iterations are not independent (a scan, a sort "
                                       "or a scatter)");
    BlockRV block = s_.get_block(name);
    if (!info.has_reduce && attempt(name, "gpu.injective", [&] { injective_rule(s_, block, l_); }))
      return;
    if (info.has_reduce) {
      if (cooperative_ &&
          attempt(name, "gpu.matmul.shared", [&] { matmul_shared_rule(s_, block, info, l_); }))
        return;
      if (attempt(name, "gpu.matmul", [&] { matmul_rule(s_, block, info, l_); })) return;
      if (cooperative_ && attempt(name, "gpu.reduction",
                                  [&] { cross_thread_reduction_rule(s_, block, info, l_); }))
        return;
      if (attempt(name, "gpu.reduction.serial",
                  [&] { serial_reduction_rule(s_, block, info, l_); }))
        return;
    }
    single_thread(nests(s_.func())[index], name,
                  last_error_.empty() ? "no rule applies" : "no rule applies (" + last_error_ + ")");
  }

 private:
  template <class F>
  bool attempt(const std::string& block, const char* rule, F&& f) {
    const Schedule saved = s_;
    try {
      f();
      report_.blocks.emplace_back(block, rule);
      return true;
    } catch (const Error& e) {
      last_error_ = std::string(rule) + ": " + e.message();
      debug_refusal(rule, e.message());
      s_ = saved;
      return false;
    }
  }

  void single_thread(const StmtNode* nest, const std::string& block, const std::string& why) {
    s_ = on_one_thread(s_, nest);
    report_.blocks.emplace_back(block, "gpu.single_thread");
    report_.warnings.push_back("kernel " + fname_ + ": block " + block +
                               " runs on a single GPU thread: " + why);
  }

  Schedule& s_;
  const GpuLimits& l_;
  const std::string& fname_;
  GpuScheduleReport& report_;
  bool cooperative_;
  std::string last_error_;
};

}  // namespace

bool GpuScheduleReport::single_thread() const {
  return std::any_of(blocks.begin(), blocks.end(),
                     [](const auto& b) { return b.second == "gpu.single_thread"; });
}

std::string GpuScheduleReport::summary() const {
  std::ostringstream os;
  for (size_t i = 0; i < blocks.size(); ++i)
    os << (i ? ", " : "") << blocks[i].first << ": " << blocks[i].second;
  return os.str();
}

const std::vector<std::string>& gpu_rule_names() {
  static const std::vector<std::string> names = {
      "gpu.general_reduction", "gpu.injective",        "gpu.matmul.shared",
      "gpu.matmul",            "gpu.reduction",        "gpu.reduction.serial",
      "gpu.scalar",            "gpu.single_thread"};
  return names;
}

bool is_gpu_scheduled(const Ref<PrimFunc>& func) {
  bool ok = true;
  struct V : StmtVisitor {
    int depth = 0;
    bool* ok;
    bool top = true;
    using StmtVisitor::visit_;
    void visit_(const For* op) override {
      depth += op->kind == ForKind::kThreadBinding;
      StmtVisitor::visit_(op);
      depth -= op->kind == ForKind::kThreadBinding;
    }
    void visit_(const BlockRealize* op) override {
      bool is_root = top && op->block->iter_vars.empty();
      top = false;
      if (!is_root && depth == 0) *ok = false;
      StmtVisitor::visit_(op);
    }
  } v;
  v.ok = &ok;
  v.visit_stmt(func->body);
  return ok;
}

GpuScheduled apply_default_gpu_schedule(const Ref<PrimFunc>& func, const GpuLimits& limits,
                                        const std::string& name) {
  GpuScheduled out{func, {}, std::nullopt};
  if (has_thread_binding(func->body)) return out;
  std::optional<Schedule> made;
  try {
    made.emplace(sched::ensure_root_block(func));
  } catch (const Error& e) {
    // Not schedulable (two blocks of one name): the whole body on one thread.
    out.func = wrap_on_one_thread(func, func->body.get());
    out.report.blocks.emplace_back("(function)", "gpu.single_thread");
    out.report.warnings.push_back("kernel " + name + " runs on a single GPU thread: " +
                                  e.message());
    return out;
  }
  Schedule& s = *made;
  inline_elementwise_blocks(s, /*avoid_repeated_work=*/false);
  // A schedule counts only if the GPU lowering takes it (a reducer it cannot turn into a
  // tree, a barrier that would sit in divergent code): each level is checked by lowering it,
  // and a level that does not lower gives way to the next, down to one thread per nest.
  auto lowers = [&](const Ref<PrimFunc>& f, const char* level) {
    try {
      out.program = lower_for_gpu(f, limits, name);
      return true;
    } catch (const Error& e) {
      debug_refusal(name + ": " + level, "does not lower: " + e.message());
      return false;
    }
  };
  const Schedule inlined = s;
  // 1. Whole-function rules: one kernel for a chain of row-wise stages.
  std::vector<std::string> stages;
  for (const std::string& n : block_names(s.func()))
    if (n != "root") stages.push_back(n);
  try {
    general_reduction_rule(s, limits);
    if (lowers(s.func(), "gpu.general_reduction")) {
      for (const std::string& n : stages)
        out.report.blocks.emplace_back(n, "gpu.general_reduction");
      out.func = s.func();
      return out;
    }
  } catch (const Error& e) {
    debug_refusal("gpu.general_reduction", e.message());
  }
  // 2. Per-nest rules, with cooperative threads, then without.
  for (bool cooperative : {true, false}) {
    s = inlined;
    GpuScheduleReport report;
    RuleDispatch dispatch(s, limits, name, report, cooperative);
    size_t count = nests(s.func()).size();
    for (size_t i = 0; i < count; ++i) dispatch.schedule_nest(i);
    RX_ICHECK(is_gpu_scheduled(s.func())) << "gpu rules: " << name << " left a block unbound";
    if (lowers(s.func(), cooperative ? "cooperative rules" : "independent-thread rules")) {
      out.func = s.func();
      out.report = std::move(report);
      return out;
    }
  }
  // 3. Every nest on one thread.
  s = inlined;
  for (size_t i = 0, n = nests(s.func()).size(); i < n; ++i) {
    s = on_one_thread(s, nests(s.func())[i]);
    out.report.blocks.emplace_back("(nest " + std::to_string(i) + ")", "gpu.single_thread");
  }
  out.report.warnings.push_back("kernel " + name +
                                " runs on a single GPU thread: no schedule of it lowers");
  out.func = s.func();
  return out;
}

}  // namespace relax::tir
