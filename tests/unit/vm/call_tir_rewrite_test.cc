// call-tir-rewrite: before/expected modules compared by structural equality.
#include <gtest/gtest.h>

#include "relax/text/parser.h"
#include "relax/text/printer.h"
#include "relax/ir/structural_equal.h"
#include "relax/vm/vm_ops.h"
#include "relax/target/compile.h"
#include "relax/transform/pass_context.h"

namespace relax::transform {
namespace {

IRModule run(const std::string& pass, const IRModule& mod) {
  PassContext ctx;
  return make_core_registry().create(pass)(mod, ctx);
}

void expect_equal(const IRModule& actual, const IRModule& expected) {
  EXPECT_TRUE(structural_equal(actual, expected)) << "actual:\n"
                                                  << print_module(actual) << "\nexpected:\n"
                                                  << print_module(expected);
}

const char* kPrimFunc = R"(
    @T.prim_func
    def add(a: T.handle, b: T.handle, c: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (n,), "float32")
        C = T.match_buffer(c, (n,), "float32")
        for i in range(n):
            C[i] = A[i] + B[i]
)";

TEST(CallTirRewrite, CallTirBecomesAllocationAndDpsCall) {
  vm::register_vm_ops();
  IRModule before = parse_module(std::string(R"(
@I.ir_module
class Module:)") + kPrimFunc + R"(
    @R.function
    def main(x: R.Tensor((n,), "float32")) -> R.Tensor((n,), "float32"):
        z = R.call_tir(cls.add, (x, x), out_sinfo=R.Tensor((n,), "float32"))
        return z
)");
  IRModule expected = parse_module(std::string(R"(
@I.ir_module
class Module:)") + kPrimFunc + R"(
    @R.function
    def main(x: R.Tensor((n,), "float32")) -> R.Tensor((n,), "float32"):
        alloc = R.builtin.alloc_tensor(R.shape([n]), R.dtype("float32"), R.prim_value(0))
        _ = R.vm.call_dps(cls.add, (x, x, alloc))
        z = alloc
        return z
)");
  expect_equal(run("call-tir-rewrite", before), expected);
}

TEST(CallTirRewrite, DpsPackedWithTupleOutput) {
  vm::register_vm_ops();
  IRModule before = parse_module(R"(
@R.function
def main(x: R.Tensor((2,), "float32")):
    t = R.call_dps_packed("f", (x,), out_sinfo=[R.Tensor((2,), "float32"), R.Tensor((3,), "int32")])
    return t
)");
  IRModule expected = parse_module(R"(
@R.function
def main(x: R.Tensor((2,), "float32")):
    alloc = R.builtin.alloc_tensor(R.shape([2]), R.dtype("float32"), R.prim_value(0))
    alloc1 = R.builtin.alloc_tensor(R.shape([3]), R.dtype("int32"), R.prim_value(0))
    _ = R.vm.call_dps(R.ExternFunc("f"), (x, alloc, alloc1))
    t = (alloc, alloc1)
    return t
)");
  expect_equal(run("call-tir-rewrite", before), expected);
}

TEST(CallTirRewrite, OtherCallsUntouched) {
  IRModule before = parse_module(R"(
@R.function(pure=False)
def main(x: R.Tensor((2,), "float32")):
    y = R.call_packed("f", x, sinfo_args=R.Tensor((2,), "float32"))
    return y
)");
  IRModule out = run("call-tir-rewrite", before);
  EXPECT_TRUE(out.lookup("main").same_as(before.lookup("main")));
}

}  // namespace
}  // namespace relax::transform
