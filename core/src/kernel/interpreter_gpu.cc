// GPU semantics of the reference interpreter (tir/interpreter.h): block regions, threads,
// shared/local/global allocations and barriers.
//
// analyze_gpu walks the function once and records its block regions. A serial Executor that
// reaches a region's root runs it once per thread of the block:
//  - without barriers, the threads run one after another on the serial Executor's Env (each
//    thread's bindings are scoped, so the Env is back to the block's state after each);
//  - with barriers, every thread gets its own Env and fiber, and a scheduler resumes the
//    fibers in thread order until each waits at a barrier or has finished, then releases them
//    all (or reports a thread that finished early or waits at another barrier).
#include <algorithm>
#include <map>
#include <sstream>

#include "interpreter_exec.h"
#include "relax/support/diagnostic.h"
#include "relax/tir/attrs.h"
#include "relax/tir/intrin.h"

namespace relax::tir::interp {

int thread_axis(const std::string& tag) {
  if (tag == "threadIdx.x") return 0;
  if (tag == "threadIdx.y") return 1;
  if (tag == "threadIdx.z") return 2;
  return -1;
}

bool is_block_tag(const std::string& tag) {
  return tag == "blockIdx.x" || tag == "blockIdx.y" || tag == "blockIdx.z";
}

namespace {

/// The most threads a block may have: a sanity bound (targets check their own limits).
constexpr int64_t kMaxThreadsPerBlock = 1024;

/// Calls `f` on each direct sub-statement of `s`.
template <class F>
void for_each_child(const Stmt& s, F&& f) {
  switch (StmtKind(s->kind())) {
    case StmtKind::kLetStmt:
      return f(s.as<LetStmt>()->body);
    case StmtKind::kAssertStmt:
      return f(s.as<AssertStmt>()->body);
    case StmtKind::kFor:
      return f(s.as<For>()->body);
    case StmtKind::kAllocate:
      return f(s.as<Allocate>()->body);
    case StmtKind::kIfThenElse: {
      auto* op = s.as<IfThenElse>();
      f(op->then_case);
      if (op->else_case.defined()) f(op->else_case);
      return;
    }
    case StmtKind::kSeqStmt:
      for (const auto& c : s.as<SeqStmt>()->seq) f(c);
      return;
    case StmtKind::kBlockRealize:
      return f(s.as<BlockRealize>()->block);
    case StmtKind::kBlock: {
      auto* op = s.as<Block>();
      if (op->init.defined()) f(op->init);
      return f(op->body);
    }
    default:
      return;
  }
}

std::string loop_name(const For* loop) {
  return loop->loop_var->name + " (" + loop->thread_tag + ")";
}

enum : uint8_t { kHasBlockLoop = 1, kHasThreadLoop = 2 };

/// Finds the block regions of a function (analyze_gpu).
class RegionFinder {
 public:
  explicit RegionFinder(Gpu& gpu) : gpu_(gpu) {}

  /// kHasBlockLoop / kHasThreadLoop: whether `s` is or contains such a loop.
  uint8_t flags(const Stmt& s) {
    auto it = memo_.find(s.get());
    if (it != memo_.end()) return it->second;
    uint8_t f = 0;
    if (auto* loop = s.as<For>(); loop && loop->kind == ForKind::kThreadBinding) {
      if (is_block_tag(loop->thread_tag)) f |= kHasBlockLoop;
      if (thread_axis(loop->thread_tag) >= 0) f |= kHasThreadLoop;
    }
    for_each_child(s, [&](const Stmt& c) { f |= flags(c); });
    memo_[s.get()] = f;
    return f;
  }

  /// Makes a region of the outermost statements under `s` that hold threadIdx loops and no
  /// blockIdx loop; `block_loop` is the innermost blockIdx loop around `s`.
  void find(const Stmt& s, const For* block_loop) {
    uint8_t f = flags(s);
    if (!(f & kHasThreadLoop)) return;
    if (!(f & kHasBlockLoop)) return add_region(s, block_loop);
    const For* loop = s.as<For>();
    if (loop && loop->kind == ForKind::kThreadBinding) {
      RX_CHECK(thread_axis(loop->thread_tag) < 0)
          << "kernel '" << gpu_.kernel << "': thread loop " << loop_name(loop)
          << " encloses a blockIdx loop; blockIdx loops must be outside the threadIdx loops";
      if (is_block_tag(loop->thread_tag)) block_loop = loop;
    }
    for_each_child(s, [&](const Stmt& c) { find(c, block_loop); });
  }

 private:
  void add_region(const Stmt& root, const For* block_loop) {
    Region r;
    r.what = block_loop
                 ? "the block of blockIdx loop " + loop_name(block_loop)
                 : std::string("its single block (threadIdx loops outside any blockIdx loop)");
    std::array<const For*, 3> active{nullptr, nullptr, nullptr};
    collect(root, r, active);
    gpu_.regions.emplace(root.get(), std::move(r));
  }

  void collect(const Stmt& s, Region& r, std::array<const For*, 3>& active) {
    if (auto* loop = s.as<For>(); loop && loop->kind == ForKind::kThreadBinding) {
      int axis = thread_axis(loop->thread_tag);
      if (axis >= 0) {
        // A loop nested in one of its tag runs on the same thread index (TVM's meaning: the
        // cooperative copy of a shared tile inside the threads that use it).
        r.thread_loops.emplace_back(loop, axis);
        const For* outer = active[size_t(axis)];
        active[size_t(axis)] = loop;
        collect(loop->body, r, active);
        active[size_t(axis)] = outer;
        return;
      }
    }
    if (auto* e = s.as<Evaluate>(); e && is_storage_sync(e->value)) {
      r.barriers.emplace(e, int(r.barriers.size()) + 1);
      return;
    }
    for_each_child(s, [&](const Stmt& c) { collect(c, r, active); });
  }

  Gpu& gpu_;
  std::unordered_map<const StmtNode*, uint8_t> memo_;
};

/// "(x, y, z)" of the threads at `ids` (linear indices over `dims`), the first few of them.
std::string thread_list(const std::vector<int64_t>& ids, const std::array<int64_t, 3>& dims) {
  std::ostringstream os;
  size_t shown = std::min<size_t>(ids.size(), 6);
  for (size_t k = 0; k < shown; ++k) {
    int64_t i = ids[k];
    os << (k ? ", " : "") << "(" << i % dims[0] << ", " << (i / dims[0]) % dims[1] << ", "
       << i / (dims[0] * dims[1]) << ")";
  }
  if (shown < ids.size()) os << " and " << ids.size() - shown << " more";
  return os.str();
}

/// The thread-private ("local" outside any region) memories of `env`, replaced by copies for
/// the threads run in turn, and restored on destruction.
class PrivateCopies {
 public:
  explicit PrivateCopies(Env& env) : env_(env) {
    for (auto& [var, mem] : env.memory)
      if (mem.thread_private) originals_.emplace_back(var, mem);
    copies_.resize(originals_.size());
  }
  /// Gives the next thread fresh copies of the original contents.
  void refresh() {
    for (size_t k = 0; k < originals_.size(); ++k) {
      const Memory& m = originals_[k].second;
      copies_[k].assign(m.data, m.data + m.nbytes);
      env_.memory[originals_[k].first].data = copies_[k].data();
    }
  }
  ~PrivateCopies() {
    for (auto& [var, mem] : originals_) env_.memory[var] = mem;
  }
  PrivateCopies(const PrivateCopies&) = delete;
  PrivateCopies& operator=(const PrivateCopies&) = delete;

 private:
  Env& env_;
  std::vector<std::pair<const Var*, Memory>> originals_;
  std::vector<std::vector<char>> copies_;
};

}  // namespace

std::unique_ptr<Gpu> analyze_gpu(const PrimFunc& f) {
  auto gpu = std::make_unique<Gpu>();
  RegionFinder finder(*gpu);
  if (!(finder.flags(f.body) & kHasThreadLoop)) return nullptr;
  gpu->kernel = get_string(f.attrs, kAttrGlobalSymbol, "main");
  finder.find(f.body, nullptr);
  return gpu;
}

void Executor::run_region(const Region& region, const Stmt& root) {
  const std::string& kernel = gpu_->kernel;
  // Threads per axis: the largest extent of the region's loops of each tag.
  std::array<int64_t, 3> dims{1, 1, 1};
  for (const auto& [loop, axis] : region.thread_loops) {
    int64_t extent = 0;
    try {
      extent = eval_.eval_int(loop->extent);
    } catch (const Error& e) {
      RX_THROW() << "kernel '" << kernel << "': the extent " << to_string(loop->extent)
                 << " of thread loop " << loop_name(loop) << " must be known when " << region.what
                 << " starts: " << e.what();
    }
    dims[size_t(axis)] = std::max(dims[size_t(axis)], extent);
  }
  bool in_bound = dims[0] <= kMaxThreadsPerBlock && dims[1] <= kMaxThreadsPerBlock &&
                  dims[2] <= kMaxThreadsPerBlock &&
                  dims[0] * dims[1] * dims[2] <= kMaxThreadsPerBlock;
  RX_CHECK(in_bound) << "kernel '" << kernel << "': " << region.what << " has " << dims[0] << " x "
                     << dims[1] << " x " << dims[2]
                     << " threads (threadIdx.x, y, z); a block has at most " << kMaxThreadsPerBlock;
  int64_t n = dims[0] * dims[1] * dims[2];
  std::unordered_map<const Allocate*, std::vector<char>> shared;
  auto thread_of = [&](int64_t i) {
    ThreadState t;
    t.index = {i % dims[0], (i / dims[0]) % dims[1], i / (dims[0] * dims[1])};
    t.dims = dims;
    t.shared = &shared;
    return t;
  };

  if (region.barriers.empty()) {
    PrivateCopies copies(env_);
    for (int64_t i = 0; i < n; ++i) {
      copies.refresh();
      ThreadState t = thread_of(i);
      Executor(env_, gpu_, &t)(root);
    }
  } else {
    // One Env, state and fiber per thread. The guard runs every fiber to its end before the
    // Envs and states its frames refer to go away, whichever way this scope is left.
    while (int64_t(gpu_->fibers.size()) < n) gpu_->fibers.push_back(std::make_unique<Fiber>());
    std::vector<Env> envs(size_t(n), env_);
    std::vector<ThreadState> states;
    std::vector<std::vector<std::vector<char>>> privates(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      states.push_back(thread_of(i));
      states.back().fiber = gpu_->fibers[size_t(i)].get();
      for (auto& [var, mem] : envs[size_t(i)].memory) {
        if (!mem.thread_private) continue;
        privates[size_t(i)].emplace_back(mem.data, mem.data + mem.nbytes);
        mem.data = privates[size_t(i)].back().data();
      }
    }
    struct Guard {
      std::vector<ThreadState>& states;
      ~Guard() {
        for (auto& t : states) {
          if (t.fiber->done()) continue;
          if (t.fiber->fresh()) {  // never ran: nothing to unwind
            t.fiber->discard();
            continue;
          }
          t.cancelled = true;
          t.fiber->resume();  // the barrier throws Cancelled, caught on the fiber
        }
      }
    } guard{states};
    for (int64_t i = 0; i < n; ++i) {
      Env* env = &envs[size_t(i)];
      ThreadState* t = &states[size_t(i)];
      t->fiber->start([this, env, t, &root] { Executor(*env, gpu_, t)(root); });
    }
    while (true) {
      for (auto& t : states) {
        if (t.fiber->done()) continue;
        t.waiting_at = nullptr;
        t.fiber->resume();
        if (std::exception_ptr e = t.fiber->error()) std::rethrow_exception(e);
      }
      std::vector<int64_t> finished;
      std::map<int, std::vector<int64_t>> waiting;  // barrier number -> threads
      for (int64_t i = 0; i < n; ++i) {
        const ThreadState& t = states[size_t(i)];
        if (t.fiber->done())
          finished.push_back(i);
        else
          waiting[region.barriers.at(t.waiting_at)].push_back(i);
      }
      if (waiting.empty()) break;
      auto first = waiting.begin();
      RX_CHECK(finished.empty())
          << "kernel '" << kernel << "': in " << region.what << ", threads "
          << thread_list(first->second, dims) << " wait at barrier #" << first->first
          << " (T.tvm_storage_sync) that threads " << thread_list(finished, dims)
          << " finished without reaching (a barrier must be reached by every thread)";
      if (waiting.size() > 1) {
        std::ostringstream os;
        for (const auto& [number, ids] : waiting)
          os << (number == first->first ? "" : "; ") << "threads " << thread_list(ids, dims)
             << " at barrier #" << number;
        RX_THROW() << "kernel '" << kernel << "': divergent barrier in " << region.what
                   << ": the threads wait at different T.tvm_storage_sync calls: " << os.str();
      }
    }
  }
  if (gpu_->block_depth == 0) gpu_->global_memory.clear();
}

void Executor::thread_loop(const For* op, int axis) {
  int64_t min = eval_.eval_int(op->min), extent = eval_.eval_int(op->extent);
  RX_CHECK(extent <= thread_->dims[size_t(axis)])
      << "kernel '" << gpu_->kernel << "': thread loop " << loop_name(op) << " has extent "
      << extent << " here, more than the " << thread_->dims[size_t(axis)]
      << " threads its block was started with";
  int64_t index = thread_->index[size_t(axis)];
  if (index >= extent) return;  // this thread has no iteration of the loop
  Scoped scope(env_, op->loop_var.get(), {int_scalar(wrap(op->loop_var->dtype, min + index))});
  visit_stmt(op->body);
}

void Executor::thread_allocate(const Allocate* op, int64_t nbytes) {
  auto& table = op->scope == "shared" ? *thread_->shared : gpu_->global_memory;
  auto [it, fresh] = table.try_emplace(op);
  if (fresh) {
    it->second.assign(size_t(nbytes), char(0xFF));
  } else {
    RX_CHECK(int64_t(it->second.size()) == nbytes)
        << "kernel '" << gpu_->kernel << "': the " << op->scope << " allocation "
        << op->buffer_var->name << " has " << nbytes << " bytes in thread (" << thread_->index[0]
        << ", " << thread_->index[1] << ", " << thread_->index[2] << ") and " << it->second.size()
        << " in the thread that made it";
  }
  Mapped mapped(env_, op->buffer_var.get(), Memory{it->second.data(), nbytes, false});
  visit_stmt(op->body);
}

void Executor::barrier(const Evaluate* op) {
  thread_->waiting_at = op;
  thread_->fiber->yield();
  if (thread_->cancelled) throw Cancelled{};
}

}  // namespace relax::tir::interp
