// The reference interpreter's statement executor (tir/interpreter.h) and the GPU state it runs
// block regions with.
//
// An Executor runs statements against one Env. Outside block regions it runs serially
// (interpreter_exec.cc) exactly as a CPU would. When the function has threadIdx-bound loops,
// analyze_gpu finds its block regions (interpreter_gpu.cc); on reaching one, the serial
// Executor runs it once per thread of the block, each thread with its own Executor in thread
// mode (a ThreadState): threadIdx loops bind the thread's index instead of iterating, shared
// and global allocations are found in the block's and the kernel's tables, and a barrier
// suspends the thread's fiber.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "fibers.h"
#include "interpreter_eval.h"
#include "relax/tir/stmt_functor.h"

namespace relax::tir::interp {

/// The axis of a threadIdx tag (x, y, z: 0, 1, 2); -1 for any other tag.
int thread_axis(const std::string& tag);
/// True for the blockIdx.x|y|z tags.
bool is_block_tag(const std::string& tag);

/// A block region (the body of an innermost blockIdx loop, or the outermost statement holding
/// threadIdx loops outside any blockIdx loop) as found by analyze_gpu.
struct Region {
  /// Every threadIdx-bound loop in the region, with its axis.
  std::vector<std::pair<const For*, int>> thread_loops;
  /// The barriers of the region, numbered in the order they appear (1, 2, ...).
  std::unordered_map<const Evaluate*, int> barriers;
  /// What the region is, for messages: "the body of blockIdx loop bx" or similar.
  std::string what;
};

/// The GPU state of one interpret() call; made by analyze_gpu for a function with
/// threadIdx-bound loops (none otherwise, and the function runs serially as on a CPU).
struct Gpu {
  /// The function's name (its global_symbol, else "main"), for messages.
  std::string kernel;
  /// The block regions, by their root statement.
  std::unordered_map<const StmtNode*, Region> regions;
  /// blockIdx loops being executed (serially) around the current statement.
  int block_depth = 0;
  /// "global" allocations made inside block regions: one per kernel call, dropped when the
  /// outermost blockIdx loop (or a region outside any) finishes.
  std::unordered_map<const Allocate*, std::vector<char>> global_memory;
  /// The fibers of the threads of regions with barriers, reused from block to block.
  std::vector<std::unique_ptr<Fiber>> fibers;
};

/// The GPU state for `f`, or null when it has no threadIdx-bound loop. Checks the structure:
/// a threadIdx loop around a blockIdx loop, or nested in a loop of its own tag, is an error
/// naming the loops.
std::unique_ptr<Gpu> analyze_gpu(const PrimFunc& f);

/// The state of one GPU thread while it runs a block region.
struct ThreadState {
  std::array<int64_t, 3> index{0, 0, 0};  // threadIdx.x, y, z
  std::array<int64_t, 3> dims{1, 1, 1};   // the block's threads per axis
  /// The block's "shared" allocations, made by whichever thread reaches them first.
  std::unordered_map<const Allocate*, std::vector<char>>* shared = nullptr;
  /// The thread's fiber when the region has barriers; null when threads run one by one.
  Fiber* fiber = nullptr;
  /// The barrier the thread waits at (null when running or finished).
  const Evaluate* waiting_at = nullptr;
  /// Set by the scheduler to unwind a suspended thread: its barrier throws Cancelled.
  bool cancelled = false;
};

/// Thrown inside a cancelled thread's fiber to unwind it; never leaves the fiber.
struct Cancelled {};

class Executor : public StmtFunctor<void(const Stmt&)> {
 public:
  /// A serial executor (thread == null) or the executor of one GPU thread.
  Executor(Env& env, Gpu* gpu, ThreadState* thread = nullptr)
      : env_(env), eval_(env), gpu_(gpu), thread_(thread) {}
  using StmtFunctor::visit_;

  /// Runs `s`; a serial executor runs a block region it reaches with run_region.
  void visit_stmt(const Stmt& s) override {
    if (gpu_ && !thread_) {
      auto it = gpu_->regions.find(s.get());
      if (it != gpu_->regions.end()) return run_region(it->second, s);
    }
    StmtFunctor::visit_stmt(s);
  }

  void visit_(const LetStmt* op) override;
  void visit_(const AssertStmt* op) override;
  void visit_(const For* op) override;
  void visit_(const BufferStore* op) override;
  void visit_(const IfThenElse* op) override;
  void visit_(const SeqStmt* op) override;
  void visit_(const Allocate* op) override;
  void visit_(const Evaluate* op) override;
  void visit_(const Block* op) override;
  void visit_(const BlockRealize* op) override;

  Evaluator& evaluator() { return eval_; }

 private:
  /// Binds a variable for the duration of a scope.
  struct Scoped {
    Env& env;
    const Var* var;
    Scoped(Env& env, const Var* var, std::vector<Scalar> value) : env(env), var(var) {
      RX_CHECK(env.vars.emplace(var, std::move(value)).second)
          << "variable " << var->name << " is defined twice";
    }
    ~Scoped() { env.vars.erase(var); }
    Scoped(const Scoped&) = delete;
    Scoped& operator=(const Scoped&) = delete;
  };
  /// Maps `var` to `mem` for the duration of a scope.
  struct Mapped {
    Env& env;
    const Var* var;
    Mapped(Env& env, const Var* var, Memory mem) : env(env), var(var) {
      RX_CHECK(env.memory.emplace(var, mem).second)
          << "memory " << var->name << " is allocated twice";
    }
    ~Mapped() { env.memory.erase(var); }
    Mapped(const Mapped&) = delete;
    Mapped& operator=(const Mapped&) = delete;
  };

  /// The loop run serially, as on a CPU.
  void serial_loop(const For* op);
  // Thread mode and block regions (interpreter_gpu.cc).
  void run_region(const Region& region, const Stmt& root);
  void thread_loop(const For* op, int axis);
  void thread_allocate(const Allocate* op, int64_t nbytes);
  void barrier(const Evaluate* op);

  Env& env_;
  Evaluator eval_;
  Gpu* gpu_;
  ThreadState* thread_;
};

}  // namespace relax::tir::interp
