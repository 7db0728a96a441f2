#include "relax/ir/module.h"

#include "relax/support/diagnostic.h"

namespace relax {

namespace {
std::string list_names(const std::vector<IRModule::Entry>& entries) {
  std::string s;
  for (const auto& e : entries) s += (s.empty() ? "" : ", ") + e.gv->name;
  return s.empty() ? "(the module is empty)" : s;
}
}  // namespace

void IRModule::add(const Ref<GlobalVar>& gv, BaseFunc func) {
  RX_ICHECK(gv.defined() && func.defined()) << "IRModule::add of an undefined function";
  RX_CHECK(!contains(gv->name)) << "the module already has a function named '" << gv->name << "'";
  index_.emplace(gv->name, entries_.size());
  entries_.push_back({gv, std::move(func)});
}

Ref<GlobalVar> IRModule::add(const std::string& name, BaseFunc func) {
  RX_ICHECK(func.defined()) << "IRModule::add of an undefined function";
  auto gv = make_ref<GlobalVar>(name, func->struct_info);
  add(gv, std::move(func));
  return gv;
}

void IRModule::update(const std::string& name, BaseFunc func) {
  auto it = index_.find(name);
  RX_CHECK(it != index_.end()) << "cannot update '" << name << "': the module has no such function; it has "
                               << list_names(entries_);
  entries_[it->second].func = std::move(func);
}

void IRModule::set(const Ref<GlobalVar>& gv, BaseFunc func) {
  if (contains(gv->name)) {
    update(gv->name, std::move(func));
  } else {
    add(gv, std::move(func));
  }
}

bool IRModule::remove(const std::string& name) {
  auto it = index_.find(name);
  if (it == index_.end()) return false;
  entries_.erase(entries_.begin() + long(it->second));
  index_.clear();
  for (size_t i = 0; i < entries_.size(); ++i) index_.emplace(entries_[i].gv->name, i);
  return true;
}

Ref<GlobalVar> IRModule::find_global_var(const std::string& name) const {
  auto it = index_.find(name);
  return it == index_.end() ? Ref<GlobalVar>() : entries_[it->second].gv;
}

Ref<GlobalVar> IRModule::get_global_var(const std::string& name) const {
  auto gv = find_global_var(name);
  RX_CHECK(gv.defined()) << "the module has no function named '" << name << "'; it has " << list_names(entries_);
  return gv;
}

BaseFunc IRModule::find(const std::string& name) const {
  auto it = index_.find(name);
  return it == index_.end() ? BaseFunc() : entries_[it->second].func;
}

BaseFunc IRModule::lookup(const std::string& name) const {
  auto f = find(name);
  RX_CHECK(f.defined()) << "the module has no function named '" << name << "'; it has " << list_names(entries_);
  return f;
}

std::string VDevice::kind() const { return target.substr(0, target.find(',')); }

std::optional<size_t> find_vdevice(const std::vector<VDevice>& devices, std::string_view ref) {
  std::string_view kind = ref.substr(0, ref.find(':'));
  int64_t wanted = 0;
  if (kind.size() != ref.size()) {
    std::string_view digits = ref.substr(kind.size() + 1);
    if (digits.empty() || digits.size() > 9) return std::nullopt;
    wanted = 0;
    for (char c : digits) {
      if (c < '0' || c > '9') return std::nullopt;
      wanted = wanted * 10 + (c - '0');
    }
  }
  if (kind.empty()) return std::nullopt;
  int64_t seen = 0;
  for (size_t i = 0; i < devices.size(); ++i) {
    if (devices[i].kind() != kind) continue;
    if (seen++ == wanted) return i;
  }
  return std::nullopt;
}

std::string vdevice_ref(const std::vector<VDevice>& devices, size_t index) {
  RX_ICHECK(index < devices.size()) << "vdevice index " << index << " out of range";
  std::string kind = devices[index].kind();
  int64_t ordinal = 0;
  for (size_t i = 0; i < index; ++i) ordinal += devices[i].kind() == kind ? 1 : 0;
  return kind + ":" + std::to_string(ordinal);
}

std::string describe_vdevices(const std::vector<VDevice>& devices) {
  std::string s;
  for (size_t i = 0; i < devices.size(); ++i) {
    s += (i ? ", " : "") + vdevice_ref(devices, i) + " = " + devices[i].target;
    if (devices[i].device_id != 0) s += " (device " + std::to_string(devices[i].device_id) + ")";
  }
  return s.empty() ? "none" : s;
}

std::string unknown_vdevice_message(const std::vector<VDevice>& devices, std::string_view ref,
                                    std::string_view where) {
  return "vdevice \"" + std::string(ref) + "\" in " + std::string(where) +
         " names no device of the module (its devices: " + describe_vdevices(devices) +
         "; write \"kind\" or \"kind:i\", declared by I.module_global_infos({\"vdevice\": "
         "[I.vdevice(target, id, scope), ...]}))";
}

size_t resolve_vdevice(const std::vector<VDevice>& devices, std::string_view ref,
                       std::string_view where) {
  std::optional<size_t> i = find_vdevice(devices, ref);
  RX_CHECK(i.has_value()) << unknown_vdevice_message(devices, ref, where);
  return *i;
}

}  // namespace relax
