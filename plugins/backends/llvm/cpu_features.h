// The x86 CPU features an "llvm-so" kernel library records that it needs, shared by both
// halves of the LLVM backend: the codegen lists, in the library's `__rx_cpu_features` string
// ("avx2,avx512f,fma,..."), those of this table its target machine enables; the loader refuses
// a library whose list names a feature the running CPU lacks (instead of dying of SIGILL in the
// first kernel). The names are LLVM's and GCC's (__builtin_cpu_supports) alike.
// RELAX_CPU_FEATURES_HIDE=avx512f,... makes the loader treat those features as absent (to test
// the refusal, or to check that an executable would load on a smaller CPU).
#pragma once

#include <cstdlib>
#include <string>
#include <string_view>

namespace relax::llvm_cpu {

inline constexpr const char* kFeaturesSymbol = "__rx_cpu_features";

/// The features recorded (x86-64 only; other architectures record none).
inline constexpr const char* kFeatures[] = {
    "sse4.2",   "avx",      "avx2",     "fma",        "bmi",        "bmi2",
    "avx512f",  "avx512bw", "avx512dq", "avx512vl",   "avx512cd",   "avx512vnni",
    "avx512bf16", "avx512vbmi", "avx512vbmi2", "avx512ifma",
};

#if defined(__x86_64__)
/// Whether the running CPU has `name` (one of kFeatures); unknown names count as present.
inline bool host_has(std::string_view name) {
  if (const char* hide = std::getenv("RELAX_CPU_FEATURES_HIDE")) {
    std::string_view h(hide);
    for (size_t p = 0; p <= h.size();) {
      size_t e = h.find(',', p);
      if (e == std::string_view::npos) e = h.size();
      if (h.substr(p, e - p) == name) return false;
      p = e + 1;
    }
  }
#define RX_CPU_FEATURE(n) \
  if (name == n) return __builtin_cpu_supports(n)
  RX_CPU_FEATURE("sse4.2");
  RX_CPU_FEATURE("avx");
  RX_CPU_FEATURE("avx2");
  RX_CPU_FEATURE("fma");
  RX_CPU_FEATURE("bmi");
  RX_CPU_FEATURE("bmi2");
  RX_CPU_FEATURE("avx512f");
  RX_CPU_FEATURE("avx512bw");
  RX_CPU_FEATURE("avx512dq");
  RX_CPU_FEATURE("avx512vl");
  RX_CPU_FEATURE("avx512cd");
  RX_CPU_FEATURE("avx512vnni");
  RX_CPU_FEATURE("avx512bf16");
  RX_CPU_FEATURE("avx512vbmi");
  RX_CPU_FEATURE("avx512vbmi2");
  RX_CPU_FEATURE("avx512ifma");
#undef RX_CPU_FEATURE
  return true;
}
#else
inline bool host_has(std::string_view) { return true; }
#endif

/// The features of the comma-separated `list` the running CPU lacks, comma-separated ("" when
/// it has them all).
inline std::string missing(std::string_view list) {
  std::string out;
  for (size_t p = 0; p < list.size();) {
    size_t e = list.find(',', p);
    if (e == std::string_view::npos) e = list.size();
    std::string_view f = list.substr(p, e - p);
    if (!f.empty() && !host_has(f)) out += (out.empty() ? "" : ", ") + std::string(f);
    p = e + 1;
  }
  return out;
}

}  // namespace relax::llvm_cpu
