// TVMScript of GPU kernels: thread-bound loops, shared and local allocations and the
// T.tvm_storage_sync barrier print and parse back unchanged; bad barrier scopes are errors
// at their position.
#include <gtest/gtest.h>

#include "relax/ir/structural_equal.h"
#include "relax/text/parser.h"
#include "relax/text/printer.h"
#include "relax/tir/intrin.h"
#include "text_test_util.h"

namespace relax {
namespace {

using testing::expect_fixed_point;
using testing::expect_parse_error;
using testing::expect_round_trip;

const char* kGpuKernel = R"(
@T.prim_func
def reduce(A: T.Buffer((1000,), "float32"), Out: T.Buffer((1,), "float32")):
    T.func_attr({"global_symbol": "reduce"})
    with T.block("root"):
        L = T.alloc_buffer((1,), "float32", scope="local")
        for bx in T.thread_binding(1, thread="blockIdx.x"):
            buf = T.allocate([128], "float32", "shared")
            S = T.Buffer((128,), "float32", data=buf, scope="shared")
            for tx in T.thread_binding(128, thread="threadIdx.x"):
                L[0] = T.float32(0)
                for k in range(8):
                    if k * 128 + tx < 1000:
                        L[0] = L[0] + A[k * 128 + tx]
                S[tx] = L[0]
                T.tvm_storage_sync("shared")
                for v in T.thread_binding(2, thread="vthread"):
                    if tx < 64 and v == 0:
                        S[tx] = S[tx] + S[tx + 64]
                T.evaluate(T.tvm_storage_sync("shared"))
                if tx == 0:
                    Out[0] = S[0]
)";

TEST(GpuScript, ThreadLoopsScopesAndBarriersRoundTrip) {
  IRModule m = expect_fixed_point(kGpuKernel);
  std::string text = expect_round_trip(m);
  for (const char* piece : {"L = T.alloc_buffer((1,), \"float32\", scope=\"local\")",
                            "for bx in T.thread_binding(1, thread=\"blockIdx.x\"):",
                            "buf = T.allocate([128], \"float32\", \"shared\")",
                            "for tx in T.thread_binding(128, thread=\"threadIdx.x\"):",
                            "for v in T.thread_binding(2, thread=\"vthread\"):",
                            "                T.tvm_storage_sync(\"shared\")\n"})
    EXPECT_NE(text.find(piece), std::string::npos) << piece << "\n" << text;
  // T.evaluate(T.tvm_storage_sync(...)) is the same statement, printed bare.
  EXPECT_EQ(text.find("T.evaluate(T.tvm_storage_sync"), std::string::npos) << text;
  auto f = m.lookup("reduce").as_ref<tir::PrimFunc>();
  int barriers = 0;
  struct Count : tir::StmtVisitor {
    int* n;
    using StmtVisitor::visit_;
    void visit_(const tir::Evaluate* op) override { *n += tir::is_storage_sync(op->value); }
  } count;
  count.n = &barriers;
  count(f->body);
  EXPECT_EQ(barriers, 2);
}

TEST(GpuScript, BuiltBarrierPrintsAsTvmSpelling) {
  tir::PrimExpr s = tir::storage_sync();
  auto f = tir::make_prim_func({}, make_ref<tir::Evaluate>(s));
  std::string text = print_prim_func(f, "sync");
  EXPECT_NE(text.find("    T.tvm_storage_sync(\"shared\")\n"), std::string::npos) << text;
  auto back = parse_prim_func(text);
  EXPECT_FALSE(structural_diff(f, back).has_value()) << text;
}

TEST(GpuScript, BadBarrierScopesAreErrors) {
  expect_parse_error(R"(
@T.prim_func
def f():
    T.tvm_storage_sync("local")
)",
                     "T.tvm_storage_sync synchronises the \"shared\" scope, got \"local\"", 4, 24);
  expect_parse_error(R"(
@T.prim_func
def f():
    T.tvm_storage_sync()
)",
                     "T.tvm_storage_sync takes one scope", 4, 5);
}

}  // namespace
}  // namespace relax
