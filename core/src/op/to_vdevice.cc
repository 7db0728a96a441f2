// relax.to_vdevice (TVM's R.to_vdevice): a copy of a tensor on another virtual device.
//
//   y = R.to_vdevice(x, "tir-interp:0")   # attribute dst_vdevice; y is x's struct info with
//                                         # vdevice "tir-interp:0"
// `dst_vdevice` names an entry of the module's vdevice list (relax/ir/vdevice.h); inference
// checks it when the builder's module declares devices (the parser and the well-formed
// checker reject unknown names in any case). The op has no legalisation: vm-codegen lowers
// it to `vm.builtin.to_vdevice(%vm, x, device_index)`, the index of the vdevice in the
// module's list being the VM device index (relax/vm/codegen.h). device-placement inserts it
// at device boundaries.
#include "infer_utils.h"
#include "relax/op/op.h"
#include "relax/support/diagnostic.h"

namespace relax {
namespace op_detail {

namespace {

StructInfo with_vdevice(const StructInfo& s, const std::string& vdevice, const Call& call) {
  if (auto* t = s.as<TensorStructInfo>()) {
    if (t->shape) return tensor_sinfo(*t->shape, t->dtype, vdevice);
    return tensor_sinfo(t->dtype, t->ndim, vdevice);
  }
  RX_THROW() << op_name(call) << ": argument x must be a tensor, got " << to_string(s);
}

StructInfo infer_to_vdevice(const Call& call, BlockBuilder& ctx) {
  const AttrValue* dst = call.attrs.defined() ? call.attrs->find("dst_vdevice") : nullptr;
  const std::string* ref = dst ? std::get_if<std::string>(dst) : nullptr;
  RX_CHECK(ref != nullptr && !ref->empty())
      << op_name(call) << " needs dst_vdevice, the name of a vdevice (\"kind\" or \"kind:i\")";
  const std::vector<VDevice>& devices = ctx.module().vdevices();
  if (!devices.empty()) resolve_vdevice(devices, *ref, "R.to_vdevice");
  return with_vdevice(get_struct_info(call.args.at(0)), *ref, call);
}

}  // namespace

void register_device_ops(OpRegistry& reg) {
  OpInfo& op = reg.register_op("relax.to_vdevice");
  op.summary = "Copy a tensor to another virtual device of the module.";
  op.arg_names = {"x"};
  op.attrs = {{"dst_vdevice", AttrSpec::Kind::kString, std::monostate{}, false,
               "the destination vdevice, \"kind\" or \"kind:i\" (the module's vdevice list)"}};
  op.infer = infer_to_vdevice;
  op.pure = true;
  op.pattern = OpPattern::kOpaque;
}

}  // namespace op_detail

namespace op {

Expr to_vdevice(Expr x, const std::string& dst_vdevice) {
  return call_op("relax.to_vdevice", {std::move(x)}, make_attrs({{"dst_vdevice", dst_vdevice}}));
}

}  // namespace op
}  // namespace relax
