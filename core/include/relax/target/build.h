// build(): IRModule -> VM executable, the short form of relax::compile()
// (relax/target/compile.h) with the same defaults: the optimising pipeline ("default") and
// the LLVM backend for the host CPU.
//
//   IRModule mod = parse_module(text);
//   Ref<runtime::Executable> exec = relax::build(mod);                 // default, llvm
//   Ref<runtime::Executable> ref = relax::build(mod, {"tir-interp", "o0"});  // minimum build
//   auto vm = runtime::VirtualMachine::create(exec);
//   runtime::Value y = vm->invoke("main", {x});
//
// The minimum build (RFC §4.3; relax/vm/passes.h) ends every pipeline: normalize,
// legalize-ops, call-tir-rewrite, to-non-dataflow, vm-shape-lower, kill-after-last-use; then
// VM codegen for the Relax functions and a kernel library for the PrimFuncs
// (compile()). The target (relax/target/target.h) picks the kernel library: its kind, looked
// up in the session's target kinds (relax/target/targets.h), names the build function; "llvm"
// and other kinds come from backend plugins, loaded by short name (librelax-<kind>.so) when
// the kind is not registered yet; the runtime finds the matching runtime plugin
// when the VM loads the library (runtime/module.h). With the "tir-interp" kernel target (the
// only one in core) every PrimFunc is lowered (kernel/lower.h) at build time and stored as
// TVMScript text in a library of format "tir-interp"; its loader parses the functions back
// and runs them through the reference interpreter (kernel/interpreter.h). The executable thus
// survives save/load in any process that has called register_tir_interp_loader() (build()
// does; a process that only loads an executable must call it before creating the VM).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "relax/ir/module.h"
#include "relax/kernel/gpu_lower.h"
#include "relax/runtime/executable.h"

namespace relax {

namespace transform {
class PassRegistry;
class PluginManager;
}  // namespace transform
struct Target;

/// What build() does; the defaults are compile()'s (relax/target/compile.h).
struct BuildOptions {
  /// The kernel target ("llvm", "llvm,mcpu=skylake", "tir-interp"; relax/target/target.h).
  /// Empty: the pipeline's, else "llvm" for the host CPU.
  std::string target;
  /// A built-in pipeline ("default", "o0"), a YAML file or a one-line pipeline; the minimum
  /// build's passes it lacks are appended. Empty: "default", the optimising pipeline.
  std::string pipeline;
  /// Check well-formedness after each pass.
  bool verify_each = false;
};

/// Compiles `mod` into a VM executable: relax::compile() with `options` (see the file
/// comment). Throws relax::Error for programs the VM build does not support, naming the
/// function and the construct.
Ref<runtime::Executable> build(const IRModule& mod, const BuildOptions& options = {});

/// The kernel library of `target` for every PrimFunc of `mod` (by global name): the target is
/// resolved in the registry of `plugins` (resolve_target: the backend plugin loaded when its
/// kind is not registered yet, the attributes validated, defaults filled in) and its kind's
/// build function called with the validated attributes. Throws relax::Error when no backend
/// provides the kind (naming the plugin searched for and the known kinds), for a bad attribute,
/// or when the backend fails.
runtime::Library build_kernel_library(const IRModule& mod, const Target& target,
                                      transform::PluginManager& plugins);

namespace target {

/// The "tir-interp" library for the PrimFuncs of `mod`: each is lowered and printed as
/// TVMScript (its name, then its text). Throws when a PrimFunc cannot be lowered.
std::vector<uint8_t> make_tir_interp_library(const IRModule& mod);
/// A "tir-interp" library of GPU programs (kernel/gpu_lower.h), by function name: each runs
/// through tir::run_gpu_program (the host part evaluated, each launch interpreted with GPU
/// semantics).
std::vector<uint8_t> make_tir_interp_gpu_library(
    const std::vector<std::pair<std::string, tir::GpuProgram>>& programs);

/// Registers the module loader for "tir-interp" (idempotent, thread-safe): each function of
/// the library becomes a packed function that runs tir::interpret. Arguments: tensors for the
/// buffer parameters, ints/floats for the scalar ones; a Shape argument supplies several
/// scalar parameters at once (R.vm.call_dps's tir_vars).
void register_tir_interp_loader();

}  // namespace target
}  // namespace relax
