// The device-runtime table: the built-in CPU runtime and adapters for C runtimes.
#include "relax/runtime/device_api.h"

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

#include "relax/support/diagnostic.h"

namespace relax::runtime {

namespace {

class CpuDeviceAPI final : public DeviceAPI {
 public:
  std::string name() const override { return "cpu"; }
  void* alloc(DLDevice, size_t nbytes, size_t alignment) override {
    if (alignment < sizeof(void*)) alignment = sizeof(void*);
    size_t rounded = (nbytes + alignment - 1) / alignment * alignment;
    void* p = std::aligned_alloc(alignment, rounded == 0 ? alignment : rounded);
    RX_CHECK(p != nullptr) << "cpu: out of memory allocating " << nbytes << " bytes";
    return p;
  }
  void free(DLDevice, void* ptr) override { std::free(ptr); }
  void copy(const DLTensor& from, DLTensor& to) override {
    size_t n = tensor_bytes(from);
    RX_CHECK(n == tensor_bytes(to)) << "cpu copy: byte sizes differ";
    if (n)
      std::memcpy(static_cast<char*>(to.data) + to.byte_offset,
                  static_cast<const char*>(from.data) + from.byte_offset, n);
  }
  void synchronize(DLDevice) override {}
  Value attribute(DLDevice device, RxDeviceAttr attr) override {
    switch (attr) {
      case kRxDeviceExists:
        return int64_t(device.device_id == 0);
      case kRxDeviceName:
        return "cpu";
      case kRxDeviceMaxThreadsPerBlock:
        return int64_t(std::thread::hardware_concurrency());
      default:
        return {};
    }
  }
  static size_t tensor_bytes(const DLTensor& t) {
    size_t n = (size_t(t.dtype.bits) * t.dtype.lanes + 7) / 8;
    for (int i = 0; i < t.ndim; ++i) n *= size_t(t.shape[i]);
    return n;
  }
};

/// Adapts a C RxDeviceRuntime table; turns its status codes into relax::Error.
class CDeviceAPI final : public DeviceAPI {
 public:
  explicit CDeviceAPI(const RxDeviceRuntime& t) : table_(t), name_(t.name ? t.name : "") {
    table_.name = name_.c_str();
  }
  std::string name() const override { return name_; }
  void* alloc(DLDevice device, size_t nbytes, size_t alignment) override {
    void* out = nullptr;
    check(table_.alloc(table_.self, device, nbytes, alignment, &out), "alloc");
    RX_CHECK(out != nullptr || nbytes == 0) << name_ << ": alloc returned null";
    return out;
  }
  void free(DLDevice device, void* ptr) override {
    // Frees run from destructors, which must not throw; a failure stays in RxGetLastError.
    (void)table_.free(table_.self, device, ptr);
  }
  void copy(const DLTensor& from, DLTensor& to) override {
    check(table_.copy(table_.self, &from, &to), "copy");
  }
  void synchronize(DLDevice device) override {
    check(table_.synchronize(table_.self, device), "synchronize");
  }
  Value attribute(DLDevice device, RxDeviceAttr attr) override {
    if (!table_.get_attr) return {};
    RxAny ret = RxAnyNull();
    check(table_.get_attr(table_.self, device, attr, &ret), "get_attr");
    switch (ret.type_code) {
      case kRxInt:
        return ret.value.v_int64;
      case kRxFloat:
        return ret.value.v_float64;
      case kRxString:
        return std::string(ret.value.v_str ? ret.value.v_str : "");
      default:
        return {};
    }
  }

 private:
  void check(int status, const char* what) const {
    RX_CHECK(status == 0) << "device runtime '" << name_ << "': " << what
                          << " failed: " << RxGetLastError();
  }
  RxDeviceRuntime table_;
  std::string name_;
};

struct DeviceTable {
  std::mutex mutex;
  std::map<int, std::unique_ptr<DeviceAPI>> apis;
  // Replaced runtimes stay alive: arrays allocated by them may still hold pointers to them.
  std::vector<std::unique_ptr<DeviceAPI>> retired;
  DeviceAPI* cpu;
  DeviceTable() {
    auto c = std::make_unique<CpuDeviceAPI>();
    cpu = c.get();
    apis[kDLCPU] = std::move(c);
  }
};

DeviceTable& table() {
  static DeviceTable* t = new DeviceTable();  // never destroyed: arrays may outlive main
  return *t;
}

}  // namespace

DeviceAPI* DeviceAPI::find(int device_type) {
  DeviceTable& t = table();
  if (device_type == kDLCPU) return t.cpu;
  std::lock_guard lock(t.mutex);
  auto it = t.apis.find(device_type);
  return it == t.apis.end() ? nullptr : it->second.get();
}

DeviceAPI& DeviceAPI::get(int device_type) {
  DeviceAPI* api = find(device_type);
  RX_CHECK(api != nullptr) << "no device runtime is registered for device type " << device_type
                           << "; load the backend plugin that provides it";
  return *api;
}

void DeviceAPI::register_api(int device_type, std::unique_ptr<DeviceAPI> api) {
  RX_CHECK(api != nullptr) << "register_api: null device runtime";
  RX_CHECK(device_type != kDLCPU) << "register_api: the CPU runtime is built in";
  DeviceTable& t = table();
  std::lock_guard lock(t.mutex);
  auto& slot = t.apis[device_type];
  if (slot) t.retired.push_back(std::move(slot));
  slot = std::move(api);
}

void DeviceAPI::register_c_runtime(const RxDeviceRuntime& runtime) {
  RX_CHECK(runtime.struct_size >= sizeof(RxDeviceRuntime))
      << "RxDeviceRuntime: struct_size " << runtime.struct_size << " is smaller than "
      << sizeof(RxDeviceRuntime) << " (built against an older ABI)";
  RX_CHECK(RX_ABI_MAJOR_OF(runtime.abi_version) == RX_ABI_VERSION_MAJOR)
      << "RxDeviceRuntime '" << (runtime.name ? runtime.name : "") << "': ABI major version "
      << RX_ABI_MAJOR_OF(runtime.abi_version) << ", this runtime implements "
      << RX_ABI_VERSION_MAJOR;
  RX_CHECK(runtime.alloc && runtime.free && runtime.copy && runtime.synchronize)
      << "RxDeviceRuntime: alloc, free, copy and synchronize are required";
  register_api(runtime.device_type, std::make_unique<CDeviceAPI>(runtime));
}

std::string device_to_string(DLDevice device) {
  DeviceAPI* api = DeviceAPI::find(device.device_type);
  std::string name = api ? api->name() : "device" + std::to_string(device.device_type);
  return name + ":" + std::to_string(device.device_id);
}

void copy_tensor_bytes(const DLTensor& from, DLTensor& to) {
  int ft = from.device.device_type, tt = to.device.device_type;
  if (ft == tt || ft == kDLCPU || tt == kDLCPU) {
    DeviceAPI& api = DeviceAPI::get(ft == kDLCPU ? tt : ft);
    api.copy(from, to);
    return;
  }
  // Two different non-CPU types: stage through a host buffer.
  size_t n = (size_t(from.dtype.bits) * from.dtype.lanes + 7) / 8;
  for (int i = 0; i < from.ndim; ++i) n *= size_t(from.shape[i]);
  std::vector<char> host(n);
  int64_t len = int64_t(n);
  DLTensor staging{host.data(), {kDLCPU, 0}, 1, DLDataType{kDLUInt, 8, 1}, &len, nullptr, 0};
  DLTensor from_bytes = from;
  from_bytes.ndim = 1;
  from_bytes.shape = &len;
  from_bytes.dtype = DLDataType{kDLUInt, 8, 1};
  from_bytes.strides = nullptr;
  DLTensor to_bytes = to;
  to_bytes.ndim = 1;
  to_bytes.shape = &len;
  to_bytes.dtype = DLDataType{kDLUInt, 8, 1};
  to_bytes.strides = nullptr;
  DeviceAPI::get(ft).copy(from_bytes, staging);
  DeviceAPI::get(tt).copy(staging, to_bytes);
}

}  // namespace relax::runtime
