// Device runtimes: memory and copies on one DLPack device type.
//
// The CPU runtime is built in. Others (Vulkan, OpenCL, ...) arrive as C tables
// (RxDeviceRuntime, c_abi.h) from backend plugins, or as C++ subclasses of DeviceAPI. NDArray
// allocation, copies between devices and the VM's alloc_storage/to_device go through here.
#pragma once

#include <dlpack/dlpack.h>

#include <memory>
#include <string>

#include "relax/runtime/c_abi.h"
#include "relax/runtime/value.h"

namespace relax::runtime {

/// Memory management and copies for one device type. Implementations are thread-safe.
class DeviceAPI {
 public:
  virtual ~DeviceAPI() = default;
  /// A short name for messages ("cpu", "vulkan").
  virtual std::string name() const = 0;
  /// Allocates `nbytes` (may be 0) aligned to `alignment`; throws relax::Error on failure.
  virtual void* alloc(DLDevice device, size_t nbytes, size_t alignment) = 0;
  virtual void free(DLDevice device, void* ptr) = 0;
  /// Copies the bytes of `from` into `to`; both compact with equal byte sizes.
  virtual void copy(const DLTensor& from, DLTensor& to) = 0;
  virtual void synchronize(DLDevice device) = 0;
  /// An RxDeviceAttr of `device` (null when the runtime does not know it).
  virtual Value attribute(DLDevice device, RxDeviceAttr attr) = 0;

  /// The runtime for `device_type`; throws relax::Error naming the type when none is registered.
  static DeviceAPI& get(int device_type);
  /// The runtime for `device_type`, or null.
  static DeviceAPI* find(int device_type);
  /// Installs (or replaces) the runtime for `device_type`. Runtimes live until process exit.
  static void register_api(int device_type, std::unique_ptr<DeviceAPI> api);
  /// Wraps a C runtime table after checking its size and version (RxRegisterDeviceRuntime).
  static void register_c_runtime(const RxDeviceRuntime& table);
};

/// A block of memory on one device (vm.builtin.alloc_storage); alloc_tensor makes views of it.
struct StorageObj : Object {
  static constexpr uint32_t kKind = kStorageObjKind;
  explicit StorageObj(NDArray b) : Object(kKind), buffer(std::move(b)) {}
  /// A 1-d uint8 array over the whole block.
  const NDArray buffer;
};

/// "cpu:0", "vulkan:1", "device12:0" — for messages.
std::string device_to_string(DLDevice device);

/// Copies between two tensors on any registered devices (staging through the host when
/// neither side is the CPU and the types differ). Shapes need not match; byte sizes must.
void copy_tensor_bytes(const DLTensor& from, DLTensor& to);

}  // namespace relax::runtime
