// The runtime's parallel launch (c_abi.h: RxParallelFor), what compiled kernels call for their
// parallel loops (DESIGN.md §8).
//
// One process-wide oneTBB task_arena runs every launch; its size is $RELAX_NUM_THREADS when set
// to a positive integer, else the hardware concurrency, fixed at the first launch. A launch is
// a tbb::parallel_for over [begin, end) with its own task_group_context, so that a failing
// chunk cancels the chunks of its launch that have not started, and nothing else. Nested
// launches (a body that calls RxParallelFor) run inside the same arena; TBB lets the waiting
// thread take other work meanwhile.
//
// Errors: the body reports through RxSetLastError on the worker thread that ran it; the first
// failure's status and message are kept and the message is stored as the calling thread's last
// error before RxParallelFor returns. Exceptions never cross: a C++ exception escaping a body
// (a bug) is turned into kRxError with its message.
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/partitioner.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>

#include <cstdlib>
#include <exception>
#include <mutex>
#include <string>
#include <thread>

#include "relax/runtime/c_abi.h"

namespace {

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

tbb::task_arena& arena() {
  // Never destroyed: kernels may still run from other static destructors at exit, and TBB's
  // own teardown order is not ours to depend on.
  static tbb::task_arena* a = new tbb::task_arena(num_threads());
  return *a;
}

/// The first failure of one launch.
struct Failure {
  std::mutex mu;
  int status = 0;
  std::string message;

  void record(int s, const char* msg) {
    std::lock_guard<std::mutex> lock(mu);
    if (status != 0) return;
    status = s;
    message = msg ? msg : "";
  }
};

int run_chunk(RxParallelBody body, int64_t begin, int64_t end, void* closure, Failure& failure,
              tbb::task_group_context& ctx) {
  int s;
  try {
    s = body(begin, end, closure);
  } catch (const std::exception& e) {
    failure.record(kRxError, e.what());
    ctx.cancel_group_execution();
    return kRxError;
  } catch (...) {
    failure.record(kRxError, "RxParallelFor: unknown C++ exception in a parallel body");
    ctx.cancel_group_execution();
    return kRxError;
  }
  if (s != 0) {
    failure.record(s, RxGetLastError());
    ctx.cancel_group_execution();
  }
  return s;
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
  // Ranges of any int64 bounds: the length may not fit int64 (end - begin), so compare.
  uint64_t n = uint64_t(end) - uint64_t(begin);
  if (grain <= 0 ? num_threads() == 1 || n == 1 : n <= uint64_t(grain))
    return body(begin, end, closure);
  if (num_threads() == 1) {  // chunks of `grain`, in order, on this thread
    for (int64_t lo = begin; lo < end;) {
      int64_t hi = uint64_t(end - lo) > uint64_t(grain) ? lo + grain : end;
      if (int s = body(lo, hi, closure); s != 0) return s;
      lo = hi;
    }
    return kRxOk;
  }
  Failure failure;
  try {
    tbb::task_group_context ctx;
    arena().execute([&] {
      tbb::blocked_range<int64_t> range(begin, end, size_t(grain > 0 ? grain : 1));
      auto chunk = [&](const tbb::blocked_range<int64_t>& r) {
        run_chunk(body, r.begin(), r.end(), closure, failure, ctx);
      };
      if (grain > 0)
        tbb::parallel_for(range, chunk, tbb::simple_partitioner(), ctx);
      else
        tbb::parallel_for(range, chunk, tbb::auto_partitioner(), ctx);
    });
  } catch (const std::exception& e) {
    failure.record(kRxError, e.what());
  } catch (...) {
    failure.record(kRxError, "RxParallelFor: unknown C++ exception");
  }
  if (failure.status == 0) return kRxOk;
  RxSetLastError(failure.message.c_str());
  return failure.status;
}

}  // extern "C"
