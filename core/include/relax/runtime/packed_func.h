// PackedFunc: the one calling convention of the runtime.
//
// A packed function takes a list of Values and returns a Value. Kernels, builtins, user
// functions registered from C++ or C, VM functions and closures are all PackedFuncs, so the
// VM's Call instruction needs only one way to call anything. A C function of the ABI
// (RxPackedCFunc) is wrapped with `PackedFunc::from_c`; its status codes become relax::Error.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <utility>

#include "relax/runtime/c_abi.h"
#include "relax/runtime/value.h"

namespace relax::runtime {

/// The arguments of a call: a borrowed, contiguous list of Values.
using Args = std::span<const Value>;

/// The node behind a PackedFunc. Immutable; its body must be safe to call from several threads
/// at once (all builtins are).
struct PackedFuncObj : Object {
  static constexpr uint32_t kKind = kPackedFuncObjKind;
  using Body = std::function<Value(Args)>;
  PackedFuncObj(std::string n, Body b) : Object(kKind), name(std::move(n)), body(std::move(b)) {}
  /// For messages ("vm.builtin.reshape", "closure of fact", ...); may be empty.
  const std::string name;
  const Body body;
};

/// Handle to a packed function; may be null.
class PackedFunc {
 public:
  PackedFunc() = default;
  /// A packed function running `body`; `name` appears in error messages.
  PackedFunc(std::string name, PackedFuncObj::Body body)
      : node_(make_ref<PackedFuncObj>(std::move(name), std::move(body))) {}
  explicit PackedFunc(Ref<PackedFuncObj> node) : node_(std::move(node)) {}

  /// Wraps a C packed function. `self_deleter` (may be null) runs on `self` when the last
  /// handle goes. Tensors are passed as borrowed DLTensor*, objects as borrowed handles.
  static PackedFunc from_c(std::string name, RxPackedCFunc func, void* self,
                           void (*self_deleter)(void*) = nullptr);

  Value operator()(Args args) const { return node_->body(args); }
  /// Convenience for C++ callers: f(1, tensor, "x").
  template <class... Ts>
  Value call(Ts&&... args) const {
    Value values[sizeof...(Ts) + 1] = {Value(std::forward<Ts>(args))..., Value()};
    return node_->body(Args(values, sizeof...(Ts)));
  }

  bool defined() const { return node_.defined(); }
  const std::string& name() const { return node_->name; }
  const Ref<PackedFuncObj>& node() const { return node_; }

 private:
  Ref<PackedFuncObj> node_;
};

inline Value::Value(const PackedFunc& v) : kind_(ValueKind::kFunction), obj_(v.node()) {
  if (!obj_) kind_ = ValueKind::kNull;
}

inline PackedFunc Value::as_function() const {
  if (kind_ != ValueKind::kFunction) kind_error("function");
  return PackedFunc(obj_.as_ref<PackedFuncObj>());
}

/// Checks the argument count of a packed function: throws relax::Error naming `func_name`,
/// the expected and the given count when `args.size()` is outside [min_args, max_args].
void check_num_args(std::string_view func_name, Args args, size_t min_args, size_t max_args);
inline void check_num_args(std::string_view func_name, Args args, size_t num_args) {
  check_num_args(func_name, args, num_args, num_args);
}

/// Converts a Value to a C RxAny argument (borrowed: valid while `value` lives).
RxAny to_c_arg(const Value& value);
/// Converts a C return value to a Value, taking ownership of objects and managed tensors.
Value from_c_return(RxAny* ret);

}  // namespace relax::runtime
