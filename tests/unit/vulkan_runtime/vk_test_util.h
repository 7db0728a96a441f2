// Helpers of the Vulkan runtime tests: loading librelax-vulkan-runtime.so, skipping (or, with
// RELAX_REQUIRE_VULKAN=1, failing) when there is no device, SPIR-V kernels assembled in process
// from text following spirv_abi.h, hand-built "spirv" libraries, and device tensors with byte
// offsets, all through the interfaces the VM uses (DeviceAPI, load_module, PackedFunc).
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <spirv-tools/libspirv.hpp>
#include <string>
#include <vector>

#include "gpu_common/launch_table.h"
#include "relax/runtime/device_api.h"
#include "relax/runtime/module.h"
#include "relax/runtime/ndarray.h"
#include "relax/support/diagnostic.h"

namespace relax::vktest {

inline constexpr DLDevice kVk{kDLVulkan, 0};
inline constexpr DLDataType kF32{kDLFloat, 32, 1};
inline constexpr DLDataType kI32{kDLInt, 32, 1};

/// Loads the plugin once (its relax_runtime_plugin_init); "" or why it failed.
inline std::string load_plugin() {
  static std::string result = [] {
    std::string path = std::string(RELAX_PLUGIN_DIR) + "/librelax-vulkan-runtime.so";
    void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) return std::string("dlopen: ") + dlerror();
    auto init = reinterpret_cast<int (*)()>(dlsym(h, "relax_runtime_plugin_init"));
    if (!init) return std::string("no relax_runtime_plugin_init");
    if (init() != 0) return std::string("init failed: ") + RxGetLastError();
    return std::string();
  }();
  return result;
}

inline runtime::DeviceAPI& api() { return runtime::DeviceAPI::get(kDLVulkan); }

/// Why there is no Vulkan device to test on, or "".
inline std::string no_device_reason() {
  if (std::string e = load_plugin(); !e.empty()) return e;
  if (api().attribute(kVk, kRxDeviceExists).as_int() == 1) return "";
  return api().attribute(kVk, kRxDeviceDescription).as_string();
}

/// In a test body: skips (fails under RELAX_REQUIRE_VULKAN=1) when there is no device.
#define RX_REQUIRE_VULKAN_DEVICE()                            \
  do {                                                        \
    std::string why_ = ::relax::vktest::no_device_reason();   \
    if (!why_.empty()) {                                      \
      const char* req_ = std::getenv("RELAX_REQUIRE_VULKAN"); \
      if (req_ && std::string(req_) == "1") FAIL() << why_;   \
      GTEST_SKIP() << why_;                                   \
    }                                                         \
  } while (0)

/// The SPIR-V words of `text` as bytes (assembled and validated for Vulkan 1.1).
std::vector<uint8_t> assemble(const std::string& text);

/// "y[off_y + i] = x[off_x + i] * 2 for i < n": buffers x, y (float32), scalar n (int32);
/// work-group 64. Its entry point is `name`.
gpu::KernelInfo offset_copy_kernel(const std::string& name = "offset_copy");
/// "out[off + i] = i + sum_k (k + 1) * s_k": buffer out (int32), `nscalars` int32 scalars, the
/// parameter block a push-constant block or, past 128 bytes, a uniform buffer (spirv_abi.h).
gpu::KernelInfo scalar_sum_kernel(int nscalars);

/// Expression helpers for hand-built launch tables.
gpu::Expr c(int64_t v);
gpu::Expr slot(int32_t s);
/// ceil(slot s / d)
gpu::Expr ceil_div(int32_t s, int64_t d);

/// A function `name(x: float32[n], y: float32[n])` launching kernel 0 (offset_copy) with n.
gpu::FunctionTable offset_copy_function(const std::string& name = "double_it");

/// Loads `lib` through the "spirv" loader (serialised first).
runtime::Module load(const gpu::Library& lib);

/// A device allocation freed with the object (unless released).
struct DevBuffer {
  void* ptr = nullptr;
  uint64_t bytes = 0;
  explicit DevBuffer(uint64_t n) : ptr(api().alloc(kVk, n, 64)), bytes(n) {}
  ~DevBuffer() {
    if (ptr) api().free(kVk, ptr);
  }
  DevBuffer(const DevBuffer&) = delete;
  DevBuffer& operator=(const DevBuffer&) = delete;
  void release() {
    api().free(kVk, ptr);
    ptr = nullptr;
  }
};

/// A DLTensor view of `buf` (shape kept in `shape`, which must outlive it).
DLTensor view(const DevBuffer& buf, std::vector<int64_t>& shape, DLDataType dtype,
              uint64_t byte_offset);
/// A CPU DLTensor over `data`.
template <typename T>
DLTensor host(std::vector<T>& data, std::vector<int64_t>& shape, DLDataType dtype) {
  DLTensor t{};
  t.data = data.data();
  t.device = {kDLCPU, 0};
  t.ndim = int32_t(shape.size());
  t.dtype = dtype;
  t.shape = shape.data();
  return t;
}
/// The tensor as an argument value.
inline runtime::Value arg(const DLTensor& t) { return runtime::NDArray::borrow(t); }

/// The limit from the device description ("max storage buffer range N B").
uint64_t max_storage_buffer_range();

/// The relax::Error message of `body` ("" and a failure when it does not throw).
template <typename F>
std::string error_of(F&& body) {
  try {
    body();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a relax::Error";
  return "";
}

}  // namespace relax::vktest
