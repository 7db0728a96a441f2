// Statements: loops (serial loops; unrolled loops and vectorized loops that cannot be widened
// carry LLVM loop hints; vectorized loops of a constant extent are widened to vectors
// (codegen_vector.cc); the outermost parallel loop is launched on the runtime's thread pool
// (codegen_parallel.cc) and parallel loops inside it run serially, as do thread-bound loops),
// stores (masked under a vector condition), conditionals, lets, asserts and allocations (stack
// for small constant sizes, malloc/free otherwise).
#include <algorithm>

#include <llvm/IR/MDBuilder.h>

#include "codegen_llvm.h"
#include "relax/runtime/c_abi.h"
#include "relax/support/diagnostic.h"

namespace relax::llvm_backend {

using namespace relax::tir;  // NOLINT

void CodeGenLLVM::visit_(const LetStmt* op) {
  llvm::Value* v = emit(op->value);
  v->setName(op->var->name);
  bind_var(op->var.get(), v);
  emit(op->body);
  unbind_var(op->var.get());
}

void CodeGenLLVM::visit_(const AssertStmt* op) {
  llvm::Value* c = emit(op->condition);
  emit_check(c, "kernel '" + kernel_name_ + "': " + op->message, kRxError);
  emit(op->body);
}

void CodeGenLLVM::visit_(const For* op) {
  if (op->kind == ForKind::kParallel && parallel_depth_ == 0) {
    emit_parallel_loop(op);
    return;
  }
  if (op->kind == ForKind::kVectorized) {
    const int64_t* lanes = as_const_int(op->extent);
    if (lanes && *lanes >= 2 && *lanes <= kMaxVectorLanes) {
      if (WidenedLoop widened = vectorize_loop_body(*op); widened.body.defined()) {
        auto saved = vector_conditions_;
        vector_conditions_ = &widened.masks;
        emit(widened.body);
        vector_conditions_ = saved;
        return;
      }
    }
  }
  if (op->kind == ForKind::kSerial) {
    if (Stmt promoted = promote_accumulator(*op); promoted.defined()) {
      emit(promoted);
      return;
    }
  }
  if (op->kind == ForKind::kUnrolled) {
    // A short unrolled loop is unrolled here, its variable a constant in each copy: the
    // register-blocked schedule (schedule_rules.h) relies on the copies existing before LLVM's
    // LICM looks at the enclosing reduction loop (it then keeps the accumulators in registers).
    const int64_t* n = as_const_int(op->extent);
    const int64_t* min = as_const_int(op->min);
    if (n && min && *n <= kMaxUnrollExtent) {
      for (int64_t i = 0; i < *n; ++i) {
        bind_var(op->loop_var.get(), const_int(op->loop_var->dtype, *min + i));
        emit(op->body);
        unbind_var(op->loop_var.get());
      }
      return;
    }
  }
  llvm::Value* begin = emit(op->min);
  llvm::Value* end = b_.CreateAdd(begin, emit(op->extent), op->loop_var->name + ".end");
  emit_serial_loop(op, begin, end);
}

void CodeGenLLVM::emit_serial_loop(const For* op, llvm::Value* begin, llvm::Value* end) {
  DataType t = op->loop_var->dtype;
  llvm::BasicBlock* pre = b_.GetInsertBlock();
  llvm::BasicBlock* head = new_block("for.head");
  llvm::BasicBlock* body = new_block("for.body");
  llvm::BasicBlock* exit = new_block("for.exit");
  b_.CreateBr(head);
  b_.SetInsertPoint(head);
  llvm::PHINode* iv = b_.CreatePHI(value_type(t), 2, op->loop_var->name);
  iv->addIncoming(begin, pre);
  llvm::Value* cond = t.is_int() ? b_.CreateICmpSLT(iv, end) : b_.CreateICmpULT(iv, end);
  b_.CreateCondBr(cond, body, exit);
  b_.SetInsertPoint(body);
  bind_var(op->loop_var.get(), iv);
  emit(op->body);
  unbind_var(op->loop_var.get());
  llvm::Value* next = b_.CreateAdd(iv, llvm::ConstantInt::get(iv->getType(), 1), "", false, t.is_int());
  llvm::BasicBlock* latch = b_.GetInsertBlock();
  llvm::BranchInst* back = b_.CreateBr(head);
  iv->addIncoming(next, latch);

  // Loop hints: a vectorized loop that could not be widened asks the loop vectorizer,
  // kUnrolled asks for a full unroll.
  std::vector<llvm::Metadata*> md{nullptr};
  if (op->kind == ForKind::kUnrolled) {
    md.push_back(llvm::MDNode::get(ctx_, {llvm::MDString::get(ctx_, "llvm.loop.unroll.full")}));
  } else if (op->kind == ForKind::kVectorized) {
    md.push_back(llvm::MDNode::get(
        ctx_, {llvm::MDString::get(ctx_, "llvm.loop.vectorize.enable"),
               llvm::ConstantAsMetadata::get(llvm::ConstantInt::getTrue(ctx_))}));
  }
  if (md.size() > 1) {
    llvm::MDNode* loop_id = llvm::MDNode::getDistinct(ctx_, md);
    loop_id->replaceOperandWith(0, loop_id);
    back->setMetadata(llvm::LLVMContext::MD_loop, loop_id);
  }
  b_.SetInsertPoint(exit);
}

void CodeGenLLVM::visit_(const BufferStore* op) {
  RX_CHECK(op->indices.size() == 1) << "llvm codegen: kernel '" << kernel_name_ << "': buffer "
                                    << op->buffer->name << " is not flat (lower the function)";
  DataType t = op->value->dtype;
  llvm::Value* value = emit(op->value);
  const PrimExpr& index = op->indices[0];
  if (t.lanes == 1) {
    store_element(*op->buffer, emit(index), value, t);
    return;
  }
  auto* ramp = index.as<Ramp>();
  if (mask_) {
    RX_ICHECK(llvm::cast<llvm::FixedVectorType>(mask_->getType())->getNumElements() ==
              unsigned(t.lanes))
        << "llvm codegen: kernel '" << kernel_name_ << "': a store of " << t.lanes
        << " lanes under a mask of another width";
    llvm::Align align(std::max(1, t.element_of().bytes()));
    if (t.is_bool()) value = b_.CreateZExt(value, llvm::FixedVectorType::get(i8_, t.lanes));
    if (ramp && is_const_int(ramp->stride, 1))
      tag_access(b_.CreateMaskedStore(value, element_address(*op->buffer, emit(ramp->base)),
                                      align, mask_),
                 *op->buffer);
    else
      tag_access(
          b_.CreateMaskedScatter(value, element_addresses(*op->buffer, emit(index)), align, mask_),
          *op->buffer);
    return;
  }
  if (ramp && is_const_int(ramp->stride, 1) && !t.is_bool()) {
    llvm::Value* addr = element_address(*op->buffer, emit(ramp->base));
    tag_access(
        b_.CreateAlignedStore(value, addr, llvm::Align(std::max(1, t.element_of().bytes()))),
        *op->buffer);
    return;
  }
  // Scatter lane by lane (every lane computed before any is written).
  llvm::Value* idx = emit(index);
  for (int l = 0; l < t.lanes; ++l)
    store_element(*op->buffer, b_.CreateExtractElement(idx, uint64_t(l)),
                  b_.CreateExtractElement(value, uint64_t(l)), t.element_of());
}

void CodeGenLLVM::visit_(const IfThenElse* op) {
  const PrimExpr* vector_condition = nullptr;
  if (vector_conditions_) {
    auto it = vector_conditions_->find(op);
    if (it != vector_conditions_->end()) vector_condition = &it->second;
  }
  if (vector_condition) {
    // A vector condition: both branches run, each on its lanes only.
    llvm::Value* c = emit(*vector_condition);
    llvm::Value* outer = mask_;
    mask_ = and_mask(c);
    emit(op->then_case);
    if (op->else_case.defined()) {
      mask_ = outer;
      mask_ = and_mask(b_.CreateNot(c));
      emit(op->else_case);
    }
    mask_ = outer;
    return;
  }
  llvm::Value* c = emit(op->condition);
  llvm::BasicBlock* then_bb = new_block("if.then");
  llvm::BasicBlock* done_bb = new_block("if.done");
  llvm::BasicBlock* else_bb = op->else_case.defined() ? new_block("if.else") : done_bb;
  b_.CreateCondBr(c, then_bb, else_bb);
  b_.SetInsertPoint(then_bb);
  emit(op->then_case);
  b_.CreateBr(done_bb);
  if (op->else_case.defined()) {
    b_.SetInsertPoint(else_bb);
    emit(op->else_case);
    b_.CreateBr(done_bb);
  }
  b_.SetInsertPoint(done_bb);
}

void CodeGenLLVM::visit_(const SeqStmt* op) {
  for (const Stmt& s : op->seq) emit(s);
}

void CodeGenLLVM::visit_(const Allocate* op) {
  DataType t = op->dtype;
  RX_CHECK(op->extents.size() == 1) << "llvm codegen: kernel '" << kernel_name_ << "': allocation "
                                    << op->buffer_var->name << " is not flat (lower the function)";
  llvm::Type* et = memory_type(t);
  int64_t elem_bytes = std::max(1, t.bytes());
  const int64_t* count = as_const_int(op->extents[0]);
  llvm::Align align(64);
  if (count && *count * elem_bytes <= kMaxStackAllocaBytes) {
    // In the entry block, so that a loop around it does not grow the stack.
    llvm::IRBuilder<> entry(entry_, entry_->begin());
    llvm::AllocaInst* a = entry.CreateAlloca(et, entry.getInt64(uint64_t(std::max<int64_t>(*count, 1))),
                                             op->buffer_var->name);
    a->setAlignment(align);
    bind_var(op->buffer_var.get(), a);
    emit(op->body);
    unbind_var(op->buffer_var.get());
    return;
  }
  llvm::Value* n = cast_value(emit(op->extents[0]), op->extents[0]->dtype, DataType::Int(64));
  llvm::Value* bytes = b_.CreateMul(n, b_.getInt64(uint64_t(elem_bytes)));
  // malloc(0) may return null legitimately: ask for at least one byte.
  bytes = b_.CreateSelect(b_.CreateICmpSGT(bytes, b_.getInt64(0)), bytes, b_.getInt64(1));
  llvm::FunctionCallee malloc_fn =
      module_.getOrInsertFunction("malloc", llvm::FunctionType::get(ptr_, {i64_}, false));
  llvm::Value* p = b_.CreateCall(malloc_fn, {bytes}, op->buffer_var->name);
  emit_check(b_.CreateIsNotNull(p),
             "kernel '" + kernel_name_ + "': out of memory allocating " + op->buffer_var->name,
             kRxError);
  heap_allocs_.push_back(p);
  bind_var(op->buffer_var.get(), p);
  emit(op->body);
  unbind_var(op->buffer_var.get());
  heap_allocs_.pop_back();
  llvm::FunctionCallee free_fn =
      module_.getOrInsertFunction("free", llvm::FunctionType::get(b_.getVoidTy(), {ptr_}, false));
  b_.CreateCall(free_fn, {p});
}

void CodeGenLLVM::visit_(const Evaluate* op) {
  if (op->value.as<IntImm>()) return;
  emit(op->value);
}

void CodeGenLLVM::visit_(const tir::Block*) {
  RX_THROW() << "llvm codegen: kernel '" << kernel_name_ << "' still has blocks; lower it first";
}
void CodeGenLLVM::visit_(const tir::BlockRealize*) {
  RX_THROW() << "llvm codegen: kernel '" << kernel_name_ << "' still has blocks; lower it first";
}

}  // namespace relax::llvm_backend
