// The VM builtins: packed functions named "vm.builtin.*" that bridge the IR and the runtime.
//
// register_builtins() installs them in the Registry; it is idempotent and thread-safe, and
// VirtualMachine::create calls it, so no static initialiser is involved. Signatures
// (`vm` is the kVMStateRegister argument; `err_ctx` a string naming what is checked, e.g.
// "main: parameter x: R.Tensor((n, 4), \"float32\")"):
//
//   alloc_storage(vm, nbytes: int, device_index: int) -> storage
//   alloc_tensor(storage, offset: int, shape, dtype: string) -> tensor (a view of the storage)
//   alloc_shape_heap(size: int) -> int64 tensor of `size` elements (the frame's shape heap)
//   match_shape(value: tensor | shape, heap, ndim, (mode, v) × ndim, err_ctx) -> null
//       per dimension, MatchShapeMode: kNoOp; kAssertEqualToImm (dim == v);
//       kStoreToHeap (heap[v] = dim); kAssertEqualToLoad (dim == heap[v])
//   make_shape(heap, ndim, (mode, v) × ndim) -> shape; MakeShapeMode: kUseImm (v) or
//       kLoadShape (heap[v])
//   check_tensor_info(value, ndim (-1: any), dtype: string ("": any), err_ctx) -> null
//   check_shape_info(value, ndim (-1: any), err_ctx) -> null
//   check_tuple_info(value, size, err_ctx) -> null
//   check_tensor_value(value, expected: integer tensor, err_ctx) -> null: equal dtype, shape and
//       elements (the guard of a program specialised on an input's value)
//   shape_of(tensor) -> shape                     tensor_to_shape(rank-1 int tensor) -> shape
//   tuple_getitem(tuple, index) -> value          make_tuple(values...) -> tuple
//   reshape(tensor, shape) -> tensor view          copy(tensor) -> new tensor (deep copy)
//   to_device(tensor, device_type, device_id) -> tensor on that device
//   to_vdevice(vm, tensor, device_index) -> tensor on VM device device_index (R.to_vdevice)
//   constant_to_vdevice(vm, const_index, device_index) -> constant const_index on that
//       device, uploaded on first use and cached by the VM (R.to_vdevice of a constant)
//   null_value() -> null                           read_if_cond(int | bool | 0-d tensor) -> bool
//   make_closure(func, captured...) -> function    invoke_closure(func, args...) -> result
//   print(values...) -> null (one line on stdout, for debugging)
//   print_format(format, values...) -> null; assert_format(cond, format, values...) -> null,
//       an error with the formatted message when cond is false (R.print, R.assert_op; the
//       format has Python's {} / {N} placeholders)
#pragma once

#include <cstdint>

namespace relax::runtime {

/// Registers every "vm.builtin.*" function (once per process).
void register_builtins();

/// Per-dimension action of vm.builtin.match_shape (values as in TVM).
enum class MatchShapeMode : int64_t {
  kNoOp = 0,
  kAssertEqualToImm = 1,
  kStoreToHeap = 2,
  kAssertEqualToLoad = 3,
};

/// Per-dimension source of vm.builtin.make_shape.
enum class MakeShapeMode : int64_t {
  kUseImm = 0,
  kLoadShape = 1,
};

}  // namespace relax::runtime
