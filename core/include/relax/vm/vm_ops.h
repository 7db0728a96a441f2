// The VM-level Relax ops the minimum build lowers to (DESIGN.md §5, RFC §4.3).
//
// After call-tir-rewrite and vm-shape-lower a Relax function is "VM-level": every value is
// computed by one of these ops, by a call of a module function (Relax or PrimFunc), or by a
// packed call, and vm-codegen maps each to VM instructions one to one:
//
//   R.builtin.alloc_tensor(shape, dtype, device_index) -> Tensor(shape, dtype)
//       an output buffer (call-tir-rewrite, RFC C0); vm-shape-lower expands it into
//   R.vm.alloc_storage(size, device_index) -> Object    `size` is a one-element shape (bytes)
//   R.vm.alloc_tensor(storage, offset, shape, dtype) -> Tensor(shape, dtype)
//   R.vm.call_dps(func, (inputs..., outputs...), tir_vars?) -> ()
//       a destination-passing call of a PrimFunc (GlobalVar) or a packed function
//       (ExternFunc); `tir_vars`, a shape, passes its values to the callee's trailing scalar
//       parameters (the kernel receives them as one Shape argument after the tensors)
//   R.vm.call_builtin(func, (args...), sinfo_args=[ret]) -> ret
//       a VM builtin ("vm.builtin.match_shape", ...) whose only effect is its result or an
//       error: shape checks and shape-heap bookkeeping
//   R.vm.kill_object(x) -> ()   drops the VM's reference to x (its register becomes null)
//
// They are pure as far as the graph is concerned (call_dps writes only buffers allocated for
// it; builtins only check), so they may sit in functions declared pure. They are meant for
// the end of a pipeline: no dead-code elimination may run after them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "relax/ir/expr.h"

namespace relax::vm {

/// Registers the ops above in the global OpRegistry (once per process; thread-safe).
void register_vm_ops();

/// R.builtin.alloc_tensor(shape, dtype, device_index).
Expr alloc_tensor(Expr shape, DataType dtype, int64_t device_index = 0);
/// R.vm.alloc_storage(size, device_index).
Expr vm_alloc_storage(Expr size, int64_t device_index = 0);
/// R.vm.alloc_tensor(storage, offset, shape, dtype).
Expr vm_alloc_tensor(Expr storage, int64_t offset, Expr shape, DataType dtype);
/// The same at a symbolic byte offset (an int64 expression of the function's shape variables;
/// vm-shape-lower computes it at run time).
Expr vm_alloc_tensor(Expr storage, PrimExpr offset, Expr shape, DataType dtype);
/// R.vm.call_dps(func, (args...), tir_vars?).
Expr call_dps(Expr func, std::vector<Expr> args, std::optional<Expr> tir_vars = std::nullopt);
/// R.vm.call_builtin(ExternFunc(name), (args...)) returning `ret`.
Expr call_builtin(const std::string& name, std::vector<Expr> args, StructInfo ret);
/// R.vm.kill_object(x).
Expr kill_object(Expr x);

}  // namespace relax::vm
