// The compiler half of the GPU kernel library (launch_table.h): turns the scheduled,
// thread-bound PrimFuncs a GPU target kind's build function receives into a Library, with the
// backend's code generator called once per kernel. Used by every GPU codegen plugin
// (relax_gpu_common; links the compiler).
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "launch_table.h"
#include "relax/ir/prim_func.h"
#include "relax/kernel/gpu.h"
#include "relax/kernel/gpu_lower.h"

namespace relax::gpu {

/// The parameter kinds of a lowered kernel in the calling convention of launch_table.h
/// (buffers, then scalars; bool buffers as uint8); `code` left empty. A block size that is not
/// a constant, or a scalar that is not int32/int64, is a relax::Error naming the kernel.
KernelInfo kernel_info(const tir::GpuKernel& kernel);

/// The launch table of `program` (its host function): parameters from the host's params and
/// buffer_map, then its body in order: AssertStmt -> kAssert, LetStmt of an integer scalar ->
/// kLet, "global" Allocate -> kAlloc (the workspace), launch_kernel -> kLaunch with kernel
/// index `first_kernel + i` for program.kernels[i]. Slots: one per shape variable and scalar
/// parameter (named after it in slot_names), one per let; a compound dimension (`n * 2`) binds
/// a slot of its own plus an assert that it equals its expression. Casts to narrower integer
/// types wrap as in the IR. Any other statement, or an expression that is not integer
/// arithmetic over parameters, shape variables and lets, is a relax::Error naming the function
/// and the construct.
FunctionTable encode_host(const tir::GpuProgram& program, const std::string& name,
                          int32_t first_kernel);

/// A backend's code generator for one kernel: fills `info.code` (or appends to the module's
/// code through `module_code`) and may add requirements ("float16" -> "1").
using KernelCodegen = std::function<void(const tir::GpuKernel& kernel, KernelInfo& info,
                                         Library& lib)>;

/// The whole build: each (name, scheduled PrimFunc) lowered with tir::lower_for_gpu(limits),
/// encoded, and each kernel passed to `codegen` (may be empty) before its KernelInfo is
/// appended to lib.kernels; `format` is the library's format tag. Sets the requirements
/// "max-threads-per-block" and "shared-bytes" to the maxima over the kernels.
Library build_library(const std::string& format,
                      const std::vector<std::pair<std::string, Ref<tir::PrimFunc>>>& funcs,
                      const tir::GpuLimits& limits, const KernelCodegen& codegen);

}  // namespace relax::gpu
