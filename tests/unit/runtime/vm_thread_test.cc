// One executable shared by eight threads, each with its own VirtualMachine.
#include <atomic>
#include <thread>

#include "runtime_test_util.h"

namespace relax::runtime {
namespace {

TEST(VMThreads, EightThreadsRunOneExecutable) {
  // Loaded from bytes, as a deployed program would be.
  Ref<Executable> add = Executable::load(testing::build_symbolic_add()->save());
  Ref<Executable> ints = Executable::load(testing::build_int_programs()->save());
  constexpr int kThreads = 8, kIterations = 40;
  constexpr int64_t kFib[] = {144, 233, 377};  // fib(12), fib(13), fib(14)
  std::atomic<int> failures{0}, runs{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      try {
        auto vm_add = VirtualMachine::create(add);
        auto vm_ints = VirtualMachine::create(ints);
        for (int i = 0; i < kIterations; ++i) {
          int64_t n = 1 + (t + i) % 5, m = 1 + (t * 3 + i) % 7;
          NDArray x = testing::iota_f32({n, m}, float(t)), y = testing::iota_f32({n, m}, float(i));
          NDArray out = vm_add->invoke("main", {x, y}).as_tensor();
          bool ok = out.shape() == std::vector<int64_t>{n, m};
          for (int64_t k = 0; ok && k < out.numel(); ++k)
            ok = out.data_as<float>()[k] == float(t + i + 2 * k);
          ok = ok && vm_ints->invoke("fib", {Value(int64_t(12 + t % 3))}).as_int() == kFib[t % 3];
          ok = ok &&
               vm_ints->invoke("sum_to", {Value(int64_t(i))}).as_int() == int64_t(i) * (i - 1) / 2;
          // Errors in one thread do not disturb the others.
          try {
            vm_add->invoke("main", {x, testing::iota_f32({n + 1, m})});
            ok = false;
          } catch (const Error&) {
          }
          if (!ok) ++failures;
          ++runs;
        }
      } catch (...) {
        ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(runs.load(), kThreads * kIterations);
}

}  // namespace
}  // namespace relax::runtime
