// The GPU half of the op-table harness (op_test_util.h), active in relax_ops_gpu_tests (mode
// kGpu, op_test_mode.h; tests/CMakeLists.txt, label gpu): OpRunner::run also schedules
// the legalised kernel with the default GPU rules (kernel/gpu_rules.h) for the interpreter's
// GPU target, lowers it for the GPU (kernel/gpu_lower.h: cross-thread reductions, barriers,
// narrowing, host/device split, verifier), runs the launch program in the reference
// interpreter (threads, shared memory and barriers simulated) on fresh outputs, and checks it against the unscheduled function's
// results. A kernel the rules leave on a single thread fails the test unless its op is on
// the allow-list below. With RELAX_GPU_RULE_REPORT=<file>, each run appends
// "<op> <static|symbolic> <block: rule, ...>" to the file: the report of which rule
// scheduled which op.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "relax/kernel/gpu_lower.h"
#include "relax/kernel/gpu_rules.h"

namespace relax::ops_test {

/// Ops whose kernels may stay on one GPU thread: those sequential by nature (each element
/// depends on the ones before, or an output position on the data) until a GPU scan/sort rule
/// exists, and argmax/argmin over every axis (a tuple reducer without spatial loops: the
/// cross-thread lowering handles +, *, max and min only, so no parallel schedule lowers).
inline bool single_thread_allowed(const std::string& op) {
  static const std::set<std::string> ops = {
      "relax.cumsum",       "relax.cumprod",    "relax.sort",
      "relax.argsort",      "relax.topk",       "relax.unique",
      "relax.nonzero",      "relax.scatter_elements", "relax.scatter_nd",
      "relax.argmax",       "relax.argmin",     "relax.vision.non_max_suppression",
      "relax.vision.all_class_non_max_suppression"};
  return ops.count(op) > 0;
}

/// The GPU limits the harness schedules for: the interpreter's GPU target (tir-interp,gpu=1)
/// with its defaults; a test may change them (the schedule fuzz test does).
inline tir::GpuLimits& interp_gpu_limits() {
  static tir::GpuLimits l = [] {
    tir::GpuLimits d;
    d.target = "tir-interp,gpu=1";
    return d;
  }();
  return l;
}

inline void record_gpu_rule(const std::string& op, bool symbolic,
                            const tir::GpuScheduleReport& report) {
  const char* path = std::getenv("RELAX_GPU_RULE_REPORT");
  if (!path) return;
  if (FILE* f = std::fopen(path, "a")) {
    std::fprintf(f, "%s %s %s\n", op.c_str(), symbolic ? "symbolic" : "static",
                 report.summary().c_str());
    std::fclose(f);
  }
}

/// Schedules `func` for the GPU, runs the GPU form on `args` with fresh outputs and checks
/// them against the unscheduled function's `interp_outs`. Returns the GPU outputs.
inline std::vector<runtime::NDArray> run_gpu_and_compare(
    const std::string& op, bool symbolic, const Ref<tir::PrimFunc>& func,
    std::vector<tir::InterpArg> args, size_t first_out,
    const std::vector<runtime::NDArray>& interp_outs) {
  tir::GpuScheduled s = tir::apply_default_gpu_schedule(func, interp_gpu_limits(), op);
  record_gpu_rule(op, symbolic, s.report);
  if (s.report.single_thread() && !single_thread_allowed(op)) {
    std::string why;
    for (const std::string& w : s.report.warnings) why += "\n  " + w;
    ADD_FAILURE() << op << " falls back to a single GPU thread (not on the allow-list):" << why;
  }
  EXPECT_TRUE(tir::is_gpu_scheduled(s.func)) << op << ": a block is not thread-bound";
  std::vector<runtime::NDArray> outs;
  std::vector<tir::InterpArg> gpu_args =
      with_fresh_outputs(std::move(args), first_out, interp_outs.size(), outs);
  tir::run_gpu_program(s.program ? *s.program : tir::lower_for_gpu(s.func, interp_gpu_limits(), op),
                       gpu_args);
  for (size_t k = 0; k < outs.size(); ++k)
    EXPECT_TRUE(tensors_close(outs[k], interp_outs[k], 1e-5, 1e-5))
        << op << ": GPU output " << k << " against the unscheduled function's ("
        << s.report.summary() << ")";
  return outs;
}

}  // namespace relax::ops_test
