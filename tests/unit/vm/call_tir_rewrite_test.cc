// call-tir-rewrite: what the .rx cases (tests/passes/call-tir-rewrite/) cannot show — a
// function without DPS calls comes back as the same node.
#include <gtest/gtest.h>

#include "relax/target/compile.h"
#include "relax/text/parser.h"
#include "relax/transform/pass_context.h"

namespace relax::transform {
namespace {

TEST(CallTirRewrite, FunctionsWithoutDpsCallsStayShared) {
  IRModule before = parse_module(R"(
@R.function(pure=False)
def main(x: R.Tensor((2,), "float32")):
    y = R.call_packed("f", x, sinfo_args=R.Tensor((2,), "float32"))
    return y
)");
  PassContext ctx;
  IRModule out = make_core_registry().create("call-tir-rewrite")(before, ctx);
  EXPECT_TRUE(out.lookup("main").same_as(before.lookup("main")));
}

}  // namespace
}  // namespace relax::transform
