// Runtime modules: compiled kernel libraries, loaded from bytes through a loader per format.
//
// An executable carries one opaque library per target, tagged with a format string ("llvm-so",
// "spirv", "opencl-c", ...). At VM creation each library is handed to the loader registered for
// its tag, and the VM resolves its packed-function names against the loaded modules first,
// then the global registry. Loaders come from backend plugins through the C table
// RxModuleLoader (c_abi.h) or from C++ through register_module_loader.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "relax/runtime/c_abi.h"
#include "relax/runtime/packed_func.h"

namespace relax::runtime {

/// A loaded library: functions by name. Thread-safe once loaded.
class ModuleObj : public Object {
 public:
  static constexpr uint32_t kKind = kModuleObjKind;
  explicit ModuleObj(std::string format) : Object(kKind), format_(std::move(format)) {}
  /// The function named `name`, or a null PackedFunc. Functions keep their module alive.
  virtual PackedFunc get_function(std::string_view name) const = 0;
  /// The library format tag this module came from.
  const std::string& format() const { return format_; }

 private:
  std::string format_;
};
using Module = Ref<ModuleObj>;

/// Turns library bytes into a module; throws relax::Error on bad bytes.
using ModuleLoaderFn = std::function<Module(std::span<const uint8_t> bytes)>;

/// Registers (or replaces) the loader for a library format tag.
void register_module_loader(std::string format, ModuleLoaderFn loader);
/// Wraps a C loader table after checking its size and version (RxRegisterModuleLoader).
void register_c_module_loader(const RxModuleLoader& table);
/// Whether a loader is registered for `format`.
bool has_module_loader(std::string_view format);
/// The C function a runtime plugin (librelax-<name>-runtime.so) exports to register its
/// loaders: `extern "C" int relax_runtime_plugin_init(void)`, 0 on success (else it sets
/// RxGetLastError).
inline constexpr const char* kRuntimePluginInitSymbol = RX_RUNTIME_PLUGIN_INIT_SYMBOL;
/// Its optional ABI version function (c_abi.h, since 1.2): a different major is refused.
inline constexpr const char* kRuntimePluginAbiSymbol = RX_RUNTIME_PLUGIN_ABI_SYMBOL;

/// Loads the runtime plugin at `path` once (later calls for the same file return what the first
/// said): checks the file, dlopens it, checks its ABI version and runs its init. Returns "" on
/// success, else the reason, starting with the path (a missing init function is named).
std::string load_runtime_plugin(const std::string& path);
/// Loads the runtime plugins of runtime_plugin_search_dirs() not tried yet until one registers
/// a device runtime for `device_type` (VirtualMachine::create asks before refusing a device);
/// returns whether one is registered.
bool discover_device_runtime(int device_type);
/// The library formats that have a loader, sorted.
std::vector<std::string> list_module_loaders();

/// Where load_module looks for runtime plugins: RELAX_PLUGIN_PATH (colon-separated), then
/// lib/relax/plugins beside librelax_runtime.
std::vector<std::string> runtime_plugin_search_dirs();

/// Loads a library. When no loader is registered for `format`, the runtime plugins of
/// runtime_plugin_search_dirs() not tried yet are loaded (their init run) until one provides
/// it. Throws relax::Error when none does (naming the format, the directories and the plugins
/// that failed) or the loader fails.
Module load_module(std::string_view format, std::span<const uint8_t> bytes);

}  // namespace relax::runtime
