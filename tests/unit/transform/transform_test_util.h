// Modules built through the BlockBuilder for the pass-infrastructure tests.
#pragma once

#include <string>

#include "relax/ir/block_builder.h"
#include "relax/op/op.h"
#include "relax/tir/expr.h"

namespace relax::test {

inline const DataType kF32 = DataType::Float(32);

/// Adds `name(x: Tensor((n, 4), f32))` with a dataflow block of `depth` elementwise ops, its
/// last result output, and returns it.
inline Ref<GlobalVar> add_chain_function(BlockBuilder& bb, const std::string& name, int depth = 4) {
  auto n = tir::var("n");
  auto x = make_var("x", tensor_sinfo({n, tir::int_imm(4)}, kF32));
  bb.begin_function(name, {x});
  bb.begin_dataflow_block();
  Expr cur = x;
  for (int i = 0; i < depth; ++i) {
    switch (i % 4) {
      case 0:
        cur = bb.emit(op::add(cur, x));
        break;
      case 1:
        cur = bb.emit(op::multiply(cur, cur));
        break;
      case 2:
        cur = bb.emit(op::relu(cur));
        break;
      default:
        cur = bb.emit(op::exp(cur));
        break;
    }
  }
  auto out = bb.emit_output(cur, "out");
  bb.end_block();
  return bb.end_function(out);
}

/// A module of `count` chain functions f0, f1, ...
inline IRModule make_chain_module(int count, int depth = 4) {
  BlockBuilder bb;
  for (int i = 0; i < count; ++i) add_chain_function(bb, "f" + std::to_string(i), depth);
  return bb.get_module();
}

}  // namespace relax::test
