// Plugin loading with Boost.DLL (plugin.h). Libraries are opened RTLD_LOCAL and kept in a list
// that is never destroyed: passes registered by a plugin point into its code, and registries
// may outlive any one PluginManager.
#define BOOST_DLL_USE_STD_FS
#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/dll/shared_library.hpp>
#include <algorithm>
#include <cstdlib>
#if !defined(_WIN32)
#include <dlfcn.h>
#endif
#include <filesystem>
#include <mutex>
#include <set>
#include <sstream>

#include "relax/runtime/device_api.h"
#include "relax/runtime/module.h"
#include "relax/runtime/registry.h"
#include "relax/runtime/shared_object.h"
#include "relax/transform/frontend.h"
#include "relax/transform/plugin.h"

namespace relax::transform {

namespace fs = std::filesystem;

namespace {

/// Every library ever loaded; intentionally leaked so that nothing unloads before exit.
std::vector<boost::dll::shared_library>& kept_libraries() {
  static auto* libs = new std::vector<boost::dll::shared_library>();
  return *libs;
}
std::mutex& load_mutex() {
  static auto* m = new std::mutex();
  return *m;
}

void set_error(void* context, const char* message) {
  static_cast<PluginRegistrar*>(context)->error = message ? message : "";
}

std::string version_string(uint32_t major, uint32_t minor) {
  return std::to_string(major) + "." + std::to_string(minor);
}

/// A plugin library opened and its descriptor checked, not yet registered.
struct OpenedPlugin {
  boost::dll::shared_library lib;
  const RelaxPluginInfo* info = nullptr;
  std::string path;
};

/// Opens `canonical` and checks its descriptor; throws relax::Error naming `given` or the path.
OpenedPlugin open_plugin(const fs::path& canonical, const std::string& given) {
  OpenedPlugin out;
  out.path = canonical.string();
  // A damaged library must not reach dlopen (a truncated one dies of SIGBUS in the loader).
  std::error_code exists_ec;
  if (std::filesystem::is_regular_file(canonical, exists_ec)) {
    if (std::string bad = runtime::check_shared_object_file(out.path); !bad.empty())
      RX_THROW() << "refusing plugin '" << out.path << "': " << bad;
  }
  boost::dll::fs::error_code load_ec;
  out.lib.load(canonical, boost::dll::load_mode::rtld_local | boost::dll::load_mode::rtld_now,
               load_ec);
  if (load_ec || !out.lib.is_loaded()) {
    // Boost.DLL clears dlerror(); ask the loader again for its own explanation (missing file,
    // undefined symbol, bad ELF), which says more than the error code.
    std::string reason = load_ec.message();
#if !defined(_WIN32)
    if (void* h = dlopen(canonical.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      dlclose(h);
    } else if (const char* why = dlerror()) {
      reason = why;
    }
#endif
    RX_THROW() << "cannot load plugin '" << given << "': " << reason;
  }
  if (!out.lib.has(RELAX_PLUGIN_ENTRY_POINT)) {
    RX_THROW() << "refusing plugin '" << out.path << "': it does not export the entry point "
               << RELAX_PLUGIN_ENTRY_POINT << "() (not a Relax plugin)";
  }
  auto entry = out.lib.get<const RelaxPluginInfo*()>(RELAX_PLUGIN_ENTRY_POINT);
  const RelaxPluginInfo* info = entry();
  if (!info)
    RX_THROW() << "refusing plugin '" << out.path << "': " << RELAX_PLUGIN_ENTRY_POINT
               << "() returned null";
  // abi_major sits at the same offset in every ABI version: check it before anything else.
  if (info->abi_major != RELAX_PLUGIN_ABI_MAJOR) {
    RX_THROW() << "refusing plugin '" << out.path << "': it was built for plugin ABI "
               << version_string(info->abi_major, info->abi_minor)
               << " but this Relax provides ABI "
               << version_string(RELAX_PLUGIN_ABI_MAJOR, RELAX_PLUGIN_ABI_MINOR)
               << " (the major versions must match; rebuild the plugin against this SDK)";
  }
  if (info->struct_size < sizeof(RelaxPluginInfo) || !info->name || !info->register_plugin) {
    RX_THROW() << "refusing plugin '" << out.path
               << "': its descriptor is incomplete (struct_size " << info->struct_size
               << ", expected at least " << sizeof(RelaxPluginInfo)
               << ", with a name and a register function)";
  }
  out.info = info;
  return out;
}

std::vector<std::string> set_difference_of(const std::vector<std::string>& after,
                                           const std::vector<std::string>& before) {
  std::set<std::string> old(before.begin(), before.end());
  std::vector<std::string> out;
  for (const auto& a : after)
    if (!old.count(a)) out.push_back(a);
  return out;
}

/// Calls the plugin's register function against `registry`; records what it registered
/// (passes and target kinds through the registrar, the kinds' declarations in `kinds` when
/// given; frontends and packed functions by difference). Throws relax::Error (after rolling
/// back its passes and kinds) when registration fails.
LoadedPlugin register_plugin_into(const OpenedPlugin& opened, PassRegistry& registry,
                                  std::vector<TargetKind>* kinds = nullptr) {
  const RelaxPluginInfo* info = opened.info;
  std::string name = info->name;
  std::vector<std::string> frontends_before = list_frontends();
  std::vector<std::string> functions_before = runtime::Registry::list_names();
  PluginRegistrar registrar(registry, name);
  RelaxPluginHost host{sizeof(RelaxPluginHost), RELAX_PLUGIN_ABI_MAJOR, RELAX_PLUGIN_ABI_MINOR,
                       &registrar, &set_error, RX_ABI_VERSION, RELAX_SDK_VERSION};
  int rc = 0;
  std::string thrown;
  try {
    rc = info->register_plugin(&host);
  } catch (const std::exception& e) {
    rc = -1;
    thrown = e.what();
  } catch (...) {
    rc = -1;
    thrown = "an unknown exception";
  }
  if (rc != 0) {
    registrar.roll_back();
    std::string why = !thrown.empty()            ? thrown
                      : !registrar.error.empty() ? registrar.error
                                                 : "no reason given";
    RX_THROW() << "refusing plugin '" << opened.path
               << "': its register function failed (code " << rc << "): " << why;
  }
  LoadedPlugin loaded;
  loaded.name = name;
  loaded.version = info->version ? info->version : "";
  loaded.sdk_version = info->sdk_version ? info->sdk_version : "";
  loaded.path = opened.path;
  loaded.abi_major = info->abi_major;
  loaded.abi_minor = info->abi_minor;
  loaded.passes = registrar.passes();
  for (const TargetKind& k : registrar.target_kinds()) loaded.target_kinds.push_back(k.name);
  loaded.codegens = registrar.codegens();
  loaded.module_loaders = registrar.module_loaders();
  loaded.device_runtimes = registrar.device_runtimes();
  if (kinds) *kinds = registrar.target_kinds();
  // A plugin registering again (a scan, then the real load) adds nothing new: keep what the
  // first registration recorded.
  loaded.frontends = set_difference_of(list_frontends(), frontends_before);
  loaded.functions = set_difference_of(runtime::Registry::list_names(), functions_before);
  return loaded;
}

std::vector<int> device_types_registered() {
  std::vector<int> out;
  for (int t = 0; t < 64; ++t)
    if (runtime::DeviceAPI::find(t)) out.push_back(t);
  return out;
}

/// Whether `path` is a runtime plugin without a compiler descriptor: named *-runtime.so,
/// exporting relax_runtime_plugin_init and not relax_plugin_info.
bool is_runtime_only_plugin(const fs::path& path) {
#if defined(_WIN32)
  return false;
#else
  std::string f = path.filename().string();
  if (f.size() < 11 || f.compare(f.size() - 11, 11, "-runtime.so") != 0) return false;
  if (!runtime::check_shared_object_file(path.string()).empty()) return false;
  void* h = dlopen(path.c_str(), RTLD_LAZY | RTLD_LOCAL);
  if (!h) return false;
  bool yes = dlsym(h, RELAX_PLUGIN_ENTRY_POINT) == nullptr &&
             dlsym(h, runtime::kRuntimePluginInitSymbol) != nullptr;
  // Left open: a runtime plugin stays loaded anyway once initialised.
  return yes;
#endif
}

/// Initialises a runtime-only plugin (runtime/module.h) and records what it registered, by
/// difference of the loader and device tables; `a.refused` says why it failed.
void scan_runtime_plugin(AvailablePlugin& a) {
  std::vector<std::string> loaders_before = runtime::list_module_loaders();
  std::vector<int> devices_before = device_types_registered();
  std::string failure = runtime::load_runtime_plugin(a.path);
  if (!failure.empty()) {
    a.refused = failure;
    return;
  }
  a.info.runtime_only = true;
  a.info.version = "-";
  a.info.sdk_version = "C ABI";
#if !defined(_WIN32)
  if (void* h = dlopen(a.path.c_str(), RTLD_LAZY | RTLD_LOCAL)) {
    if (auto abi = reinterpret_cast<uint32_t (*)()>(dlsym(h, runtime::kRuntimePluginAbiSymbol))) {
      uint32_t v = abi();
      a.info.abi_major = RX_ABI_MAJOR_OF(v);
      a.info.abi_minor = v & 0xff;
    }
  }
#endif
  a.info.module_loaders = set_difference_of(runtime::list_module_loaders(), loaders_before);
  std::set<int> old(devices_before.begin(), devices_before.end());
  for (int t : device_types_registered())
    if (!old.count(t))
      a.info.device_runtimes.push_back(runtime::DeviceAPI::find(t)->name() + " (device type " +
                                       std::to_string(t) + ")");
}

}  // namespace

// ---- PluginRegistrar.

void PluginRegistrar::add_pass(PassInfo info, PassBody body) {
  std::string name = info.name;
  registry_.add(std::move(info), std::move(body), plugin_);
  passes_.push_back(name);
}

void PluginRegistrar::add_target_kind(TargetKind kind) {
  kind.plugin = plugin_;
  TargetKind copy = kind;
  registry_.target_kinds().add(std::move(kind));
  target_kinds_.push_back(std::move(copy));
}

void PluginRegistrar::add_frontend(Frontend frontend) { register_frontend(std::move(frontend)); }

void PluginRegistrar::add_codegen(Codegen codegen) {
  codegen.plugin = plugin_;
  std::string name = codegen.name;
  register_codegen(std::move(codegen));
  codegens_.push_back(name);
}

void PluginRegistrar::add_function(const std::string& name, runtime::PackedFunc func) {
  runtime::Registry::register_func(name, std::move(func), true);
  functions_.push_back(name);
}

void PluginRegistrar::add_module_loader(const RxModuleLoader& loader) {
  RX_CHECK(RxRegisterModuleLoader(&loader) == 0)
      << "plugin '" << plugin_ << "': module loader refused: " << RxGetLastError();
  loaders_.push_back(loader.format ? loader.format : "");
}

void PluginRegistrar::add_device_runtime(const RxDeviceRuntime& rt) {
  RX_CHECK(RxRegisterDeviceRuntime(&rt) == 0)
      << "plugin '" << plugin_ << "': device runtime refused: " << RxGetLastError();
  devices_.push_back(std::string(rt.name ? rt.name : "?") + " (device type " +
                     std::to_string(rt.device_type) + ")");
}

void PluginRegistrar::roll_back() {
  for (const auto& n : passes_) registry_.remove(n);
  passes_.clear();
  for (const auto& n : codegens_) remove_codegen(n);
  codegens_.clear();
  for (const auto& n : functions_) runtime::Registry::remove(n);
  functions_.clear();
  for (const auto& k : target_kinds_) registry_.target_kinds().remove(k.name);
  target_kinds_.clear();
}

// ---- PluginManager.

PluginManager::PluginManager(PassRegistry& registry) : registry_(registry) {
  registry_.set_missing_handler([this](const std::string& name) { return on_missing_pass(name); });
}
PluginManager::~PluginManager() { registry_.set_missing_handler(nullptr); }

std::string PluginManager::default_plugin_dir() {
  // lib/relax/plugins beside the directory holding librelax_compiler (build and install alike).
  fs::path lib = boost::dll::this_line_location();
  return (lib.parent_path() / "relax" / "plugins").string();
}

std::vector<std::string> PluginManager::search_dirs() const {
  std::vector<std::string> dirs = extra_dirs_;
  if (const char* env = std::getenv("RELAX_PLUGIN_PATH")) {
    std::stringstream ss(env);
    std::string dir;
    while (std::getline(ss, dir, ':'))
      if (!dir.empty()) dirs.push_back(dir);
  }
  dirs.push_back(default_plugin_dir());
  return dirs;
}

std::vector<std::string> PluginManager::file_names(const std::string& short_name) {
#if defined(__APPLE__)
  return {"librelax-" + short_name + ".dylib", "librelax-" + short_name + ".so"};
#elif defined(_WIN32)
  return {"relax-" + short_name + ".dll"};
#else
  return {"librelax-" + short_name + ".so"};
#endif
}

const LoadedPlugin* PluginManager::find(const std::string& name) const {
  for (const auto& p : loaded_)
    if (p->name == name) return p.get();
  return nullptr;
}

const LoadedPlugin& PluginManager::load(const std::string& path_or_name) {
  bool is_path = path_or_name.find('/') != std::string::npos ||
                 fs::path(path_or_name).extension() == ".so" ||
                 fs::path(path_or_name).extension() == ".dylib" ||
                 fs::path(path_or_name).extension() == ".dll";
  return is_path ? load_path(path_or_name) : load_by_name(path_or_name);
}

const LoadedPlugin& PluginManager::load_by_name(const std::string& short_name) {
  if (const LoadedPlugin* p = find(short_name)) return *p;
  std::vector<std::string> tried;
  std::set<std::string> available;
  for (const auto& dir : search_dirs()) {
    for (const auto& file : file_names(short_name)) {
      fs::path candidate = fs::path(dir) / file;
      std::error_code ec;
      if (fs::is_regular_file(candidate, ec)) return load_path(candidate.string());
      tried.push_back(candidate.string());
    }
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      std::string f = it->path().filename().string();
      const std::string prefix = "librelax-";
      auto dot = f.find('.', prefix.size());
      if (f.rfind(prefix, 0) == 0 && dot != std::string::npos)
        available.insert(f.substr(prefix.size(), dot - prefix.size()));
    }
  }
  std::ostringstream os;
  os << "plugin '" << short_name << "' not found; searched: " << join_names(tried)
     << "; plugins available there: " << join_names({available.begin(), available.end()});
  RX_THROW() << os.str();
}

const LoadedPlugin& PluginManager::load_path(const std::string& path) {
  std::lock_guard<std::mutex> lock(load_mutex());
  std::error_code ec;
  fs::path canonical = fs::weakly_canonical(fs::absolute(path), ec);
  if (ec) canonical = fs::absolute(path);
  for (const auto& p : loaded_)
    if (p->path == canonical.string()) return *p;

  OpenedPlugin opened = open_plugin(canonical, path);
  std::string name = opened.info->name;
  if (const LoadedPlugin* other = find(name)) {
    RX_THROW() << "refusing plugin '" << canonical.string() << "': a plugin named '" << name
               << "' is already loaded from '" << other->path << "'";
  }
  auto loaded = std::make_unique<LoadedPlugin>(register_plugin_into(opened, registry_));
  kept_libraries().push_back(std::move(opened.lib));
  for (auto& a : available_) {
    if (a.path != loaded->path) continue;
    // Registered once already by scan(): the global tables had its frontends and functions.
    if (loaded->frontends.empty()) loaded->frontends = a.info.frontends;
    if (loaded->functions.empty()) loaded->functions = a.info.functions;
    a.loaded = true;
  }
  loaded_.push_back(std::move(loaded));
  return *loaded_.back();
}

// ---- Discovery.

const std::vector<AvailablePlugin>& PluginManager::scan(bool rescan) {
  if (scanned_ && !rescan) return available_;
  std::vector<AvailablePlugin> found;
  std::set<std::string> names;
  for (const auto& dir : search_dirs()) {
    std::error_code ec;
    std::vector<fs::path> files;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      std::string f = it->path().filename().string();
      if (f.rfind("librelax-", 0) == 0 && it->path().extension() == ".so")
        files.push_back(it->path());
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& file : files) {
      std::string short_name = file.stem().string().substr(std::string("librelax-").size());
      if (!names.insert(short_name).second) continue;  // an earlier directory has it
      AvailablePlugin a;
      std::error_code cec;
      fs::path canonical = fs::weakly_canonical(file, cec);
      a.path = cec ? file.string() : canonical.string();
      a.info.path = a.path;
      a.info.name = short_name;
      for (const auto& p : loaded_) {
        if (p->path == a.path) {
          a.info = *p;
          a.loaded = true;
          for (const std::string& k : p->target_kinds)
            if (const TargetKind* kind = registry_.target_kinds().find(k))
              a.target_kinds.push_back(*kind);
        }
      }
      if (!a.loaded && is_runtime_only_plugin(a.path)) {
        scan_runtime_plugin(a);
      } else if (!a.loaded) {
        try {
          std::lock_guard<std::mutex> lock(load_mutex());
          OpenedPlugin opened = open_plugin(a.path, a.path);
          PassRegistry scratch;
          a.info = register_plugin_into(opened, scratch, &a.target_kinds);
          kept_libraries().push_back(std::move(opened.lib));
        } catch (const Error& e) {
          a.refused = e.message();
        }
      }
      found.push_back(std::move(a));
    }
  }
  available_ = std::move(found);
  scanned_ = true;
  return available_;
}

const AvailablePlugin* PluginManager::provider_of_pass(const std::string& name) {
  for (const auto& a : scan())
    if (a.refused.empty() && std::find(a.info.passes.begin(), a.info.passes.end(), name) !=
                                 a.info.passes.end())
      return &a;
  return nullptr;
}

const AvailablePlugin* PluginManager::provider_of_target_kind(const std::string& kind) {
  for (const auto& a : scan())
    if (a.refused.empty() && std::find(a.info.target_kinds.begin(), a.info.target_kinds.end(),
                                       kind) != a.info.target_kinds.end())
      return &a;
  return nullptr;
}

size_t PluginManager::load_all() {
  size_t n = 0;
  for (size_t i = 0; i < scan().size(); ++i) {
    const AvailablePlugin& a = available_[i];
    if (!a.refused.empty() || a.loaded || a.info.runtime_only || find(a.info.name)) continue;
    load_path(std::string(a.path));
    ++n;
  }
  return n;
}

std::string PluginManager::on_missing_pass(const std::string& name) {
  const AvailablePlugin* a = provider_of_pass(name);
  if (!a) {
    std::vector<std::string> refused;
    for (const auto& r : available_)
      if (!r.refused.empty()) refused.push_back(r.path);
    if (refused.empty()) return "";
    return " (no plugin on the search path provides it; refused there: " + join_names(refused) +
           ")";
  }
  if (a->loaded) return "";
  if (!on_demand_) {
    return " (provided by plugin '" + a->info.name + "' at " + a->path +
           ", which is not loaded: give --plugin " + a->info.name +
           " or list it under plugins: in the pipeline)";
  }
  std::string plugin = a->info.name, path = a->path;
  try {
    load_path(path);
  } catch (const Error& e) {
    return " (provided by plugin '" + plugin + "', which failed to load: " + e.message() + ")";
  }
  return "";
}

// ---- LoadedPlugin.

std::string LoadedPlugin::provides() const {
  std::string out;
  auto part = [&](const char* what, const std::vector<std::string>& items) {
    if (items.empty()) return;
    out += (out.empty() ? "" : "; ") + std::string(what) + ": " + join_names(items);
  };
  part("passes", passes);
  part("frontends", frontends);
  part("targets", target_kinds);
  part("codegens", codegens);
  part("loaders", module_loaders);
  part("devices", device_runtimes);
  if (out.empty()) part("functions", functions);
  return out.empty() ? "nothing registered (a runtime library loader)" : out;
}

}  // namespace relax::transform
