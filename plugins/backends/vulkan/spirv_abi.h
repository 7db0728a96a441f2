// The contract between the Vulkan codegen (SPIR-V) and the Vulkan runtime, on top of the kernel
// calling convention of gpu_common/launch_table.h (buffers, scalars, one int32 element offset
// per buffer).
//
// Each kernel is one SPIR-V module (KernelInfo::code, 32-bit words) with one GLCompute entry
// point named KernelInfo::name and LocalSize = KernelInfo::block.
//  - Descriptor set 0, binding i (i < number of buffers): a StorageBuffer variable of a Block
//    struct holding one runtime array of the buffer's element type (bool as uint8); the runtime
//    binds the whole VkBuffer (offset 0, VK_WHOLE_SIZE) and passes the element offset.
//  - The "parameter block": the scalars (int32: 4 bytes, int64: 8 bytes aligned to 8) in order,
//    then one int32 per buffer (its element offset), laid out by param_block_layout below. When
//    its size is at most kMaxPushConstantBytes it is a PushConstant block; otherwise it is a
//    Uniform block at set 0, binding = number of buffers, which the runtime fills from a
//    host-visible uniform buffer (same offsets; every member is a scalar, so std140 and std430
//    agree).
//  - Requirements the codegen adds to Library::requirements (value "1"), which the runtime
//    checks against the device and enables: the kFeature* names below.
#pragma once

#include <cstdint>
#include <vector>

#include <dlpack/dlpack.h>

namespace relax::vulkan {

/// The push-constant size every Vulkan device guarantees (maxPushConstantsSize >= 128).
inline constexpr uint32_t kMaxPushConstantBytes = 128;

/// Feature names in Library::requirements.
inline constexpr const char* kFeatureFloat16 = "float16";        ///< shaderFloat16 arithmetic
inline constexpr const char* kFeatureFloat64 = "float64";        ///< shaderFloat64
inline constexpr const char* kFeatureInt8 = "int8";              ///< shaderInt8 arithmetic
inline constexpr const char* kFeatureInt16 = "int16";            ///< shaderInt16
inline constexpr const char* kFeatureInt64 = "int64";            ///< shaderInt64
inline constexpr const char* kFeatureStorage8 = "storage8";      ///< storageBuffer8BitAccess
inline constexpr const char* kFeatureStorage16 = "storage16";    ///< storageBuffer16BitAccess

/// Byte offsets of the parameter block's members and its total size.
struct ParamBlockLayout {
  std::vector<uint32_t> scalar_offsets;  ///< one per scalar
  std::vector<uint32_t> offset_offsets;  ///< one per buffer (its int32 element offset)
  uint32_t size = 0;                     ///< total bytes, rounded up to 4
  bool uses_uniform_buffer() const { return size > kMaxPushConstantBytes; }
};

inline ParamBlockLayout param_block_layout(const std::vector<DLDataType>& scalar_dtypes,
                                           size_t num_buffers) {
  ParamBlockLayout l;
  uint32_t at = 0;
  for (const DLDataType& t : scalar_dtypes) {
    uint32_t bytes = t.bits > 32 ? 8 : 4;
    at = (at + bytes - 1) / bytes * bytes;
    l.scalar_offsets.push_back(at);
    at += bytes;
  }
  for (size_t i = 0; i < num_buffers; ++i) {
    l.offset_offsets.push_back(at);
    at += 4;
  }
  l.size = at;
  return l;
}

}  // namespace relax::vulkan
