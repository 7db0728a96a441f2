// Registration and builders of the VM-level ops (relax/vm/vm_ops.h).
#include "relax/vm/vm_ops.h"

#include <mutex>

#include "relax/ir/block_builder.h"
#include "relax/ir/op.h"
#include "relax/support/diagnostic.h"

namespace relax::vm {

namespace {

/// The symbolic values of a shape argument (a ShapeExpr or a shape-valued var); nullopt when
/// only the rank is known. *ndim gets the rank (-1 when unknown).
std::optional<std::vector<PrimExpr>> shape_values_of(const Expr& shape, int* ndim) {
  if (auto* s = shape.as<ShapeExpr>()) {
    *ndim = int(s->values.size());
    return s->values;
  }
  const StructInfo& sinfo = get_struct_info(shape);
  auto* ss = sinfo.as<ShapeStructInfo>();
  RX_CHECK(ss != nullptr) << "expected a shape, got " << describe(shape) << ": "
                          << to_string(sinfo);
  *ndim = ss->ndim;
  return ss->values;
}

DataType dtype_arg(const Call& call, size_t i) {
  auto* d = call.args.at(i).as<DataTypeImm>();
  RX_CHECK(d != nullptr) << call.op.as<Op>()->name << ": argument " << i << " must be a dtype, got "
                         << describe(call.args[i]);
  return d->value;
}

StructInfo tensor_of_shape(const Call& call, size_t shape_index, size_t dtype_index) {
  int ndim = -1;
  auto values = shape_values_of(call.args.at(shape_index), &ndim);
  DataType dtype = dtype_arg(call, dtype_index);
  if (values) return tensor_sinfo(*values, dtype);
  return tensor_sinfo(dtype, ndim);
}

StructInfo void_sinfo() { return tuple_sinfo({}); }

void register_all() {
  OpRegistry& reg = OpRegistry::global();
  {
    OpInfo& op = reg.register_op("relax.builtin.alloc_tensor");
    op.summary = "Allocate an output tensor of a destination-passing call.";
    op.arg_names = {"shape", "dtype", "runtime_device_index"};
    op.infer = [](const Call& call, BlockBuilder& ctx) {
      // On a module with vdevices the tensor records the vdevice of its device index.
      StructInfo s = tensor_of_shape(call, 0, 1);
      const std::vector<VDevice>& devices = ctx.module().vdevices();
      auto* dev = call.args.size() > 2 ? call.args[2].as<PrimValue>() : nullptr;
      auto* index = dev ? dev->value.as<tir::IntImm>() : nullptr;
      if (devices.empty() || index == nullptr || index->value < 0 ||
          size_t(index->value) >= devices.size())
        return s;
      auto* t = s.as<TensorStructInfo>();
      std::string ref = vdevice_ref(devices, size_t(index->value));
      return t->shape ? tensor_sinfo(*t->shape, t->dtype, ref)
                      : tensor_sinfo(t->dtype, t->ndim, ref);
    };
  }
  {
    OpInfo& op = reg.register_op("relax.vm.alloc_storage");
    op.summary = "Allocate `size` bytes of storage on a VM device.";
    op.arg_names = {"size", "runtime_device_index"};
    op.infer = [](const Call&, BlockBuilder&) { return object_sinfo(); };
  }
  {
    OpInfo& op = reg.register_op("relax.vm.alloc_tensor");
    op.summary = "A tensor in a storage at a byte offset.";
    op.arg_names = {"storage", "offset", "shape", "dtype"};
    op.infer = [](const Call& call, BlockBuilder&) { return tensor_of_shape(call, 2, 3); };
  }
  {
    OpInfo& op = reg.register_op("relax.vm.call_dps");
    op.summary = "Destination-passing call: outputs are the trailing arguments.";
    op.arg_names = {"func", "args", "tir_vars"};
    op.variadic = true;  // tir_vars is optional
    op.infer = [](const Call& call, BlockBuilder&) {
      RX_CHECK(call.args.size() == 2 || call.args.size() == 3)
          << "relax.vm.call_dps takes (func, args, tir_vars?), got " << call.args.size()
          << " arguments";
      RX_CHECK(call.args[0].is<GlobalVar>() || call.args[0].is<ExternFunc>())
          << "relax.vm.call_dps: the callee must be a GlobalVar or an ExternFunc, got "
          << describe(call.args[0]);
      return void_sinfo();
    };
  }
  {
    OpInfo& op = reg.register_op("relax.vm.call_builtin");
    op.summary = "Call a VM builtin that only checks or computes shapes.";
    op.arg_names = {"func", "args"};
    op.infer = [](const Call& call, BlockBuilder&) {
      RX_CHECK(call.args[0].is<ExternFunc>())
          << "relax.vm.call_builtin: the callee must be an ExternFunc, got "
          << describe(call.args[0]);
      return call.sinfo_args.empty() ? object_sinfo() : call.sinfo_args[0];
    };
  }
  {
    OpInfo& op = reg.register_op("relax.vm.kill_object");
    op.summary = "Drop the VM's reference to a value (its register becomes null).";
    op.arg_names = {"x"};
    op.infer = [](const Call&, BlockBuilder&) { return void_sinfo(); };
  }
}

}  // namespace

void register_vm_ops() {
  static std::once_flag once;
  std::call_once(once, register_all);
}

Expr alloc_tensor(Expr shape, DataType dtype, int64_t device_index) {
  register_vm_ops();
  return call_op("relax.builtin.alloc_tensor",
                 {std::move(shape), make_dtype(dtype), make_prim_value(device_index)});
}

Expr vm_alloc_storage(Expr size, int64_t device_index) {
  register_vm_ops();
  return call_op("relax.vm.alloc_storage", {std::move(size), make_prim_value(device_index)});
}

Expr vm_alloc_tensor(Expr storage, int64_t offset, Expr shape, DataType dtype) {
  return vm_alloc_tensor(std::move(storage), tir::int_imm(offset), std::move(shape), dtype);
}

Expr vm_alloc_tensor(Expr storage, PrimExpr offset, Expr shape, DataType dtype) {
  register_vm_ops();
  return call_op("relax.vm.alloc_tensor", {std::move(storage), make_prim_value(std::move(offset)),
                                           std::move(shape), make_dtype(dtype)});
}

Expr call_dps(Expr func, std::vector<Expr> args, std::optional<Expr> tir_vars) {
  register_vm_ops();
  std::vector<Expr> call_args{std::move(func), make_tuple(std::move(args))};
  if (tir_vars) call_args.push_back(std::move(*tir_vars));
  return call_op("relax.vm.call_dps", std::move(call_args));
}

Expr call_builtin(const std::string& name, std::vector<Expr> args, StructInfo ret) {
  register_vm_ops();
  return call_op("relax.vm.call_builtin", {make_extern(name), make_tuple(std::move(args))}, {},
                 {std::move(ret)});
}

Expr kill_object(Expr x) {
  register_vm_ops();
  return call_op("relax.vm.kill_object", {std::move(x)});
}

}  // namespace relax::vm
