// The packed-function ABI of a kernel: the prologue that checks the arguments (count, type
// codes, tensor dtype/rank/device/layout), binds symbolic dimensions and scalar parameters, and
// error returns through __rx_set_last_error (see llvm_build.h).
#include <algorithm>

#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include "codegen_llvm.h"
#include "llvm_build.h"
#include "relax/runtime/c_abi.h"
#include "relax/support/diagnostic.h"

namespace relax::llvm_backend {

namespace {

// Byte offsets of the C ABI structs (checked against the headers at compile time).
constexpr unsigned kAnyTypeCodeOffset = offsetof(RxAny, type_code);
constexpr unsigned kAnyValueOffset = offsetof(RxAny, value);
constexpr unsigned kAnySize = sizeof(RxAny);
constexpr unsigned kTensorData = offsetof(DLTensor, data);
constexpr unsigned kTensorDeviceType = offsetof(DLTensor, device);
constexpr unsigned kTensorNdim = offsetof(DLTensor, ndim);
constexpr unsigned kTensorDtype = offsetof(DLTensor, dtype);
constexpr unsigned kTensorShape = offsetof(DLTensor, shape);
constexpr unsigned kTensorStrides = offsetof(DLTensor, strides);
constexpr unsigned kTensorByteOffset = offsetof(DLTensor, byte_offset);
static_assert(sizeof(DLDataType) == 4 && sizeof(DLDeviceType) == 4);

}  // namespace

CodeGenLLVM::CodeGenLLVM(llvm::LLVMContext& ctx, llvm::Module& module)
    : ctx_(ctx), module_(module), b_(ctx) {
  i8_ = llvm::Type::getInt8Ty(ctx);
  i16_ = llvm::Type::getInt16Ty(ctx);
  i32_ = llvm::Type::getInt32Ty(ctx);
  i64_ = llvm::Type::getInt64Ty(ctx);
  ptr_ = llvm::PointerType::getUnqual(ctx);
  llvm::FastMathFlags contract;
  contract.setAllowContract(true);
  b_.setFastMathFlags(contract);
  // Defined (null) in the library's support object, set by the loader.
  set_last_error_ = new llvm::GlobalVariable(module_, ptr_, false,
                                             llvm::GlobalValue::ExternalLinkage, nullptr,
                                             kSetLastErrorSymbol);
  // Likewise: the runtime's RxParallelFor, or null (then parallel loops run serially).
  parallel_for_ = new llvm::GlobalVariable(module_, ptr_, false, llvm::GlobalValue::ExternalLinkage,
                                           nullptr, kParallelForSymbol);
}

llvm::BasicBlock* CodeGenLLVM::new_block(const char* name) {
  return llvm::BasicBlock::Create(ctx_, name, func_);
}

void CodeGenLLVM::emit_error_return(const std::string& message, int status) {
  llvm::Value* fp = b_.CreateLoad(ptr_, set_last_error_);
  llvm::BasicBlock* call_bb = new_block("report");
  llvm::BasicBlock* ret_bb = new_block("fail");
  b_.CreateCondBr(b_.CreateIsNull(fp), ret_bb, call_bb);
  b_.SetInsertPoint(call_bb);
  auto* fty = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx_), {ptr_}, false);
  b_.CreateCall(fty, fp, {b_.CreateGlobalStringPtr(message, "rx.msg")});
  b_.CreateBr(ret_bb);
  b_.SetInsertPoint(ret_bb);
  emit_status_return(llvm::ConstantInt::get(i32_, status, true));
}

void CodeGenLLVM::emit_status_return(llvm::Value* status) {
  if (!heap_allocs_.empty()) {
    llvm::FunctionCallee free_fn = module_.getOrInsertFunction(
        "free", llvm::FunctionType::get(llvm::Type::getVoidTy(ctx_), {ptr_}, false));
    for (auto it = heap_allocs_.rbegin(); it != heap_allocs_.rend(); ++it) b_.CreateCall(free_fn, {*it});
  }
  b_.CreateRet(status);
}

void CodeGenLLVM::emit_check(llvm::Value* cond, const std::string& message, int status) {
  llvm::BasicBlock* ok = new_block("ok");
  llvm::BasicBlock* bad = new_block("bad");
  b_.CreateCondBr(cond, ok, bad, llvm::MDBuilder(ctx_).createBranchWeights(1 << 20, 1));
  b_.SetInsertPoint(bad);
  emit_error_return(message, status);
  b_.SetInsertPoint(ok);
}

llvm::Value* CodeGenLLVM::int64_to(llvm::Value* v, DataType t) {
  return cast_value(v, DataType::Int(64), t);
}

void CodeGenLLVM::bind_var(const tir::Var* var, llvm::Value* value) {
  auto [it, fresh] = vars_.emplace(var, value);
  RX_CHECK(fresh) << "llvm codegen: kernel '" << kernel_name_ << "': variable " << var->name
                  << " is defined twice";
}

void CodeGenLLVM::add_function(const std::string& name, const Ref<tir::PrimFunc>& func) {
  kernel_name_ = name;
  vars_.clear();
  heap_allocs_.clear();
  parallel_depth_ = 0;
  parallel_count_ = 0;
  mask_ = nullptr;
  param_alias_.clear();
  auto* fty = llvm::FunctionType::get(i32_, {ptr_, ptr_, i32_, ptr_}, false);
  func_ = llvm::Function::Create(fty, llvm::GlobalValue::ExternalLinkage,
                                 kKernelSymbolPrefix + name, module_);
  func_->setDLLStorageClass(llvm::GlobalValue::DefaultStorageClass);
  func_->addFnAttr(llvm::Attribute::NoUnwind);
  func_->addFnAttr("frame-pointer", "none");
  llvm::Argument* args = func_->getArg(1);
  llvm::Argument* nargs = func_->getArg(2);
  args->setName("args");
  nargs->setName("nargs");
  func_->getArg(0)->setName("self");
  func_->getArg(3)->setName("ret");

  entry_ = new_block("entry");
  llvm::BasicBlock* start = new_block("start");
  b_.SetInsertPoint(start);

  const std::string who = "kernel '" + name + "'";
  size_t n = func->params.size();
  emit_check(b_.CreateICmpEQ(nargs, b_.getInt32(uint32_t(n))),
             who + ": expected " + std::to_string(n) + " arguments", kRxBadArgument);

  auto field = [&](llvm::Value* base, unsigned offset, llvm::Type* type) {
    return b_.CreateLoad(type, b_.CreateConstInBoundsGEP1_64(i8_, base, offset));
  };
  auto any_at = [&](size_t i) { return b_.CreateConstInBoundsGEP1_64(i8_, args, i * kAnySize); };

  // First pass: type codes, tensor metadata, bind scalars and symbolic dimensions that are
  // plain variables at their first occurrence. Second pass: check every other dimension.
  struct Deferred {
    llvm::Value* actual;
    tir::PrimExpr expected;
    std::string what;
  };
  std::vector<Deferred> checks;
  for (size_t i = 0; i < n; ++i) {
    const Ref<tir::Var>& param = func->params[i];
    std::string pname = who + ": argument " + std::to_string(i) + " (" + param->name + ")";
    llvm::Value* any = any_at(i);
    llvm::Value* code = field(any, kAnyTypeCodeOffset, i16_);
    Ref<tir::Buffer> buf = func->buffer_of(param);
    if (!buf) {
      DataType t = param->dtype;
      RX_CHECK(t.is_scalar() && !t.is_handle())
          << "llvm codegen: " << pname << " is an unmapped handle; only buffers and scalars "
          << "are supported";
      llvm::Value* v;
      if (t.is_float()) {
        llvm::Value* is_f = b_.CreateICmpEQ(code, b_.getInt16(kRxFloat));
        llvm::Value* is_i = b_.CreateOr(b_.CreateICmpEQ(code, b_.getInt16(kRxInt)),
                                        b_.CreateICmpEQ(code, b_.getInt16(kRxBool)));
        emit_check(b_.CreateOr(is_f, is_i), pname + ": expected a number", kRxBadArgument);
        llvm::Value* raw = field(any, kAnyValueOffset, i64_);
        llvm::Value* as_f = b_.CreateBitCast(raw, b_.getDoubleTy());
        llvm::Value* from_i = b_.CreateSIToFP(raw, b_.getDoubleTy());
        v = cast_value(b_.CreateSelect(is_f, as_f, from_i), DataType::Float(64), t);
      } else {
        emit_check(b_.CreateOr(b_.CreateICmpEQ(code, b_.getInt16(kRxInt)),
                               b_.CreateICmpEQ(code, b_.getInt16(kRxBool))),
                   pname + ": expected an integer", kRxBadArgument);
        v = int64_to(field(any, kAnyValueOffset, i64_), t);
      }
      v->setName(param->name);
      bind_var(param.get(), v);
      continue;
    }
    emit_check(b_.CreateICmpEQ(code, b_.getInt16(kRxDLTensor)),
               pname + ": expected a tensor", kRxBadArgument);
    llvm::Value* tensor = field(any, kAnyValueOffset, ptr_);
    emit_check(b_.CreateIsNotNull(tensor), pname + ": null tensor", kRxBadArgument);
    DataType dt = buf->dtype;
    uint32_t dl_dtype = uint32_t(dt.code) | (uint32_t(dt.bits) << 8) | (uint32_t(dt.lanes) << 16);
    emit_check(b_.CreateICmpEQ(field(tensor, kTensorDtype, i32_), b_.getInt32(dl_dtype)),
               pname + ": expected dtype " + dt.to_string(), kRxBadArgument);
    size_t ndim = buf->ndim();
    emit_check(b_.CreateICmpEQ(field(tensor, kTensorNdim, i32_), b_.getInt32(uint32_t(ndim))),
               pname + ": expected rank " + std::to_string(ndim), kRxBadArgument);
    emit_check(b_.CreateICmpEQ(field(tensor, kTensorDeviceType, i32_), b_.getInt32(kDLCPU)),
               pname + ": expected a CPU tensor", kRxBadArgument);
    llvm::Value* shape = field(tensor, kTensorShape, ptr_);
    std::vector<llvm::Value*> dims(ndim);
    for (size_t d = 0; d < ndim; ++d) {
      dims[d] = b_.CreateLoad(i64_, b_.CreateConstInBoundsGEP1_64(i64_, shape, d));
      const tir::PrimExpr& e = buf->shape[d];
      std::string what = pname + ": dimension " + std::to_string(d) + " should be " + tir::to_string(e);
      if (auto* v = e.as<tir::Var>(); v && !vars_.count(v)) {
        // Negative extents cannot come from a well-formed tensor; reject them all the same.
        emit_check(b_.CreateICmpSGE(dims[d], b_.getInt64(0)), what, kRxBadArgument);
        bind_var(v, int64_to(dims[d], v->dtype));
      } else {
        checks.push_back({dims[d], e, what});
      }
    }
    // Layout: compact tensors only (null strides, or strides equal to the compact ones; a
    // dimension of extent 1 may have any stride).
    RX_CHECK(buf->strides.empty())
        << "llvm codegen: " << pname << ": buffers with explicit strides are not supported yet";
    if (ndim > 0) {
      llvm::Value* strides = field(tensor, kTensorStrides, ptr_);
      llvm::BasicBlock* has = new_block("strides");
      llvm::BasicBlock* done = new_block("strides.done");
      b_.CreateCondBr(b_.CreateIsNull(strides), done, has);
      b_.SetInsertPoint(has);
      llvm::Value* compact = b_.getInt64(1);
      for (size_t d = ndim; d-- > 0;) {
        llvm::Value* s = b_.CreateLoad(i64_, b_.CreateConstInBoundsGEP1_64(i64_, strides, d));
        llvm::Value* ok = b_.CreateOr(b_.CreateICmpEQ(s, compact),
                                      b_.CreateICmpEQ(dims[d], b_.getInt64(1)));
        emit_check(ok, pname + ": expected a compact tensor (strides)", kRxBadArgument);
        compact = b_.CreateMul(compact, dims[d]);
      }
      b_.CreateBr(done);
      b_.SetInsertPoint(done);
    }
    llvm::Value* data = field(tensor, kTensorData, ptr_);
    llvm::Value* byte_offset = field(tensor, kTensorByteOffset, i64_);
    if (auto* off = buf->elem_offset.as<tir::Var>(); off && !vars_.count(off)) {
      // The body indexes from `data` with the element offset added: bind it from byte_offset.
      bind_var(off, int64_to(b_.CreateUDiv(byte_offset, b_.getInt64(std::max(1, dt.bytes()))),
                             off->dtype));
    } else {
      RX_CHECK(tir::is_const_int(buf->elem_offset, 0))
          << "llvm codegen: " << pname << ": element offset " << tir::to_string(buf->elem_offset)
          << " is not supported";
      data = b_.CreateInBoundsGEP(i8_, data, byte_offset);
    }
    data->setName(param->name);
    bind_var(param.get(), data);
  }
  // One alias scope per tensor parameter (codegen_llvm.h).
  {
    llvm::MDBuilder mdb(ctx_);
    llvm::MDNode* domain = mdb.createAnonymousAliasScopeDomain(name);
    std::vector<std::pair<const tir::Var*, llvm::MDNode*>> scopes;
    for (const auto& param : func->params)
      if (Ref<tir::Buffer> buf = func->buffer_of(param))
        scopes.push_back({buf->data.get(), mdb.createAnonymousAliasScope(domain, param->name)});
    for (const auto& [var, scope] : scopes) {
      std::vector<llvm::Metadata*> others;
      for (const auto& other : scopes)
        if (other.first != var) others.push_back(other.second);
      param_alias_[var] = {llvm::MDNode::get(ctx_, {scope}), llvm::MDNode::get(ctx_, others)};
    }
  }
  for (const Deferred& c : checks) {
    llvm::Value* expected = cast_value(emit(c.expected), c.expected->dtype, DataType::Int(64));
    emit_check(b_.CreateICmpEQ(c.actual, expected), c.what, kRxBadArgument);
  }

  emit(func->body);
  if (!b_.GetInsertBlock()->getTerminator()) b_.CreateRet(b_.getInt32(0));

  b_.SetInsertPoint(entry_);
  b_.CreateBr(start);

  std::string err;
  llvm::raw_string_ostream os(err);
  RX_ICHECK(!llvm::verifyFunction(*func_, &os))
      << "llvm codegen: kernel '" << name << "' is not valid LLVM IR: " << os.str();
}

}  // namespace relax::llvm_backend
