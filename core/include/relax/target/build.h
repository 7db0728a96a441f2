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
// functions and a kernel library for the PrimFuncs. With the "tir-interp" kernel target
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
}

/// What build() does besides the minimum pipeline.
struct BuildOptions {
  /// The kernel target: "tir-interp" (core). Backends add others.
  std::string target = "tir-interp";
  /// A pipeline line run before the minimum build ("fuse-ops,fuse-tir"); may be empty.
  std::string extra_passes;
  /// Check well-formedness after each pass.
  bool verify_each = false;
};

/// The pass list of the minimum build, as a pipeline line.
const char* minimum_build_pipeline();

/// Compiles `mod` into a VM executable (see the file comment). Throws relax::Error for
/// programs the VM build does not support, naming the function and the construct.
Ref<runtime::Executable> build(const IRModule& mod, const BuildOptions& options = {});

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
