// Memory builtins: storage, tensors in storage, the shape heap, views, copies and devices.
#include <cstring>

#include "builtins_internal.h"
#include "relax/runtime/device_api.h"
#include "relax/runtime/vm.h"
#include "relax/support/diagnostic.h"

namespace relax::runtime::builtin {

namespace {

VirtualMachine& vm_of(std::string_view builtin, const Value& v) {
  auto ctx = v.as_object_of<VMContextObj>();
  RX_CHECK(ctx.defined()) << "vm.builtin." << builtin
                          << ": argument 0 must be the VM state (%vm), got " << v.describe();
  return *ctx->vm;
}

DataType dtype_arg(std::string_view builtin, Args args, size_t index) {
  const std::string& text = string_arg(builtin, args, index, "dtype");
  auto dt = DataType::parse(text);
  RX_CHECK(dt.has_value() && !dt->is_void())
      << "vm.builtin." << builtin << ": unknown dtype \"" << text << "\"";
  return *dt;
}

}  // namespace

void register_memory_builtins() {
  define("alloc_storage", [](Args args) -> Value {
    check_num_args("vm.builtin.alloc_storage", args, 3);
    VirtualMachine& vm = vm_of("alloc_storage", args[0]);
    int64_t nbytes = 0;
    if (args[1].is(ValueKind::kShape)) {
      Shape s = args[1].as_shape();
      RX_CHECK(s.size() == 1) << "vm.builtin.alloc_storage: the size shape must have one element";
      nbytes = s[0];
    } else {
      nbytes = int_arg("alloc_storage", args, 1, "size in bytes");
    }
    DLDevice device = vm.device(int_arg("alloc_storage", args, 2, "device index"));
    return Value::from_object(make_ref<StorageObj>(vm.alloc_storage(nbytes, device)));
  });
  define("alloc_tensor", [](Args args) -> Value {
    check_num_args("vm.builtin.alloc_tensor", args, 4);
    auto storage = args[0].as_object_of<StorageObj>();
    RX_CHECK(storage.defined()) << "vm.builtin.alloc_tensor: argument 0 must be a storage, got "
                                << args[0].describe();
    // The offset: an integer, or a shape of one value (a symbolic offset computed on the
    // shape heap: vm-shape-lower).
    int64_t offset = 0;
    if (args[1].is(ValueKind::kShape)) {
      Shape s = shape_arg("alloc_tensor", args, 1, "offset");
      RX_CHECK(s.dims().size() == 1) << "vm.builtin.alloc_tensor: argument 1 (offset) must be an "
                                     << "integer or a shape of one value, got a shape of "
                                     << s.dims().size();
      offset = s.dims()[0];
    } else {
      offset = int_arg("alloc_tensor", args, 1, "offset");
    }
    Shape shape = shape_arg("alloc_tensor", args, 2, "shape");
    DataType dtype = dtype_arg("alloc_tensor", args, 3);
    return storage->buffer.view(shape.dims(), dtype, offset);
  });
  define("alloc_shape_heap", [](Args args) -> Value {
    check_num_args("vm.builtin.alloc_shape_heap", args, 1);
    int64_t size = int_arg("alloc_shape_heap", args, 0, "size");
    RX_CHECK(size >= 0 && size <= (int64_t(1) << 24))
        << "vm.builtin.alloc_shape_heap: size " << size << " is outside [0, 2^24]";
    NDArray heap = NDArray::empty({size}, DataType::Int(64));
    if (heap.nbytes()) std::memset(heap.data(), 0, heap.nbytes());
    return heap;
  });
  define("shape_of", [](Args args) -> Value {
    check_num_args("vm.builtin.shape_of", args, 1);
    return Shape(tensor_arg("shape_of", args, 0, "tensor").shape());
  });
  define("reshape", [](Args args) -> Value {
    check_num_args("vm.builtin.reshape", args, 2);
    NDArray t = tensor_arg("reshape", args, 0, "tensor");
    Shape shape = shape_arg("reshape", args, 1, "shape");
    int64_t numel = 1;
    for (int64_t d : shape.dims()) {
      RX_CHECK(d >= 0 && (d == 0 || numel <= (int64_t(1) << 48) / d))
          << "vm.builtin.reshape: invalid target shape " << shape_to_string(shape.dims());
      numel *= d;
    }
    RX_CHECK(numel == t.numel()) << "vm.builtin.reshape: cannot view a tensor of shape "
                                 << shape_to_string(t.shape()) << " (" << t.numel()
                                 << " elements) as shape " << shape_to_string(shape.dims()) << " ("
                                 << numel << " elements)";
    return t.view(shape.dims(), t.dtype());
  });
  define("copy", [](Args args) -> Value {
    check_num_args("vm.builtin.copy", args, 1);
    if (!args[0].is(ValueKind::kTensor)) return args[0];  // other values are immutable
    return args[0].as_tensor().copy();
  });
  define("to_vdevice", [](Args args) -> Value {
    // R.to_vdevice: a copy of the tensor on VM device `index` (itself when already there).
    check_num_args("vm.builtin.to_vdevice", args, 3);
    VirtualMachine& vm = vm_of("to_vdevice", args[0]);
    NDArray t = tensor_arg("to_vdevice", args, 1, "tensor");
    DLDevice device = vm.device(int_arg("to_vdevice", args, 2, "device index"));
    if (t.device().device_type == device.device_type && t.device().device_id == device.device_id)
      return t;
    return t.copy_to(device);
  });
  define("constant_to_vdevice", [](Args args) -> Value {
    // R.to_vdevice of a constant: uploaded once per VM and device (VirtualMachine::
    // constant_on_device).
    check_num_args("vm.builtin.constant_to_vdevice", args, 3);
    VirtualMachine& vm = vm_of("constant_to_vdevice", args[0]);
    return vm.constant_on_device(int_arg("constant_to_vdevice", args, 1, "constant index"),
                                 int_arg("constant_to_vdevice", args, 2, "device index"));
  });
  define("to_device", [](Args args) -> Value {
    check_num_args("vm.builtin.to_device", args, 3);
    NDArray t = tensor_arg("to_device", args, 0, "tensor");
    int64_t type = int_arg("to_device", args, 1, "device type");
    int64_t id = int_arg("to_device", args, 2, "device id");
    RX_CHECK(type > 0 && type <= INT32_MAX && id >= 0 && id <= INT32_MAX)
        << "vm.builtin.to_device: invalid device " << type << ":" << id;
    return t.copy_to(DLDevice{DLDeviceType(type), int32_t(id)});
  });
}

}  // namespace relax::runtime::builtin
