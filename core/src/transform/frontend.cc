// The frontend table (relax/transform/frontend.h).
#include "relax/transform/frontend.h"
#include "relax/transform/pass.h"

#include <algorithm>

#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>

#include "relax/support/diagnostic.h"
#include "relax/transform/plugin.h"

namespace relax::transform {

namespace {

struct FrontendTable {
  std::mutex mutex;
  std::vector<std::unique_ptr<Frontend>> frontends;  // stable addresses; never shrinks
};

FrontendTable& table() {
  static FrontendTable* t = new FrontendTable();  // never destroyed: plugins stay loaded
  return *t;
}

}  // namespace

void register_frontend(Frontend frontend) {
  RX_CHECK(!frontend.name.empty() && !frontend.extensions.empty() && frontend.import)
      << "register_frontend: a frontend needs a name, extensions and an import function";
  FrontendTable& t = table();
  std::lock_guard lock(t.mutex);
  for (auto& f : t.frontends) {
    if (f->name == frontend.name) {
      *f = std::move(frontend);
      return;
    }
  }
  t.frontends.push_back(std::make_unique<Frontend>(std::move(frontend)));
}

std::vector<std::string> list_frontends() {
  FrontendTable& t = table();
  std::lock_guard lock(t.mutex);
  std::vector<std::string> out;
  for (const auto& f : t.frontends) out.push_back(f->name + " (" + join_names(f->extensions) + ")");
  std::sort(out.begin(), out.end());
  return out;
}

const Frontend* find_frontend(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  FrontendTable& t = table();
  std::lock_guard lock(t.mutex);
  for (auto& f : t.frontends)
    for (const std::string& e : f->extensions)
      if (e == ext) return f.get();
  return nullptr;
}

namespace {

const Frontend* frontend_named(const std::string& name) {
  FrontendTable& t = table();
  std::lock_guard lock(t.mutex);
  for (auto& f : t.frontends)
    if (f->name == name) return f.get();
  return nullptr;
}

/// The frontend (and its plugin) a generic extension's file names by its first bytes: a
/// `.txt` that starts with `#[version` is Relay text, as TVM's `mod.astext()` saves it.
std::string frontend_by_content(const std::string& path, const std::string& ext) {
  if (ext != ".txt") return "";
  std::ifstream in(path, std::ios::binary);
  char head[9] = {};
  in.read(head, sizeof head);
  return in.gcount() == sizeof head && std::string(head, sizeof head) == "#[version" ? "relay"
                                                                                    : "";
}

}  // namespace

const Frontend& find_frontend_for(const std::string& path, PluginManager& plugins) {
  std::string ext = std::filesystem::path(path).extension().string();
  if (std::string name = frontend_by_content(path, ext); !name.empty()) {
    if (!frontend_named(name)) {
      try {
        plugins.load(name);
      } catch (const Error& e) {
        RX_THROW() << path << ": the file is " << name << " text, and the frontend plugin '"
                   << name << "' could not be loaded: " << e.message();
      }
    }
    const Frontend* f = frontend_named(name);
    RX_CHECK(f != nullptr) << path << ": plugin '" << name << "' registered no frontend named "
                           << name;
    return *f;
  }
  if (const Frontend* f = find_frontend(path)) return *f;
  RX_CHECK(ext.size() > 1) << path << ": no file extension to choose a frontend by";
  std::string plugin = ext.substr(1);
  try {
    plugins.load(plugin);
  } catch (const Error& e) {
    RX_THROW() << path << ": no frontend reads " << ext << " files, and the frontend plugin '"
               << plugin << "' could not be loaded: " << e.message();
  }
  const Frontend* f = find_frontend(path);
  RX_CHECK(f != nullptr) << path << ": plugin '" << plugin << "' registered no frontend for "
                         << ext << " files";
  return *f;
}

}  // namespace relax::transform
