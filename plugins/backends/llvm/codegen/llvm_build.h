// The LLVM backend's build entry point: lowered PrimFuncs -> one shared object.
//
// Each kernel becomes an exported function `__rx_kernel_<name>` with the packed-function
// signature of c_abi.h (RxPackedCFunc): `int (void* self, const RxAny* args, int32_t nargs,
// RxAny* ret)`. Buffer parameters take a kRxDLTensor argument (a CPU tensor of the buffer's
// dtype and rank; symbolic dimensions are bound from the first tensor that has them as a whole
// dimension and checked everywhere else), scalar parameters a kRxInt/kRxBool (kRxFloat for a
// float parameter). A mismatch returns kRxBadArgument after storing a message naming the kernel
// and the parameter; a failed AssertStmt returns kRxError. Messages go through the function
// pointer `__rx_set_last_error`, which the module loader (runtime/llvm_module.cc) points at
// RxSetLastError after loading: the library itself does not link the runtime. Parallel loops
// launch through the function pointer `__rx_parallel_for` (RxParallelFor), set the same way.
//
// Kernels are compiled concurrently, each in its own LLVMContext, to objects for the host (or
// the given -mcpu) with the -O3 module pipeline of the new pass manager, and linked with the
// system C compiler driver (`cc -shared ... -lm`) into one ELF shared object. Structurally
// equal kernels (a model's repeated layers) are compiled once and exported under every name
// (symbol aliases); their error messages name the first of them. RELAX_LLVM_TIME=1 prints
// where build time goes (per phase, and the slowest kernels) on stderr.
//
// JIT mode (option jit=1): build() returns the bitcode of one module holding every kernel and
// the two function-pointer globals (format "llvm-bc"); the codegen plugin's "llvm-bc" loader
// (llvm_jit.cc) compiles it in process with ORC LLJIT for the host. No file, no linker.
//
// This header is LLVM-free (STYLE habit 10): it is the plugin's internal C++ API, used by its
// registration and by tests that link the plugin's objects.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "relax/ir/prim_func.h"
#include "schedule_rules.h"

namespace relax::llvm_backend {

/// The library format tag of what build() produces.
inline constexpr const char* kLibraryFormat = "llvm-so";
/// Prefix of the exported symbol of each kernel.
inline constexpr const char* kKernelSymbolPrefix = "__rx_kernel_";
/// The function-pointer global through which kernels report errors.
inline constexpr const char* kSetLastErrorSymbol = "__rx_set_last_error";
/// The function-pointer global through which parallel loops launch (RxParallelFor).
inline constexpr const char* kParallelForSymbol = "__rx_parallel_for";
/// The library format tag of what build() produces in JIT mode.
inline constexpr const char* kJITLibraryFormat = "llvm-bc";

/// How to build.
struct BuildOptions {
  /// Target CPU ("skylake-avx512", ...); empty for the host CPU with its detected features.
  std::string mcpu;
  /// Target triple; empty for the host's.
  std::string mtriple;
  /// 0..3: the new pass manager's default module pipeline at that level.
  int opt_level = 3;
  /// The C compiler driver that links objects into a shared object; empty: $RELAX_LLVM_CC,
  /// else "cc".
  std::string linker;
  /// Kernels compiled at once; 0 picks the hardware concurrency.
  int num_threads = 0;
  /// Apply the default CPU schedule (schedule_rules.h) to each unscheduled kernel before
  /// lowering it ("schedule=default"); "schedule=none" compiles the loops as they are.
  bool default_schedule = true;
  /// The default schedule's knobs: "mr=6,nr=16,kc=256,mc=64,tile=32,vector-bits=256,
  /// register-blocking=0|1" (schedule_rules.h). Those the target string leaves out are sized
  /// for the target's ISA at build time (schedule_for with the target machine's vector width:
  /// 512 with AVX-512, 256 with AVX2, else 128); a given vector-bits sizes them for itself.
  CpuScheduleOptions schedule_options;
  /// The schedule knobs the target string gives ("mr", "vector-bits", ...), as written.
  std::vector<std::string> schedule_keys;
  /// Produce "llvm-bc" bitcode for the in-process JIT instead of a shared object.
  bool jit = false;

  /// Parses "mcpu=skylake,opt-level=2,linker=gcc,mtriple=...,num-threads=4,jit=1" (the target
  /// string's attributes); throws relax::Error naming an unknown key or a bad value.
  static BuildOptions parse(const std::string& text);

  /// The knobs sized for vectors of `vector_bits` bits (cpu_schedule_options_for), those of
  /// schedule_keys as given.
  CpuScheduleOptions schedule_for(int vector_bits) const;
};

/// One kernel: its exported name and its PrimFunc (lowered, or lowered here when it is not).
using Kernel = std::pair<std::string, Ref<tir::PrimFunc>>;

/// The LLVM IR text of one kernel (after optimisation at `options.opt_level`), for tests and
/// dumps.
std::string emit_llvm_ir(const Kernel& kernel, const BuildOptions& options = {});

/// Compiles the kernels into one shared object and returns its bytes. Throws relax::Error
/// naming the kernel on a construct the backend does not support, and on a failure of the
/// target machine or the linker (its output included).
std::vector<uint8_t> build(const std::vector<Kernel>& kernels, const BuildOptions& options = {});

/// Compiles the kernels (concurrently, optimised) and links them into one module; returns its
/// bitcode (the "llvm-bc" format). Errors as build().
std::vector<uint8_t> build_bitcode(const std::vector<Kernel>& kernels,
                                   const BuildOptions& options = {});

/// Registers the runtime module loader for "llvm-bc" (llvm_jit.cc): ORC LLJIT for the host.
void register_jit_loader();

/// The host CPU name as LLVM detects it ("znver3", ...).
std::string host_cpu_name();

}  // namespace relax::llvm_backend
