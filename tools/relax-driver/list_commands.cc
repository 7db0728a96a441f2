// relax-driver passes / plugins / targets / frontends: what is available — from the core and
// from every plugin on the search path (--plugin-dir, RELAX_PLUGIN_PATH, the install's
// lib/relax/plugins) — each marked with where it comes from. `targets` lists each target kind
// with its device and its attributes (type, default, help), loaded or not.
#include <iostream>

#include "driver.h"
#include "relax/target/targets.h"
#include "relax/transform/plugin.h"

namespace relax::driver {

using transform::AvailablePlugin;

int cmd_passes(Compiler& compiler) {
  compiler.plugins().load_all();  // every plugin's passes; refused ones: `plugins`
  for (const auto& reg : compiler.registry().list()) {
    const transform::PassInfo& info = reg->info;
    std::cout << info.name << " (" << transform::to_string(info.granularity) << "; "
              << (reg->plugin.empty() ? "core" : "plugin " + reg->plugin) << ")\n    "
              << info.summary << "\n";
    for (const auto& o : info.options) {
      std::cout << "    " << o.name << ": " << transform::to_string(o.type) << " = "
                << transform::to_string(o.default_value);
      if (!o.help.empty()) std::cout << "  -- " << o.help;
      std::cout << "\n";
    }
  }
  return kOk;
}

int cmd_plugins(Compiler& compiler) {
  const std::vector<AvailablePlugin>& all = compiler.plugins().scan(true);
  for (const AvailablePlugin& a : all) {
    if (!a.refused.empty()) {
      std::cout << a.info.name << ": REFUSED (" << a.refused << ")\n    path: " << a.path << "\n";
      continue;
    }
    std::cout << a.info.name << " " << a.info.version << " (ABI " << a.info.abi_major << "."
              << a.info.abi_minor << ", SDK " << a.info.sdk_version << ")"
              << (a.loaded ? ", loaded" : "") << "\n    path: " << a.path
              << "\n    provides: " << a.info.provides() << "\n";
  }
  // Loaded by path from outside the search path (--plugin PATH).
  for (const auto& p : compiler.plugins().loaded()) {
    bool listed = false;
    for (const AvailablePlugin& a : all) listed |= a.path == p->path;
    if (!listed)
      std::cout << p->name << " " << p->version << " (ABI " << p->abi_major << "." << p->abi_minor
                << ", SDK " << p->sdk_version << "), loaded\n    path: " << p->path
                << "\n    provides: " << p->provides() << "\n";
  }
  if (all.empty() && compiler.plugins().loaded().empty()) std::cout << "no plugins found\n";
  std::cout << "search path: " << transform::join_names(compiler.plugins().search_dirs()) << "\n";
  return kOk;
}

int cmd_targets(Compiler& compiler) {
  for (const transform::TargetKind& k : available_target_kinds(compiler.plugins())) {
    std::cout << k.name << " (device " << transform::device_type_name(k.device_type) << ", "
              << (k.gpu ? "gpu" : "cpu") << "; "
              << (k.plugin.empty() ? std::string("core") : "plugin " + k.plugin);
    if (!k.plugin.empty() && compiler.plugins().find(k.plugin)) std::cout << ", loaded";
    std::cout << ")\n    " << k.help << "\n";
    for (const transform::TargetAttrSpec& a : k.attrs) {
      std::cout << "    " << a.name << ": " << transform::to_string(a.type);
      if (!a.default_value.empty()) std::cout << " = " << a.default_value;
      if (!a.help.empty()) std::cout << "  -- " << a.help;
      std::cout << "\n";
    }
  }
  return kOk;
}

int cmd_frontends(Compiler& compiler) {
  std::cout << "relax-script (core): .rx, .py (TVMScript syntax)\n";
  for (const AvailablePlugin& a : compiler.plugins().scan()) {
    if (!a.refused.empty()) continue;
    for (const std::string& f : a.info.frontends)
      std::cout << f << " (plugin " << a.info.name << ", " << a.path << ")\n";
  }
  return kOk;
}

}  // namespace relax::driver
