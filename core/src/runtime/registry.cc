#include "relax/runtime/registry.h"

#include <algorithm>
#include <mutex>
#include <unordered_map>

#include "relax/support/diagnostic.h"

namespace relax::runtime {

namespace {

struct TransparentHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
};

struct FunctionTable {
  std::mutex mutex;
  std::unordered_map<std::string, PackedFunc, TransparentHash, std::equal_to<>> functions;
};

FunctionTable& table() {
  // Never destroyed: functions registered by plugins may be looked up during shutdown.
  static FunctionTable* t = new FunctionTable();
  return *t;
}

}  // namespace

void Registry::register_func(std::string name, PackedFunc func, bool override_existing) {
  RX_CHECK(!name.empty()) << "Registry::register_func: empty name";
  RX_CHECK(func.defined()) << "Registry::register_func: null function for '" << name << "'";
  FunctionTable& t = table();
  std::lock_guard lock(t.mutex);
  auto [it, inserted] = t.functions.try_emplace(name, func);
  RX_CHECK(inserted || override_existing)
      << "a packed function named '" << name << "' is already registered";
  if (!inserted) it->second = std::move(func);
}

PackedFunc Registry::get(std::string_view name) {
  FunctionTable& t = table();
  std::lock_guard lock(t.mutex);
  auto it = t.functions.find(name);
  return it == t.functions.end() ? PackedFunc() : it->second;
}

bool Registry::remove(std::string_view name) {
  FunctionTable& t = table();
  std::lock_guard lock(t.mutex);
  auto it = t.functions.find(name);
  if (it == t.functions.end()) return false;
  t.functions.erase(it);
  return true;
}

std::vector<std::string> Registry::list_names() {
  FunctionTable& t = table();
  std::vector<std::string> names;
  {
    std::lock_guard lock(t.mutex);
    for (const auto& [name, f] : t.functions) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace relax::runtime
