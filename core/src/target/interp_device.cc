// The interpreter's GPU device and its kernel library (relax/target/devices.h).
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "relax/kernel/gpu_rules.h"
#include "relax/runtime/device_api.h"
#include "relax/runtime/module.h"
#include "relax/support/diagnostic.h"
#include "relax/target/build.h"
#include "relax/target/devices.h"

namespace relax::target {

namespace {

std::atomic<int64_t> g_copies{0};

size_t byte_size(const DLTensor& t) {
  size_t n = (size_t(t.dtype.bits) * t.dtype.lanes + 7) / 8;
  for (int i = 0; i < t.ndim; ++i) n *= size_t(t.shape[i]);
  return n;
}

/// Host memory behind a device of its own. Copies count; within the device or across the
/// host boundary they are memcpy.
class InterpGpuDeviceAPI final : public runtime::DeviceAPI {
 public:
  std::string name() const override { return "tir-interp-gpu"; }
  void* alloc(DLDevice, size_t nbytes, size_t alignment) override {
    if (alignment < sizeof(void*)) alignment = sizeof(void*);
    size_t rounded = (nbytes + alignment - 1) / alignment * alignment;
    void* p = std::aligned_alloc(alignment, rounded == 0 ? alignment : rounded);
    RX_CHECK(p != nullptr) << "tir-interp-gpu: out of memory allocating " << nbytes << " bytes";
    return p;
  }
  void free(DLDevice, void* ptr) override { std::free(ptr); }
  void copy(const DLTensor& from, DLTensor& to) override {
    size_t n = byte_size(from);
    RX_CHECK(n == byte_size(to)) << "tir-interp-gpu copy: byte sizes differ (" << n << " vs "
                                 << byte_size(to) << ")";
    for (const DLTensor* t : {&from, static_cast<const DLTensor*>(&to)})
      RX_CHECK(t->device.device_type == kDLCPU || t->device.device_type == kInterpGpuDeviceType)
          << "tir-interp-gpu copy: cannot reach device type " << int(t->device.device_type);
    ++g_copies;
    if (n)
      std::memcpy(static_cast<char*>(to.data) + to.byte_offset,
                  static_cast<const char*>(from.data) + from.byte_offset, n);
  }
  void synchronize(DLDevice) override {}
  runtime::Value attribute(DLDevice device, RxDeviceAttr attr) override {
    switch (attr) {
      case kRxDeviceExists:
        return int64_t(device.device_id == 0);
      case kRxDeviceName:
        return "tir-interp-gpu";
      default:
        return {};
    }
  }
};

/// Kernels of a "tir-interp" module, checked to run on the GPU device's tensors.
class InterpGpuModule : public runtime::ModuleObj {
 public:
  explicit InterpGpuModule(runtime::Module inner)
      : ModuleObj("tir-interp-gpu"), inner_(std::move(inner)) {}
  runtime::PackedFunc get_function(std::string_view name) const override {
    runtime::PackedFunc kernel = inner_->get_function(name);
    if (!kernel.defined()) return {};
    std::string fname(name);
    return runtime::PackedFunc(
        "tir-interp-gpu:" + fname, [kernel, fname](runtime::Args args) -> runtime::Value {
          std::vector<runtime::Value> host;
          host.reserve(args.size());
          for (size_t i = 0; i < args.size(); ++i) {
            if (!args[i].is(runtime::ValueKind::kTensor)) {
              host.push_back(args[i]);
              continue;
            }
            runtime::NDArray t = args[i].as_tensor();
            RX_CHECK(t.device().device_type == kInterpGpuDeviceType)
                << "kernel " << fname << " runs on the tir-interp-gpu device, but argument " << i
                << " is on " << runtime::device_to_string(t.device())
                << " (a copy to the device is missing)";
            DLTensor view = *t.dltensor();
            view.device = DLDevice{kDLCPU, 0};
            host.push_back(runtime::NDArray::borrow(view, [keep = t] {}));
          }
          return kernel(runtime::Args(host.data(), host.size()));
        });
  }

 private:
  runtime::Module inner_;
};

}  // namespace

void register_interp_gpu_device() {
  static std::once_flag once;
  std::call_once(once, [] {
    register_tir_interp_loader();
    runtime::DeviceAPI::register_api(kInterpGpuDeviceType, std::make_unique<InterpGpuDeviceAPI>());
    runtime::register_module_loader("tir-interp-gpu", [](std::span<const uint8_t> bytes) {
      return runtime::Module(make_ref<InterpGpuModule>(runtime::load_module("tir-interp", bytes)));
    });
  });
}

int64_t interp_gpu_copy_count() { return g_copies.load(); }

runtime::Library make_interp_gpu_library(
    const std::vector<std::pair<std::string, tir::GpuProgram>>& programs, int32_t device_index) {
  return runtime::Library{"tir-interp-gpu", make_tir_interp_gpu_library(programs), device_index};
}

runtime::Library make_interp_gpu_library(const IRModule& mod, int32_t device_index,
                                         const tir::GpuLimits& limits) {
  std::vector<std::pair<std::string, tir::GpuProgram>> programs;
  for (const IRModule::Entry& e : mod.functions()) {
    auto func = e.func.as_ref<tir::PrimFunc>();
    if (!func.defined()) continue;
    tir::GpuScheduled s = tir::apply_default_gpu_schedule(func, limits, e.gv->name);
    programs.emplace_back(e.gv->name, s.program ? *s.program : tir::lower_for_gpu(s.func, limits, e.gv->name));
  }
  return make_interp_gpu_library(programs, device_index);
}

}  // namespace relax::target
