// The machine's fp32 fused-multiply-add peak, measured: shared by `relax-driver run --profile`
// (each kernel's share of the peak) and bench/peak's relax-fma-peak.
//
// Each thread runs a loop of independent FMAs on kFmaAccumulators accumulators, more than FMA
// latency x FMA pipes (Zen 3: 4 cycles x 2 pipes = 8; Intel since Skylake: 4 x 2), so the pipes
// never wait on a result; flops per FMA = 2 x lanes. The best of several short trials is kept:
// on a shared machine a slower trial is interference, never a faster one. The loops carry their
// ISA in target attributes, so this builds for any x86-64 host and the rest of the tree keeps
// the default ISA; elsewhere there is no measurement (0).
#pragma once

#include <cstdint>

namespace relax::tools {

constexpr int kFmaAccumulators = 12;
constexpr int64_t kFmaInnerIterations = 1 << 16;  // FMAs per accumulator per call

/// The widest fp32 FMA this CPU has, in lanes: 16 (AVX-512F), 8 (AVX2 + FMA) or 0 (neither,
/// or not x86-64).
int fma_best_lanes();
/// Whether this CPU can run fma_loop at `lanes` (16 or 8).
bool fma_supported(int lanes);
/// Runs `calls` x kFmaInnerIterations x kFmaAccumulators FMAs on `lanes`-wide vectors (16 or
/// 8; fma_supported must hold) and returns a value the caller consumes, so the loop cannot be
/// removed.
float fma_loop(int lanes, int64_t calls);
/// The flops of one fma_loop call at `lanes`.
double fma_flops_per_call(int lanes);
/// GFLOP/s of `threads` threads starting fma_loop together, each for about `seconds`; the best
/// of `trials`. 0 when the CPU lacks `lanes`.
double fma_peak_gflops(int lanes, int threads, double seconds, int trials);

}  // namespace relax::tools
