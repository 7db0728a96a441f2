// IRModule: the unit every pass transforms. It maps GlobalVars to functions (Relax Functions
// and TIR PrimFuncs) in insertion order and carries module attributes.
//
// It also carries the module's virtual devices (relax/ir/vdevice.h; TVM's global info
// "vdevice"), which TensorStructInfo::vdevice strings refer to.
//
// An IRModule is a value: copying it copies the table (the functions themselves are shared,
// immutable nodes), so a pass can build its result from its input without disturbing it.
#pragma once

#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "relax/ir/expr.h"
#include "relax/ir/vdevice.h"

namespace relax {

class IRModule {
 public:
  struct Entry {
    Ref<GlobalVar> gv;
    BaseFunc func;
  };

  IRModule() = default;

  /// Adds `func` under `gv`'s name. Throws relax::Error when the name is taken.
  void add(const Ref<GlobalVar>& gv, BaseFunc func);
  /// Adds `func` under `name`, creating the GlobalVar (with the function's struct info).
  Ref<GlobalVar> add(const std::string& name, BaseFunc func);
  /// Replaces the function of an existing name (the GlobalVar is kept).
  void update(const std::string& name, BaseFunc func);
  void update(const Ref<GlobalVar>& gv, BaseFunc func) { update(gv->name, std::move(func)); }
  /// Adds or replaces.
  void set(const Ref<GlobalVar>& gv, BaseFunc func);
  /// Removes a function; false when there was none of that name.
  bool remove(const std::string& name);

  bool contains(const std::string& name) const { return index_.count(name) != 0; }
  /// The GlobalVar named `name`, or null.
  Ref<GlobalVar> find_global_var(const std::string& name) const;
  /// The GlobalVar named `name`; throws relax::Error listing the module's functions otherwise.
  Ref<GlobalVar> get_global_var(const std::string& name) const;
  /// The function named `name`, or null.
  BaseFunc find(const std::string& name) const;
  /// The function named `name`; throws relax::Error listing the module's functions otherwise.
  BaseFunc lookup(const std::string& name) const;
  BaseFunc lookup(const Ref<GlobalVar>& gv) const { return lookup(gv->name); }

  /// Functions in insertion order.
  const std::vector<Entry>& functions() const { return entries_; }
  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }

  const Attrs& attrs() const { return attrs_; }
  void set_attrs(Attrs attrs) { attrs_ = std::move(attrs); }
  void set_attr(const std::string& key, AttrValue value) { attrs_ = with_attr(attrs_, key, std::move(value)); }

  /// The virtual devices (global info "vdevice"); empty for a module that declares none.
  const std::vector<VDevice>& vdevices() const { return vdevices_; }
  void set_vdevices(std::vector<VDevice> devices) { vdevices_ = std::move(devices); }

 private:
  std::vector<Entry> entries_;
  std::unordered_map<std::string, size_t> index_;
  Attrs attrs_;
  std::vector<VDevice> vdevices_;
};

}  // namespace relax
