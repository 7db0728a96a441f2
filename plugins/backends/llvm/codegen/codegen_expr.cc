// Expressions: types, constants, arithmetic with the integer semantics of tir/expr.h (wrapping,
// truncating Div/Mod, flooring FloorDiv/FloorMod), comparisons, casts with the interpreter's
// rules (tir/interpreter.h), loads (masked under a vector condition), Ramp and Broadcast
// vectors.
#include <algorithm>

#include <llvm/IR/Intrinsics.h>

#include "codegen_llvm.h"
#include "relax/support/diagnostic.h"

namespace relax::llvm_backend {

using namespace relax::tir;  // NOLINT: the node names read like the IR

// ---- Types.

llvm::Type* CodeGenLLVM::scalar_type(DataType t) {
  t = t.element_of();
  if (t.is_handle()) return ptr_;
  if (t.is_bool()) return b_.getInt1Ty();
  if (t.is_integer_like()) return llvm::IntegerType::get(ctx_, t.bits);
  if (t.code == DataType::kFloat) {
    if (t.bits == 16) return b_.getHalfTy();
    if (t.bits == 32) return b_.getFloatTy();
    if (t.bits == 64) return b_.getDoubleTy();
  }
  if (t.code == DataType::kBFloat && t.bits == 16) return i16_;
  RX_THROW() << "llvm codegen: kernel '" << kernel_name_ << "': dtype " << t.to_string()
             << " is not supported";
  return nullptr;
}

llvm::Type* CodeGenLLVM::value_type(DataType t) {
  llvm::Type* s = scalar_type(t);
  return t.lanes > 1 ? llvm::FixedVectorType::get(s, t.lanes) : s;
}

llvm::Type* CodeGenLLVM::memory_type(DataType t) {
  return t.is_bool() ? i8_ : scalar_type(t);
}

llvm::Type* CodeGenLLVM::compute_float_type(DataType t) {
  llvm::Type* s = t.bits == 64 ? b_.getDoubleTy() : b_.getFloatTy();
  return t.lanes > 1 ? llvm::FixedVectorType::get(s, t.lanes) : s;
}

llvm::Value* CodeGenLLVM::to_compute(llvm::Value* v, DataType t) {
  if (t.code == DataType::kBFloat) {
    llvm::Type* i32v = t.lanes > 1 ? llvm::FixedVectorType::get(i32_, t.lanes) : i32_;
    llvm::Value* wide = b_.CreateShl(b_.CreateZExt(v, i32v), 16);
    return b_.CreateBitCast(wide, compute_float_type(t));
  }
  if (is_narrow_float(t)) return b_.CreateFPExt(v, compute_float_type(t));
  return v;
}

llvm::Value* CodeGenLLVM::from_compute(llvm::Value* v, DataType t) {
  if (t.code == DataType::kBFloat) {
    // Round to nearest even; NaN stays a (quiet) NaN.
    llvm::Type* i32v = t.lanes > 1 ? llvm::FixedVectorType::get(i32_, t.lanes) : i32_;
    auto splat = [&](uint32_t x) -> llvm::Value* {
      llvm::Constant* c = llvm::ConstantInt::get(i32_, x);
      return t.lanes > 1 ? llvm::ConstantVector::getSplat(llvm::ElementCount::getFixed(t.lanes), c) : c;
    };
    llvm::Value* bits = b_.CreateBitCast(v, i32v);
    llvm::Value* lsb = b_.CreateAnd(b_.CreateLShr(bits, 16), splat(1));
    llvm::Value* rounded = b_.CreateLShr(b_.CreateAdd(bits, b_.CreateAdd(lsb, splat(0x7fff))), 16);
    llvm::Value* nan = b_.CreateLShr(b_.CreateOr(bits, splat(0x00400000)), 16);
    llvm::Value* is_nan = b_.CreateFCmpUNO(v, v);
    llvm::Type* i16v = t.lanes > 1 ? llvm::FixedVectorType::get(i16_, t.lanes) : i16_;
    return b_.CreateTrunc(b_.CreateSelect(is_nan, nan, rounded), i16v);
  }
  if (is_narrow_float(t)) return b_.CreateFPTrunc(v, value_type(t));
  return v;
}

llvm::Value* CodeGenLLVM::const_int(DataType t, int64_t v) {
  llvm::Constant* c = llvm::ConstantInt::get(scalar_type(t), uint64_t(v), t.is_int());
  if (t.lanes > 1) return llvm::ConstantVector::getSplat(llvm::ElementCount::getFixed(t.lanes), c);
  return c;
}

llvm::Value* CodeGenLLVM::splat_if_needed(llvm::Value* v, int lanes) {
  if (lanes <= 1 || v->getType()->isVectorTy()) return v;
  return b_.CreateVectorSplat(lanes, v);
}

llvm::Value* CodeGenLLVM::cast_value(llvm::Value* v, DataType from, DataType to) {
  if (from == to) return v;
  int lanes = to.lanes;
  v = splat_if_needed(v, lanes);
  DataType f = from.with_lanes(lanes);
  if (to.is_bool()) {
    if (f.is_float()) {
      llvm::Value* x = to_compute(v, f);
      return b_.CreateFCmpUNE(x, llvm::Constant::getNullValue(x->getType()));
    }
    return b_.CreateICmpNE(v, llvm::Constant::getNullValue(v->getType()));
  }
  if (to.is_float()) {
    llvm::Type* ct = compute_float_type(to);
    llvm::Value* x;
    if (f.is_float()) {
      x = to_compute(v, f);
      // Narrow to narrow goes through float (exact for widening, one rounding otherwise).
      if (x->getType()->getScalarSizeInBits() < ct->getScalarSizeInBits()) x = b_.CreateFPExt(x, ct);
      else if (x->getType()->getScalarSizeInBits() > ct->getScalarSizeInBits()) {
        if (is_narrow_float(to) && to.code == DataType::kFloat)
          return b_.CreateFPTrunc(x, value_type(to));  // double -> half, one rounding
        x = b_.CreateFPTrunc(x, ct);
      }
    } else if (f.is_int()) {
      x = b_.CreateSIToFP(v, ct);
    } else {
      x = b_.CreateUIToFP(v, ct);  // unsigned and bool
    }
    return from_compute(x, to);
  }
  if (to.is_integer_like()) {
    llvm::Type* tt = value_type(to);
    if (f.is_float()) {
      // Truncate toward zero; NaN gives 0; out of the int64 range saturates, then wraps.
      llvm::Value* x = to_compute(v, f);
      llvm::Type* i64v = lanes > 1 ? llvm::FixedVectorType::get(i64_, lanes) : i64_;
      llvm::Value* sat = b_.CreateIntrinsic(llvm::Intrinsic::fptosi_sat, {i64v, x->getType()}, {x});
      return b_.CreateTrunc(sat, tt);
    }
    if (f.is_handle()) return b_.CreatePtrToInt(v, tt);
    unsigned fb = v->getType()->getScalarSizeInBits(), tb = to.bits;
    if (fb == tb) return v;
    if (fb > tb) return b_.CreateTrunc(v, tt);
    return f.is_int() ? b_.CreateSExt(v, tt) : b_.CreateZExt(v, tt);
  }
  if (to.is_handle() && f.is_integer_like()) return b_.CreateIntToPtr(v, ptr_);
  RX_THROW() << "llvm codegen: kernel '" << kernel_name_ << "': cast from " << from.to_string()
             << " to " << to.to_string() << " is not supported";
}

llvm::Value* CodeGenLLVM::emit(const PrimExpr& e) {
  RX_ICHECK(e.defined()) << "llvm codegen: undefined PrimExpr";
  switch (PrimExprKind(e->kind())) {
#define RELAX_X(Name)         \
  case PrimExprKind::k##Name: \
    return visit_(static_cast<const tir::Name*>(e.get()));
    RELAX_PRIM_EXPR_NODES(RELAX_X)
#undef RELAX_X
    default:
      break;
  }
  RX_IFAIL() << "llvm codegen: not a PrimExpr kind: " << e->kind();
  return nullptr;
}

// ---- Leaves.

llvm::Value* CodeGenLLVM::visit_(const IntImm* op) { return const_int(op->dtype, op->value); }

llvm::Value* CodeGenLLVM::visit_(const FloatImm* op) {
  DataType t = op->dtype;
  llvm::Type* ct = compute_float_type(t.element_of());
  llvm::Value* c = llvm::ConstantFP::get(ct, op->value);
  if (t.bits == 64 || t.bits == 32) return splat_if_needed(c, t.lanes);
  if (t.code == DataType::kFloat) {  // half: convert from double in one rounding
    c = b_.CreateFPTrunc(llvm::ConstantFP::get(b_.getDoubleTy(), op->value), b_.getHalfTy());
    return splat_if_needed(c, t.lanes);
  }
  return splat_if_needed(from_compute(c, t.element_of()), t.lanes);
}

llvm::Value* CodeGenLLVM::visit_(const tir::Var* op) {
  auto it = vars_.find(op);
  RX_CHECK(it != vars_.end()) << "llvm codegen: kernel '" << kernel_name_ << "': variable "
                              << op->name << " is used where it is not defined";
  return it->second;
}

// ---- Arithmetic.

#define RELAX_ARITH(Name, IntOp, FloatOp)                                               \
  llvm::Value* CodeGenLLVM::visit_(const Name* op) {                                    \
    DataType t = op->dtype;                                                             \
    llvm::Value* a = splat_if_needed(emit(op->a), t.lanes);                             \
    llvm::Value* b = splat_if_needed(emit(op->b), t.lanes);                             \
    if (t.is_float()) {                                                                 \
      /* Narrow floats round after every op, as the interpreter does: without the       \
         contract flag no half FMA fuses a product into a sum (AVX512-FP16 has one). */  \
      llvm::IRBuilderBase::FastMathFlagGuard guard(b_);                                  \
      if (is_narrow_float(t)) b_.clearFastMathFlags();                                   \
      return from_compute(b_.FloatOp(to_compute(a, t), to_compute(b, t)), t);           \
    }                                                                                   \
    return b_.IntOp(a, b);                                                              \
  }
RELAX_ARITH(Add, CreateAdd, CreateFAdd)
RELAX_ARITH(Sub, CreateSub, CreateFSub)
RELAX_ARITH(Mul, CreateMul, CreateFMul)
#undef RELAX_ARITH

llvm::Value* CodeGenLLVM::emit_div_mod(DataType t, llvm::Value* a, llvm::Value* b, bool mod,
                                       bool floor) {
  // Division by zero has no defined result in TIR (the interpreter reports it); here it must
  // not trap, so a zero divisor is replaced by 1. INT_MIN / -1 wraps (x / -1 == -x, x % -1 == 0).
  llvm::Value* zero = llvm::Constant::getNullValue(a->getType());
  llvm::Value* one = const_int(t, 1);
  llvm::Value* safe_b = b_.CreateSelect(b_.CreateICmpEQ(b, zero), one, b);
  if (t.is_uint() || t.is_bool()) return mod ? b_.CreateURem(a, safe_b) : b_.CreateUDiv(a, safe_b);
  llvm::Value* minus_one = const_int(t, -1);
  llvm::Value* is_m1 = b_.CreateICmpEQ(safe_b, minus_one);
  llvm::Value* d = b_.CreateSelect(is_m1, one, safe_b);
  llvm::Value* q = b_.CreateSDiv(a, d);
  llvm::Value* r = b_.CreateSRem(a, d);
  q = b_.CreateSelect(is_m1, b_.CreateSub(zero, a), q);
  r = b_.CreateSelect(is_m1, zero, r);
  if (floor) {
    // Python semantics: when the remainder is non-zero and its sign differs from the divisor's,
    // q -= 1 and r += b.
    llvm::Value* adjust = b_.CreateAnd(b_.CreateICmpNE(r, zero),
                                       b_.CreateICmpSLT(b_.CreateXor(r, safe_b), zero));
    q = b_.CreateSelect(adjust, b_.CreateSub(q, one), q);
    r = b_.CreateSelect(adjust, b_.CreateAdd(r, safe_b), r);
  }
  return mod ? r : q;
}

llvm::Value* CodeGenLLVM::emit_float_div_mod(DataType t, llvm::Value* a, llvm::Value* b, bool mod,
                                             bool floor) {
  if (!floor && !mod) return from_compute(b_.CreateFDiv(to_compute(a, t), to_compute(b, t)), t);
  // Floor division and the modulos are computed in double and rounded once (the interpreter's
  // rule), so float32 results match it bit for bit.
  llvm::Type* dt = t.lanes > 1 ? llvm::FixedVectorType::get(b_.getDoubleTy(), t.lanes)
                               : b_.getDoubleTy();
  auto widen = [&](llvm::Value* v) {
    llvm::Value* c = to_compute(v, t);
    return c->getType() == dt ? c : b_.CreateFPExt(c, dt);
  };
  llvm::Value* x = widen(a);
  llvm::Value* y = widen(b);
  llvm::Value* r;
  if (!floor) {
    r = b_.CreateFRem(x, y);
  } else {
    llvm::Value* fq = b_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, b_.CreateFDiv(x, y));
    r = mod ? b_.CreateFSub(x, b_.CreateFMul(fq, y)) : fq;
  }
  return cast_value(r, DataType::Float(64, t.lanes), t);
}

#define RELAX_DIV(Name, Mod, Floor)                                       \
  llvm::Value* CodeGenLLVM::visit_(const Name* op) {                      \
    DataType t = op->dtype;                                               \
    llvm::Value* a = splat_if_needed(emit(op->a), t.lanes);               \
    llvm::Value* b = splat_if_needed(emit(op->b), t.lanes);               \
    if (t.is_float()) return emit_float_div_mod(t, a, b, Mod, Floor);     \
    return emit_div_mod(t, a, b, Mod, Floor);                             \
  }
RELAX_DIV(Div, false, false)
RELAX_DIV(Mod, true, false)
RELAX_DIV(FloorDiv, false, true)
RELAX_DIV(FloorMod, true, true)
#undef RELAX_DIV

llvm::Value* CodeGenLLVM::visit_(const Min* op) {
  // min(a, b) = b < a ? b : a (the interpreter's choice for NaN: a NaN in `a` stays).
  DataType t = op->dtype;
  llvm::Value* a = splat_if_needed(emit(op->a), t.lanes);
  llvm::Value* b = splat_if_needed(emit(op->b), t.lanes);
  llvm::Value* lt = t.is_float() ? b_.CreateFCmpOLT(to_compute(b, t), to_compute(a, t))
                    : t.is_int() ? b_.CreateICmpSLT(b, a)
                                 : b_.CreateICmpULT(b, a);
  return b_.CreateSelect(lt, b, a);
}

llvm::Value* CodeGenLLVM::visit_(const Max* op) {
  DataType t = op->dtype;
  llvm::Value* a = splat_if_needed(emit(op->a), t.lanes);
  llvm::Value* b = splat_if_needed(emit(op->b), t.lanes);
  llvm::Value* lt = t.is_float() ? b_.CreateFCmpOLT(to_compute(a, t), to_compute(b, t))
                    : t.is_int() ? b_.CreateICmpSLT(a, b)
                                 : b_.CreateICmpULT(a, b);
  return b_.CreateSelect(lt, b, a);
}

llvm::Value* CodeGenLLVM::emit_compare(const BinaryOp* op, llvm::CmpInst::Predicate fp,
                                       llvm::CmpInst::Predicate sp, llvm::CmpInst::Predicate up) {
  DataType t = op->a->dtype.with_lanes(op->dtype.lanes);
  llvm::Value* a = splat_if_needed(emit(op->a), t.lanes);
  llvm::Value* b = splat_if_needed(emit(op->b), t.lanes);
  if (t.is_float()) return b_.CreateFCmp(fp, to_compute(a, t), to_compute(b, t));
  if (t.is_handle()) return b_.CreateICmp(up, b_.CreatePtrToInt(a, i64_), b_.CreatePtrToInt(b, i64_));
  return b_.CreateICmp(t.is_int() ? sp : up, a, b);
}

using P = llvm::CmpInst::Predicate;
llvm::Value* CodeGenLLVM::visit_(const EQ* op) {
  return emit_compare(op, P::FCMP_OEQ, P::ICMP_EQ, P::ICMP_EQ);
}
llvm::Value* CodeGenLLVM::visit_(const NE* op) {
  return emit_compare(op, P::FCMP_UNE, P::ICMP_NE, P::ICMP_NE);
}
llvm::Value* CodeGenLLVM::visit_(const LT* op) {
  return emit_compare(op, P::FCMP_OLT, P::ICMP_SLT, P::ICMP_ULT);
}
llvm::Value* CodeGenLLVM::visit_(const LE* op) {
  return emit_compare(op, P::FCMP_OLE, P::ICMP_SLE, P::ICMP_ULE);
}
llvm::Value* CodeGenLLVM::visit_(const GT* op) {
  return emit_compare(op, P::FCMP_OGT, P::ICMP_SGT, P::ICMP_UGT);
}
llvm::Value* CodeGenLLVM::visit_(const GE* op) {
  return emit_compare(op, P::FCMP_OGE, P::ICMP_SGE, P::ICMP_UGE);
}

llvm::Value* CodeGenLLVM::visit_(const And* op) {
  int lanes = op->dtype.lanes;
  return b_.CreateAnd(splat_if_needed(emit(op->a), lanes), splat_if_needed(emit(op->b), lanes));
}
llvm::Value* CodeGenLLVM::visit_(const Or* op) {
  int lanes = op->dtype.lanes;
  return b_.CreateOr(splat_if_needed(emit(op->a), lanes), splat_if_needed(emit(op->b), lanes));
}
llvm::Value* CodeGenLLVM::visit_(const Not* op) { return b_.CreateNot(emit(op->a)); }

llvm::Value* CodeGenLLVM::visit_(const Select* op) {
  int lanes = op->dtype.lanes;
  llvm::Value* c = emit(op->condition);
  llvm::Value* t = splat_if_needed(emit(op->true_value), lanes);
  llvm::Value* f = splat_if_needed(emit(op->false_value), lanes);
  return b_.CreateSelect(c, t, f);
}

llvm::Value* CodeGenLLVM::visit_(const Cast* op) {
  return cast_value(emit(op->value), op->value->dtype, op->dtype);
}

llvm::Value* CodeGenLLVM::visit_(const Let* op) {
  llvm::Value* v = emit(op->value);
  bind_var(op->var.get(), v);
  llvm::Value* r = emit(op->body);
  unbind_var(op->var.get());
  return r;
}

llvm::Value* CodeGenLLVM::visit_(const tir::Call* op) { return emit_intrinsic(op); }

// ---- Vectors.

llvm::Value* CodeGenLLVM::visit_(const Ramp* op) {
  DataType t = op->dtype;
  llvm::Value* base = b_.CreateVectorSplat(op->lanes, emit(op->base));
  llvm::Value* stride = b_.CreateVectorSplat(op->lanes, emit(op->stride));
  std::vector<llvm::Constant*> steps;
  for (int l = 0; l < op->lanes; ++l)
    steps.push_back(llvm::ConstantInt::get(scalar_type(t), uint64_t(l)));
  return b_.CreateAdd(base, b_.CreateMul(stride, llvm::ConstantVector::get(steps)));
}

llvm::Value* CodeGenLLVM::visit_(const Broadcast* op) {
  return b_.CreateVectorSplat(op->lanes, emit(op->value));
}

// ---- Memory.

llvm::Value* CodeGenLLVM::buffer_ptr(const Buffer& buffer) {
  auto it = vars_.find(buffer.data.get());
  RX_CHECK(it != vars_.end()) << "llvm codegen: kernel '" << kernel_name_ << "': buffer "
                              << buffer.name << " has no memory here (is the function lowered?)";
  return it->second;
}

llvm::Value* CodeGenLLVM::tag_access(llvm::Value* access, const Buffer& buffer) {
  auto it = param_alias_.find(buffer.data.get());
  if (it == param_alias_.end()) return access;
  auto* inst = llvm::cast<llvm::Instruction>(access);
  inst->setMetadata(llvm::LLVMContext::MD_alias_scope, it->second.first);
  inst->setMetadata(llvm::LLVMContext::MD_noalias, it->second.second);
  return access;
}

llvm::Value* CodeGenLLVM::element_address(const Buffer& buffer, llvm::Value* index) {
  if (index->getType() != i64_) index = b_.CreateSExt(index, i64_);
  return b_.CreateInBoundsGEP(memory_type(buffer.dtype), buffer_ptr(buffer), index);
}

llvm::Value* CodeGenLLVM::element_addresses(const Buffer& buffer, llvm::Value* index) {
  auto* vt = llvm::cast<llvm::FixedVectorType>(index->getType());
  if (vt->getElementType() != i64_)
    index = b_.CreateSExt(index, llvm::FixedVectorType::get(i64_, vt->getNumElements()));
  return b_.CreateInBoundsGEP(memory_type(buffer.dtype), buffer_ptr(buffer), index);
}

llvm::Value* CodeGenLLVM::and_mask(llvm::Value* mask) {
  if (!mask) return mask_;
  if (!mask_) return mask;
  return b_.CreateAnd(mask_, mask);
}

llvm::Value* CodeGenLLVM::load_element(const Buffer& buffer, llvm::Value* index, DataType t) {
  llvm::Type* mt = memory_type(t);
  llvm::Align align(std::max(1, t.element_of().bytes()));
  llvm::Value* v =
      tag_access(b_.CreateAlignedLoad(mt, element_address(buffer, index), align), buffer);
  return t.is_bool() ? b_.CreateICmpNE(v, llvm::ConstantInt::get(i8_, 0)) : v;
}

void CodeGenLLVM::store_element(const Buffer& buffer, llvm::Value* index, llvm::Value* value,
                                DataType t) {
  if (t.is_bool()) value = b_.CreateZExt(value, i8_);
  tag_access(b_.CreateAlignedStore(value, element_address(buffer, index),
                                   llvm::Align(std::max(1, t.element_of().bytes()))),
             buffer);
}

llvm::Value* CodeGenLLVM::visit_(const BufferLoad* op) {
  RX_CHECK(op->indices.size() == 1) << "llvm codegen: kernel '" << kernel_name_ << "': buffer "
                                    << op->buffer->name << " is not flat (lower the function)";
  DataType t = op->dtype;
  const PrimExpr& index = op->indices[0];
  if (t.lanes == 1) return load_element(*op->buffer, emit(index), t);
  auto* ramp = index.as<Ramp>();
  if (mask_) {
    // Inactive lanes read nothing (they may lie past the end of the buffer) and give zero.
    RX_ICHECK(llvm::cast<llvm::FixedVectorType>(mask_->getType())->getNumElements() ==
              unsigned(t.lanes))
        << "llvm codegen: kernel '" << kernel_name_ << "': a load of " << t.lanes
        << " lanes under a mask of another width";
    llvm::Align align(std::max(1, t.element_of().bytes()));
    llvm::Type* mt = t.is_bool() ? llvm::FixedVectorType::get(i8_, t.lanes) : value_type(t);
    llvm::Value* zero = llvm::Constant::getNullValue(mt);
    llvm::Value* v = tag_access(
        ramp && is_const_int(ramp->stride, 1)
            ? b_.CreateMaskedLoad(mt, element_address(*op->buffer, emit(ramp->base)), align,
                                  mask_, zero)
            : b_.CreateMaskedGather(mt, element_addresses(*op->buffer, emit(index)), align, mask_,
                                    zero),
        *op->buffer);
    return t.is_bool() ? b_.CreateICmpNE(v, zero) : v;
  }
  if (ramp && is_const_int(ramp->stride, 1) && !t.is_bool()) {
    llvm::Value* addr = element_address(*op->buffer, emit(ramp->base));
    return tag_access(
        b_.CreateAlignedLoad(value_type(t), addr, llvm::Align(std::max(1, t.element_of().bytes()))),
        *op->buffer);
  }
  // Gather lane by lane.
  llvm::Value* idx = emit(index);
  llvm::Value* result = llvm::UndefValue::get(value_type(t));
  for (int l = 0; l < t.lanes; ++l) {
    llvm::Value* e = load_element(*op->buffer, b_.CreateExtractElement(idx, uint64_t(l)),
                                  t.element_of());
    result = b_.CreateInsertElement(result, e, uint64_t(l));
  }
  return result;
}

}  // namespace relax::llvm_backend
