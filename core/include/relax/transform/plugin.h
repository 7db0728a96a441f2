// Loading plugins (DESIGN.md §7): shared libraries that add passes and target kinds to a
// PassRegistry (the session registry), and frontends and packed functions to the process.
//
// Search order for a plugin named by its short name ("fusion" -> librelax-fusion.so):
// the directories given explicitly (--plugin-dir, add_search_dir), then RELAX_PLUGIN_PATH
// (colon-separated), then the build's or install's lib/relax/plugins next to
// librelax_compiler. Never the current directory, unless it is named. A name containing '/'
// or ending in ".so" is a path and is loaded as it is.
//
// Discovery: scan() tries every plugin file on the search path (dlopen, descriptor, and a
// trial registration into a scratch registry) and records what each provides (target kinds
// with their attribute schemas) or why it is refused; `relax-driver plugins` and
// `relax-driver targets` print that list. The manager hooks its registry so that a
// pass missing from it is loaded on demand from the plugin that provides it, or, with
// on-demand loading off, named in the error.
//
// Loading refuses, with a relax::Error naming the path and the reason: a library dlopen cannot
// open, one without relax_plugin_info, one of another ABI major (both versions given), one
// whose register function fails (its message given; whatever it registered is removed). The
// caller reports the error and goes on. Libraries are loaded RTLD_LOCAL and never unloaded.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "relax/runtime/c_abi.h"
#include "relax/runtime/packed_func.h"
#include "relax/transform/codegen.h"
#include "relax/transform/frontend.h"
#include "relax/transform/pass.h"
#include "relax/transform/plugin_abi.h"

namespace relax::transform {

/// A loaded plugin and what it registered.
struct LoadedPlugin {
  std::string name;
  std::string version;
  std::string sdk_version;
  std::string path;
  uint32_t abi_major = 0;
  uint32_t abi_minor = 0;
  std::vector<std::string> passes;
  /// Frontends it registered, as "name (.ext, ...)".
  std::vector<std::string> frontends;
  /// Packed functions it registered (a backend's "relax.backend.<kind>.build", ...).
  std::vector<std::string> functions;
  /// Target kinds it registered (PluginRegistrar::add_target_kind).
  std::vector<std::string> target_kinds;
  /// BYOC codegens it registered (PluginRegistrar::add_codegen).
  std::vector<std::string> codegens;
  /// Library formats it registered a module loader for, and device runtimes ("name (type N)").
  std::vector<std::string> module_loaders;
  std::vector<std::string> device_runtimes;
  /// A runtime plugin (librelax-*-runtime.so with relax_runtime_plugin_init and no
  /// relax_plugin_info): found by scan(), initialised once, never registered into a registry.
  bool runtime_only = false;
  /// "passes: a, b; frontends: onnx (.onnx); targets: llvm; codegens: ...; loaders: ...;
  /// devices: ..." (the parts it has), or "nothing".
  std::string provides() const;
};

/// A plugin file on the search path, as PluginManager::scan() found it: what it is and what it
/// provides (from a trial registration into a scratch registry), or why it is refused.
struct AvailablePlugin {
  std::string path;
  LoadedPlugin info;    ///< name, versions and what it provides; path set even when refused
  std::string refused;  ///< empty when it loads
  bool loaded = false;  ///< registered into this manager's registry
  /// The target kinds it provides, with their attribute schemas (from the trial registration,
  /// or the registry when it is loaded): `relax-driver targets` lists them unloaded.
  std::vector<TargetKind> target_kinds;
};

/// The registrar a plugin's register function reaches through RelaxPluginHost::context: every
/// kind of thing a plugin can add (docs/sdk.md). What it adds is recorded, and removed again
/// (roll_back) when the register function fails; process-wide tables (frontends, codegens,
/// packed functions, loaders, device runtimes) are shared by every session.
class PluginRegistrar {
 public:
  PluginRegistrar(PassRegistry& registry, std::string plugin)
      : registry_(registry), plugin_(std::move(plugin)) {}
  /// Registers a pass under this plugin's name (PassRegistration::plugin).
  void add_pass(PassInfo info, PassBody body);
  /// Registers a target kind under this plugin's name (TargetKind::plugin is set here); throws
  /// as TargetKindRegistry::add does (a kind already registered, a bad declaration).
  void add_target_kind(TargetKind kind);
  /// Registers a frontend for its file extensions (transform/frontend.h).
  void add_frontend(Frontend frontend);
  /// Registers a BYOC codegen (transform/codegen.h) under this plugin's name; throws when
  /// another plugin registered the name.
  void add_codegen(Codegen codegen);
  /// Registers a global packed function (a backend's build function, a library routine);
  /// replaces one of the same name.
  void add_function(const std::string& name, runtime::PackedFunc func);
  /// Registers a module loader / a device runtime through the C ABI (c_abi.h); throws
  /// relax::Error with the runtime's message when the table is refused (size, ABI major).
  void add_module_loader(const RxModuleLoader& loader);
  void add_device_runtime(const RxDeviceRuntime& runtime);
  /// The registry itself, for lookups.
  const PassRegistry& registry() const { return registry_; }
  const std::vector<std::string>& passes() const { return passes_; }
  /// The target kinds added, as declared (with `plugin` set).
  const std::vector<TargetKind>& target_kinds() const { return target_kinds_; }
  const std::vector<std::string>& codegens() const { return codegens_; }
  const std::vector<std::string>& module_loaders() const { return loaders_; }
  const std::vector<std::string>& device_runtimes() const { return devices_; }
  /// The host's plugin ABI (what RelaxPluginHost carries).
  static uint32_t abi_major() { return RELAX_PLUGIN_ABI_MAJOR; }
  /// Removes everything this registrar added.
  void roll_back();

  std::string error;  ///< set through RelaxPluginHost::set_error

 private:
  PassRegistry& registry_;
  std::string plugin_;
  std::vector<std::string> passes_;
  std::vector<TargetKind> target_kinds_;
  std::vector<std::string> codegens_;
  std::vector<std::string> functions_;
  std::vector<std::string> loaders_;
  std::vector<std::string> devices_;
};

class PluginManager {
 public:
  explicit PluginManager(PassRegistry& registry);
  ~PluginManager();
  PluginManager(const PluginManager&) = delete;
  PluginManager& operator=(const PluginManager&) = delete;

  /// Adds a directory searched before RELAX_PLUGIN_PATH (in the order added).
  void add_search_dir(const std::string& dir) { extra_dirs_.push_back(dir); }
  /// The directories searched for short names, in order.
  std::vector<std::string> search_dirs() const;
  /// The file names tried in each directory for `short_name` ("librelax-fusion.so").
  static std::vector<std::string> file_names(const std::string& short_name);
  /// The plugin directory of the build or install (lib/relax/plugins beside the library).
  static std::string default_plugin_dir();

  /// Loads a plugin given by path or short name; returns the one already loaded from the same
  /// file. Throws relax::Error on refusal (see the file comment).
  const LoadedPlugin& load(const std::string& path_or_name);
  /// Loads the library at `path` (no search).
  const LoadedPlugin& load_path(const std::string& path);
  /// Searches for `short_name`; the error lists the directories and names tried.
  const LoadedPlugin& load_by_name(const std::string& short_name);

  /// Every plugin file on the search path (librelax-*.so; the first of a name wins, as in
  /// load_by_name), each tried once: its descriptor and what it provides, or why it is
  /// refused. Cached; `rescan` looks again.
  const std::vector<AvailablePlugin>& scan(bool rescan = false);
  /// The available plugin providing pass `name`, or null (scans when needed).
  const AvailablePlugin* provider_of_pass(const std::string& name);
  /// The available plugin providing target kind `kind`, or null (scans when needed).
  const AvailablePlugin* provider_of_target_kind(const std::string& kind);
  /// Loads every plugin of scan() that is not refused; returns how many were loaded now.
  size_t load_all();

  /// On-demand loading (the default): a pass missing from the registry is looked up on the
  /// search path and its plugin loaded (PassRegistry::find_or_provide). Off: the lookup only
  /// names the plugin in the error.
  void set_on_demand(bool on) { on_demand_ = on; }
  bool on_demand() const { return on_demand_; }

  /// The plugins loaded so far, in load order.
  const std::vector<std::unique_ptr<LoadedPlugin>>& loaded() const { return loaded_; }
  /// The plugin named `name` (descriptor name), or null.
  const LoadedPlugin* find(const std::string& name) const;

  /// The session registry plugins register into.
  PassRegistry& registry() { return registry_; }

 private:
  std::string on_missing_pass(const std::string& name);

  PassRegistry& registry_;
  std::vector<std::string> extra_dirs_;
  std::vector<std::unique_ptr<LoadedPlugin>> loaded_;
  std::vector<AvailablePlugin> available_;
  bool scanned_ = false;
  bool on_demand_ = true;
};

}  // namespace relax::transform
