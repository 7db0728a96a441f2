// Internals of the OpenCL runtime plugin (librelax-opencl-runtime.so): the selected device and
// its context and queue, device buffers, and the failures every part reports the same way.
//
// One device serves DLDevice {kDLOpenCL, 0}: across every platform (CL_DEVICE_TYPE_ALL), GPUs
// first, then the others, each platform's devices in order; RELAX_OPENCL_DEVICE=P:D picks
// device D of platform P instead. One in-order command queue: launches and copies run in the
// order they are queued, so dependent launches need no events. A device buffer is a ClBuffer
// (the DLTensor's data pointer); kernels reach offsets into it through their element-offset
// arguments, never sub-buffers.
#pragma once

#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "cl_api.h"

namespace relax::opencl {

/// The device memory behind a DLTensor's data pointer.
struct ClBuffer {
  cl_mem mem = nullptr;
  uint64_t nbytes = 0;
};

/// The selected device, opened once (thread-safe).
struct ClDevice {
  const ClApi* api = nullptr;
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
  std::string name, vendor, driver_version, platform_name, platform_version, extensions;
  cl_device_type type = 0;
  uint64_t global_mem = 0, local_mem = 0, max_alloc = 0;
  size_t max_work_group = 0;
  size_t max_item_sizes[3] = {0, 0, 0};
  bool fp64 = false, fp16 = false, correctly_rounded_div_sqrt = false;
  int platform_index = 0, device_index = 0;
};

/// The device (opened on first call); throws std::runtime_error "no OpenCL device: ..." when
/// there is none (no ICD loader, no platform, no device, a bad RELAX_OPENCL_DEVICE).
const ClDevice& cl_device();

/// Throws std::runtime_error "<call> failed: <CL error name> (<code>)<context>" unless ok.
inline void cl_check(cl_int status, const char* call, const std::string& context = "") {
  if (status != CL_SUCCESS)
    throw std::runtime_error(std::string(call) + " failed: " + cl_error_name(status) + " (" +
                             std::to_string(status) + ")" + context);
}

/// Counters of the module loader (relax.opencl.stats).
struct ClStats {
  std::atomic<uint64_t> builds{0};         ///< programs compiled from source
  std::atomic<uint64_t> cache_hits{0};     ///< programs loaded from the binary cache
  std::atomic<uint64_t> cache_writes{0};   ///< binaries written to the cache
  std::atomic<uint64_t> cache_rejects{0};  ///< cache files ignored (corrupt, unreadable, refused)
  std::atomic<uint64_t> launches{0};       ///< kernel launches queued
};
ClStats& cl_stats();

/// Registers the device runtime for kDLOpenCL (cl_device.cc) and the "opencl-c" module loader
/// with relax.opencl.stats (cl_module.cc); 0 or an RxStatus.
int register_device_runtime();
int register_module_loader();

}  // namespace relax::opencl
