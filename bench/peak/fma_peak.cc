// relax-fma-peak: the machine's fp32 peak, measured. Each thread runs a loop of independent
// 8-wide fused multiply-adds (AVX2 + FMA, 256-bit): kAccumulators accumulators, more than
// FMA latency x FMA pipes (Zen 3: 4 cycles x 2 pipes = 8; Intel since Skylake: 4 x 2), so the
// pipes never wait on a result. Flops per FMA = 2 x 8 lanes. The best of many short trials
// is kept: on a shared machine a slower trial is interference, never a faster one, and a short
// trial has a better chance of running undisturbed.
//
//   relax-fma-peak [--seconds S] [--threads T]   (T: 0 = hardware concurrency, the default)
//
// Prints one JSON line: single-thread and all-threads GFLOP/s and the thread count. The
// kernel is compiled for AVX2 + FMA through a target attribute, so the binary builds on any
// x86-64 host; on a CPU without FMA it says so and exits 1 instead of faulting.
#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr int kAccumulators = 12;
constexpr int64_t kInnerIterations = 1 << 16;  // FMAs per accumulator per call

/// Runs kInnerIterations x kAccumulators dependent-per-accumulator FMAs; returns a value the
/// caller consumes so the loop cannot be removed. a*x + b with |a| < 1 stays finite.
__attribute__((target("avx2,fma"), noinline)) float fma_loop(int64_t calls) {
  __m256 acc[kAccumulators];
  for (int i = 0; i < kAccumulators; ++i) acc[i] = _mm256_set1_ps(float(i) * 0.01f);
  const __m256 a = _mm256_set1_ps(0.999f), b = _mm256_set1_ps(0.001f);
  for (int64_t c = 0; c < calls; ++c) {
    for (int64_t it = 0; it < kInnerIterations; ++it) {
#pragma GCC unroll 12
      for (int i = 0; i < kAccumulators; ++i) acc[i] = _mm256_fmadd_ps(acc[i], a, b);
    }
  }
  __m256 sum = acc[0];
  for (int i = 1; i < kAccumulators; ++i) sum = _mm256_add_ps(sum, acc[i]);
  float out[8];
  _mm256_storeu_ps(out, sum);
  return out[0];
}

constexpr double kFlopsPerCall = double(kInnerIterations) * kAccumulators * 8 * 2;

/// GFLOP/s of `threads` threads each running fma_loop for about `seconds`, all started
/// together; the best of `trials`.
double measure(int threads, double seconds, int trials) {
  // Calibrate: calls per thread for about `seconds`.
  auto t0 = std::chrono::steady_clock::now();
  volatile float sink = fma_loop(8);
  double per_call = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / 8;
  int64_t calls = std::max<int64_t>(1, int64_t(seconds / std::max(per_call, 1e-9)));
  double best = 0;
  for (int t = 0; t < trials; ++t) {
    std::atomic<int> ready{0};
    std::atomic<bool> go{false};
    std::vector<std::thread> pool;
    std::vector<float> results(static_cast<size_t>(threads));
    for (int k = 0; k < threads; ++k) {
      pool.emplace_back([&, k] {
        ready++;
        while (!go.load(std::memory_order_acquire)) {
        }
        results[size_t(k)] = fma_loop(calls);
      });
    }
    while (ready.load() < threads) {
    }
    auto start = std::chrono::steady_clock::now();
    go.store(true, std::memory_order_release);
    for (auto& th : pool) th.join();
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    for (float r : results) sink = sink + r;
    best = std::max(best, kFlopsPerCall * double(calls) * threads / s / 1e9);
  }
  (void)sink;
  return best;
}

int usage(const char* msg) {
  std::fprintf(stderr, "relax-fma-peak: %s\nusage: relax-fma-peak [--seconds S] [--threads T]\n",
               msg);
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 0.02;
  int threads = 0;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if ((arg == "--seconds" || arg == "--threads") && i + 1 < argc) {
      char* end = nullptr;
      double v = std::strtod(argv[++i], &end);
      if (*end != '\0' || v < 0) return usage(("bad value for " + arg + ": " + argv[i]).c_str());
      if (arg == "--seconds") seconds = v;
      else threads = int(v);
    } else {
      return usage(("unknown argument '" + arg + "'").c_str());
    }
  }
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma"))
    return usage("this CPU has no AVX2 + FMA; the peak kernel needs both");
  if (threads == 0) threads = int(std::max(1u, std::thread::hardware_concurrency()));
  double single = measure(1, seconds, 40);
  double all = measure(threads, seconds, 40);
  std::printf(
      "{\"isa\":\"avx2+fma\",\"flops_per_fma\":16,\"accumulators\":%d,\"single_thread_gflops\":%.2f,"
      "\"threads\":%d,\"all_threads_gflops\":%.2f}\n",
      kAccumulators, single, threads, all);
  return 0;
}
