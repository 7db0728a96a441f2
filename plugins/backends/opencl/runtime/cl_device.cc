// The OpenCL device and the device runtime for kDLOpenCL (cl_runtime.h): selection, memory,
// copies, synchronisation and attributes, through the C ABI (RxDeviceRuntime).
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#include "cl_runtime.h"
#include "relax/runtime/c_abi.h"

namespace relax::opencl {

namespace {

std::string device_string(const ClApi& api, cl_device_id d, cl_device_info what) {
  size_t n = 0;
  if (api.clGetDeviceInfo(d, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return "";
  std::string s(n, '\0');
  api.clGetDeviceInfo(d, what, n, s.data(), nullptr);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

std::string platform_string(const ClApi& api, cl_platform_id p, cl_platform_info what) {
  size_t n = 0;
  if (api.clGetPlatformInfo(p, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return "";
  std::string s(n, '\0');
  api.clGetPlatformInfo(p, what, n, s.data(), nullptr);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

template <class T>
T device_value(const ClApi& api, cl_device_id d, cl_device_info what) {
  T v{};
  api.clGetDeviceInfo(d, what, sizeof(T), &v, nullptr);
  return v;
}

struct Candidate {
  int platform, device;
  cl_platform_id pid;
  cl_device_id did;
  bool gpu;
  std::string name;
};

ClDevice open_device() {
  std::string error;
  ClDevice d;
  d.api = cl_api(&error);
  if (!d.api) throw std::runtime_error("no OpenCL device: " + error);
  const ClApi& api = *d.api;
  cl_uint np = 0;
  cl_int st = api.clGetPlatformIDs(0, nullptr, &np);
  if (st != CL_SUCCESS || np == 0)
    throw std::runtime_error(
        "no OpenCL device: no OpenCL platform is installed (clGetPlatformIDs: " +
        cl_error_name(st) + ")");
  std::vector<cl_platform_id> platforms(np);
  api.clGetPlatformIDs(np, platforms.data(), nullptr);
  std::vector<Candidate> all;
  for (cl_uint p = 0; p < np; ++p) {
    cl_uint nd = 0;
    if (api.clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 0, nullptr, &nd) != CL_SUCCESS)
      continue;
    std::vector<cl_device_id> devs(nd);
    api.clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, nd, devs.data(), nullptr);
    for (cl_uint i = 0; i < nd; ++i) {
      auto type = device_value<cl_device_type>(api, devs[i], CL_DEVICE_TYPE);
      all.push_back({int(p), int(i), platforms[p], devs[i], (type & CL_DEVICE_TYPE_GPU) != 0,
                     device_string(api, devs[i], CL_DEVICE_NAME)});
    }
  }
  if (all.empty()) throw std::runtime_error("no OpenCL device: no platform has a device");
  auto listing = [&] {
    std::string s;
    for (const Candidate& c : all)
      s += "\n  " + std::to_string(c.platform) + ":" + std::to_string(c.device) + " " + c.name +
           (c.gpu ? " (GPU)" : "");
    return s;
  };
  const Candidate* pick = nullptr;
  if (const char* env = std::getenv("RELAX_OPENCL_DEVICE"); env && *env) {
    int p = -1, i = -1;
    char extra = 0;
    if (std::sscanf(env, "%d:%d%c", &p, &i, &extra) != 2)
      throw std::runtime_error(std::string("no OpenCL device: RELAX_OPENCL_DEVICE=") + env +
                               " is not P:D (platform and device index); the devices:" + listing());
    for (const Candidate& c : all)
      if (c.platform == p && c.device == i) pick = &c;
    if (!pick)
      throw std::runtime_error(std::string("no OpenCL device: RELAX_OPENCL_DEVICE=") + env +
                               " names no device; the devices:" + listing());
  } else {
    for (const Candidate& c : all)
      if (c.gpu && !pick) pick = &c;
    if (!pick) pick = &all.front();
  }
  d.platform = pick->pid;
  d.device = pick->did;
  d.platform_index = pick->platform;
  d.device_index = pick->device;
  d.name = pick->name;
  d.vendor = device_string(api, d.device, CL_DEVICE_VENDOR);
  d.driver_version = device_string(api, d.device, CL_DRIVER_VERSION);
  d.extensions = device_string(api, d.device, CL_DEVICE_EXTENSIONS);
  d.platform_name = platform_string(api, d.platform, CL_PLATFORM_NAME);
  d.platform_version = platform_string(api, d.platform, CL_PLATFORM_VERSION);
  d.type = device_value<cl_device_type>(api, d.device, CL_DEVICE_TYPE);
  d.global_mem = device_value<cl_ulong>(api, d.device, CL_DEVICE_GLOBAL_MEM_SIZE);
  d.local_mem = device_value<cl_ulong>(api, d.device, CL_DEVICE_LOCAL_MEM_SIZE);
  d.max_alloc = device_value<cl_ulong>(api, d.device, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
  d.max_work_group = device_value<size_t>(api, d.device, CL_DEVICE_MAX_WORK_GROUP_SIZE);
  api.clGetDeviceInfo(d.device, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof(d.max_item_sizes),
                      d.max_item_sizes, nullptr);
  d.fp64 = device_value<cl_device_fp_config>(api, d.device, CL_DEVICE_DOUBLE_FP_CONFIG) != 0 ||
           d.extensions.find("cl_khr_fp64") != std::string::npos;
  d.fp16 = d.extensions.find("cl_khr_fp16") != std::string::npos;
  d.correctly_rounded_div_sqrt =
      (device_value<cl_device_fp_config>(api, d.device, CL_DEVICE_SINGLE_FP_CONFIG) &
       CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;
  cl_int st2 = CL_SUCCESS;
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                   reinterpret_cast<cl_context_properties>(d.platform), 0};
  d.context = api.clCreateContext(props, 1, &d.device, nullptr, nullptr, &st2);
  cl_check(st2, "clCreateContext", " (device " + d.name + ")");
  d.queue = api.clCreateCommandQueue(d.context, d.device, 0, &st2);
  cl_check(st2, "clCreateCommandQueue", " (device " + d.name + ")");
  return d;
}

int fail(const std::string& message, int status = kRxError) {
  RxSetLastError(("opencl: " + message).c_str());
  return status;
}

const ClDevice* device_or_fail(DLDevice dev, int* status) {
  try {
    const ClDevice& d = cl_device();
    if (dev.device_id != 0) {
      *status = fail("device opencl:" + std::to_string(dev.device_id) +
                         " does not exist (one OpenCL device is used: opencl:0 = " + d.name +
                         "; RELAX_OPENCL_DEVICE=P:D picks it)",
                     kRxBadArgument);
      return nullptr;
    }
    return &d;
  } catch (const std::exception& e) {
    *status = fail(e.what());
    return nullptr;
  }
}

uint64_t tensor_bytes(const DLTensor* t) {
  uint64_t n = (uint64_t(t->dtype.bits) * t->dtype.lanes + 7) / 8;
  for (int i = 0; i < t->ndim; ++i) n *= uint64_t(t->shape[i]);
  return n;
}

int dev_alloc(void*, DLDevice device, uint64_t nbytes, uint64_t, void** out) {
  int status = kRxOk;
  const ClDevice* d = device_or_fail(device, &status);
  if (!d) return status;
  if (nbytes > d->max_alloc)
    return fail("cannot allocate " + std::to_string(nbytes) + " bytes on " + d->name +
                ": above the device's largest allocation (" + std::to_string(d->max_alloc) + ")");
  cl_int st = CL_SUCCESS;
  cl_mem mem =
      d->api->clCreateBuffer(d->context, CL_MEM_READ_WRITE, nbytes ? nbytes : 1, nullptr, &st);
  if (st != CL_SUCCESS)
    return fail("clCreateBuffer failed: " + cl_error_name(st) + " (" + std::to_string(nbytes) +
                " bytes on " + d->name + ")");
  *out = new ClBuffer{mem, nbytes};
  return kRxOk;
}

int dev_free(void*, DLDevice, void* ptr) {
  auto* b = static_cast<ClBuffer*>(ptr);
  if (!b) return kRxOk;
  // Safe with launches still queued: OpenCL keeps the memory until they complete.
  const ClApi* api = cl_api(nullptr);
  if (api && b->mem) api->clReleaseMemObject(b->mem);
  delete b;
  return kRxOk;
}

int dev_copy(void*, const DLTensor* from, DLTensor* to) {
  int status = kRxOk;
  bool from_dev = from->device.device_type == kDLOpenCL;
  bool to_dev = to->device.device_type == kDLOpenCL;
  const ClDevice* d = device_or_fail(from_dev ? from->device : to->device, &status);
  if (!d) return status;
  uint64_t n = tensor_bytes(from);
  if (n != tensor_bytes(to))
    return fail("copy between tensors of " + std::to_string(n) + " and " +
                    std::to_string(tensor_bytes(to)) + " bytes",
                kRxBadArgument);
  if (n == 0) return kRxOk;
  auto range_ok = [&](const DLTensor* t) {
    auto* b = static_cast<ClBuffer*>(t->data);
    return b && t->byte_offset + n <= b->nbytes;
  };
  if ((from_dev && !range_ok(from)) || (to_dev && !range_ok(to)))
    return fail("copy of " + std::to_string(n) + " bytes past the end of a device buffer",
                kRxBadArgument);
  const ClApi& api = *d->api;
  cl_int st;
  const char* call;
  if (from_dev && to_dev) {
    call = "clEnqueueCopyBuffer";
    st = api.clEnqueueCopyBuffer(d->queue, static_cast<ClBuffer*>(from->data)->mem,
                                 static_cast<ClBuffer*>(to->data)->mem, from->byte_offset,
                                 to->byte_offset, n, 0, nullptr, nullptr);
  } else if (to_dev) {
    call = "clEnqueueWriteBuffer";
    st = api.clEnqueueWriteBuffer(
        d->queue, static_cast<ClBuffer*>(to->data)->mem, CL_TRUE, to->byte_offset, n,
        static_cast<const char*>(from->data) + from->byte_offset, 0, nullptr, nullptr);
  } else {
    call = "clEnqueueReadBuffer";
    st = api.clEnqueueReadBuffer(
        d->queue, static_cast<ClBuffer*>(from->data)->mem, CL_TRUE, from->byte_offset, n,
        static_cast<char*>(to->data) + to->byte_offset, 0, nullptr, nullptr);
  }
  if (st != CL_SUCCESS)
    return fail(std::string(call) + " failed: " + cl_error_name(st) + " (" + std::to_string(n) +
                " bytes)");
  return kRxOk;
}

int dev_sync(void*, DLDevice device) {
  int status = kRxOk;
  const ClDevice* d = device_or_fail(device, &status);
  if (!d) return status;
  cl_int st = d->api->clFinish(d->queue);
  if (st != CL_SUCCESS) return fail("clFinish failed: " + cl_error_name(st));
  return kRxOk;
}

int dev_attr(void*, DLDevice device, int32_t attr, RxAny* ret) {
  if (attr == kRxDeviceCount || (attr == kRxDeviceDescription && device.device_id == 0)) {
    // One device (the chosen one); without one, the description says why.
    static thread_local std::string text;
    try {
      const ClDevice& d = cl_device();
      text = d.name + " (" + d.platform_name + ", driver " + d.driver_version + "), memory " +
             std::to_string(d.global_mem >> 20) + " MiB, max work-group " +
             std::to_string(d.max_work_group);
      *ret = attr == kRxDeviceCount ? RxAnyInt(1) : RxAnyString(text.c_str());
    } catch (const std::exception& e) {
      text = e.what();
      *ret = attr == kRxDeviceCount ? RxAnyInt(0) : RxAnyString(text.c_str());
    }
    return kRxOk;
  }
  if (attr == kRxDeviceExists) {
    bool ok = device.device_id == 0;
    try {
      cl_device();
    } catch (const std::exception&) {
      ok = false;
    }
    *ret = RxAnyInt(ok ? 1 : 0);
    return kRxOk;
  }
  int status = kRxOk;
  const ClDevice* d = device_or_fail(device, &status);
  if (!d) return status;
  switch (attr) {
    case kRxDeviceName: {
      static thread_local std::string name;
      name = d->name + " (" + d->platform_name + ", " + d->driver_version + ")";
      *ret = RxAnyString(name.c_str());
      return kRxOk;
    }
    case kRxDeviceTotalMemory:
      *ret = RxAnyInt(int64_t(d->global_mem));
      return kRxOk;
    case kRxDeviceMaxThreadsPerBlock:
      *ret = RxAnyInt(int64_t(d->max_work_group));
      return kRxOk;
    case kRxDeviceWarpSize:
      *ret = RxAnyInt(1);
      return kRxOk;
    default:
      return fail("unknown device attribute " + std::to_string(attr), kRxBadArgument);
  }
}

}  // namespace

const ClDevice& cl_device() {
  static std::once_flag once;
  static ClDevice device;
  static std::string error;
  std::call_once(once, [] {
    try {
      device = open_device();
    } catch (const std::exception& e) {
      error = e.what();
    }
  });
  if (!error.empty()) throw std::runtime_error(error);
  return device;
}

ClStats& cl_stats() {
  static ClStats s;
  return s;
}

int register_device_runtime() {
  RxDeviceRuntime rt;
  std::memset(&rt, 0, sizeof(rt));
  rt.struct_size = sizeof(RxDeviceRuntime);
  rt.abi_version = RX_ABI_VERSION;
  rt.device_type = kDLOpenCL;
  rt.name = "opencl";
  rt.alloc = &dev_alloc;
  rt.free = &dev_free;
  rt.copy = &dev_copy;
  rt.synchronize = &dev_sync;
  rt.get_attr = &dev_attr;
  return RxRegisterDeviceRuntime(&rt);
}

}  // namespace relax::opencl
