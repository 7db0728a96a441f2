// The GPU verifier (verify_gpu), the grid checks the host asserts when grid sizes are
// symbolic, and the text form of a GpuProgram (kernel/gpu_lower.h).
//
// verify_gpu runs before codegen on a split program; it reports, naming the kernel and the
// limit: block sizes that are not constant or exceed the per-dimension or total thread limit,
// shared bytes above the limit, constant grid sizes above the per-dimension maximum, a thread
// tag bound again with a different extent, and a store to a global buffer
// that no threadIdx loop encloses (every thread of the block would run it).
#include <sstream>
#include <unordered_map>

#include "relax/arith/analyzer.h"
#include "relax/kernel/gpu_lower.h"

namespace relax::tir {

namespace {

/// Walks one kernel's body for thread-tag consistency and unguarded global stores.
struct KernelChecker : StmtVisitor {
  const GpuKernel* kernel;
  std::vector<std::string>* problems;
  std::unordered_map<std::string, PrimExpr> extents;  // tag -> first extent
  int thread_depth = 0;
  int64_t threads = 1;
  using StmtVisitor::visit_;

  void visit_(const For* op) override {
    if (op->kind != ForKind::kThreadBinding) return StmtVisitor::visit_(op);
    const std::string& t = op->thread_tag;
    auto it = extents.find(t);
    if (it == extents.end()) {
      extents.emplace(t, op->extent);
    } else if (!arith::prove_equal(it->second, op->extent)) {
      problems->push_back("kernel " + kernel->name + ": " + t + " is bound with extent " +
                          to_string(it->second) + " and again with extent " +
                          to_string(op->extent) + " (loop " + op->loop_var->name + ")");
    }
    bool is_thread = t.rfind("threadIdx.", 0) == 0;
    thread_depth += is_thread;
    StmtVisitor::visit_(op);
    thread_depth -= is_thread;
  }
  void visit_(const BufferStore* op) override {
    if (op->buffer->scope == "global" && thread_depth == 0 && threads > 1)
      problems->push_back("kernel " + kernel->name + ": the store to global buffer " +
                          op->buffer->name +
                          " is outside every threadIdx loop (all threads of the block would "
                          "write it)");
    StmtVisitor::visit_(op);
  }
};

const char* kDims = "xyz";

}  // namespace

std::vector<std::string> verify_gpu(const GpuProgram& program, const GpuLimits& limits) {
  std::vector<std::string> problems;
  auto add = [&](const GpuKernel& k, const std::string& what) {
    problems.push_back("kernel " + k.name + ": " + what +
                       (limits.target.empty() ? "" : " (target " + limits.target + ")"));
  };
  for (const auto& k : program.kernels) {
    int64_t threads = 1;
    bool constant_block = true;
    for (int d = 0; d < 3; ++d) {
      const int64_t* b = as_const_int(k.block[d]);
      std::string dim = std::string("threadIdx.") + kDims[d];
      if (!b) {
        constant_block = false;
        add(k, "the block size " + dim + " = " + to_string(k.block[d]) +
                   " is not a constant (thread extents must be)");
        continue;
      }
      threads *= *b;
      if (*b > limits.max_block[d])
        add(k, dim + " = " + std::to_string(*b) + " threads exceeds the limit of " +
                   std::to_string(limits.max_block[d]) + " threads per block in " + kDims[d]);
      if (const int64_t* g = as_const_int(k.grid[d]); g && *g > limits.max_grid[d])
        add(k, std::string("the grid size blockIdx.") + kDims[d] + " = " + std::to_string(*g) +
                   " exceeds the limit of " + std::to_string(limits.max_grid[d]) + " blocks");
    }
    if (constant_block && threads > limits.max_threads_per_block)
      add(k, std::to_string(threads) + " threads per block exceeds the limit of " +
                 std::to_string(limits.max_threads_per_block));
    if (k.shared_bytes > limits.max_shared_memory_bytes)
      add(k, std::to_string(k.shared_bytes) + " bytes of shared memory exceeds the limit of " +
                 std::to_string(limits.max_shared_memory_bytes) + " bytes");
    KernelChecker checker;
    checker.kernel = &k;
    checker.problems = &problems;
    checker.threads = constant_block ? threads : 2;
    checker.visit_stmt(k.func->body);
  }
  return problems;
}

std::vector<HostCheck> grid_checks(const GpuProgram& program, const GpuLimits& limits) {
  std::vector<HostCheck> checks;
  for (const auto& k : program.kernels)
    for (int d = 0; d < 3; ++d) {
      if (as_const_int(k.grid[d])) continue;
      std::string dim = std::string("blockIdx.") + kDims[d];
      checks.push_back({le(cast(DataType::Int(64), k.grid[d]), int_imm(limits.max_grid[d])),
                        "kernel " + k.name + ": the grid size " + dim + " = " +
                            to_string(k.grid[d]) + " exceeds the limit of " +
                            std::to_string(limits.max_grid[d]) + " blocks"});
    }
  return checks;
}

std::string to_string(const GpuProgram& program) {
  std::ostringstream os;
  os << "host " << to_string(program.host) << "\n";
  for (const auto& k : program.kernels) {
    os << "kernel " << k.name << " grid(" << to_string(k.grid[0]) << ", " << to_string(k.grid[1])
       << ", " << to_string(k.grid[2]) << ") block(" << to_string(k.block[0]) << ", "
       << to_string(k.block[1]) << ", " << to_string(k.block[2]) << ") shared " << k.shared_bytes
       << " bytes args(";
    for (size_t i = 0; i < k.args.size(); ++i)
      os << (i ? ", " : "")
         << (k.args[i].buffer.defined() ? k.args[i].buffer->name : to_string(k.args[i].scalar));
    os << ")\n" << to_string(k.func) << "\n";
  }
  return os.str();
}

}  // namespace relax::tir
