// lower_for_gpu (kernel/gpu_lower.h): the GPU lowering chain in its order.
//
// Cross-thread reductions need blocks (they read the reducer from the block's init and
// update), so they run first; tir::lower then gives the flat form every later pass expects;
// narrowing before barrier insertion keeps the barrier pass on the final index types; the
// split turns the narrowing's checks and the symbolic grid checks into host asserts; the
// verifier runs last, on what the backends receive.
#include "relax/kernel/gpu_lower.h"

#include "relax/kernel/lower.h"
#include "relax/support/diagnostic.h"

namespace relax::tir {

GpuProgram lower_for_gpu(const Ref<PrimFunc>& func, const GpuLimits& limits,
                         const std::string& name) {
  std::string n = name.empty() ? get_string(func->attrs, kAttrGlobalSymbol, "main") : name;
  Ref<PrimFunc> f = lower(lower_cross_thread_reduction(func));
  NarrowResult narrowed = narrow_indices(f, n);
  f = insert_barriers(narrowed.func, n);
  GpuProgram program = split_host_device(f, narrowed.checks, n);
  std::vector<HostCheck> grid = grid_checks(program, limits);
  if (!grid.empty()) {
    Stmt body = program.host->body;
    for (size_t i = grid.size(); i-- > 0;)
      body = make_ref<AssertStmt>(grid[i].condition, grid[i].message, body);
    program.host = with_body(program.host, body);
  }
  for (const auto& k : program.kernels) {
    std::vector<std::string> bad = verify_lowered(k.func);
    std::string text;
    for (const auto& p : bad) text += "\n  " + p;
    RX_ICHECK(bad.empty()) << "lower_for_gpu: kernel " << k.name << " is not a lowered function:"
                           << text;
  }
  std::vector<std::string> problems = verify_gpu(program, limits);
  if (!problems.empty()) {
    std::string text;
    for (const auto& p : problems) text += "\n  " + p;
    RX_THROW() << "lower_for_gpu: function " << n << " breaks the GPU limits:" << text;
  }
  return program;
}

}  // namespace relax::tir
