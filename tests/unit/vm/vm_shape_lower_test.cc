// vm-shape-lower: parameter checks, heap slots, shape functions and match_cast lowering,
// checked on the lowered IR (the end-to-end behaviour is in tests/unit/target/build_test.cc).
#include <gtest/gtest.h>

#include "relax/ir/expr_functor.h"
#include "relax/text/parser.h"
#include "relax/text/printer.h"
#include "relax/vm/vm_ops.h"
#include "relax/target/compile.h"
#include "relax/transform/pass_context.h"

namespace relax::transform {
namespace {

IRModule lower(const std::string& text) {
  PassRegistry registry = make_core_registry();
  PassContext ctx;
  IRModule mod = parse_module(text);
  for (const char* pass : {"call-tir-rewrite", "to-non-dataflow", "vm-shape-lower"})
    mod = registry.create(pass)(mod, ctx);
  return mod;
}

/// "vm.builtin.x" for builtin calls and op names for the rest, in order.
std::vector<std::string> calls_in(const IRModule& mod, const std::string& func) {
  std::vector<std::string> out;
  post_order_visit(mod.lookup(func), [&](const Expr& e) {
    auto* c = e.as<Call>();
    if (c == nullptr) return;
    auto* op = c->op.as<Op>();
    if (op && op->name == "relax.vm.call_builtin") {
      out.push_back(c->args[0].as<ExternFunc>()->global_symbol);
    } else if (op) {
      out.push_back(op->name);
    }
  });
  return out;
}

TEST(VmShapeLower, ParametersCheckedAndShapesComputed) {
  IRModule mod = lower(R"(
@R.function
def main(x: R.Tensor((n, 4), "float32"), y: R.Tensor((n * 2,), "float32")):
    z = R.call_dps_packed("f", (x, y), out_sinfo=R.Tensor((n * 4,), "float32"))
    return z
)");
  EXPECT_EQ(calls_in(mod, "main"),
            (std::vector<std::string>{
                "vm.builtin.alloc_shape_heap", "vm.builtin.check_tensor_info",
                "vm.builtin.match_shape", "vm.builtin.check_tensor_info", "vm.builtin.match_shape",
                "relax.vm.call_dps",                            // shape function: n * 2
                "vm.builtin.match_shape", "relax.vm.call_dps",  // shape function: n * 4 * 4 bytes
                "vm.builtin.make_shape", "relax.vm.alloc_storage", "relax.vm.call_dps",  // n * 4
                "vm.builtin.make_shape", "relax.vm.alloc_tensor", "relax.vm.call_dps"}))
      << print_module(mod);
  int shape_funcs = 0;
  for (const auto& e : mod.functions()) shape_funcs += e.gv->name.rfind("shape_func", 0) == 0;
  EXPECT_EQ(shape_funcs, 3);
  std::string text = print_module(mod);
  EXPECT_NE(text.find("main: parameter y: R.Tensor((n * 2,), dtype=\\\"float32\\\")"),
            std::string::npos)
      << text;
}

TEST(VmShapeLower, StaticShapesAreImmediates) {
  IRModule mod = lower(R"(
@R.function
def main(x: R.Tensor((2, 3), "float32")):
    z = R.call_dps_packed("f", (x,), out_sinfo=R.Tensor((6,), "float32"))
    return z
)");
  EXPECT_EQ(calls_in(mod, "main"),
            (std::vector<std::string>{"vm.builtin.alloc_shape_heap", "vm.builtin.check_tensor_info",
                                      "vm.builtin.match_shape", "relax.vm.alloc_storage",
                                      "relax.vm.alloc_tensor", "relax.vm.call_dps"}))
      << print_module(mod);
}

TEST(VmShapeLower, MatchCastStoresNewVariables) {
  IRModule mod = lower(R"(
@R.function
def main(x: R.Tensor((n,), "float32")):
    u = R.call_pure_packed("g", x, sinfo_args=R.Tensor(ndim=1, dtype="float32"))
    v = R.match_cast(u, R.Tensor((m,), "float32"))
    return v
)");
  std::string text = print_module(mod);
  // The checks precede the MatchCast, which stays as the definition of m.
  EXPECT_LT(text.find("vm.builtin.match_shape\"), (u, "), text.find("R.match_cast")) << text;
  EXPECT_NE(text.find("main: match_cast v: R.Tensor((m,), dtype=\\\"float32\\\")"),
            std::string::npos)
      << text;
}

TEST(VmShapeLower, UndefinedVariableIsAnError) {
  PassContext ctx;
  IRModule mod = parse_module(R"(
@R.function
def main(x: R.Tensor((n * 2,), "float32")):
    return x
)");
  try {
    make_core_registry().create("vm-shape-lower")(mod, ctx);
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("symbolic variable n"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace relax::transform
