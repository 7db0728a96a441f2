// Intrinsic calls: LLVM intrinsics where LLVM has one (exp, log, sqrt, floor, pow, ...), libm
// calls lane by lane otherwise (tan, erf, tanh, ...), expansions for sigmoid, rsqrt and the
// float classifications, bit operations, reinterpret, if_then_else and call_extern.
// Narrow floats compute in float and round back (codegen_llvm.h); float32 uses the float
// versions of libm, float64 the double ones.
//
// Vectors of float32 (and of narrow floats, which compute in float32) evaluate exp, erf and
// tanh (and sigmoid through exp) as polynomials in vector registers: LLVM lowers a vector
// llvm.exp to one libm call per lane, which made softmax and GELU cost a call per element.
// exp is Cephes' expf (range reduction by ln 2, degree-6 polynomial, 2^n built from the
// exponent bits in two halves so that the whole range down to -104 is covered; ~1 ulp);
// erf and tanh are the rational approximations Eigen and TVM use (a few ulp, exact limits
// outside [-4, 4] and [-7.9, 7.9]). NaN propagates. Scalars keep libm, so the interpreter's and a
// scalar loop's results stay bit-identical.
#include <initializer_list>
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

namespace {

/// Polynomial float32 vector math (see the file comment); `x` is a vector of float.
class VectorMath {
 public:
  explicit VectorMath(llvm::IRBuilder<>& b) : b_(b) {}

  llvm::Value* exp(llvm::Value* x) {
    llvm::Value* xc = clamp(x, -104.0, 88.72283935546875);
    // n = round(x / ln 2), r = x - n ln 2 with ln 2 split in two for an exact first product.
    llvm::Value* n = b_.CreateUnaryIntrinsic(llvm::Intrinsic::floor,
                                             fma(xc, c(1.44269504088896341), c(0.5)));
    llvm::Value* r = fma(n, c(-0.693359375), xc);
    r = fma(n, c(2.12194440e-4), r);
    llvm::Value* p = horner(r, {1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3,
                                4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1});
    llvm::Value* r2 = b_.CreateFMul(r, r);
    llvm::Value* y = b_.CreateFAdd(fma(p, r2, r), splat(x, c(1.0)));
    // y * 2^n as y * 2^(n/2) * 2^(n - n/2): each factor is a normal float for n in [-150, 128].
    llvm::Type* it = int_type(x);
    llvm::Value* ni = b_.CreateFPToSI(n, it);
    llvm::Value* n1 = b_.CreateAShr(ni, ci(it, 1));
    llvm::Value* n2 = b_.CreateSub(ni, n1);
    y = b_.CreateFMul(y, pow2(n1));
    y = b_.CreateFMul(y, pow2(n2));
    return keep_nan(x, y);
  }

  llvm::Value* erf(llvm::Value* x) {
    llvm::Value* xc = clamp(x, -4.0, 4.0);
    llvm::Value* x2 = b_.CreateFMul(xc, xc);
    llvm::Value* p = horner(x2, {-2.72614225801306e-10, 2.77068142495902e-08,
                                 -2.10102402082508e-06, -5.69250639462346e-05,
                                 -7.34990630326855e-04, -2.95459980854025e-03,
                                 -1.60960333262415e-02});
    llvm::Value* q = horner(x2, {-1.45660718464996e-05, -2.13374055278905e-04,
                                 -1.68282697438203e-03, -7.37332916720468e-03,
                                 -1.42647390514189e-02});
    return keep_nan(x, b_.CreateFDiv(b_.CreateFMul(xc, p), q));
  }

  llvm::Value* tanh(llvm::Value* x) {
    llvm::Value* xc = clamp(x, -7.90531110763549805, 7.90531110763549805);
    llvm::Value* x2 = b_.CreateFMul(xc, xc);
    llvm::Value* p = horner(x2, {-2.76076847742355e-16, 2.00018790482477e-13,
                                 -8.60467152213735e-11, 5.12229709037114e-08,
                                 1.48572235717979e-05, 6.37261928875436e-04,
                                 4.89352455891786e-03});
    llvm::Value* q = horner(x2, {1.19825839466702e-06, 1.18534705686654e-04,
                                 2.26843463243900e-03, 4.89352518554385e-03});
    llvm::Value* y = b_.CreateFDiv(b_.CreateFMul(xc, p), q);
    // Near 0 the quotient loses the last bits that x itself has.
    llvm::Value* tiny = b_.CreateFCmpOLT(b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x),
                                         splat(x, c(0.0004)));
    return keep_nan(x, b_.CreateSelect(tiny, x, y));
  }

 private:
  llvm::Value* c(double v) {
    return llvm::ConstantFP::get(b_.getFloatTy(), v);  // splat by the vector ops below
  }
  llvm::Value* splat(llvm::Value* like, llvm::Value* s) {
    auto* vt = llvm::cast<llvm::FixedVectorType>(like->getType());
    return b_.CreateVectorSplat(vt->getNumElements(), s);
  }
  llvm::Type* int_type(llvm::Value* like) {
    auto* vt = llvm::cast<llvm::FixedVectorType>(like->getType());
    return llvm::FixedVectorType::get(b_.getInt32Ty(), vt->getNumElements());
  }
  llvm::Value* ci(llvm::Type* vt, int64_t v) { return llvm::ConstantInt::get(vt, uint64_t(v)); }
  llvm::Value* fma(llvm::Value* a, llvm::Value* b, llvm::Value* add) {
    llvm::Value* like = a->getType()->isVectorTy() ? a : b;
    auto vec = [&](llvm::Value* v) { return v->getType()->isVectorTy() ? v : splat(like, v); };
    return b_.CreateIntrinsic(llvm::Intrinsic::fmuladd, {like->getType()},
                              {vec(a), vec(b), vec(add)});
  }
  /// coeffs[0] x^(k-1) + ... + coeffs[k-1].
  llvm::Value* horner(llvm::Value* x, std::initializer_list<double> coeffs) {
    auto it = coeffs.begin();
    llvm::Value* p = splat(x, c(*it++));
    for (; it != coeffs.end(); ++it) p = fma(p, x, c(*it));
    return p;
  }
  /// x limited to [lo, hi]; NaN lanes become lo (keep_nan restores them).
  llvm::Value* clamp(llvm::Value* x, double lo, double hi) {
    llvm::Value* l = splat(x, c(lo));
    llvm::Value* h = splat(x, c(hi));
    llvm::Value* y = b_.CreateSelect(b_.CreateFCmpOGT(x, l), x, l);
    return b_.CreateSelect(b_.CreateFCmpOLT(y, h), y, h);
  }
  /// 2^n for n in [-126, 127]: the exponent field n + 127.
  llvm::Value* pow2(llvm::Value* n) {
    llvm::Value* bits = b_.CreateShl(b_.CreateAdd(n, ci(n->getType(), 127)), ci(n->getType(), 23));
    auto* vt = llvm::cast<llvm::FixedVectorType>(n->getType());
    return b_.CreateBitCast(bits, llvm::FixedVectorType::get(b_.getFloatTy(), vt->getNumElements()));
  }
  llvm::Value* keep_nan(llvm::Value* x, llvm::Value* y) {
    return b_.CreateSelect(b_.CreateFCmpUNO(x, x), x, y);
  }

  llvm::IRBuilder<>& b_;
};

}  // namespace

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
  // Vectors computed in float32: the polynomials of VectorMath (see the file comment).
  auto vector_math = [&](llvm::Value* (VectorMath::*fn)(llvm::Value*)) -> llvm::Value* {
    require_float(t);
    llvm::Value* x = to_compute(splat_if_needed(arg(0), t.lanes), t);
    VectorMath m(b_);
    return from_compute((m.*fn)(x), t);
  };
  bool poly = t.is_float() && t.lanes > 1 && t.bits <= 32;
  switch (op->op) {
    case Intrinsic::kExp:
      if (poly) return vector_math(&VectorMath::exp);
      require_float(t);
      return unary_float(llvm::Intrinsic::exp);
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
    case Intrinsic::kTanh:
      if (poly) return vector_math(&VectorMath::tanh);
      require_float(t);
      return libm1("tanh");
    case Intrinsic::kAsinh: require_float(t); return libm1("asinh");
    case Intrinsic::kAcosh: require_float(t); return libm1("acosh");
    case Intrinsic::kAtanh: require_float(t); return libm1("atanh");
    case Intrinsic::kErf:
      if (poly) return vector_math(&VectorMath::erf);
      require_float(t);
      return libm1("erf");
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
      llvm::Value* e = poly ? VectorMath(b_).exp(b_.CreateFNeg(x))
                            : b_.CreateUnaryIntrinsic(llvm::Intrinsic::exp, b_.CreateFNeg(x));
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
    case Intrinsic::kStorageSync:
      RX_THROW() << "llvm codegen: kernel '" << kernel_name_ << "': T.tvm_storage_sync(\""
                 << op->name << "\") is a GPU workgroup barrier; a CPU target cannot run it "
                 << "(compile this kernel for a GPU target, or for the interpreter)";
    case Intrinsic::kLaunchKernel:
      RX_THROW() << "llvm codegen: kernel '" << kernel_name_ << "': T.launch_kernel(\"" << op->name
                 << "\") launches a GPU kernel; only the host part of a GPU program "
                 << "(tir::split_host_device) may hold it, and a GPU target compiles it";
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
