// The module-loader table: library format tag → loader, and the adapter for C loaders.
#include "relax/runtime/module.h"

#include <map>
#include <memory>
#include <mutex>

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

}  // namespace

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
  ModuleLoaderFn loader;
  {
    LoaderTable& t = table();
    std::lock_guard lock(t.mutex);
    auto it = t.loaders.find(format);
    RX_CHECK(it != t.loaders.end()) << "no module loader is registered for kernel library format '"
                                    << format << "'; load the backend plugin that provides it";
    loader = it->second;
  }
  Module m = loader(bytes);
  RX_CHECK(m.defined()) << "module loader '" << format << "' returned no module";
  return m;
}

}  // namespace relax::runtime
