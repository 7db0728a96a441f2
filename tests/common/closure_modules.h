// Relax modules with recursive local functions, built in C++ (the parser does not read a
// nested function that names itself yet): shared by the lambda-lift and closure e2e tests.
#pragma once

#include "relax/ir/block_builder.h"
#include "relax/op/op.h"
#include "relax/runtime/ndarray.h"

namespace relax::test {

inline const DataType kF32 = DataType::Float(32), kI32 = DataType::Int(32);

/// A local function writing a shape of its enclosing function's symbolic variable n (main
/// returns the shape (n,) of x through it).
inline const char* kSymbolicCapture = R"(
@R.function
def main(x: R.Tensor((n,), "float32")) -> R.Shape(ndim=1):
    @R.function
    def dims() -> R.Shape(ndim=1):
        s = R.shape([n])
        return s
    r = dims()
    return r
)";

inline Expr scalar_i32(int32_t v) {
  runtime::NDArray a = runtime::NDArray::empty({}, kI32);
  *a.data_as<int32_t>() = v;
  return make_constant(a);
}

/// main(x) with the local `while_loop(i, s)`: s + x while i < 10, recursing on i + 1 (TVM's
/// test_recursive). Captures x.
inline IRModule recursive_module() {
  BlockBuilder bb;
  StructInfo t23 = tensor_sinfo(const_shape({2, 3}), kF32);
  auto x = make_var("x", t23);
  auto i = make_var("i", tensor_sinfo({}, kI32));
  auto s = make_var("s", t23);
  auto loop = make_var("while_loop", func_sinfo({i->struct_info, s->struct_info}, t23));
  bb.begin_function("main", {x});
  bb.begin_scope({i, s});
  bb.begin_binding_block();
  Expr cond = bb.emit(op::less(i, scalar_i32(10)), "cond");
  bb.begin_scope();
  bb.begin_binding_block();
  Expr ni = bb.emit(op::add(i, scalar_i32(1)), "new_i");
  Expr ns = bb.emit(op::add(s, x), "new_s");
  Expr rec = bb.emit(make_ref<Call>(loop, std::vector<Expr>{ni, ns}), "r");
  Expr then_branch = make_ref<SeqExpr>(bb.end_scope(), rec);
  Expr if_value = make_ref<If>(cond, then_branch, make_ref<SeqExpr>(std::vector<Block>{}, s));
  Expr r = bb.emit(if_value, "r");
  auto fn = make_ref<Function>(std::vector<Ref<Var>>{i, s}, make_ref<SeqExpr>(bb.end_scope(), r), t23);
  bb.begin_binding_block();
  bb.emit_binding(make_ref<VarBinding>(loop, fn));
  Expr gv = bb.emit(make_ref<Call>(loop, std::vector<Expr>{scalar_i32(0), x}), "gv");
  bb.end_function(gv);
  return bb.get_module();
}

}  // namespace relax::test
