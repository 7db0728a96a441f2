// Function-level passes over many functions: the same result whatever the thread count.
#include <gtest/gtest.h>

#include <mutex>
#include <set>
#include <thread>

#include "../../common/error_of.h"
#include "relax/ir/structural_equal.h"
#include "relax/target/compile.h"
#include "relax/text/printer.h"
#include "relax/transform/pass_context.h"
#include "transform_test_util.h"

namespace relax::transform {
namespace {

IRModule run_with_jobs(const std::vector<Pass>& passes, const IRModule& mod, int jobs) {
  PassContext ctx;
  ctx.set_jobs(jobs);
  return run_passes(passes, mod, ctx);
}

TEST(Parallel, TwoHundredFunctionsPrintIdenticallyForAnyJobCount) {
  IRModule mod = test::make_chain_module(200, 8);
  PassRegistry reg = make_core_registry();
  std::vector<Pass> passes{reg.create("normalize"), reg.create("to-non-dataflow"),
                           reg.create("attach-global-symbol")};
  IRModule one = run_with_jobs(passes, mod, 1);
  std::string text = print_module(one);
  for (int jobs : {2, 4}) {
    IRModule many = run_with_jobs(passes, mod, jobs);
    EXPECT_TRUE(structural_equal(one, many)) << jobs;
    EXPECT_EQ(print_module(many), text) << "jobs=" << jobs;
  }
  EXPECT_EQ(one.size(), 200u);
  EXPECT_EQ(one.functions()[199].gv->name, "f199");  // module order kept
}

TEST(Parallel, UsesSeveralThreadsAndReportsTheFirstFailureInModuleOrder) {
  IRModule mod = test::make_chain_module(64, 2);
  PassRegistry reg;
  std::mutex mu;
  std::set<std::thread::id> threads;
  reg.add({"spy", "", Granularity::kFunction, {}},
          FunctionTransform([&](const Ref<Function>& f, const PassArgs& a) {
            {
              std::lock_guard<std::mutex> lock(mu);
              threads.insert(std::this_thread::get_id());
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
            if (a.function_name == "f40" || a.function_name == "f9")
              RX_THROW() << "fails in " << a.function_name;
            return f;
          }));
  for (int jobs : {1, 2}) {
    threads.clear();
    std::string msg = test::error_of([&] { run_with_jobs({reg.create("spy")}, mod, jobs); });
    EXPECT_EQ(msg, "error: fails in f9") << "jobs=" << jobs;
    EXPECT_EQ(threads.size() > 1, jobs > 1 && std::thread::hardware_concurrency() > 1)
        << "jobs=" << jobs;
  }
}

}  // namespace
}  // namespace relax::transform
