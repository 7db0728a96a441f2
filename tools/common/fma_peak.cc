#include "common/fma_peak.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace relax::tools {

namespace {

#if defined(__x86_64__)
// a*x + b with |a| < 1 stays finite however long the loop runs.
__attribute__((target("avx2,fma"), noinline)) float fma_loop_256(int64_t calls) {
  __m256 acc[kFmaAccumulators];
  for (int i = 0; i < kFmaAccumulators; ++i) acc[i] = _mm256_set1_ps(float(i) * 0.01f);
  const __m256 a = _mm256_set1_ps(0.999f), b = _mm256_set1_ps(0.001f);
  for (int64_t c = 0; c < calls; ++c) {
    for (int64_t it = 0; it < kFmaInnerIterations; ++it) {
#pragma GCC unroll 12
      for (int i = 0; i < kFmaAccumulators; ++i) acc[i] = _mm256_fmadd_ps(acc[i], a, b);
    }
  }
  __m256 sum = acc[0];
  for (int i = 1; i < kFmaAccumulators; ++i) sum = _mm256_add_ps(sum, acc[i]);
  float out[8];
  _mm256_storeu_ps(out, sum);
  return out[0];
}

__attribute__((target("avx512f"), noinline)) float fma_loop_512(int64_t calls) {
  __m512 acc[kFmaAccumulators];
  for (int i = 0; i < kFmaAccumulators; ++i) acc[i] = _mm512_set1_ps(float(i) * 0.01f);
  const __m512 a = _mm512_set1_ps(0.999f), b = _mm512_set1_ps(0.001f);
  for (int64_t c = 0; c < calls; ++c) {
    for (int64_t it = 0; it < kFmaInnerIterations; ++it) {
#pragma GCC unroll 12
      for (int i = 0; i < kFmaAccumulators; ++i) acc[i] = _mm512_fmadd_ps(acc[i], a, b);
    }
  }
  __m512 sum = acc[0];
  for (int i = 1; i < kFmaAccumulators; ++i) sum = _mm512_add_ps(sum, acc[i]);
  float out[16];
  _mm512_storeu_ps(out, sum);
  return out[0];
}
#endif

}  // namespace

bool fma_supported(int lanes) {
#if defined(__x86_64__)
  if (lanes == 16) return __builtin_cpu_supports("avx512f");
  if (lanes == 8) return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
  (void)lanes;
  return false;
}

int fma_best_lanes() { return fma_supported(16) ? 16 : fma_supported(8) ? 8 : 0; }

float fma_loop(int lanes, int64_t calls) {
#if defined(__x86_64__)
  if (lanes == 16) return fma_loop_512(calls);
  if (lanes == 8) return fma_loop_256(calls);
#endif
  (void)lanes;
  (void)calls;
  return 0;
}

double fma_flops_per_call(int lanes) {
  return double(kFmaInnerIterations) * kFmaAccumulators * lanes * 2;
}

double fma_peak_gflops(int lanes, int threads, double seconds, int trials) {
  if (!fma_supported(lanes)) return 0;
  threads = std::max(1, threads);
  // Calibrate: calls per thread for about `seconds`.
  auto t0 = std::chrono::steady_clock::now();
  volatile float sink = fma_loop(lanes, 8);
  double per_call =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / 8;
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
        results[size_t(k)] = fma_loop(lanes, calls);
      });
    }
    while (ready.load() < threads) {
    }
    auto start = std::chrono::steady_clock::now();
    go.store(true, std::memory_order_release);
    for (auto& th : pool) th.join();
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    for (float r : results) sink = sink + r;
    best = std::max(best, fma_flops_per_call(lanes) * double(calls) * threads / s / 1e9);
  }
  (void)sink;
  return best;
}

}  // namespace relax::tools
