// The cost of one parallel launch (RxParallelFor, core/src/runtime/parallel.cc): launch + join
// of an empty body and of a tiny one, and a launch after the caller has been busy for a while
// (the pool's workers may have gone to sleep meanwhile, so it includes their wake-up). Compiled
// kernels make one launch per call of a kernel with a parallel loop, so this is paid ~100 times
// per inference of a small CNN.
//
//   RELAX_NUM_THREADS=2 build/bin/relax-parallel-bench [--benchmark_filter=...]
//
// The thread count is the runtime's ($RELAX_NUM_THREADS, else the hardware concurrency); the
// `threads` context line of the output says which one ran.
#include <benchmark/benchmark.h>

#include <chrono>
#include <string>
#include <vector>

#include "relax/runtime/c_abi.h"

namespace {

extern "C" int empty_body(int64_t, int64_t, void*) { return 0; }

struct Axpy {
  std::vector<float> x, y;
};

extern "C" int axpy_body(int64_t begin, int64_t end, void* closure) {
  auto* a = static_cast<Axpy*>(closure);
  for (int64_t i = begin; i < end; ++i) a->y[size_t(i)] = 2.0f * a->x[size_t(i)] + a->y[size_t(i)];
  return 0;
}

/// One launch over one iteration per thread, doing nothing: the pure launch + join cost.
void BM_LaunchEmpty(benchmark::State& state) {
  int64_t n = RxParallelNumThreads();
  for (auto _ : state) benchmark::DoNotOptimize(RxParallelFor(0, n, 0, &empty_body, nullptr));
}
BENCHMARK(BM_LaunchEmpty);

/// y = 2x + y over state.range(0) floats, the runtime choosing the grain (as kernels do).
void BM_LaunchTiny(benchmark::State& state) {
  Axpy a{std::vector<float>(size_t(state.range(0)), 1.0f),
         std::vector<float>(size_t(state.range(0)), 0.0f)};
  for (auto _ : state)
    benchmark::DoNotOptimize(RxParallelFor(0, state.range(0), 0, &axpy_body, &a));
  benchmark::DoNotOptimize(a.y.data());
}
BENCHMARK(BM_LaunchTiny)->Arg(1024)->Arg(16384);

/// The same body called directly on this thread: what the launch is compared with.
void BM_SerialTiny(benchmark::State& state) {
  Axpy a{std::vector<float>(size_t(state.range(0)), 1.0f),
         std::vector<float>(size_t(state.range(0)), 0.0f)};
  for (auto _ : state) benchmark::DoNotOptimize(axpy_body(0, state.range(0), &a));
  benchmark::DoNotOptimize(a.y.data());
}
BENCHMARK(BM_SerialTiny)->Arg(1024)->Arg(16384);

/// 64 iterations with grain 1: many small body calls in one launch.
void BM_LaunchGrain1(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(RxParallelFor(0, 64, 1, &empty_body, nullptr));
}
BENCHMARK(BM_LaunchGrain1);

/// An empty launch after state.range(0) microseconds of serial work on the caller (as the VM
/// does between kernels); only the launch is timed.
void BM_LaunchAfterGap(benchmark::State& state) {
  int64_t n = RxParallelNumThreads();
  auto gap = std::chrono::microseconds(state.range(0));
  for (auto _ : state) {
    auto until = std::chrono::steady_clock::now() + gap;
    while (std::chrono::steady_clock::now() < until) {
    }
    auto start = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(RxParallelFor(0, n, 0, &empty_body, nullptr));
    state.SetIterationTime(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
}
BENCHMARK(BM_LaunchAfterGap)->Arg(10)->Arg(100)->Arg(1000)->UseManualTime()->Iterations(1000);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::AddCustomContext("threads", std::to_string(RxParallelNumThreads()));
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
