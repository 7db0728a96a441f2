// The runtime's parallel launch (c_abi.h: RxParallelFor), what compiled kernels call for their
// parallel loops (DESIGN.md §8), on the runtime's own thread pool.
//
// A kernel launches one loop per call, ~100 launches per inference of a small CNN, each over
// a few hundred microseconds of work: the launch + join must cost a few microseconds, not the
// tens a general task scheduler (oneTBB, which this replaces) spends. So the pool is built for
// one loop at a time, as TVM's and ONNX Runtime's are:
//
// - $RELAX_NUM_THREADS participants (else the hardware concurrency, fixed at the first launch):
//   the calling thread and num_threads - 1 persistent workers, started at the first launch
//   that needs them and never stopped (kernels may run from static destructors at exit).
// - [begin, end) is cut into pieces of `grain` iterations (grain <= 0: num_threads equal
//   pieces) and the pieces into at most num_threads contiguous blocks. A launch publishes
//   itself by bumping an epoch; every participant, the caller included, claims whole blocks
//   with one CAS on (epoch, next block) and calls the body once per piece. The caller joins by
//   waiting until every block is done. Since blocks are claimed rather than assigned, a worker
//   that wakes late (a busy machine) finds the work already taken by the caller instead of
//   delaying it.
// - Idle workers spin for kSpinTime (the gap between two kernels of one inference is far
//   shorter), then sleep on a futex (std::atomic::wait) until the next launch wakes them. With
//   more threads than cores they sleep at once: a spinning worker would take a core from one
//   with work.
// - One launch at a time: concurrent callers (several VMs on several threads) take turns on a
//   mutex; each launch then has every thread. A launch from inside a launch (a body calling
//   RxParallelFor, on a worker or on the caller) runs inline, serially, in pieces of `grain`.
//
// Errors: the body reports through RxSetLastError on the thread that ran it; the first
// failure's status and message are kept, pieces not yet started are skipped, and the message
// is stored as the calling thread's last error before RxParallelFor returns. Exceptions never
// cross: a C++ exception escaping a body (a bug) is turned into kRxError with its message.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <new>
#include <string>
#include <system_error>
#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "relax/runtime/c_abi.h"

namespace {

/// How long an idle worker spins before it sleeps, and how long a joining caller spins before
/// it yields its core (to a worker that may share it on a loaded machine).
constexpr auto kSpinTime = std::chrono::microseconds(200);
constexpr auto kJoinSpinTime = std::chrono::microseconds(50);

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

int threads_from_env() {
  const char* env = std::getenv("RELAX_NUM_THREADS");
  if (env && *env) {
    char* end = nullptr;
    long n = std::strtol(env, &end, 10);
    if (*end == '\0' && n > 0 && n <= 4096) return int(n);
  }
  unsigned hw = std::thread::hardware_concurrency();
  return hw > 0 ? int(hw) : 1;
}

int num_threads() {
  static const int n = threads_from_env();
  return n;
}

/// True on the pool's workers, and on a caller while its launch runs: launches from such a
/// thread run inline.
thread_local bool t_in_launch = false;

/// Calls the body, turning an escaping C++ exception into kRxError and its message.
int call_body(RxParallelBody body, int64_t begin, int64_t end, void* closure) {
  try {
    return body(begin, end, closure);
  } catch (const std::exception& e) {
    RxSetLastError(e.what());
  } catch (...) {
    RxSetLastError("RxParallelFor: unknown C++ exception in a parallel body");
  }
  return kRxError;
}

/// The iterations of piece `p`: [begin + p * grain, ...) clipped to the range. Offsets are
/// unsigned: the range's length may not fit int64.
struct Range {
  int64_t begin;
  uint64_t length;
  uint64_t grain;

  uint64_t pieces() const { return length / grain + (length % grain != 0); }
  int call(RxParallelBody body, uint64_t p, void* closure) const {
    uint64_t lo = p * grain, hi = lo + std::min(grain, length - lo);
    return call_body(body, int64_t(uint64_t(begin) + lo), int64_t(uint64_t(begin) + hi), closure);
  }
};

/// The first failure of one launch.
struct Failure {
  std::atomic<bool> failed{false};
  std::mutex mu;
  int status = 0;
  std::string message;

  void record(int s, const char* msg) {
    std::lock_guard<std::mutex> lock(mu);
    if (status != 0) return;
    status = s;
    message = msg ? msg : "";
    failed.store(true, std::memory_order_relaxed);
  }
};

class ThreadPool {
 public:
  explicit ThreadPool(int threads) {
    unsigned cores = std::thread::hardware_concurrency();
    if (cores > 0 && unsigned(threads) > cores) spin_time_ = std::chrono::microseconds(0);
    for (int i = 1; i < threads; ++i) {
      try {
        std::thread([this] { work(); }).detach();
      } catch (const std::system_error&) {
        break;  // fewer workers than asked for: the launches still complete, with fewer threads
      }
      ++workers_;
    }
  }

  /// Runs every piece of `range` on the pool and the calling thread; 0 or the first failure.
  int launch(RxParallelBody body, void* closure, const Range& range) {
    std::lock_guard<std::mutex> lock(launch_mu_);
    Failure failure;
    uint64_t pieces = range.pieces();
    uint64_t blocks = std::min<uint64_t>(pieces, uint64_t(workers_) + 1);
    body_ = body;
    closure_ = closure;
    range_ = range;
    pieces_ = pieces;
    failure_ = &failure;
    done_.store(0, std::memory_order_relaxed);
    uint64_t epoch = ((state_.load(std::memory_order_relaxed) >> kEpochShift) + 1) & kEpochMask;
    // seq_cst store, then seq_cst load of sleepers_: either a worker going to sleep sees the
    // new epoch, or this sees the worker and wakes it (the worker does the mirror image).
    state_.store((epoch << kEpochShift) | (blocks << kBlocksShift), std::memory_order_seq_cst);
    if (sleepers_.load(std::memory_order_seq_cst) > 0) {
      wake_.fetch_add(1, std::memory_order_seq_cst);
      wake_.notify_all();
    }
    t_in_launch = true;
    run_blocks(epoch);
    auto spin_until = std::chrono::steady_clock::now() + kJoinSpinTime;
    for (unsigned i = 0; done_.load(std::memory_order_acquire) < blocks; ++i) {
      if (i % 64 != 0 || std::chrono::steady_clock::now() < spin_until)
        cpu_relax();
      else
        std::this_thread::yield();
    }
    t_in_launch = false;
    failure_ = nullptr;
    if (!failure.failed.load(std::memory_order_relaxed)) return kRxOk;
    RxSetLastError(failure.message.c_str());
    return failure.status;
  }

 private:
  // state_ = (epoch << kEpochShift) | (blocks << kBlocksShift) | next unclaimed block. The
  // block count travels in the same word as the epoch it belongs to: a participant that read a
  // finished launch's state can then never claim a block against the next launch's count.
  static constexpr int kBlocksShift = 16;  // blocks <= 4097 (threads <= 4096)
  static constexpr int kEpochShift = 32;
  static constexpr uint64_t kFieldMask = (uint64_t(1) << kBlocksShift) - 1;
  static constexpr uint64_t kEpochMask = (uint64_t(1) << 32) - 1;

  /// Claims and runs blocks of launch `epoch` until none is left (or another launch began,
  /// which means this one is over).
  void run_blocks(uint64_t epoch) {
    uint64_t s = state_.load(std::memory_order_acquire);
    for (;;) {
      if ((s >> kEpochShift) != epoch) return;
      uint64_t b = s & kFieldMask, blocks = (s >> kBlocksShift) & kFieldMask;
      if (b >= blocks) return;
      if (!state_.compare_exchange_weak(s, s + 1, std::memory_order_acq_rel,
                                        std::memory_order_acquire))
        continue;
      // The launch cannot finish (nor the fields change) before this block is counted done.
      run_block(b, blocks);
      done_.fetch_add(1, std::memory_order_release);
      s = state_.load(std::memory_order_acquire);
    }
  }

  void run_block(uint64_t b, uint64_t blocks) {
    uint64_t per = pieces_ / blocks, extra = pieces_ % blocks;
    uint64_t first = b * per + std::min(b, extra), last = first + per + (b < extra);
    for (uint64_t p = first; p < last; ++p) {
      if (failure_->failed.load(std::memory_order_relaxed)) return;
      if (int s = range_.call(body_, p, closure_); s != 0) {
        failure_->record(s, RxGetLastError());
        return;
      }
    }
  }

  void work() {
    t_in_launch = true;
    for (uint64_t seen = 0;;) {
      seen = wait_for_launch(seen);
      run_blocks(seen);
    }
  }

  /// The epoch of the next launch after `seen`: spins a while, then sleeps.
  uint64_t wait_for_launch(uint64_t seen) {
    auto epoch = [&](std::memory_order order) { return state_.load(order) >> kEpochShift; };
    auto spin_until = std::chrono::steady_clock::now() + spin_time_;
    for (unsigned i = 1;; ++i) {
      if (uint64_t e = epoch(std::memory_order_acquire); e != seen) return e;
      cpu_relax();
      if (i % 64 == 0 && std::chrono::steady_clock::now() >= spin_until) break;
    }
    for (;;) {
      uint32_t w = wake_.load(std::memory_order_seq_cst);
      sleepers_.fetch_add(1, std::memory_order_seq_cst);
      uint64_t e = epoch(std::memory_order_seq_cst);
      if (e == seen) wake_.wait(w, std::memory_order_seq_cst);
      sleepers_.fetch_sub(1, std::memory_order_relaxed);
      if (e != seen) return e;
      if (e = epoch(std::memory_order_acquire); e != seen) return e;
    }
  }

  int workers_ = 0;
  std::chrono::microseconds spin_time_ = kSpinTime;
  std::mutex launch_mu_;
  // The launch being run: written under launch_mu_ before its epoch is published, read by a
  // worker only after it claimed one of its blocks.
  RxParallelBody body_ = nullptr;
  void* closure_ = nullptr;
  Range range_{};
  uint64_t pieces_ = 0;
  Failure* failure_ = nullptr;
  // Claimed by every participant: epoch, block count and next unclaimed block (above).
  alignas(64) std::atomic<uint64_t> state_{0};
  alignas(64) std::atomic<uint64_t> done_{0};  // blocks of the launch finished
  alignas(64) std::atomic<uint32_t> wake_{0};  // bumped to wake sleeping workers
  std::atomic<int> sleepers_{0};
};

ThreadPool& pool() {
  // Never destroyed: kernels may still run from other static destructors at exit.
  static ThreadPool* p = new ThreadPool(num_threads());
  return *p;
}

/// The pieces of `range` in order on this thread; the first failure's status (its message is
/// this thread's last error).
int run_inline(RxParallelBody body, void* closure, const Range& range) {
  for (uint64_t p = 0, n = range.pieces(); p < n; ++p)
    if (int s = range.call(body, p, closure); s != 0) return s;
  return kRxOk;
}

}  // namespace

extern "C" {

int32_t RxParallelNumThreads(void) { return num_threads(); }

int RxParallelFor(int64_t begin, int64_t end, int64_t grain, RxParallelBody body, void* closure) {
  if (!body) {
    RxSetLastError("RxParallelFor: null body");
    return kRxBadArgument;
  }
  if (end <= begin) return kRxOk;
  uint64_t n = uint64_t(end) - uint64_t(begin);
  bool serial = num_threads() == 1 || t_in_launch;
  uint64_t threads = uint64_t(num_threads());
  uint64_t g = grain > 0 ? uint64_t(grain) : serial ? n : n / threads + (n % threads != 0);
  Range range{begin, n, g};
  if (serial || n <= g) return run_inline(body, closure, range);
  try {
    return pool().launch(body, closure, range);
  } catch (const std::exception& e) {
    RxSetLastError((std::string("RxParallelFor: ") + e.what()).c_str());
  }
  return kRxError;
}

}  // extern "C"
