// The global registry of packed functions, keyed by name.
//
// Builtins ("vm.builtin.*") are registered explicitly by register_builtins() (builtins.h),
// which VirtualMachine creation calls; nothing depends on static-initialisation order. Users
// and plugins register their own functions from C++ (Registry::register_func) or from C
// (RxRegisterGlobalFunc). Lookups take a lock: the VM resolves names once, at load.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "relax/runtime/packed_func.h"

namespace relax::runtime {

/// Process-wide name → PackedFunc map. All members are thread-safe.
class Registry {
 public:
  /// Registers `func` under `name`. Throws relax::Error when the name is taken, unless
  /// `override_existing`.
  static void register_func(std::string name, PackedFunc func, bool override_existing = false);
  /// Registers a C++ callable as a packed function named `name`.
  static void register_func(std::string name, PackedFuncObj::Body body,
                            bool override_existing = false) {
    PackedFunc f(name, std::move(body));
    register_func(std::move(name), std::move(f), override_existing);
  }
  /// The function registered under `name`, or a null PackedFunc.
  static PackedFunc get(std::string_view name);
  /// Removes a registration; returns whether there was one.
  static bool remove(std::string_view name);
  /// All registered names, sorted.
  static std::vector<std::string> list_names();
};

}  // namespace relax::runtime
