// librelax-vulkan-runtime.so: the Vulkan device runtime (DLPack device type 7, "vulkan") and the
// module loader for the "spirv" kernel-library format, written against c_abi.h only.
//
// The plugin always loads: without libvulkan.so.1 (or without a usable device) the device
// reports that it does not exist, and every call that needs it fails with "no Vulkan device:
// <why>". Every entry point turns exceptions into a status and an RxSetLastError message
// prefixed "vulkan: "; with RELAX_VULKAN_VALIDATION=1 a validation error reported during a call
// fails that call too.
//
// Registration: relax_runtime_plugin_init() (the runtime's discovery of runtime plugins, and any
// C host) and relax_plugin_info() (the compiler's plugin loader) register both tables.
#include <cstring>
#include <exception>
#include <string>

#include "gpu_common/launch_table.h"
#include "relax/runtime/c_abi.h"
#include "relax/transform/plugin_abi.h"
#include "vk_device.h"
#include "vk_module.h"

namespace relax::vulkan_rt {
namespace {

constexpr int32_t kDeviceType = kDLVulkan;

int fail(const std::string& message, int status = kRxError) {
  RxSetLastError(("vulkan: " + message).c_str());
  return status;
}

/// Runs `body`, turning exceptions and pending validation errors into a failed status.
template <typename F>
int guarded(F&& body) {
  try {
    body();
  } catch (const std::exception& e) {
    return fail(e.what());
  } catch (...) {
    return fail("unknown error");
  }
  if (!Device::get().unavailable().empty()) return kRxOk;
  if (std::string v = Device::get().take_validation_error(); !v.empty()) return fail(v);
  return kRxOk;
}

/// The device of `device_id` (only 0 runs work).
Device& device_for(DLDevice dev) {
  Device& d = Device::get();
  d.chosen();  // throws "no Vulkan device: ..."
  if (dev.device_type != kDeviceType || dev.device_id != 0)
    throw VkError("device " + std::to_string(dev.device_type) + ":" +
                  std::to_string(dev.device_id) +
                  " is not vulkan:0, the one device this runtime runs on (RELAX_VULKAN_DEVICE "
                  "picks which)");
  return d;
}

Buffer* buffer_of(const void* data, const char* what) {
  auto* b = static_cast<Buffer*>(const_cast<void*>(data));
  if (b == nullptr || b->magic != Buffer::kMagic)
    throw VkError(std::string(what) + " is not a buffer of this Vulkan runtime");
  return b;
}

/// The buffer of device tensor `t`, checked to hold `n` bytes from its byte_offset.
Buffer* device_side(const DLTensor& t, uint64_t n, const char* what) {
  Buffer* b = buffer_of(t.data, what);
  if (t.byte_offset > b->size || n > b->size - t.byte_offset)
    throw VkError(std::string(what) + ": " + std::to_string(n) + " bytes at byte offset " +
                  std::to_string(t.byte_offset) + " pass the end of its buffer of " +
                  std::to_string(b->size) + " bytes");
  return b;
}

uint64_t tensor_bytes(const DLTensor& t) {
  uint64_t n = gpu::dtype_bytes(t.dtype);
  for (int i = 0; i < t.ndim; ++i) n *= uint64_t(t.shape[i]);
  return n;
}

int rt_alloc(void*, DLDevice device, uint64_t nbytes, uint64_t, void** out) {
  if (out == nullptr) return fail("alloc: null output", kRxBadArgument);
  return guarded([&] { *out = device_for(device).alloc(nbytes); });
}

int rt_free(void*, DLDevice device, void* ptr) {
  if (ptr == nullptr) return kRxOk;
  return guarded([&] { device_for(device).free(buffer_of(ptr, "free: the pointer"), true); });
}

int rt_copy(void*, const DLTensor* from, DLTensor* to) {
  if (from == nullptr || to == nullptr) return fail("copy: null tensor", kRxBadArgument);
  return guarded([&] {
    uint64_t n = tensor_bytes(*from);
    if (n != tensor_bytes(*to))
      throw VkError("copy: the tensors have " + std::to_string(n) + " and " +
                    std::to_string(tensor_bytes(*to)) + " bytes");
    bool src_dev = from->device.device_type == kDeviceType;
    bool dst_dev = to->device.device_type == kDeviceType;
    auto host_ok = [](const DLTensor& t) { return t.device.device_type == kDLCPU; };
    if ((!src_dev && !host_ok(*from)) || (!dst_dev && !host_ok(*to)))
      throw VkError("copy: only vulkan and cpu tensors are supported (device types " +
                    std::to_string(from->device.device_type) + " -> " +
                    std::to_string(to->device.device_type) + ")");
    if (src_dev && dst_dev) {
      Device& d = device_for(from->device);
      device_for(to->device);
      d.copy_on_device(device_side(*from, n, "copy: the source"), from->byte_offset,
                       device_side(*to, n, "copy: the destination"), to->byte_offset, n);
    } else if (src_dev) {
      device_for(from->device)
          .copy_to_host(buffer_of(from->data, "copy: the source"), from->byte_offset,
                        static_cast<uint8_t*>(to->data) + to->byte_offset, n);
    } else if (dst_dev) {
      device_for(to->device)
          .copy_to_device(static_cast<const uint8_t*>(from->data) + from->byte_offset,
                          device_side(*to, n, "copy: the destination"), to->byte_offset, n);
    } else {
      throw VkError("copy: neither tensor is on a Vulkan device");
    }
  });
}

int rt_synchronize(void*, DLDevice device) {
  return guarded([&] { device_for(device).synchronize(); });
}

int rt_get_attr(void*, DLDevice device, int32_t attr, RxAny* ret) {
  if (ret == nullptr) return fail("get_attr: null output", kRxBadArgument);
  thread_local std::string text;
  return guarded([&] {
    Device& d = Device::get();
    *ret = RxAnyNull();
    if (attr == kRxDeviceCount) {
      *ret = RxAnyInt(int64_t(d.devices().size()));
      return;
    }
    bool listed = device.device_id >= 0 && size_t(device.device_id) < d.devices().size();
    bool runs = d.unavailable().empty() && device.device_id == 0;
    if (attr == kRxDeviceExists) {
      *ret = RxAnyInt(runs ? 1 : 0);
      return;
    }
    if (attr == kRxDeviceDescription) {
      if (listed)
        text = d.devices()[size_t(device.device_id)].description();
      else
        text = d.unavailable().empty() ? "no such device" : d.unavailable();
      if (listed && device.device_id == 0 && !d.unavailable().empty())
        text += " [" + d.unavailable() + "]";
      else if (listed && device.device_id != 0)
        text += " [not used: this runtime runs on vulkan:0]";
      *ret = RxAnyString(text.c_str());
      return;
    }
    if (!listed) return;
    const PhysicalDevice& p = d.devices()[size_t(device.device_id)];
    switch (attr) {
      case kRxDeviceName:
        text = p.props.deviceName;
        *ret = RxAnyString(text.c_str());
        break;
      case kRxDeviceTotalMemory:
        *ret = RxAnyInt(int64_t(p.memory));
        break;
      case kRxDeviceMaxThreadsPerBlock:
        *ret = RxAnyInt(int64_t(p.props.limits.maxComputeWorkGroupInvocations));
        break;
      case kRxDeviceWarpSize:
        *ret = RxAnyInt(int64_t(p.subgroup_size));
        break;
      default:
        break;
    }
  });
}

// --- the "spirv" module loader ---

int packed_call(void* self, const RxAny* args, int32_t nargs, RxAny* ret) {
  auto* f = static_cast<SpirvModule::Function*>(self);
  if (ret != nullptr) *ret = RxAnyNull();
  return guarded([&] { f->module->call(*f->table, args, nargs); });
}

int ld_load(void*, const uint8_t* bytes, uint64_t nbytes, void** out) {
  if (bytes == nullptr || out == nullptr)
    return fail("spirv loader: null argument", kRxBadArgument);
  return guarded([&] {
    gpu::Library lib = gpu::deserialize(bytes, nbytes);
    *out = new SpirvModule(std::move(lib));
  });
}

int ld_get_function(void*, void* module, const char* name, RxPackedCFunc* func, void** func_self) {
  if (!module || !name || !func || !func_self)
    return fail("spirv loader: null argument", kRxBadArgument);
  SpirvModule::Function* f = static_cast<SpirvModule*>(module)->find(name);
  *func = f ? &packed_call : nullptr;
  *func_self = f;
  return kRxOk;
}

void ld_release(void*, void* module) { delete static_cast<SpirvModule*>(module); }

int register_all() {
  RxDeviceRuntime rt;
  std::memset(&rt, 0, sizeof(rt));
  rt.struct_size = sizeof(RxDeviceRuntime);
  rt.abi_version = RX_ABI_VERSION;
  rt.device_type = kDeviceType;
  rt.name = "vulkan";
  rt.alloc = &rt_alloc;
  rt.free = &rt_free;
  rt.copy = &rt_copy;
  rt.synchronize = &rt_synchronize;
  rt.get_attr = &rt_get_attr;
  if (int s = RxRegisterDeviceRuntime(&rt); s != 0) return s;
  RxModuleLoader loader;
  std::memset(&loader, 0, sizeof(loader));
  loader.struct_size = sizeof(RxModuleLoader);
  loader.abi_version = RX_ABI_VERSION;
  loader.format = "spirv";
  loader.load = &ld_load;
  loader.get_function = &ld_get_function;
  loader.release = &ld_release;
  return RxRegisterModuleLoader(&loader);
}

int register_plugin(const RelaxPluginHost* host) {
  int status = register_all();
  if (status != 0 && host && host->set_error) host->set_error(host->context, RxGetLastError());
  return status;
}

}  // namespace
}  // namespace relax::vulkan_rt

// The C ABI version this plugin was built against, checked before its init runs.
RX_RUNTIME_PLUGIN_ABI_VERSION()

extern "C" {

/// Registers the Vulkan device runtime and the "spirv" loader; 0 or an RxStatus.
RELAX_PLUGIN_EXPORT int relax_runtime_plugin_init(void) { return relax::vulkan_rt::register_all(); }

RELAX_PLUGIN_EXPORT const RelaxPluginInfo* relax_plugin_info(void) {
  static const RelaxPluginInfo info = {sizeof(RelaxPluginInfo),
                                       RELAX_PLUGIN_ABI_MAJOR,
                                       RELAX_PLUGIN_ABI_MINOR,
                                       "vulkan-runtime",
                                       "0.1.0",
                                       RELAX_SDK_VERSION,
                                       &relax::vulkan_rt::register_plugin};
  return &info;
}

}  // extern "C"
