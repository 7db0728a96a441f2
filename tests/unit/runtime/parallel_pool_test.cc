// The runtime's thread pool behind RxParallelFor (core/src/runtime/parallel.cc), beyond
// parallel_test.cc: exact coverage and chunking over many (begin, end, grain) combinations
// including ranges whose length does not fit int64, nested launches several levels deep,
// several threads launching at once (as several VMs do), errors and exceptions in bodies, and
// the same semantics at $RELAX_NUM_THREADS=1 and 3 (this binary's tests again in a child
// process, since the thread count is fixed at a process's first launch).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdlib>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "relax/runtime/c_abi.h"

namespace {

/// Every chunk a launch handed to its body, and the threads that ran them.
struct Chunks {
  std::mutex mu;
  std::vector<std::pair<int64_t, int64_t>> chunks;
  std::set<std::thread::id> threads;
};

extern "C" int record_chunk(int64_t begin, int64_t end, void* closure) {
  auto* c = static_cast<Chunks*>(closure);
  std::lock_guard<std::mutex> lock(c->mu);
  c->chunks.emplace_back(begin, end);
  c->threads.insert(std::this_thread::get_id());
  return 0;
}

/// Launches [begin, end) with `grain` and checks that the chunks tile the range exactly once,
/// none longer than a positive grain, at most one per thread for grain <= 0.
void expect_exact_tiling(int64_t begin, int64_t end, int64_t grain) {
  SCOPED_TRACE("begin " + std::to_string(begin) + " end " + std::to_string(end) + " grain " +
               std::to_string(grain));
  Chunks c;
  ASSERT_EQ(RxParallelFor(begin, end, grain, &record_chunk, &c), 0) << RxGetLastError();
  std::sort(c.chunks.begin(), c.chunks.end());
  int64_t next = begin;
  for (auto [lo, hi] : c.chunks) {
    ASSERT_EQ(lo, next) << "a gap or an overlap";
    ASSERT_LT(lo, hi) << "an empty chunk";
    if (grain > 0) {
      ASSERT_LE(uint64_t(hi) - uint64_t(lo), uint64_t(grain));
    }
    next = hi;
  }
  EXPECT_EQ(next, begin < end ? end : begin);
  if (grain <= 0) {
    EXPECT_LE(c.chunks.size(), size_t(RxParallelNumThreads()));
  }
  if (begin >= end) {
    EXPECT_TRUE(c.chunks.empty());
  }
}

void check_tiling_matrix() {
  for (int64_t begin : {int64_t(-5), int64_t(0), int64_t(7)})
    for (int64_t length : {0, 1, 2, 3, 7, 64, 1000, 4097})
      for (int64_t grain : {-1, 0, 1, 2, 3, 63, 64, 1000, 5000})
        expect_exact_tiling(begin, begin + length, grain);
  // Lengths that do not fit int64, and bounds at the extremes.
  expect_exact_tiling(INT64_MIN, INT64_MAX, 0);
  expect_exact_tiling(INT64_MIN, INT64_MAX, int64_t(1) << 61);
  expect_exact_tiling(INT64_MAX - 10, INT64_MAX, 3);
  expect_exact_tiling(INT64_MIN, INT64_MIN + 10, 0);
}

TEST(ParallelPool, EveryIterationExactlyOnceForManyRangesAndGrains) { check_tiling_matrix(); }

// Three levels of launches, each body launching the next: every innermost index once.
struct Level {
  std::vector<std::atomic<int>>* hits;
  int64_t base;
  int depth;
};

extern "C" int nested_body(int64_t begin, int64_t end, void* closure) {
  auto* l = static_cast<Level*>(closure);
  for (int64_t i = begin; i < end; ++i) {
    int64_t index = l->base * 8 + i;
    if (l->depth == 0) {
      (*l->hits)[size_t(index)]++;
      continue;
    }
    Level inner{l->hits, index, l->depth - 1};
    if (int s = RxParallelFor(0, 8, l->depth == 1 ? 0 : 3, &nested_body, &inner); s != 0) return s;
  }
  return 0;
}

TEST(ParallelPool, NestedLaunchesThreeDeep) {
  std::vector<std::atomic<int>> hits(8 * 8 * 8);
  Level top{&hits, 0, 2};
  ASSERT_EQ(RxParallelFor(0, 8, 1, &nested_body, &top), 0) << RxGetLastError();
  for (size_t k = 0; k < hits.size(); ++k) ASSERT_EQ(hits[k].load(), 1) << k;
}

// Several threads launching at once, some launches failing: each caller sees exactly its own
// iterations and its own result.
struct Sum {
  std::atomic<int64_t> total{0};
  int64_t fail_at = -1;
};

extern "C" int sum_body(int64_t begin, int64_t end, void* closure) {
  auto* s = static_cast<Sum*>(closure);
  int64_t local = 0;
  for (int64_t i = begin; i < end; ++i) {
    if (i == s->fail_at) {
      RxSetLastError(("failed at " + std::to_string(i)).c_str());
      return kRxNotFound;
    }
    local += i;
  }
  s->total += local;
  return 0;
}

TEST(ParallelPool, ConcurrentCallersGetTheirOwnResults) {
  constexpr int kThreads = 6, kLaunches = 300;
  std::atomic<int> wrong{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < kThreads; ++t) {
    callers.emplace_back([&, t] {
      for (int k = 0; k < kLaunches; ++k) {
        int64_t n = 1 + (t * 37 + k * 11) % 500;
        int64_t grain = (t + k) % 4 == 0 ? 0 : 1 + (k % 17);
        Sum s;
        bool fail = (t + k) % 5 == 0 && n > 3;
        if (fail) s.fail_at = n / 2;
        RxSetLastError("before");
        int status = RxParallelFor(0, n, grain, &sum_body, &s);
        if (fail) {
          if (status != kRxNotFound ||
              std::string(RxGetLastError()) != "failed at " + std::to_string(n / 2))
            ++wrong;
        } else if (status != 0 || s.total.load() != n * (n - 1) / 2 ||
                   std::string(RxGetLastError()) != "before") {
          ++wrong;
        }
      }
    });
  }
  for (auto& c : callers) c.join();
  EXPECT_EQ(wrong.load(), 0);
}

extern "C" int throwing_body(int64_t begin, int64_t end, void*) {
  if (begin <= 42 && 42 < end) throw std::runtime_error("a C++ exception at 42");
  return 0;
}

extern "C" int nested_failing_body(int64_t begin, int64_t end, void* closure) {
  for (int64_t i = begin; i < end; ++i) {
    Sum inner;
    inner.fail_at = i == 5 ? 2 : -1;
    if (int s = RxParallelFor(0, 4, 1, &sum_body, &inner); s != 0) return s;
  }
  (void)closure;
  return 0;
}

TEST(ParallelPool, ExceptionsAndNestedFailuresBecomeStatuses) {
  for (int64_t grain : {0, 1, 7, 1000}) {
    SCOPED_TRACE(grain);
    EXPECT_EQ(RxParallelFor(0, 100, grain, &throwing_body, nullptr), kRxError);
    EXPECT_STREQ(RxGetLastError(), "a C++ exception at 42");
    EXPECT_EQ(RxParallelFor(0, 10, grain, &nested_failing_body, nullptr), kRxNotFound);
    EXPECT_STREQ(RxGetLastError(), "failed at 2");
  }
  // Still usable afterwards.
  Sum s;
  ASSERT_EQ(RxParallelFor(0, 1000, 0, &sum_body, &s), 0) << RxGetLastError();
  EXPECT_EQ(s.total.load(), 999 * 1000 / 2);
}

/// The thread count this process should have: $RELAX_NUM_THREADS when it is an integer in
/// 1..4096, else the hardware concurrency.
int expected_threads() {
  if (const char* env = std::getenv("RELAX_NUM_THREADS"); env && *env) {
    char* end = nullptr;
    long n = std::strtol(env, &end, 10);
    if (*end == '\0' && n > 0 && n <= 4096) return int(n);
  }
  return std::max(1, int(std::thread::hardware_concurrency()));
}

TEST(ParallelPool, ThreadCountComesFromTheEnvironment) {
  ASSERT_EQ(RxParallelNumThreads(), expected_threads());
  if (RxParallelNumThreads() != 1) return;
  // One thread: the pieces run in order on the caller; grain <= 0 is one call.
  Chunks c;
  ASSERT_EQ(RxParallelFor(0, 100, 30, &record_chunk, &c), 0);
  std::vector<std::pair<int64_t, int64_t>> expected = {{0, 30}, {30, 60}, {60, 90}, {90, 100}};
  EXPECT_EQ(c.chunks, expected);
  EXPECT_EQ(c.threads, std::set<std::thread::id>{std::this_thread::get_id()});
  Chunks whole;
  ASSERT_EQ(RxParallelFor(5, 100, 0, &record_chunk, &whole), 0);
  EXPECT_EQ(whole.chunks, (std::vector<std::pair<int64_t, int64_t>>{{5, 100}}));
}

/// Runs this binary's other RxParallelFor tests in a child process with
/// $RELAX_NUM_THREADS=`threads`; its exit status.
int run_at_threads(const std::string& threads) {
  char self[4096];
  ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (len <= 0) return -1;
  self[len] = '\0';
  std::string cmd = "RELAX_NUM_THREADS=" + threads + " '" + std::string(self) +
                    "' --gtest_filter='ParallelPool.*:ParallelFor.*:-ParallelPool.SameSemantics*'" +
                    " > /dev/null 2>&1";
  int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(ParallelPool, SameSemanticsAtOneAndThreeThreads) {
  EXPECT_EQ(run_at_threads("1"), 0) << "the RxParallelFor tests fail at RELAX_NUM_THREADS=1";
  EXPECT_EQ(run_at_threads("3"), 0) << "the RxParallelFor tests fail at RELAX_NUM_THREADS=3";
}

}  // namespace
