// relax-demo: what `make run` runs until the driver can compile and run models.
//
// Builds the RFC's two-layer example (matmul, add, relu over a symbolic batch) with the
// BlockBuilder, prints each binding with its inferred struct info, and checks the module is
// well formed. Exit code 0 on success, 1 on a user error, 2 on an internal error.
#include <iostream>

#include "relax/arith/analyzer.h"
#include "relax/ir/block_builder.h"
#include "relax/ir/well_formed.h"
#include "relax/op/op.h"

using namespace relax;

namespace {

IRModule build_mlp() {
  const DataType f32 = DataType::Float(32);
  BlockBuilder bb;
  auto batch = tir::var("batch");
  auto x = make_var("x", tensor_sinfo({batch, tir::int_imm(784)}, f32));
  auto w0 = make_var("w0", tensor_sinfo(const_shape({784, 128}), f32));
  auto b0 = make_var("b0", tensor_sinfo(const_shape({128}), f32));
  auto w1 = make_var("w1", tensor_sinfo(const_shape({128, 10}), f32));
  bb.begin_function("main", {x, w0, b0, w1});
  bb.begin_dataflow_block();
  auto h = bb.emit(op::matmul(x, w0), "h");
  auto hb = bb.emit(op::add(h, b0), "hb");
  auto a = bb.emit(op::relu(hb), "a");
  auto logits = bb.emit(op::matmul(a, w1), "logits");
  auto probs = bb.emit_output(op::exp(logits), "probs");
  bb.end_block();
  bb.end_function(probs);
  return bb.get_module();
}

}  // namespace

int main() {
  try {
    IRModule mod = build_mlp();
    for (const auto& entry : mod.functions()) {
      auto* f = entry.func.as<Function>();
      if (!f) continue;
      std::cout << "function @" << entry.gv->name << "(";
      for (size_t i = 0; i < f->params.size(); ++i)
        std::cout << (i ? ", " : "") << f->params[i]->name << ": " << to_string(f->params[i]->struct_info);
      std::cout << ") -> " << to_string(f->ret_struct_info) << "\n";
      for (const auto& block : f->body.as<SeqExpr>()->blocks) {
        std::cout << (block->is_dataflow() ? "  dataflow block:\n" : "  block:\n");
        for (const auto& b : block->bindings)
          std::cout << "    " << b->var->name << " = " << describe(b->value) << "  : " << to_string(b->var->struct_info)
                    << "\n";
      }
    }
    check_well_formed(mod);
    std::cout << "well formed: yes\n";
    return 0;
  } catch (const Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 2;
  }
}
