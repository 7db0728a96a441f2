// The Vulkan code generator: one lowered GPU kernel (tir::GpuKernel, what tir::lower_for_gpu
// produces: flat buffers, thread-bound loops, shared/local Allocates, barriers) -> one SPIR-V
// 1.3 module (logical addressing, GLSL.std.450 memory model, one GLCompute entry point named
// like the kernel with LocalSize = the kernel's block), in the binding layout of spirv_abi.h.
//
// Semantics are those of the reference interpreter (kernel/interpreter.h), checked on lavapipe
// by tests/unit/vulkan_codegen: integer arithmetic wraps, Div/Mod truncate and
// FloorDiv/FloorMod floor (INT_MIN / -1 wraps; a zero divisor divides by 1, where the
// interpreter fails), float Min/Max pick like `b < a ? b : a` (so NaN handling follows the
// operand order), float != is unordered, float -> int casts send NaN to 0 and otherwise
// convert as the interpreter does (through the int64 range, then wrapping to the target
// width), round is half-to-even (RoundEven), fmod is exact, float FloorDiv floors the exact
// quotient, erf/atan/atan2/asin/acos are expanded here (GLSL has no erf; drivers' inverse
// trigonometry is ~1e-5 off), float16 transcendentals are computed in float32.
// float16 computes in float16 with the float16 feature, else it is stored as 16-bit floats and
// computed in float32; bfloat16 is stored as uint16 and computed in float32 (round to nearest
// even on store); bool is stored as uint8. A construct SPIR-V cannot express, or a type whose
// feature the target disables, is a relax::Error naming the kernel and the construct.
#pragma once

#include <dlpack/dlpack.h>

#include <array>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "relax/kernel/gpu_lower.h"

namespace relax::vulkan {

/// The optional device features code may use (target attributes of the same names).
struct SpirvFeatures {
  bool float16 = false;  ///< float16 arithmetic (else float16 is storage only)
  bool float64 = false;
  bool int8 = true;
  bool int16 = true;
  bool int64 = true;  ///< else int64 arithmetic is demoted to 32 bits, int64 buffers refused
  bool storage8 = true;   ///< 8-bit storage-buffer access (int8/uint8/bool buffers)
  bool storage16 = true;  ///< 16-bit storage-buffer access (float16/bfloat16/int16 buffers)
};

/// One compiled kernel.
struct SpirvKernel {
  std::vector<uint32_t> words;
  /// The spirv_abi.h feature names the code uses ("int64", "storage8", ...).
  std::set<std::string> requirements;
  std::array<uint32_t, 3> block{1, 1, 1};
  std::vector<DLDataType> buffer_dtypes;  ///< of binding i, as in the IR (bool: stored as uint8)
  std::vector<DLDataType> scalar_dtypes;  ///< the parameter block's scalars
};

/// The scalars the kernel's code reads from its parameter block, in order: the kernel
/// function's scalar parameters (which, by the core's calling convention, include the shape
/// variables of its buffers that the body uses: a kernel cannot read a buffer's shape).
std::vector<Ref<tir::Var>> kernel_scalars(const tir::GpuKernel& kernel);

/// The SPIR-V of `kernel` (not validated). relax::Error naming the kernel for what SPIR-V or
/// `features` cannot express.
SpirvKernel emit_spirv(const tir::GpuKernel& kernel, const SpirvFeatures& features);

/// The SPIRV-Tools disassembly of `words` (friendly names); an error text when it fails.
std::string disassemble(const std::vector<uint32_t>& words);

/// Validates `words` for SPV_ENV_VULKAN_1_1 and SPV_ENV_UNIVERSAL_1_5. On failure writes the
/// disassembly and the validator's message to `<dir>/<kernel>.spvasm` (dir: $RELAX_DUMP_DIR,
/// else the temp directory) and throws relax::InternalError naming the kernel and that path.
void validate_spirv(const std::string& kernel, const std::vector<uint32_t>& words);

/// emit_spirv + validate_spirv; with RELAX_VULKAN_DUMP=<dir> also writes every kernel's
/// TIR (as comments) and disassembly to <dir>/<kernel>.spvasm.
SpirvKernel compile_kernel(const tir::GpuKernel& kernel, const SpirvFeatures& features);

}  // namespace relax::vulkan
