// pass_bench: the speedup of function-level passes with --jobs.
//
// Builds a module of 200 functions (each a dataflow chain of `depth` elementwise ops) and runs
// the core's function- and block-level passes over it at 1, 2, ... threads, reporting the best
// of several runs and the speedup over one thread. Checks that every thread count gives a
// structurally equal module.
//
//   relax-pass-bench [functions=200] [depth=64] [repeats=5] [max-jobs=hardware threads]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "relax/ir/block_builder.h"
#include "relax/ir/structural_equal.h"
#include "relax/op/op.h"
#include "relax/tir/expr.h"
#include "relax/target/compile.h"
#include "relax/transform/pass_context.h"

using namespace relax;
using namespace relax::transform;

namespace {

IRModule make_module(int functions, int depth) {
  BlockBuilder bb;
  const DataType f32 = DataType::Float(32);
  for (int f = 0; f < functions; ++f) {
    auto n = tir::var("n");
    auto x = make_var("x", tensor_sinfo({n, tir::int_imm(4)}, f32));
    bb.begin_function("f" + std::to_string(f), {x});
    bb.begin_dataflow_block();
    Expr cur = x;
    for (int i = 0; i < depth; ++i) cur = bb.emit(i % 2 ? op::multiply(cur, x) : op::add(cur, x));
    auto out = bb.emit_output(cur, "out");
    bb.end_block();
    bb.end_function(out);
  }
  return bb.get_module();
}

double run_ms(const Pass& pass, const IRModule& mod, int jobs, int repeats, IRModule* out) {
  double best = 1e100;
  for (int r = 0; r < repeats; ++r) {
    PassContext ctx;
    ctx.set_jobs(jobs);
    auto t0 = std::chrono::steady_clock::now();
    *out = pass(mod, ctx);
    auto t1 = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  int functions = argc > 1 ? std::atoi(argv[1]) : 200;
  int depth = argc > 2 ? std::atoi(argv[2]) : 64;
  int repeats = argc > 3 ? std::atoi(argv[3]) : 5;
  int max_jobs =
      argc > 4 ? std::atoi(argv[4]) : int(std::max(1u, std::thread::hardware_concurrency()));
  IRModule mod = make_module(functions, depth);
  PassRegistry registry = make_core_registry();
  std::printf("module: %d functions x %d bindings; hardware threads: %u\n", functions, depth,
              std::thread::hardware_concurrency());
  int status = 0;
  for (const char* name : {"normalize", "to-non-dataflow"}) {
    Pass pass = registry.create(name);
    IRModule reference;
    double base = run_ms(pass, mod, 1, repeats, &reference);
    std::printf("%-16s jobs=1  %9.2f ms\n", name, base);
    for (int jobs = 2; jobs <= max_jobs; jobs *= 2) {
      IRModule out;
      double ms = run_ms(pass, mod, jobs, repeats, &out);
      bool same = structural_equal(reference, out);
      if (!same) status = 1;
      std::printf("%-16s jobs=%-2d %9.2f ms  speedup %.2fx  %s\n", name, jobs, ms, base / ms,
                  same ? "identical" : "DIFFERENT");
    }
  }
  return status;
}
