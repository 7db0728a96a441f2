// relax-fma-peak: the machine's fp32 peak, measured with the host's best ISA: AVX-512 (16-wide
// fused multiply-adds on 512-bit registers) where the CPU has AVX512F, else AVX2 + FMA (8-wide,
// 256-bit); `--isa avx2` measures the AVX2 loop on an AVX-512 machine. The loop and how it is
// timed are tools/common/fma_peak.h's (shared with `relax-driver run --profile`): the best of
// 40 short trials, single-threaded and on all threads started together.
//
//   relax-fma-peak [--seconds S] [--threads T] [--isa avx512|avx2]   (T: 0 = all cores)
//
// Prints one JSON line: the ISA, single-thread and all-threads GFLOP/s and the thread count.
// On a CPU without the ISA it says so and exits 1 instead of faulting.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "common/fma_peak.h"

namespace {

int usage(const char* msg) {
  std::fprintf(stderr,
               "relax-fma-peak: %s\nusage: relax-fma-peak [--seconds S] [--threads T] "
               "[--isa avx512|avx2]\n",
               msg);
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace relax::tools;
  double seconds = 0.02;
  int threads = 0;
  std::string isa = fma_supported(16) ? "avx512" : "avx2";
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
  if (!fma_supported(8)) return usage("this CPU has no AVX2 + FMA; the peak kernel needs both");
  if (isa == "avx512" && !fma_supported(16))
    return usage("this CPU has no AVX-512 (avx512f); use --isa avx2");
  int lanes = isa == "avx512" ? 16 : 8;
  if (threads == 0) threads = int(std::max(1u, std::thread::hardware_concurrency()));
  double single = fma_peak_gflops(lanes, 1, seconds, 40);
  double all = fma_peak_gflops(lanes, threads, seconds, 40);
  std::printf(
      "{\"isa\":\"%s\",\"flops_per_fma\":%d,\"accumulators\":%d,\"single_thread_gflops\":%.2f,"
      "\"threads\":%d,\"all_threads_gflops\":%.2f}\n",
      lanes == 16 ? "avx512" : "avx2+fma", 2 * lanes, kFmaAccumulators, single, threads, all);
  return 0;
}
