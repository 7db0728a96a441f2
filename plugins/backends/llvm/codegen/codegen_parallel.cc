// Parallel loops: the outermost ForKind::kParallel loop of a kernel runs on the runtime's
// thread pool (RxParallelFor, c_abi.h).
//
// The loop body is outlined into an internal function
//   i32 <kernel>.parallel.N(i64 begin, i64 end, ptr closure)
// that runs iterations [begin, end) serially and returns 0 or the status of a failed check
// (its message already stored through __rx_set_last_error, on the worker's thread). The
// closure is a struct on the kernel's stack holding every value the body uses from outside:
// buffer data pointers, scalar parameters, shape variables, enclosing loop variables and lets
// (constants are used directly). The kernel calls the function-pointer global
// `__rx_parallel_for` (set by the module loader) with the range, grain 0 (the runtime
// chooses), the body and the closure, and returns a non-zero status as its own, after freeing
// its heap allocations. When the pointer is null (a loader that predates it) the kernel calls
// the body once over the whole range instead.
//
// Parallel loops inside the body run serially: one launch per kernel invocation is what the
// thread pool is sized for, and the outer loop has the coarser grain.
#include <algorithm>

#include "codegen_llvm.h"
#include "llvm_build.h"
#include "relax/support/diagnostic.h"

namespace relax::llvm_backend {

using namespace relax::tir;  // NOLINT
using tir::Call;             // not relax::Call
using tir::Var;              // not relax::Var

namespace {

/// The variables a statement uses, in order of first use (deterministic closure layout).
class UsedVars : public StmtExprVisitor {
 public:
  std::vector<const Var*> vars;

  using StmtExprVisitor::visit_;
  void visit_(const Var* op) override { add(op); }
  void visit_buffer(const Ref<Buffer>& buffer) override { add(buffer->data.get()); }
  void visit_(const Allocate* op) override {
    add(op->buffer_var.get());
    StmtExprVisitor::visit_(op);
  }

 private:
  void add(const Var* v) {
    if (std::find(vars.begin(), vars.end(), v) == vars.end()) vars.push_back(v);
  }
};

}  // namespace

void CodeGenLLVM::emit_parallel_loop(const For* op) {
  DataType t = op->loop_var->dtype;
  llvm::Value* begin = emit(op->min);
  llvm::Value* end = b_.CreateAdd(begin, emit(op->extent), op->loop_var->name + ".end");
  llvm::Value* begin64 = cast_value(begin, t, DataType::Int(64));
  llvm::Value* end64 = cast_value(end, t, DataType::Int(64));

  // What the body needs from here: bound variables whose values are not constants.
  UsedVars used;
  used(op->body);
  std::vector<std::pair<const Var*, llvm::Value*>> captured, constants;
  for (const Var* v : used.vars) {
    auto it = vars_.find(v);
    if (it == vars_.end()) continue;  // defined inside the body
    if (llvm::isa<llvm::Constant>(it->second))
      constants.emplace_back(v, it->second);
    else
      captured.emplace_back(v, it->second);
  }
  std::vector<llvm::Type*> field_types;
  for (const auto& c : captured) field_types.push_back(c.second->getType());
  llvm::StructType* closure_ty = llvm::StructType::get(ctx_, field_types);

  llvm::Value* closure = llvm::ConstantPointerNull::get(ptr_);
  if (!captured.empty()) {
    llvm::IRBuilder<> entry(entry_, entry_->begin());
    closure = entry.CreateAlloca(closure_ty, nullptr, op->loop_var->name + ".closure");
    for (size_t i = 0; i < captured.size(); ++i)
      b_.CreateStore(captured[i].second, b_.CreateStructGEP(closure_ty, closure, unsigned(i)));
  }

  // The outlined body, emitted with the codegen state of a fresh function.
  auto* body_ty = llvm::FunctionType::get(i32_, {i64_, i64_, ptr_}, false);
  llvm::Function* body_fn = llvm::Function::Create(
      body_ty, llvm::GlobalValue::InternalLinkage,
      func_->getName() + ".parallel." + std::to_string(parallel_count_++), module_);
  body_fn->addFnAttr(llvm::Attribute::NoUnwind);
  body_fn->addFnAttr("frame-pointer", "none");
  {
    llvm::Function* saved_func = func_;
    llvm::BasicBlock* saved_entry = entry_;
    auto saved_vars = std::move(vars_);
    auto saved_heap = std::move(heap_allocs_);
    llvm::Value* saved_mask = mask_;
    llvm::IRBuilderBase::InsertPoint saved_ip = b_.saveIP();
    func_ = body_fn;
    vars_.clear();
    heap_allocs_.clear();
    mask_ = nullptr;
    entry_ = new_block("entry");
    llvm::BasicBlock* start = new_block("start");
    b_.SetInsertPoint(start);
    llvm::Argument* env = body_fn->getArg(2);
    env->setName("closure");
    for (size_t i = 0; i < captured.size(); ++i) {
      llvm::Value* v =
          b_.CreateLoad(field_types[i], b_.CreateStructGEP(closure_ty, env, unsigned(i)),
                        captured[i].first->name);
      bind_var(captured[i].first, v);
    }
    for (const auto& c : constants) bind_var(c.first, c.second);
    llvm::Value* lo = int64_to(body_fn->getArg(0), t);
    llvm::Value* hi = int64_to(body_fn->getArg(1), t);
    ++parallel_depth_;
    emit_serial_loop(op, lo, hi);
    --parallel_depth_;
    b_.CreateRet(b_.getInt32(0));
    b_.SetInsertPoint(entry_);
    b_.CreateBr(start);

    func_ = saved_func;
    entry_ = saved_entry;
    vars_ = std::move(saved_vars);
    heap_allocs_ = std::move(saved_heap);
    mask_ = saved_mask;
    b_.restoreIP(saved_ip);
  }

  // status = __rx_parallel_for ? __rx_parallel_for(begin, end, 0, body, closure)
  //                            : body(begin, end, closure)
  llvm::Value* launch = b_.CreateLoad(ptr_, parallel_for_, "rx.parallel_for");
  llvm::BasicBlock* pool_bb = new_block("parallel.launch");
  llvm::BasicBlock* serial_bb = new_block("parallel.serial");
  llvm::BasicBlock* done_bb = new_block("parallel.done");
  b_.CreateCondBr(b_.CreateIsNull(launch), serial_bb, pool_bb);
  b_.SetInsertPoint(pool_bb);
  auto* launch_ty = llvm::FunctionType::get(i32_, {i64_, i64_, i64_, ptr_, ptr_}, false);
  llvm::Value* pool_status =
      b_.CreateCall(launch_ty, launch, {begin64, end64, b_.getInt64(0), body_fn, closure});
  b_.CreateBr(done_bb);
  b_.SetInsertPoint(serial_bb);
  llvm::Value* serial_status = b_.CreateCall(body_fn, {begin64, end64, closure});
  b_.CreateBr(done_bb);
  b_.SetInsertPoint(done_bb);
  llvm::PHINode* status = b_.CreatePHI(i32_, 2, "parallel.status");
  status->addIncoming(pool_status, pool_bb);
  status->addIncoming(serial_status, serial_bb);

  llvm::BasicBlock* ok = new_block("parallel.ok");
  llvm::BasicBlock* bad = new_block("parallel.failed");
  b_.CreateCondBr(b_.CreateICmpEQ(status, b_.getInt32(0)), ok, bad);
  b_.SetInsertPoint(bad);
  emit_status_return(status);
  b_.SetInsertPoint(ok);
}

}  // namespace relax::llvm_backend
