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

}  // namespace relax
