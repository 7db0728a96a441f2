// kill-after-last-use: kills follow the last use, never the result or parameters; alias
// groups are killed once, after the last use of any member.
#include <gtest/gtest.h>

#include "relax/text/parser.h"
#include "relax/text/printer.h"
#include "relax/ir/structural_equal.h"
#include "relax/vm/vm_ops.h"
#include "relax/target/compile.h"
#include "relax/transform/pass_context.h"

namespace relax::transform {
namespace {

IRModule kill(const IRModule& mod) {
  PassContext ctx;
  return make_core_registry().create("kill-after-last-use")(mod, ctx);
}

void expect_equal(const IRModule& actual, const IRModule& expected) {
  EXPECT_TRUE(structural_equal(actual, expected)) << "actual:\n"
                                                  << print_module(actual) << "\nexpected:\n"
                                                  << print_module(expected);
}

TEST(KillAfterLastUse, KillsAfterLastUseKeepsResultAndParams) {
  vm::register_vm_ops();
  IRModule before = parse_module(R"(
@R.function(pure=False)
def main(x: R.Tensor((2,), "float32")):
    a = R.call_packed("f", x, sinfo_args=R.Tensor((2,), "float32"))
    b = R.call_packed("f", a, sinfo_args=R.Tensor((2,), "float32"))
    c = b
    d = R.call_packed("f", x, sinfo_args=R.Tensor((2,), "float32"))
    e = R.call_packed("g", c, d, sinfo_args=R.Tensor((2,), "float32"))
    return e
)");
  IRModule expected = parse_module(R"(
@R.function(pure=False)
def main(x: R.Tensor((2,), "float32")):
    a = R.call_packed("f", x, sinfo_args=R.Tensor((2,), "float32"))
    b = R.call_packed("f", a, sinfo_args=R.Tensor((2,), "float32"))
    _ = R.vm.kill_object(a)
    c = b
    d = R.call_packed("f", x, sinfo_args=R.Tensor((2,), "float32"))
    e = R.call_packed("g", c, d, sinfo_args=R.Tensor((2,), "float32"))
    _1 = R.vm.kill_object(b)
    _2 = R.vm.kill_object(d)
    return e
)");
  expect_equal(kill(before), expected);
}

TEST(KillAfterLastUse, BranchesKillOnlyTheirOwnVariables) {
  vm::register_vm_ops();
  IRModule before = parse_module(R"(
@R.function(pure=False)
def main(x: R.Tensor((2,), "float32"), flag: R.Prim("bool")):
    a = R.call_packed("f", x, sinfo_args=R.Tensor((2,), "float32"))
    if flag:
        t = R.call_packed("f", a, sinfo_args=R.Tensor((2,), "float32"))
        u = R.call_packed("f", t, sinfo_args=R.Tensor((2,), "float32"))
        r = R.call_packed("f", u, sinfo_args=R.Tensor((2,), "float32"))
    else:
        r = a
    return r
)");
  IRModule expected = parse_module(R"(
@R.function(pure=False)
def main(x: R.Tensor((2,), "float32"), flag: R.Prim("bool")):
    a = R.call_packed("f", x, sinfo_args=R.Tensor((2,), "float32"))
    if flag:
        t = R.call_packed("f", a, sinfo_args=R.Tensor((2,), "float32"))
        u = R.call_packed("f", t, sinfo_args=R.Tensor((2,), "float32"))
        _ = R.vm.kill_object(t)
        r = R.call_packed("f", u, sinfo_args=R.Tensor((2,), "float32"))
    else:
        r = a
    _1 = R.vm.kill_object(a)
    return r
)");
  expect_equal(kill(before), expected);
}

}  // namespace
}  // namespace relax::transform
