// The frontend table (relax/transform/frontend.h).
#include "relax/transform/frontend.h"
#include "relax/transform/pass.h"

#include <algorithm>

#include <filesystem>
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

const Frontend& find_frontend_for(const std::string& path, PluginManager& plugins) {
  if (const Frontend* f = find_frontend(path)) return *f;
  std::string ext = std::filesystem::path(path).extension().string();
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
