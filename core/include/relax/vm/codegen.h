// VM code generation: the Relax functions of a VM-level module (after the minimum build's
// passes, relax/vm/passes.h) become bytecode; PrimFuncs are called by name and provided by
// kernel libraries that the caller builds for its target.
#pragma once

#include <vector>

#include "relax/ir/module.h"
#include "relax/runtime/executable.h"

namespace relax::vm {

/// Relax functions of a VM-level module -> bytecode. Throws relax::Error for constructs left
/// unlowered (an op without legalisation, a symbolic ShapeExpr, ...), naming the function.
/// `libraries` (kernel libraries) are attached to the executable.
Ref<runtime::Executable> vm_codegen(const IRModule& mod,
                                    std::vector<runtime::Library> libraries = {});

}  // namespace relax::vm
