// The module-loader table: library format tag → loader, the adapter for C loaders, and the
// discovery of runtime plugins for formats nobody has registered yet.
#include "relax/runtime/module.h"
#include "relax/runtime/device_api.h"
#include "relax/runtime/shared_object.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>

#include "relax/support/diagnostic.h"

namespace relax::runtime {

namespace {

struct LoaderTable {
  std::mutex mutex;
  std::map<std::string, ModuleLoaderFn, std::less<>> loaders;
};

LoaderTable& table() {
  static LoaderTable* t = new LoaderTable();  // never destroyed (see registry.cc)
  return *t;
}

/// A module loaded by a C RxModuleLoader; released through the table when the last function
/// taken from it (or the last handle to it) goes.
class CModule final : public ModuleObj {
 public:
  CModule(std::string format, RxModuleLoader table, void* handle)
      : ModuleObj(std::move(format)), table_(table), handle_(handle) {}
  ~CModule() override {
    if (table_.release) table_.release(table_.self, handle_);
  }

  PackedFunc get_function(std::string_view name) const override {
    std::string key(name);
    RxPackedCFunc func = nullptr;
    void* func_self = nullptr;
    int status = table_.get_function(table_.self, handle_, key.c_str(), &func, &func_self);
    RX_CHECK(status == 0) << "module loader '" << format() << "': looking up '" << key
                          << "' failed: " << RxGetLastError();
    if (func == nullptr) return {};
    PackedFunc inner = PackedFunc::from_c(key, func, func_self);
    Ref<ModuleObj> keep_alive(this);
    return PackedFunc(key, [inner, keep_alive](Args args) { return inner(args); });
  }

 private:
  RxModuleLoader table_;
  void* handle_;
};

/// The runtime plugins tried so far (by canonical path) and what trying them said.
struct Discovery {
  std::mutex mutex;
  std::map<std::string, std::string> tried;  // canonical path -> failure text or ""
  std::vector<std::string> failures;
};

Discovery& discovery() {
  static Discovery* d = new Discovery();  // never destroyed: plugins stay loaded
  return *d;
}

std::string abi_string(uint32_t version) {
  return std::to_string(RX_ABI_MAJOR_OF(version)) + "." + std::to_string(version & 0xff);
}

/// dlopens one runtime plugin, checks its ABI version and runs its init function; the failure
/// text, or "".
std::string try_runtime_plugin(const std::string& path) {
  if (std::string bad = check_shared_object_file(path); !bad.empty()) return path + ": " + bad;
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) return path + ": " + dlerror();
  using AbiFn = uint32_t (*)();
  if (auto abi = reinterpret_cast<AbiFn>(dlsym(handle, kRuntimePluginAbiSymbol))) {
    uint32_t version = abi();
    if (RX_ABI_MAJOR_OF(version) != RX_ABI_VERSION_MAJOR)
      return path + ": built for the runtime C ABI " + abi_string(version) +
             " but this runtime provides " + abi_string(RX_ABI_VERSION) +
             " (the major versions must match; rebuild the plugin against this SDK)";
  }
  using InitFn = int (*)();
  auto init = reinterpret_cast<InitFn>(dlsym(handle, kRuntimePluginInitSymbol));
  if (init == nullptr)
    return path + ": it does not export " + kRuntimePluginInitSymbol + "() (not a runtime plugin)";
  if (init() != 0) return path + ": " + kRuntimePluginInitSymbol + " failed: " + RxGetLastError();
  return "";
}

/// try_runtime_plugin once per file (the caller holds the discovery lock).
std::string load_once(Discovery& d, const std::string& path) {
  std::error_code ec;
  std::string key = std::filesystem::weakly_canonical(path, ec).string();
  if (ec) key = path;
  auto it = d.tried.find(key);
  if (it != d.tried.end()) return it->second;
  std::string failure = try_runtime_plugin(path);
  d.tried[key] = failure;
  if (!failure.empty()) d.failures.push_back(failure);
  return failure;
}

/// Loads every runtime plugin of the search path not tried before, until `done()`. Returns
/// done().
template <class Done>
bool discover_until(Done done) {
  Discovery& d = discovery();
  std::lock_guard lock(d.mutex);
  for (const std::string& dir : runtime_plugin_search_dirs()) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) continue;
    std::vector<std::filesystem::path> candidates;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
      std::string name = entry.path().filename().string();
      if (name.starts_with("librelax-") && name.ends_with("-runtime.so"))
        candidates.push_back(entry.path());
    }
    std::sort(candidates.begin(), candidates.end());
    for (const auto& path : candidates) {
      std::string key = std::filesystem::weakly_canonical(path, ec).string();
      if (d.tried.count(key)) continue;
      load_once(d, path.string());
      if (done()) return true;
    }
  }
  return done();
}

bool discover_module_loader(std::string_view format) {
  return discover_until([&] { return has_module_loader(format); });
}

}  // namespace

bool discover_device_runtime(int device_type) {
  return discover_until([&] { return DeviceAPI::find(device_type) != nullptr; });
}

std::string load_runtime_plugin(const std::string& path) {
  Discovery& d = discovery();
  std::lock_guard lock(d.mutex);
  return load_once(d, path);
}

std::vector<std::string> list_module_loaders() {
  LoaderTable& t = table();
  std::lock_guard lock(t.mutex);
  std::vector<std::string> out;
  for (const auto& [format, loader] : t.loaders) out.push_back(format);
  return out;
}

std::vector<std::string> runtime_plugin_search_dirs() {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("RELAX_PLUGIN_PATH")) {
    std::stringstream ss(env);
    for (std::string dir; std::getline(ss, dir, ':');)
      if (!dir.empty()) dirs.push_back(dir);
  }
  // lib/relax/plugins beside librelax_runtime (the build's and the install's layout).
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&runtime_plugin_search_dirs), &info) != 0 &&
      info.dli_fname != nullptr) {
    std::filesystem::path lib(info.dli_fname);
    dirs.push_back((lib.parent_path() / "relax" / "plugins").string());
  }
  return dirs;
}

void register_module_loader(std::string format, ModuleLoaderFn loader) {
  RX_CHECK(!format.empty()) << "register_module_loader: empty format tag";
  RX_CHECK(loader != nullptr) << "register_module_loader: null loader for '" << format << "'";
  LoaderTable& t = table();
  std::lock_guard lock(t.mutex);
  t.loaders[std::move(format)] = std::move(loader);
}

void register_c_module_loader(const RxModuleLoader& loader) {
  RX_CHECK(loader.struct_size >= sizeof(RxModuleLoader))
      << "RxModuleLoader: struct_size " << loader.struct_size << " is smaller than "
      << sizeof(RxModuleLoader) << " (built against an older ABI)";
  RX_CHECK(RX_ABI_MAJOR_OF(loader.abi_version) == RX_ABI_VERSION_MAJOR)
      << "RxModuleLoader: ABI major version " << RX_ABI_MAJOR_OF(loader.abi_version)
      << ", this runtime implements " << RX_ABI_VERSION_MAJOR;
  RX_CHECK(loader.format && loader.format[0] && loader.load && loader.get_function)
      << "RxModuleLoader: format, load and get_function are required";
  std::string format = loader.format;
  RxModuleLoader copy = loader;
  copy.format = nullptr;  // the caller's string need not outlive registration
  register_module_loader(format, [copy, format](std::span<const uint8_t> bytes) -> Module {
    void* handle = nullptr;
    int status = copy.load(copy.self, bytes.data(), bytes.size(), &handle);
    RX_CHECK(status == 0) << "module loader '" << format << "' failed: " << RxGetLastError();
    return Module(new CModule(format, copy, handle));
  });
}

bool has_module_loader(std::string_view format) {
  LoaderTable& t = table();
  std::lock_guard lock(t.mutex);
  return t.loaders.find(format) != t.loaders.end();
}

Module load_module(std::string_view format, std::span<const uint8_t> bytes) {
  if (!has_module_loader(format) && !discover_module_loader(format)) {
    std::string dirs, failures;
    for (const std::string& dir : runtime_plugin_search_dirs())
      dirs += (dirs.empty() ? "" : ", ") + dir;
    {
      Discovery& d = discovery();
      std::lock_guard lock(d.mutex);
      for (const std::string& f : d.failures) failures += "\n  " + f;
    }
    RX_THROW() << "no module loader is registered for kernel library format '" << format
               << "', and no runtime plugin (librelax-*-runtime.so) in " << (dirs.empty() ? "(none)" : dirs)
               << " provides one; set RELAX_PLUGIN_PATH to the directory of the backend's runtime "
                  "plugin"
               << (failures.empty() ? "" : "; plugins that failed to load:" + failures);
  }
  ModuleLoaderFn loader;
  {
    LoaderTable& t = table();
    std::lock_guard lock(t.mutex);
    loader = t.loaders.find(format)->second;
  }
  Module m = loader(bytes);
  RX_CHECK(m.defined()) << "module loader '" << format << "' returned no module";
  return m;
}

}  // namespace relax::runtime
