// relax-fma-peak: the machine's fp32 peak, measured with the host's best ISA: AVX-512 (16-wide
// fused multiply-adds on 512-bit registers) where the CPU has AVX512F, else AVX2 + FMA (8-wide,
// 256-bit); `--isa avx2` measures the AVX2 loop on an AVX-512 machine. Each thread runs a loop
// of independent FMAs: kAccumulators accumulators, more than
// FMA latency x FMA pipes (Zen 3: 4 cycles x 2 pipes = 8; Intel since Skylake: 4 x 2), so the
// pipes never wait on a result. Flops per FMA = 2 x lanes. The best of many short trials
// is kept: on a shared machine a slower trial is interference, never a faster one, and a short
// trial has a better chance of running undisturbed.
//
//   relax-fma-peak [--seconds S] [--threads T] [--isa avx512|avx2]   (T: 0 = all cores)
//
// Prints one JSON line: the ISA, single-thread and all-threads GFLOP/s and the thread count.
// The kernels are compiled for their ISA through target attributes, so the binary builds on
// any x86-64 host; on a CPU without the ISA it says so and exits 1 instead of faulting.
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

/// The same loop, 16-wide on 512-bit registers.
__attribute__((target("avx512f"), noinline)) float fma_loop_512(int64_t calls) {
  __m512 acc[kAccumulators];
  for (int i = 0; i < kAccumulators; ++i) acc[i] = _mm512_set1_ps(float(i) * 0.01f);
  const __m512 a = _mm512_set1_ps(0.999f), b = _mm512_set1_ps(0.001f);
  for (int64_t c = 0; c < calls; ++c) {
    for (int64_t it = 0; it < kInnerIterations; ++it) {
#pragma GCC unroll 12
      for (int i = 0; i < kAccumulators; ++i) acc[i] = _mm512_fmadd_ps(acc[i], a, b);
    }
  }
  __m512 sum = acc[0];
  for (int i = 1; i < kAccumulators; ++i) sum = _mm512_add_ps(sum, acc[i]);
  float out[16];
  _mm512_storeu_ps(out, sum);
  return out[0];
}

bool g_avx512 = false;  // which loop measure() runs
int lanes() { return g_avx512 ? 16 : 8; }
float run_loop(int64_t calls) { return g_avx512 ? fma_loop_512(calls) : fma_loop(calls); }
double flops_per_call() { return double(kInnerIterations) * kAccumulators * lanes() * 2; }

/// GFLOP/s of `threads` threads each running fma_loop for about `seconds`, all started
/// together; the best of `trials`.
double measure(int threads, double seconds, int trials) {
  // Calibrate: calls per thread for about `seconds`.
  auto t0 = std::chrono::steady_clock::now();
  volatile float sink = run_loop(8);
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
        results[size_t(k)] = run_loop(calls);
      });
    }
    while (ready.load() < threads) {
    }
    auto start = std::chrono::steady_clock::now();
    go.store(true, std::memory_order_release);
    for (auto& th : pool) th.join();
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    for (float r : results) sink = sink + r;
    best = std::max(best, flops_per_call() * double(calls) * threads / s / 1e9);
  }
  (void)sink;
  return best;
}

int usage(const char* msg) {
  std::fprintf(stderr,
               "relax-fma-peak: %s\nusage: relax-fma-peak [--seconds S] [--threads T] "
               "[--isa avx512|avx2]\n",
               msg);
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 0.02;
  int threads = 0;
  std::string isa = __builtin_cpu_supports("avx512f") ? "avx512" : "avx2";
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--isa" && i + 1 < argc) {
      isa = argv[++i];
      if (isa != "avx512" && isa != "avx2") return usage(("unknown ISA '" + isa + "'").c_str());
    } else if ((arg == "--seconds" || arg == "--threads") && i + 1 < argc) {
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
  if (isa == "avx512" && !__builtin_cpu_supports("avx512f"))
    return usage("this CPU has no AVX-512 (avx512f); use --isa avx2");
  g_avx512 = isa == "avx512";
  if (threads == 0) threads = int(std::max(1u, std::thread::hardware_concurrency()));
  double single = measure(1, seconds, 40);
  double all = measure(threads, seconds, 40);
  std::printf(
      "{\"isa\":\"%s\",\"flops_per_fma\":%d,\"accumulators\":%d,\"single_thread_gflops\":%.2f,"
      "\"threads\":%d,\"all_threads_gflops\":%.2f}\n",
      g_avx512 ? "avx512" : "avx2+fma", 2 * lanes(), kAccumulators, single, threads, all);
  return 0;
}
