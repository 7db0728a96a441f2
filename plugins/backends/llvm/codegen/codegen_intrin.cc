// Intrinsic calls: LLVM intrinsics where LLVM has one (exp, log, sqrt, floor, pow, ...), libm
// calls lane by lane otherwise (tan, erf, tanh, ...), expansions for sigmoid, rsqrt and the
// float classifications, bit operations, reinterpret, if_then_else and call_extern.
// Narrow floats compute in float and round back (codegen_llvm.h); float32 uses the float
// versions of libm, float64 the double ones.
#include <limits>

#include <llvm/IR/Intrinsics.h>

#include "codegen_llvm.h"
#include "relax/support/diagnostic.h"

namespace relax::llvm_backend {

using namespace relax::tir;  // NOLINT

llvm::Value* CodeGenLLVM::call_llvm_intrinsic(llvm::Intrinsic::ID id, DataType t,
                                              const std::vector<llvm::Value*>& args) {
  std::vector<llvm::Value*> xs;
  for (llvm::Value* a : args) xs.push_back(to_compute(splat_if_needed(a, t.lanes), t));
  llvm::Value* r = b_.CreateIntrinsic(id, {xs[0]->getType()}, xs);
  return from_compute(r, t);
}

llvm::Value* CodeGenLLVM::call_libm(const char* name, DataType t,
                                    const std::vector<llvm::Value*>& args) {
  bool dbl = t.bits == 64;
  llvm::Type* ft = dbl ? b_.getDoubleTy() : b_.getFloatTy();
  std::string fn_name = std::string(name) + (dbl ? "" : "f");
  std::vector<llvm::Type*> params(args.size(), ft);
  llvm::FunctionCallee fn =
      module_.getOrInsertFunction(fn_name, llvm::FunctionType::get(ft, params, false));
  if (auto* f = llvm::dyn_cast<llvm::Function>(fn.getCallee())) {
    f->addFnAttr(llvm::Attribute::NoUnwind);
    f->addFnAttr(llvm::Attribute::WillReturn);
  }
  std::vector<llvm::Value*> xs;
  for (llvm::Value* a : args) xs.push_back(to_compute(splat_if_needed(a, t.lanes), t));
  if (t.lanes == 1) return from_compute(b_.CreateCall(fn, xs), t);
  llvm::Value* result = llvm::UndefValue::get(compute_float_type(t));
  for (int l = 0; l < t.lanes; ++l) {
    std::vector<llvm::Value*> lane;
    for (llvm::Value* x : xs) lane.push_back(b_.CreateExtractElement(x, uint64_t(l)));
    result = b_.CreateInsertElement(result, b_.CreateCall(fn, lane), uint64_t(l));
  }
  return from_compute(result, t);
}

llvm::Value* CodeGenLLVM::emit_intrinsic(const tir::Call* op) {
  DataType t = op->dtype;
  auto arg = [&](size_t i) { return emit(op->args.at(i)); };
  auto unary_float = [&](llvm::Intrinsic::ID id) { return call_llvm_intrinsic(id, t, {arg(0)}); };
  auto libm1 = [&](const char* name) { return call_libm(name, t, {arg(0)}); };
  auto float_const = [&](DataType ft, double v) -> llvm::Value* {
    llvm::Value* c = llvm::ConstantFP::get(compute_float_type(ft.element_of()), v);
    return splat_if_needed(c, ft.lanes);
  };
  auto require_float = [&](DataType dt) {
    RX_CHECK(dt.is_float()) << "llvm codegen: kernel '" << kernel_name_ << "': "
                            << intrinsic_name(op->op) << " of " << dt.to_string();
  };
  switch (op->op) {
    case Intrinsic::kExp: require_float(t); return unary_float(llvm::Intrinsic::exp);
    case Intrinsic::kExp2: require_float(t); return unary_float(llvm::Intrinsic::exp2);
    case Intrinsic::kLog: require_float(t); return unary_float(llvm::Intrinsic::log);
    case Intrinsic::kLog2: require_float(t); return unary_float(llvm::Intrinsic::log2);
    case Intrinsic::kSqrt: require_float(t); return unary_float(llvm::Intrinsic::sqrt);
    case Intrinsic::kSin: require_float(t); return unary_float(llvm::Intrinsic::sin);
    case Intrinsic::kCos: require_float(t); return unary_float(llvm::Intrinsic::cos);
    case Intrinsic::kFloor: require_float(t); return unary_float(llvm::Intrinsic::floor);
    case Intrinsic::kCeil: require_float(t); return unary_float(llvm::Intrinsic::ceil);
    case Intrinsic::kTrunc: require_float(t); return unary_float(llvm::Intrinsic::trunc);
    case Intrinsic::kRound: require_float(t); return unary_float(llvm::Intrinsic::nearbyint);
    case Intrinsic::kFabs: require_float(t); return unary_float(llvm::Intrinsic::fabs);
    case Intrinsic::kPow: require_float(t); return call_llvm_intrinsic(llvm::Intrinsic::pow, t, {arg(0), arg(1)});
    case Intrinsic::kLog1p: require_float(t); return libm1("log1p");
    case Intrinsic::kTan: require_float(t); return libm1("tan");
    case Intrinsic::kAsin: require_float(t); return libm1("asin");
    case Intrinsic::kAcos: require_float(t); return libm1("acos");
    case Intrinsic::kAtan: require_float(t); return libm1("atan");
    case Intrinsic::kSinh: require_float(t); return libm1("sinh");
    case Intrinsic::kCosh: require_float(t); return libm1("cosh");
    case Intrinsic::kTanh: require_float(t); return libm1("tanh");
    case Intrinsic::kAsinh: require_float(t); return libm1("asinh");
    case Intrinsic::kAcosh: require_float(t); return libm1("acosh");
    case Intrinsic::kAtanh: require_float(t); return libm1("atanh");
    case Intrinsic::kErf: require_float(t); return libm1("erf");
    case Intrinsic::kAtan2: require_float(t); return call_libm("atan2", t, {arg(0), arg(1)});
    case Intrinsic::kFmod: require_float(t); return call_libm("fmod", t, {arg(0), arg(1)});
    case Intrinsic::kRsqrt: {
      require_float(t);
      llvm::Value* x = to_compute(splat_if_needed(arg(0), t.lanes), t);
      llvm::Value* s = b_.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x);
      return from_compute(b_.CreateFDiv(float_const(t, 1.0), s), t);
    }
    case Intrinsic::kSigmoid: {
      // 1 / (1 + exp(-x)).
      require_float(t);
      llvm::Value* x = to_compute(splat_if_needed(arg(0), t.lanes), t);
      llvm::Value* e = b_.CreateUnaryIntrinsic(llvm::Intrinsic::exp, b_.CreateFNeg(x));
      llvm::Value* one = float_const(t, 1.0);
      return from_compute(b_.CreateFDiv(one, b_.CreateFAdd(one, e)), t);
    }
    case Intrinsic::kIsNan:
    case Intrinsic::kIsInf:
    case Intrinsic::kIsFinite: {
      DataType xt = op->args[0]->dtype;
      llvm::Value* x0 = arg(0);
      if (!xt.is_float()) {  // integers are always finite
        bool v = op->op == Intrinsic::kIsFinite;
        return const_int(t, v ? 1 : 0);
      }
      llvm::Value* x = to_compute(x0, xt);
      if (op->op == Intrinsic::kIsNan) return b_.CreateFCmpUNO(x, x);
      llvm::Value* ax = b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
      llvm::Value* inf = float_const(xt, std::numeric_limits<double>::infinity());
      return op->op == Intrinsic::kIsInf ? b_.CreateFCmpOEQ(ax, inf) : b_.CreateFCmpONE(ax, inf);
    }
    case Intrinsic::kAbs: {
      if (t.is_float()) return unary_float(llvm::Intrinsic::fabs);
      llvm::Value* x = arg(0);
      if (!t.is_int()) return x;
      llvm::Value* zero = llvm::Constant::getNullValue(x->getType());
      return b_.CreateSelect(b_.CreateICmpSLT(x, zero), b_.CreateSub(zero, x), x);
    }
    case Intrinsic::kBitwiseAnd: return b_.CreateAnd(arg(0), arg(1));
    case Intrinsic::kBitwiseOr: return b_.CreateOr(arg(0), arg(1));
    case Intrinsic::kBitwiseXor: return b_.CreateXor(arg(0), arg(1));
    case Intrinsic::kBitwiseNot: return b_.CreateNot(arg(0));
    case Intrinsic::kShiftLeft:
    case Intrinsic::kShiftRight: {
      // An amount outside [0, bits) is an error in the interpreter; here it is masked so that
      // the result is defined (no poison).
      llvm::Value* a = arg(0);
      llvm::Value* s = cast_value(arg(1), op->args[1]->dtype, t);
      s = b_.CreateAnd(s, const_int(t, t.bits - 1));
      if (op->op == Intrinsic::kShiftLeft) return b_.CreateShl(a, s);
      return t.is_int() ? b_.CreateAShr(a, s) : b_.CreateLShr(a, s);
    }
    case Intrinsic::kReinterpret: {
      llvm::Value* x = arg(0);
      DataType from = op->args[0]->dtype;
      llvm::Type* to_ty = t.is_bool() ? b_.getInt1Ty() : value_type(t);
      if (from.is_handle() && t.is_integer_like()) return b_.CreatePtrToInt(x, to_ty);
      if (t.is_handle() && from.is_integer_like()) return b_.CreateIntToPtr(x, to_ty);
      return b_.CreateBitCast(x, to_ty);
    }
    case Intrinsic::kLikely: return arg(0);
    case Intrinsic::kIfThenElse: {
      // Evaluates only the arm taken. A vector condition evaluates both arms, each with its
      // lanes as the mask (so that a guarded vector load reads only where the guard holds), and
      // selects.
      if (op->args[0]->dtype.lanes > 1) {
        llvm::Value* c = arg(0);
        llvm::Value* outer = mask_;
        mask_ = and_mask(c);
        llvm::Value* tv = splat_if_needed(arg(1), t.lanes);
        mask_ = outer;
        mask_ = and_mask(b_.CreateNot(c));
        llvm::Value* fv = splat_if_needed(arg(2), t.lanes);
        mask_ = outer;
        return b_.CreateSelect(c, tv, fv);
      }
      llvm::Value* c = arg(0);
      llvm::BasicBlock* then_bb = new_block("ite.then");
      llvm::BasicBlock* else_bb = new_block("ite.else");
      llvm::BasicBlock* done_bb = new_block("ite.done");
      b_.CreateCondBr(c, then_bb, else_bb);
      b_.SetInsertPoint(then_bb);
      llvm::Value* tv = splat_if_needed(arg(1), t.lanes);
      llvm::BasicBlock* then_end = b_.GetInsertBlock();
      b_.CreateBr(done_bb);
      b_.SetInsertPoint(else_bb);
      llvm::Value* fv = splat_if_needed(arg(2), t.lanes);
      llvm::BasicBlock* else_end = b_.GetInsertBlock();
      b_.CreateBr(done_bb);
      b_.SetInsertPoint(done_bb);
      llvm::PHINode* phi = b_.CreatePHI(tv->getType(), 2);
      phi->addIncoming(tv, then_end);
      phi->addIncoming(fv, else_end);
      return phi;
    }
    case Intrinsic::kExtern: {
      std::vector<llvm::Value*> xs;
      std::vector<llvm::Type*> types;
      for (size_t i = 0; i < op->args.size(); ++i) {
        xs.push_back(arg(i));
        types.push_back(xs.back()->getType());
      }
      llvm::Type* rt = t.is_void() ? b_.getVoidTy() : value_type(t);
      llvm::FunctionCallee fn =
          module_.getOrInsertFunction(op->name, llvm::FunctionType::get(rt, types, false));
      llvm::Value* r = b_.CreateCall(fn, xs);
      return t.is_void() ? llvm::ConstantInt::get(i32_, 0) : r;
    }
  }
  RX_THROW() << "llvm codegen: kernel '" << kernel_name_ << "': intrinsic "
             << intrinsic_name(op->op) << " is not supported";
  return nullptr;
}

}  // namespace relax::llvm_backend
