// relax-driver devices: the devices each runtime plugin sees. The CPU (core) first, then every
// librelax-*-runtime.so on the search path (--plugin-dir, RELAX_PLUGIN_PATH, the build's or
// install's lib/relax/plugins), loaded as the VM loads it (checked, dlopen'ed, its
// relax_runtime_plugin_init run); the device types it registered are listed with each device's
// id and description (RxDeviceAttr kRxDeviceDescription: name, memory, limits), or why it has
// none. A plugin that fails to load is reported and the listing goes on.
#include <dlfcn.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <thread>

#include "driver.h"
#include "relax/runtime/device_api.h"
#include "relax/runtime/module.h"
#include "relax/runtime/shared_object.h"
#include "relax/transform/plugin.h"

namespace relax::driver {
namespace {

using runtime::DeviceAPI;

/// Every DLPack device type but the CPU (kDLCPU = 1 .. kDLWebGPU = 15 and a few more).
constexpr int kMaxDeviceType = 32;

/// The runtime for each device type now (null where none).
std::map<int, DeviceAPI*> snapshot() {
  std::map<int, DeviceAPI*> s;
  for (int t = 2; t <= kMaxDeviceType; ++t) s[t] = DeviceAPI::find(t);
  return s;
}

/// Loads one runtime plugin; "" or why it failed.
std::string load_runtime_plugin(const std::string& path) {
  if (std::string bad = runtime::check_shared_object_file(path); !bad.empty()) return bad;
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) return dlerror();
  auto init = reinterpret_cast<int (*)()>(dlsym(handle, runtime::kRuntimePluginInitSymbol));
  if (init == nullptr) return std::string("no ") + runtime::kRuntimePluginInitSymbol + " function";
  if (init() != 0)
    return std::string(runtime::kRuntimePluginInitSymbol) + " failed: " + RxGetLastError();
  return "";
}

/// An attribute a runtime may not know (one of an older ABI minor): "" / `fallback` then.
std::string attr_string(DeviceAPI& api, DLDevice d, RxDeviceAttr a) {
  try {
    runtime::Value v = api.attribute(d, a);
    return v.kind() == runtime::ValueKind::kString ? v.as_string() : "";
  } catch (const Error&) {
    return "";
  }
}

int64_t attr_int(DeviceAPI& api, DLDevice d, RxDeviceAttr a, int64_t fallback) {
  try {
    runtime::Value v = api.attribute(d, a);
    return v.kind() == runtime::ValueKind::kInt ? v.as_int() : fallback;
  } catch (const Error&) {
    return fallback;
  }
}

/// The devices of one device type, indented.
void print_devices(int type, DeviceAPI& api) {
  DLDevice first{DLDeviceType(type), 0};
  int64_t count = attr_int(api, first, kRxDeviceCount, attr_int(api, first, kRxDeviceExists, 0));
  if (count <= 0) {
    std::string why = attr_string(api, first, kRxDeviceDescription);
    std::cout << "    " << api.name() << ": no device" << (why.empty() ? "" : ": " + why) << "\n";
    return;
  }
  for (int64_t id = 0; id < count; ++id) {
    DLDevice d{DLDeviceType(type), int32_t(id)};
    std::string text = attr_string(api, d, kRxDeviceDescription);
    if (text.empty()) {  // a runtime of ABI 1.1: what the older attributes tell
      text = attr_string(api, d, kRxDeviceName);
      if (int64_t mem = attr_int(api, d, kRxDeviceTotalMemory, 0); mem > 0)
        text += ", memory " + std::to_string(mem >> 20) + " MiB";
      if (int64_t t = attr_int(api, d, kRxDeviceMaxThreadsPerBlock, 0); t > 0)
        text += ", max threads per block " + std::to_string(t);
      if (int64_t w = attr_int(api, d, kRxDeviceWarpSize, 0); w > 0)
        text += ", warp " + std::to_string(w);
    }
    bool usable = attr_int(api, d, kRxDeviceExists, 1) == 1;
    std::cout << "    " << runtime::device_to_string(d) << (usable ? "" : " (not usable)") << "  "
              << text << "\n";
  }
}

}  // namespace

int cmd_devices(Compiler& compiler) {
  std::cout << "cpu (core)\n    cpu:0  " << std::thread::hardware_concurrency()
            << " hardware threads\n";
  std::vector<std::string> dirs = compiler.plugins().search_dirs();
  for (const std::string& d : runtime::runtime_plugin_search_dirs())
    if (std::find(dirs.begin(), dirs.end(), d) == dirs.end()) dirs.push_back(d);
  std::set<std::string> seen;
  int plugins = 0;
  for (const std::string& dir : dirs) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) continue;
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
      std::string name = e.path().filename().string();
      if (name.starts_with("librelax-") && name.ends_with("-runtime.so")) files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& file : files) {
      if (!seen.insert(std::filesystem::weakly_canonical(file, ec).string()).second) continue;
      ++plugins;
      std::string name = file.filename().string();
      name = name.substr(9, name.size() - 9 - 3);  // librelax-X-runtime.so -> X-runtime
      std::cout << name << " (" << file.string() << ")\n";
      std::map<int, DeviceAPI*> before = snapshot();
      if (std::string why = load_runtime_plugin(file.string()); !why.empty()) {
        std::cout << "    failed to load: " << why << "\n";
        continue;
      }
      bool any = false;
      for (const auto& [type, api] : snapshot()) {
        if (api == nullptr || api == before[type]) continue;
        any = true;
        print_devices(type, *api);
      }
      if (!any) std::cout << "    no device runtime (kernel-library loader only)\n";
    }
  }
  if (plugins == 0) std::cout << "no runtime plugins found\n";
  std::cout << "search path: " << transform::join_names(dirs) << "\n";
  return kOk;
}

}  // namespace relax::driver
