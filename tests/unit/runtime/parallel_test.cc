// RxParallelFor (c_abi.h, core/src/runtime/parallel.cc): every iteration runs exactly once,
// chunks respect the grain, several threads take part when there are several, nested launches
// work, and the first failing chunk's status and message come back to the caller.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "relax/runtime/c_abi.h"

namespace {

struct Coverage {
  std::vector<std::atomic<int>> hits;
  std::atomic<int64_t> chunks{0};
  std::atomic<int64_t> max_chunk{0};
  std::mutex mu;
  std::set<std::thread::id> threads;
  /// Each chunk waits (up to 10 s) until a second thread has run one: on a busy machine a
  /// worker may otherwise wake up only after the caller has done all the work.
  bool wait_for_second_thread = false;
  explicit Coverage(size_t n) : hits(n) {}
};

extern "C" int count_hits(int64_t begin, int64_t end, void* closure) {
  auto* c = static_cast<Coverage*>(closure);
  for (int64_t i = begin; i < end; ++i) c->hits[size_t(i)]++;
  c->chunks++;
  int64_t len = end - begin, seen = c->max_chunk.load();
  while (len > seen && !c->max_chunk.compare_exchange_weak(seen, len)) {
  }
  {
    std::lock_guard<std::mutex> lock(c->mu);
    c->threads.insert(std::this_thread::get_id());
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (c->wait_for_second_thread && std::chrono::steady_clock::now() < deadline) {
    {
      std::lock_guard<std::mutex> lock(c->mu);
      if (c->threads.size() > 1) break;
    }
    std::this_thread::yield();
  }
  return 0;
}

TEST(ParallelFor, EveryIterationOnceInChunksOfAtMostGrain) {
  constexpr int64_t kN = 10000;
  Coverage c(kN);
  c.wait_for_second_thread = RxParallelNumThreads() > 1;
  ASSERT_EQ(RxParallelFor(0, kN, 64, &count_hits, &c), 0) << RxGetLastError();
  for (int64_t i = 0; i < kN; ++i) ASSERT_EQ(c.hits[size_t(i)].load(), 1) << "iteration " << i;
  EXPECT_LE(c.max_chunk.load(), 64);
  EXPECT_GE(c.chunks.load(), kN / 64);
  if (c.wait_for_second_thread) {
    EXPECT_GT(c.threads.size(), 1u) << "no second thread took part";
  }
}

TEST(ParallelFor, AutomaticGrainAndOffsetRanges) {
  Coverage c(300);
  ASSERT_EQ(RxParallelFor(100, 300, 0, &count_hits, &c), 0) << RxGetLastError();
  for (int64_t i = 0; i < 300; ++i) EXPECT_EQ(c.hits[size_t(i)].load(), i >= 100 ? 1 : 0) << i;
  // Empty and reversed ranges call nothing.
  Coverage e(4);
  EXPECT_EQ(RxParallelFor(3, 3, 0, &count_hits, &e), 0);
  EXPECT_EQ(RxParallelFor(3, 1, 1, &count_hits, &e), 0);
  EXPECT_EQ(e.chunks.load(), 0);
  EXPECT_GE(RxParallelNumThreads(), 1);
}

struct Nested {
  int64_t inner = 0;
  std::vector<std::atomic<int>> hits;
  explicit Nested(size_t n) : hits(n) {}
};
struct InnerClosure {
  Nested* n;
  int64_t row;
};

extern "C" int inner_body(int64_t begin, int64_t end, void* closure) {
  auto* c = static_cast<InnerClosure*>(closure);
  for (int64_t j = begin; j < end; ++j) c->n->hits[size_t(c->row * c->n->inner + j)]++;
  return 0;
}

extern "C" int outer_body(int64_t begin, int64_t end, void* closure) {
  auto* n = static_cast<Nested*>(closure);
  for (int64_t i = begin; i < end; ++i) {
    InnerClosure inner{n, i};
    if (int s = RxParallelFor(0, n->inner, 3, &inner_body, &inner); s != 0) return s;
  }
  return 0;
}

TEST(ParallelFor, NestedLaunches) {
  Nested n(64 * 50);
  n.inner = 50;
  ASSERT_EQ(RxParallelFor(0, 64, 1, &outer_body, &n), 0) << RxGetLastError();
  for (size_t k = 0; k < n.hits.size(); ++k) ASSERT_EQ(n.hits[k].load(), 1) << k;
}

extern "C" int fail_at_777(int64_t begin, int64_t end, void* closure) {
  auto* ran = static_cast<std::atomic<int64_t>*>(closure);
  for (int64_t i = begin; i < end; ++i) {
    if (i == 777) {
      RxSetLastError("iteration 777 is bad");
      return kRxBadArgument;
    }
    (*ran)++;
  }
  return 0;
}

TEST(ParallelFor, FirstFailureStatusAndMessageReachTheCaller) {
  for (int64_t grain : {0, 1, 16, 100000}) {
    SCOPED_TRACE(grain);
    std::atomic<int64_t> ran{0};
    RxSetLastError("");
    EXPECT_EQ(RxParallelFor(0, 5000, grain, &fail_at_777, &ran), kRxBadArgument);
    EXPECT_STREQ(RxGetLastError(), "iteration 777 is bad");
    EXPECT_LT(ran.load(), 5000);
  }
  // The pool is usable after a failure.
  Coverage c(1000);
  ASSERT_EQ(RxParallelFor(0, 1000, 10, &count_hits, &c), 0) << RxGetLastError();
  for (size_t i = 0; i < 1000; ++i) ASSERT_EQ(c.hits[i].load(), 1);
}

TEST(ParallelFor, NullBodyIsABadArgument) {
  EXPECT_EQ(RxParallelFor(0, 10, 1, nullptr, nullptr), kRxBadArgument);
  EXPECT_NE(std::string(RxGetLastError()).find("null body"), std::string::npos);
}

}  // namespace
