// The registry of flow callbacks (flow_callbacks.h).
#include "flow_callbacks.h"

#include <map>
#include <memory>
#include <mutex>

namespace relax::layout {

namespace {

struct Registry {
  std::mutex mu;
  std::map<std::string, std::shared_ptr<FlowCallback>> callbacks;
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

void register_flow_callback(const std::string& op_or_prim_func, FlowCallback callback) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  if (!callback) {
    r.callbacks.erase(op_or_prim_func);
    return;
  }
  r.callbacks[op_or_prim_func] = std::make_shared<FlowCallback>(std::move(callback));
}

const FlowCallback* find_flow_callback(const std::string& op_or_prim_func) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.callbacks.find(op_or_prim_func);
  return it == r.callbacks.end() ? nullptr : it->second.get();
}

}  // namespace relax::layout

extern "C" __attribute__((visibility("default"))) void relax_layout_register_flow_callback(
    const char* op_or_prim_func, const void* callback) {
  relax::layout::register_flow_callback(
      op_or_prim_func,
      callback ? *static_cast<const relax::layout::FlowCallback*>(callback)
               : relax::layout::FlowCallback());
}
