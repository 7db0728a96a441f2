// legalize-ops: ops with a legalisation become call_tir of generated PrimFuncs; the others
// stay. The legalised module also builds and runs (tir-interp).
#include <gtest/gtest.h>

#include "relax/ir/expr_functor.h"
#include "relax/ir/op.h"
#include "relax/text/parser.h"
#include "relax/runtime/vm.h"
#include "relax/target/build.h"
#include "relax/op/emit_te.h"
#include "relax/target/compile.h"
#include "relax/transform/pass_context.h"

namespace relax::transform {
namespace {

/// relax.test_add_one (legalised through call_te) and relax.test_opaque (no legalisation).
void register_test_ops() {
  OpRegistry& reg = OpRegistry::global();
  if (reg.find("relax.test_add_one") != nullptr) return;
  OpInfo& add_one = reg.register_op("relax.test_add_one");
  add_one.arg_names = {"x"};
  add_one.infer = [](const Call& call, BlockBuilder&) { return get_struct_info(call.args[0]); };
  add_one.legalize = [](BlockBuilder& bb, const Call& call) {
    return te::call_te(
        bb, {call.args[0]},
        [](const std::vector<te::Tensor>& a) {
          return te::compute(
              a[0].shape(), [&](const auto& i) { return a[0](i) + tir::float_imm(1); }, "add_one");
        },
        "add_one");
  };
  OpInfo& opaque = reg.register_op("relax.test_opaque");
  opaque.arg_names = {"x"};
  opaque.infer = [](const Call& call, BlockBuilder&) { return get_struct_info(call.args[0]); };
}

std::vector<std::string> called_ops(const IRModule& mod) {
  std::vector<std::string> names;
  for (const auto& e : mod.functions()) {
    if (!e.func.is<Function>()) continue;
    post_order_visit(e.func, [&](const Expr& x) {
      if (auto* c = x.as<Call>())
        if (auto* op = c->op.as<Op>()) names.push_back(op->name);
    });
  }
  return names;
}

const char* kModule = R"(
@R.function
def main(x: R.Tensor((n, 3), "float32")):
    with R.dataflow():
        y = R.test_add_one(x)
        z = R.test_opaque(y)
        w = R.test_add_one(z)
        R.output(w)
    return w
)";

TEST(LegalizeOps, LegalisedOpsBecomeCallTirOthersStay) {
  register_test_ops();
  PassRegistry registry = make_core_registry();
  PassContext ctx;
  IRModule out = registry.create("legalize-ops")(parse_module(kModule), ctx);
  EXPECT_EQ(called_ops(out),
            (std::vector<std::string>{"relax.call_tir", "relax.test_opaque", "relax.call_tir"}));
  int prim_funcs = 0;
  for (const auto& e : out.functions()) prim_funcs += e.func.is<tir::PrimFunc>();
  EXPECT_EQ(prim_funcs, 2);
}

TEST(LegalizeOps, ModuleWithoutLegalisableOpsIsUnchanged) {
  register_test_ops();
  IRModule in = parse_module(R"(
@R.function
def main(x: R.Tensor((2,), "float32")):
    y = R.test_opaque(x)
    return y
)");
  PassContext ctx;
  IRModule out = make_core_registry().create("legalize-ops")(in, ctx);
  EXPECT_TRUE(out.lookup("main").same_as(in.lookup("main")));
}

TEST(LegalizeOps, LegalisedModuleRuns) {
  register_test_ops();
  Ref<runtime::Executable> exec = build(parse_module(R"(
@R.function
def main(x: R.Tensor((n, 3), "float32")):
    y = R.test_add_one(x)
    z = R.test_add_one(y)
    return z
)"), relax::BuildOptions{"tir-interp", "o0"});
  auto vm = runtime::VirtualMachine::create(exec);
  runtime::NDArray x = runtime::NDArray::empty({2, 3}, DataType::Float(32));
  for (int i = 0; i < 6; ++i) x.data_as<float>()[i] = float(i);
  runtime::NDArray z = vm->invoke("main", {x}).as_tensor();
  for (int i = 0; i < 6; ++i) EXPECT_EQ(z.data_as<float>()[i], float(i) + 2);
}

}  // namespace
}  // namespace relax::transform
