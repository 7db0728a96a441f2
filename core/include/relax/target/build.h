// The minimum build (DESIGN.md §5, RFC §4.3): IRModule -> VM executable.
//
//   IRModule mod = parse_module(text);
//   Ref<runtime::Executable> exec = relax::build(mod);
//   auto vm = runtime::VirtualMachine::create(exec);
//   runtime::Value y = vm->invoke("main", {x});
//
// build() runs the minimum pipeline
//   normalize, legalize-ops, call-tir-rewrite, to-non-dataflow, vm-shape-lower,
//   kill-after-last-use
// (after `extra_passes`, the caller's optimisations), then vm_codegen() for the Relax
// functions and a kernel library for the PrimFuncs (build_executable()). The target
// (relax/target/target.h) picks the kernel library: "llvm" and other kinds come from backend
// plugins, loaded by short name (librelax-<kind>.so) when their build function is not
// registered yet; the runtime finds the matching runtime plugin when the VM loads the
// library (runtime/module.h). With the "tir-interp" kernel target
// (the only one in core) every PrimFunc is lowered (tir/lower.h) at build time and stored as
// TVMScript text in a library of format "tir-interp"; its loader parses the functions back
// and runs them through the reference interpreter (tir/interpreter.h). The executable thus
// survives save/load in any process that has called register_tir_interp_loader() (build()
// does; a process that only loads an executable must call it before creating the VM).
#pragma once

#include <string>
#include <vector>

#include "relax/ir/module.h"
#include "relax/runtime/executable.h"

namespace relax {

namespace transform {
class PassRegistry;
class PluginManager;
}  // namespace transform
struct Target;

/// What build() does besides the minimum pipeline.
struct BuildOptions {
  /// The kernel target ("tir-interp", "llvm", "llvm,mcpu=skylake"; relax/target/target.h).
  std::string target = "tir-interp";
  /// A pipeline line run before the minimum build ("fuse-ops,fuse-tir"); may be empty.
  std::string extra_passes;
  /// Check well-formedness after each pass.
  bool verify_each = false;
  /// Loads the target's backend plugin when needed; null: a process-wide manager searching
  /// RELAX_PLUGIN_PATH and the default plugin directory.
  transform::PluginManager* plugins = nullptr;
};

/// The pass list of the minimum build, as a pipeline line.
const char* minimum_build_pipeline();
/// The passes of the minimum build, in order.
std::vector<std::string> minimum_build_passes();

/// Compiles `mod` into a VM executable (see the file comment). Throws relax::Error for
/// programs the VM build does not support, naming the function and the construct.
Ref<runtime::Executable> build(const IRModule& mod, const BuildOptions& options = {});

/// The codegen half of build(), for a module the minimum pipeline has already lowered (a
/// driver running its own pipeline): VM bytecode plus the target's kernel library.
Ref<runtime::Executable> build_executable(const IRModule& lowered, const Target& target,
                                          transform::PluginManager* plugins = nullptr);

/// The kernel library of `target` for every PrimFunc of `mod` (by global name). Throws
/// relax::Error when no backend provides the target (naming the plugin searched for) or the
/// backend fails.
runtime::Library build_kernel_library(const IRModule& mod, const Target& target,
                                      transform::PluginManager* plugins = nullptr);

namespace target {

/// Relax functions of a VM-level module (after the minimum pipeline) -> bytecode. PrimFuncs
/// are called by name (the kernel library provides them). Throws relax::Error for constructs
/// left unlowered (an op without legalisation, a symbolic ShapeExpr, ...), naming the function.
/// `libraries` (kernel libraries) are attached to the executable.
Ref<runtime::Executable> vm_codegen(const IRModule& mod,
                                    std::vector<runtime::Library> libraries = {});

/// The "tir-interp" library for the PrimFuncs of `mod`: each is lowered and printed as
/// TVMScript (its name, then its text). Throws when a PrimFunc cannot be lowered.
std::vector<uint8_t> make_tir_interp_library(const IRModule& mod);

/// Registers the module loader for "tir-interp" (idempotent, thread-safe): each function of
/// the library becomes a packed function that runs tir::interpret. Arguments: tensors for the
/// buffer parameters, ints/floats for the scalar ones; a Shape argument supplies several
/// scalar parameters at once (R.vm.call_dps's tir_vars).
void register_tir_interp_loader();

}  // namespace target
}  // namespace relax
