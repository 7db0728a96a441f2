// The OpenCL code generator (librelax-opencl.so): kernels lowered for the GPU
// (kernel/gpu_lower.h) -> OpenCL C 1.2 source, one program per kernel library.
//
// Each kernel becomes
//   __kernel __attribute__((reqd_work_group_size(X, Y, Z)))
//   void <name>(__global T0* restrict b0, ..., <scalars>, int b0_off, ...)
// following the calling convention of gpu_common/launch_table.h: the buffers (in the order of
// the kernel's handle parameters), then the scalars (int or long), then one int element offset
// per buffer; an access B[i] reads B[B_off + i]. blockIdx.* / threadIdx.* loops read
// get_group_id / get_local_id (guarded when their extent is below the launch's), "shared"
// Allocates are __local arrays at kernel scope, "local" ones private arrays, storage_sync is
// barrier(CLK_LOCAL_MEM_FENCE). Vector expressions (Ramp, Broadcast, vector loads and stores)
// are scalarised lane by lane.
//
// Types come from one table (cl_value_type / cl_storage_type): bool is uchar in memory and int
// in expressions; float16 is `half` memory read with vload_half and written with
// vstore_half_rte, computed in float and rounded to half after every operation (native half
// arithmetic under cl_khr_fp16 when the target says fp16=1); bfloat16 is ushort memory,
// computed in float and rounded (nearest even) after every operation; int64 is long; float64
// is double (cl_khr_fp64; fp64=0 makes it an error).
//
// Semantics follow the reference interpreter (kernel/interpreter.h): integers wrap; Div/Mod
// truncate and FloorDiv/FloorMod floor, through helpers that give 0 for a zero divisor (the
// interpreter raises an error there; a device cannot) and wrap INT_MIN / -1; Min/Max are
// `b < a ? b : a` / `a < b ? b : a` (NaN in the first operand wins, as in the interpreter);
// float -> int casts saturate to int64 (NaN -> 0, checked explicitly since NVIDIA's
// convert_long_sat_rtz(NaN) is LONG_MIN) then wrap to the target type; round is
// rint (half to even); FP_CONTRACT OFF; no fast-math. Transcendentals use OpenCL's built-ins
// (their accuracy, not the interpreter's double precision).
//
// Unsupported constructs (an extern call, an assert or a "global" Allocate inside a kernel,
// a shared or local array of non-constant size, a non-integer kernel scalar, float64 with
// fp64=0, an element type OpenCL C has no type for) are a relax::Error naming the kernel and
// the construct.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "relax/ir/prim_func.h"
#include "relax/kernel/gpu.h"
#include "relax/kernel/gpu_lower.h"

namespace relax::gpu {
struct Library;  // launch_table.h (gpu_common)
}  // namespace relax::gpu

namespace relax::opencl {

/// The format tag of the kernel libraries this backend writes.
inline constexpr const char* kLibraryFormat = "opencl-c";

/// What the target's attributes say the device offers.
struct CodegenOptions {
  bool fp16 = false;  ///< cl_khr_fp16 arithmetic (else float16 through vload/vstore_half)
  bool fp64 = true;   ///< cl_khr_fp64 (float64 kernels); the runtime checks the device has it
};

/// The validated attribute string of an "opencl" target -> its limits and options.
void parse_target_attrs(const std::string& attrs, tir::GpuLimits* limits, CodegenOptions* options);

/// What one kernel needs beyond OpenCL C 1.2 (the library's requirements).
struct KernelFeatures {
  bool fp16 = false;  ///< uses half arithmetic (fp16=1 and a float16 value)
  bool fp64 = false;  ///< uses double
};

/// The OpenCL C text every program starts with: pragmas and the helper functions (the
/// cl_khr_fp16 / cl_khr_fp64 parts only where `options` enables them: pass
/// enabled_options(target options, what the kernels use), so that a device without an
/// extension still builds the programs that do not need it).
std::string prelude(const CodegenOptions& options);
/// `options` with fp16/fp64 kept only where a kernel uses them.
CodegenOptions enabled_options(const CodegenOptions& options, const KernelFeatures& used);

/// The OpenCL C function of one lowered kernel (a relax::Error naming the kernel for what it
/// cannot express). `features` receives what it needs.
std::string kernel_source(const tir::GpuKernel& kernel, const CodegenOptions& options,
                          KernelFeatures* features = nullptr);

/// The kernel name as an OpenCL identifier (letters, digits and '_'; not starting with a digit;
/// "rx_" prefixed when it would clash with a reserved word).
std::string cl_identifier(const std::string& name);

/// The kernel library for `funcs` (scheduled, thread-bound PrimFuncs): gpu::build_library with
/// each kernel's OpenCL C appended to one program (prelude, then every kernel) in
/// `module_code`, kernel names made OpenCL identifiers, and the requirements "float16" (half
/// arithmetic used) and "float64" (double used) that the runtime checks against the device.
gpu::Library build_opencl_library(
    const std::vector<std::pair<std::string, Ref<tir::PrimFunc>>>& funcs,
    const tir::GpuLimits& limits, const CodegenOptions& options);

/// The OpenCL C of the library of `funcs` (its module_code). For tests and dumps.
std::string program_source(const std::vector<std::pair<std::string, Ref<tir::PrimFunc>>>& funcs,
                           const tir::GpuLimits& limits, const CodegenOptions& options);

}  // namespace relax::opencl
