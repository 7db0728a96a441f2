// rfactor.
#include "schedule_test_util.h"

namespace relax::tir {
namespace {

using namespace schedule_test;

// B[i] = sum_k A[i, k] over 4x16.
const char* kRowSum = R"(
@T.prim_func
def f(A: T.Buffer((4, 16), "float32"), B: T.Buffer((4,), "float32")):
    for i, k in T.grid(4, 16):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk]
)";

TEST(ScheduleRfactor, Explore) {
  Ref<PrimFunc> before = parse(kRowSum);
  Schedule s(before);
  auto l = s.get_loops(s.get_block("B"));
  auto k = s.split(l[1], {-1, 4});
  BlockRV rf = s.rfactor(k[1], 0);
  std::cout << rf.name << "\n" << print_prim_func(s.func());
  expect_same_results(before, s.func(), 1e-5);
  Schedule t(before);
  l = t.get_loops(t.get_block("B"));
  k = t.split(l[1], {-1, 5});
  t.rfactor(k[0], 1);
  std::cout << print_prim_func(t.func());
  expect_same_results(before, t.func(), 1e-5);
}

}  // namespace
}  // namespace relax::tir
