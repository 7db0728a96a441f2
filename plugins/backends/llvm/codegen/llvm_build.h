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
// RxSetLastError after loading: the library itself does not link the runtime.
//
// Kernels are compiled concurrently, each in its own LLVMContext, to objects for the host (or
// the given -mcpu) with the -O3 module pipeline of the new pass manager, and linked with the
// system C compiler driver (`cc -shared ... -lm`) into one ELF shared object.
//
// This header is LLVM-free (STYLE habit 10): it is the plugin's internal C++ API, used by its
// registration and by tests that link the plugin's objects.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "relax/tir/function.h"

namespace relax::llvm_backend {

/// The library format tag of what build() produces.
inline constexpr const char* kLibraryFormat = "llvm-so";
/// Prefix of the exported symbol of each kernel.
inline constexpr const char* kKernelSymbolPrefix = "__rx_kernel_";
/// The function-pointer global through which kernels report errors.
inline constexpr const char* kSetLastErrorSymbol = "__rx_set_last_error";

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

  /// Parses "mcpu=skylake,opt-level=2,linker=gcc,mtriple=...,num-threads=4" (the target
  /// string's attributes); throws relax::Error naming an unknown key or a bad value.
  static BuildOptions parse(const std::string& text);
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

/// The host CPU name as LLVM detects it ("znver3", ...).
std::string host_cpu_name();

}  // namespace relax::llvm_backend
