// relax-driver passes / plugins / targets / frontends: what is available — from the core and
// from every plugin on the search path (--plugin-dir, RELAX_PLUGIN_PATH, the install's
// lib/relax/plugins) — each marked with where it comes from.
#include <iostream>

#include "driver.h"
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
  std::cout << "tir-interp (core): kernels run by the reference TIR interpreter\n";
  for (const AvailablePlugin& a : compiler.plugins().scan()) {
    if (!a.refused.empty()) continue;
    for (const std::string& kind : a.info.targets())
      std::cout << kind << " (plugin " << a.info.name << ", " << a.path << ")\n";
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
