// Plugin loading with Boost.DLL (plugin.h). Libraries are opened RTLD_LOCAL and kept in a list
// that is never destroyed: passes registered by a plugin point into its code, and registries
// may outlive any one PluginManager.
#define BOOST_DLL_USE_STD_FS
#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/dll/shared_library.hpp>
#include <cstdlib>
#if !defined(_WIN32)
#include <dlfcn.h>
#endif
#include <filesystem>
#include <mutex>
#include <set>
#include <sstream>

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

}  // namespace

// ---- PluginRegistrar.

void PluginRegistrar::add_pass(PassInfo info, PassBody body) {
  std::string name = info.name;
  registry_.add(std::move(info), std::move(body), plugin_);
  passes_.push_back(name);
}

void PluginRegistrar::roll_back() {
  for (const auto& n : passes_) registry_.remove(n);
  passes_.clear();
}

// ---- PluginManager.

PluginManager::PluginManager(PassRegistry& registry) : registry_(registry) {}
PluginManager::~PluginManager() = default;

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

  boost::dll::shared_library lib;
  boost::dll::fs::error_code load_ec;
  lib.load(canonical, boost::dll::load_mode::rtld_local | boost::dll::load_mode::rtld_now, load_ec);
  if (load_ec || !lib.is_loaded()) {
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
    RX_THROW() << "cannot load plugin '" << path << "': " << reason;
  }
  if (!lib.has(RELAX_PLUGIN_ENTRY_POINT)) {
    RX_THROW() << "refusing plugin '" << canonical.string()
               << "': it does not export the entry point " << RELAX_PLUGIN_ENTRY_POINT
               << "() (not a Relax plugin)";
  }
  auto entry = lib.get<const RelaxPluginInfo*()>(RELAX_PLUGIN_ENTRY_POINT);
  const RelaxPluginInfo* info = entry();
  if (!info)
    RX_THROW() << "refusing plugin '" << canonical.string() << "': " << RELAX_PLUGIN_ENTRY_POINT
               << "() returned null";
  // abi_major sits at the same offset in every ABI version: check it before anything else.
  if (info->abi_major != RELAX_PLUGIN_ABI_MAJOR) {
    RX_THROW() << "refusing plugin '" << canonical.string() << "': it was built for plugin ABI "
               << version_string(info->abi_major, info->abi_minor)
               << " but this Relax provides ABI "
               << version_string(RELAX_PLUGIN_ABI_MAJOR, RELAX_PLUGIN_ABI_MINOR)
               << " (the major versions must match; rebuild the plugin against this SDK)";
  }
  if (info->struct_size < sizeof(RelaxPluginInfo) || !info->name || !info->register_plugin) {
    RX_THROW() << "refusing plugin '" << canonical.string()
               << "': its descriptor is incomplete (struct_size " << info->struct_size
               << ", expected at least " << sizeof(RelaxPluginInfo)
               << ", with a name and a register function)";
  }
  std::string name = info->name;
  if (const LoadedPlugin* other = find(name)) {
    RX_THROW() << "refusing plugin '" << canonical.string() << "': a plugin named '" << name
               << "' is already loaded from '" << other->path << "'";
  }

  PluginRegistrar registrar(registry_, name);
  RelaxPluginHost host{sizeof(RelaxPluginHost), RELAX_PLUGIN_ABI_MAJOR, RELAX_PLUGIN_ABI_MINOR,
                       &registrar, &set_error};
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
    RX_THROW() << "refusing plugin '" << canonical.string()
               << "': its register function failed (code " << rc << "): " << why;
  }

  auto loaded = std::make_unique<LoadedPlugin>();
  loaded->name = name;
  loaded->version = info->version ? info->version : "";
  loaded->sdk_version = info->sdk_version ? info->sdk_version : "";
  loaded->path = canonical.string();
  loaded->abi_major = info->abi_major;
  loaded->abi_minor = info->abi_minor;
  loaded->passes = registrar.passes();
  kept_libraries().push_back(std::move(lib));
  loaded_.push_back(std::move(loaded));
  return *loaded_.back();
}

}  // namespace relax::transform
