// The reference interpreter's statements (interpreter_exec.h), run in order, and its entry
// point: bind the arguments (interpreter_args.cc), find the block regions (interpreter_gpu.cc),
// walk the body.
#include "interpreter_exec.h"

#include "relax/support/diagnostic.h"
#include "relax/tir/intrin.h"

namespace relax::tir::interp {

void Executor::visit_(const LetStmt* op) {
  Scoped scope(env_, op->var.get(), eval_.lanes(op->value));
  visit_stmt(op->body);
}

void Executor::visit_(const AssertStmt* op) {
  RX_CHECK(eval_(op->condition, 0).i != 0) << "assertion failed: " << op->message;
  visit_stmt(op->body);
}

void Executor::visit_(const For* op) {
  if (op->kind == ForKind::kThreadBinding && gpu_) {
    int axis = thread_axis(op->thread_tag);
    if (thread_ && axis >= 0) return thread_loop(op, axis);
    if (!thread_ && is_block_tag(op->thread_tag)) {
      // Blocks run one after another; the "global" allocations of the kernel's block regions
      // live until its outermost blockIdx loop ends.
      struct Depth {
        Gpu& gpu;
        explicit Depth(Gpu& gpu) : gpu(gpu) { ++gpu.block_depth; }
        ~Depth() {
          if (--gpu.block_depth == 0) gpu.global_memory.clear();
        }
      } depth(*gpu_);
      return serial_loop(op);
    }
  }
  serial_loop(op);
}

void Executor::serial_loop(const For* op) {
  int64_t min = eval_.eval_int(op->min), extent = eval_.eval_int(op->extent);
  DataType t = op->loop_var->dtype;
  Scoped scope(env_, op->loop_var.get(), {int_scalar(min)});
  std::vector<Scalar>& slot = env_.vars.at(op->loop_var.get());
  for (int64_t i = 0; i < extent; ++i) {
    slot[0] = int_scalar(wrap(t, min + i));
    visit_stmt(op->body);
  }
}

void Executor::visit_(const BufferStore* op) {
  const Buffer& b = *op->buffer;
  int lanes = op->value->dtype.lanes;
  std::vector<char*> addrs;
  std::vector<Scalar> values;
  for (int l = 0; l < lanes; ++l) {
    values.push_back(eval_(op->value, l));
    addrs.push_back(eval_.address(b, eval_.offset(b, op->indices, l), "store to"));
  }
  for (int l = 0; l < lanes; ++l) store_scalar(b.dtype, addrs[size_t(l)], values[size_t(l)]);
}

void Executor::visit_(const IfThenElse* op) {
  if (eval_(op->condition, 0).i != 0) {
    visit_stmt(op->then_case);
  } else if (op->else_case.defined()) {
    visit_stmt(op->else_case);
  }
}

void Executor::visit_(const SeqStmt* op) {
  for (const auto& s : op->seq) visit_stmt(s);
}

void Executor::visit_(const Allocate* op) {
  int64_t n = 1;
  for (const auto& e : op->extents) {
    int64_t x = eval_.eval_int(e);
    RX_CHECK(x >= 0) << "Allocate " << op->buffer_var->name << " with a negative extent " << x;
    n *= x;
  }
  int64_t nbytes = n * op->dtype.bytes();
  bool local = op->scope == "local";
  if (thread_ && !local) return thread_allocate(op, nbytes);
  std::vector<char> storage(size_t(nbytes), char(0xFF));
  Mapped mapped(env_, op->buffer_var.get(), Memory{storage.data(), nbytes, local && !thread_});
  visit_stmt(op->body);
}

void Executor::visit_(const Evaluate* op) {
  if (is_storage_sync(op->value)) {
    // A barrier synchronises the threads of a block; a single thread passes it.
    if (thread_ && thread_->fiber) barrier(op);
    return;
  }
  for (int l = 0; l < op->value->dtype.lanes; ++l) eval_(op->value, l);
}

void Executor::visit_(const Block* op) {
  RX_THROW() << "the interpreter runs lowered PrimFuncs; block " << op->name
             << " is left (run tir::lower)";
}

void Executor::visit_(const BlockRealize* op) { visit_(op->block.get()); }

}  // namespace relax::tir::interp

namespace relax::tir {

void interpret(const Ref<PrimFunc>& func, const std::vector<InterpArg>& args) {
  RX_CHECK(func.defined()) << "interpret of an undefined PrimFunc";
  interp::Env env;
  interp::bind_args(*func, args, env);
  std::unique_ptr<interp::Gpu> gpu = interp::analyze_gpu(*func);
  interp::Executor exec(env, gpu.get());
  exec(func->body);
}

}  // namespace relax::tir
