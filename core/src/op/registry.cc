// The explicit registration of the core's ops, run once when the registry is first used.
#include "infer_utils.h"

namespace relax {

namespace op_detail {
void register_closure_ops(OpRegistry& reg);  // closure.cc
}

void register_core_ops(OpRegistry& reg) {
  op_detail::register_bridge_ops(reg);
  op_detail::register_script_ops(reg);
  op_detail::register_unary_ops(reg);
  op_detail::register_binary_ops(reg);
  op_detail::register_linear_algebra_ops(reg);
  op_detail::register_manipulate_ops(reg);
  op_detail::register_index_ops(reg);
  op_detail::register_reduce_ops(reg);
  op_detail::register_create_ops(reg);
  op_detail::register_nn_ops(reg);
  op_detail::register_conv_ops(reg);
  op_detail::register_tensor_ops(reg);
  op_detail::register_activation_ops(reg);
  op_detail::register_norm_ops(reg);
  op_detail::register_pool_ops(reg);
  op_detail::register_resize_ops(reg);
  op_detail::register_attention_ops(reg);
  op_detail::register_device_ops(reg);
  op_detail::register_closure_ops(reg);
}

}  // namespace relax
