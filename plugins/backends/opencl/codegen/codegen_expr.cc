// Expressions of the OpenCL code generator (opencl_codegen.h): one lane of a PrimExpr as an
// OpenCL C expression, with the interpreter's semantics (see the header).
#include "codegen_internal.h"
#include "relax/support/diagnostic.h"

namespace relax::opencl {

using namespace relax::tir;
using tir::Buffer;
using tir::Call;
using tir::Evaluate;
using tir::Let;
using tir::PrimFunc;
using tir::Var;

void KernelWriter::unsupported(const std::string& what) {
  RX_THROW() << "OpenCL kernel " << kernel_.name << ": cannot generate OpenCL C for " << what;
}

std::string KernelWriter::visit_expr_default(const PrimExprNode* op, int) {
  unsupported(std::string("the expression ") + to_string(PrimExpr(op)));
}

std::string KernelWriter::fix(DataType t, const std::string& text) {
  t = t.element_of();
  if (t.is_bool()) return "((" + text + ") & 1)";
  if (t.is_integer_like() && t.bits < 32) return "((" + value_type(t) + ")(" + text + "))";
  if (is_soft_half(t, opt_)) return "rx_rh(" + text + ")";
  if (is_bf16(t)) return "rx_rbf(" + text + ")";
  if (t.code == DataType::kFloat && t.bits == 16) return "((half)(" + text + "))";
  return "(" + text + ")";
}

std::string KernelWriter::visit_(const IntImm* op, int) {
  return literal_int(op->dtype, op->value);
}
std::string KernelWriter::visit_(const FloatImm* op, int) {
  return literal_float(op->dtype, op->value);
}

std::string KernelWriter::visit_(const Var* op, int lane) {
  auto it = vars_.find(op);
  if (it == vars_.end()) unsupported("the variable " + op->name + ", which is defined nowhere");
  return it->second.size() == 1 ? it->second[0] : it->second.at(size_t(lane));
}

std::string KernelWriter::binary(const BinaryOp* op, int lane, const char* sym) {
  return fix(op->dtype, expr(op->a, lane) + " " + sym + " " + expr(op->b, lane));
}
std::string KernelWriter::compare(const BinaryOp* op, int lane, const char* sym) {
  return "(" + expr(op->a, lane) + " " + sym + " " + expr(op->b, lane) + ")";
}
std::string KernelWriter::helper(const char* fn, const BinaryOp* op, int lane) {
  return std::string(fn) + "_" + value_type(op->dtype) + "(" + expr(op->a, lane) + ", " +
         expr(op->b, lane) + ")";
}

std::string KernelWriter::visit_(const Add* op, int l) { return binary(op, l, "+"); }
std::string KernelWriter::visit_(const Sub* op, int l) { return binary(op, l, "-"); }
std::string KernelWriter::visit_(const Mul* op, int l) { return binary(op, l, "*"); }
std::string KernelWriter::visit_(const Div* op, int l) {
  if (op->dtype.is_float()) return binary(op, l, "/");
  return helper("rx_div", op, l);
}
std::string KernelWriter::visit_(const Mod* op, int l) {
  if (op->dtype.is_float())
    return fix(op->dtype, "fmod(" + expr(op->a, l) + ", " + expr(op->b, l) + ")");
  return helper("rx_mod", op, l);
}
std::string KernelWriter::visit_(const FloorDiv* op, int l) {
  if (op->dtype.is_float())
    return fix(op->dtype, "floor(" + expr(op->a, l) + " / " + expr(op->b, l) + ")");
  return helper("rx_fdiv", op, l);
}
std::string KernelWriter::visit_(const FloorMod* op, int l) {
  if (op->dtype.is_float()) {
    std::string a = expr(op->a, l), b = expr(op->b, l);
    return fix(op->dtype, a + " - floor(" + a + " / " + b + ") * " + b);
  }
  return helper("rx_fmod", op, l);
}
std::string KernelWriter::visit_(const Min* op, int l) {
  if (op->dtype.is_bool()) return "(" + expr(op->a, l) + " & " + expr(op->b, l) + ")";
  return helper("rx_min", op, l);
}
std::string KernelWriter::visit_(const Max* op, int l) {
  if (op->dtype.is_bool()) return "(" + expr(op->a, l) + " | " + expr(op->b, l) + ")";
  return helper("rx_max", op, l);
}
std::string KernelWriter::visit_(const EQ* op, int l) { return compare(op, l, "=="); }
std::string KernelWriter::visit_(const NE* op, int l) { return compare(op, l, "!="); }
std::string KernelWriter::visit_(const LT* op, int l) { return compare(op, l, "<"); }
std::string KernelWriter::visit_(const LE* op, int l) { return compare(op, l, "<="); }
std::string KernelWriter::visit_(const GT* op, int l) { return compare(op, l, ">"); }
std::string KernelWriter::visit_(const GE* op, int l) { return compare(op, l, ">="); }
std::string KernelWriter::visit_(const And* op, int l) {
  return "(" + expr(op->a, l) + " && " + expr(op->b, l) + ")";
}
std::string KernelWriter::visit_(const Or* op, int l) {
  return "(" + expr(op->a, l) + " || " + expr(op->b, l) + ")";
}
std::string KernelWriter::visit_(const Not* op, int l) { return "(!" + expr(op->a, l) + ")"; }
std::string KernelWriter::visit_(const Select* op, int l) {
  return "(" + expr(op->condition, l) + " ? " + expr(op->true_value, l) + " : " +
         expr(op->false_value, l) + ")";
}

std::string KernelWriter::cast(DataType from, DataType to, const std::string& x) {
  from = from.element_of();
  to = to.element_of();
  if (from == to) return x;
  bool f64_from = from.code == DataType::kFloat && from.bits == 64;
  bool f64_to = to.code == DataType::kFloat && to.bits == 64;
  std::string tv = value_type(to);
  value_type(from);
  if (to.is_bool()) return "(" + x + " != 0)";
  if (to.is_float()) {
    if (f64_to) return "((double)" + x + ")";
    if (is_soft_half(to, opt_)) {
      if (f64_from || (opt_.fp64 && from.is_integer_like() && from.bits > 16))
        return "rx_rh_d((double)" + x + ")";
      if (is_soft_half(from, opt_)) return x;
      return "rx_rh((float)" + x + ")";
    }
    if (is_bf16(to)) return "rx_rbf((float)" + x + ")";
    return "((" + tv + ")" + x + ")";  // float32, or half with fp16=1
  }
  // to an integer
  if (from.is_float()) {
    if (to.is_uint() && to.bits == 64)
      return (f64_from ? "rx_d2ulong(" : "rx_f2ulong((float)") + x + ")";
    return "((" + tv + ")" + (f64_from ? "rx_d2long(" : "rx_f2long((float)") + x + "))";
  }
  return "((" + tv + ")" + x + ")";
}

std::string KernelWriter::visit_(const Cast* op, int l) {
  return cast(op->value->dtype, op->dtype, expr(op->value, l));
}

std::string KernelWriter::visit_(const Let* op, int l) {
  // Pure expressions: the body reads the value's text where it names the variable.
  std::vector<std::string> lanes;
  for (int i = 0; i < op->value->dtype.lanes; ++i) lanes.push_back("(" + expr(op->value, i) + ")");
  auto [it, fresh_var] = vars_.emplace(op->var.get(), lanes);
  if (!fresh_var) unsupported("a Let that binds " + op->var->name + " twice");
  std::string r = expr(op->body, l);
  vars_.erase(op->var.get());
  return r;
}

std::string KernelWriter::visit_(const BufferLoad* op, int l) {
  const BufferSlot& s = slot_of(*op->buffer, "load from");
  return load(s, op->buffer->dtype, index_of(*op->buffer, op->indices, l));
}

std::string KernelWriter::visit_(const Ramp* op, int l) {
  DataType t = op->base->dtype;
  return fix(t, expr(op->base) + " + " + expr(op->stride) + " * " + literal_int(t, l));
}
std::string KernelWriter::visit_(const Broadcast* op, int) { return expr(op->value, 0); }

std::string KernelWriter::visit_(const Call* op, int l) { return intrinsic(op, l); }

std::string KernelWriter::intrinsic(const Call* op, int l) {
  DataType t = op->dtype.element_of();
  auto arg = [&](size_t i) {
    if (i >= op->args.size())
      unsupported(std::string(intrinsic_name(op->op)) + " with " + std::to_string(op->args.size()) +
                  " operands");
    return expr(op->args[i], l);
  };
  auto fn1 = [&](const std::string& f) { return fix(t, f + "(" + arg(0) + ")"); };
  auto fn2 = [&](const std::string& f) { return fix(t, f + "(" + arg(0) + ", " + arg(1) + ")"); };
  bool flt = t.is_float();
  std::string one = flt ? literal_float(t, 1.0) : "";
  switch (op->op) {
    case Intrinsic::kExp:
    case Intrinsic::kExp2:
    case Intrinsic::kLog:
    case Intrinsic::kLog2:
    case Intrinsic::kLog1p:
    case Intrinsic::kSqrt:
    case Intrinsic::kSin:
    case Intrinsic::kCos:
    case Intrinsic::kTan:
    case Intrinsic::kAsin:
    case Intrinsic::kAcos:
    case Intrinsic::kAtan:
    case Intrinsic::kSinh:
    case Intrinsic::kCosh:
    case Intrinsic::kTanh:
    case Intrinsic::kAsinh:
    case Intrinsic::kAcosh:
    case Intrinsic::kAtanh:
    case Intrinsic::kErf:
      if (!flt) unsupported(std::string(intrinsic_name(op->op)) + " of " + t.to_string());
      return fn1(intrinsic_name(op->op));
    case Intrinsic::kRsqrt:
      if (!flt) unsupported("rsqrt of " + t.to_string());
      return fix(t, one + " / sqrt(" + arg(0) + ")");
    case Intrinsic::kSigmoid:
      if (!flt) unsupported("sigmoid of " + t.to_string());
      return fix(t, one + " / (" + one + " + exp(-" + arg(0) + "))");
    case Intrinsic::kFloor:
    case Intrinsic::kCeil:
    case Intrinsic::kTrunc:
      return flt ? fn1(intrinsic_name(op->op)) : arg(0);
    case Intrinsic::kRound:
      return flt ? fn1("rint") : arg(0);
    case Intrinsic::kFabs:
    case Intrinsic::kAbs:
      if (flt) return fn1("fabs");
      if (t.is_int()) return "((" + value_type(t) + ")abs(" + arg(0) + "))";
      return arg(0);
    case Intrinsic::kIsNan:
    case Intrinsic::kIsInf:
    case Intrinsic::kIsFinite:
      if (!op->args.at(0)->dtype.is_float()) return op->op == Intrinsic::kIsFinite ? "1" : "0";
      return std::string("(") + intrinsic_name(op->op) + "(" + arg(0) + ") != 0)";
    case Intrinsic::kPow:
    case Intrinsic::kFmod:
    case Intrinsic::kAtan2:
      if (!flt) unsupported(std::string(intrinsic_name(op->op)) + " of " + t.to_string());
      return fn2(intrinsic_name(op->op));
    case Intrinsic::kBitwiseAnd:
      return fix(t, arg(0) + " & " + arg(1));
    case Intrinsic::kBitwiseOr:
      return fix(t, arg(0) + " | " + arg(1));
    case Intrinsic::kBitwiseXor:
      return fix(t, arg(0) + " ^ " + arg(1));
    case Intrinsic::kBitwiseNot:
      return fix(t, "~" + arg(0));
    case Intrinsic::kShiftLeft:
      return fix(t, arg(0) + " << " + arg(1));
    case Intrinsic::kShiftRight:
      return fix(t, arg(0) + " >> " + arg(1));
    case Intrinsic::kIfThenElse:
      return "(" + arg(0) + " ? " + arg(1) + " : " + arg(2) + ")";
    case Intrinsic::kLikely:
      return arg(0);
    case Intrinsic::kReinterpret: {
      DataType from = op->args.at(0)->dtype.element_of();
      std::string x = arg(0);
      if (from.bits != t.bits)
        unsupported("reinterpret of " + from.to_string() + " as " + t.to_string());
      if (from == t) return x;
      // Through the bits as an unsigned integer of the same width.
      std::string bits;
      if (is_soft_half(from, opt_))
        bits = "rx_h2bits(" + x + ")";
      else if (is_bf16(from))
        bits = "rx_f2bf(" + x + ")";
      else if (from.is_float())
        bits = "as_" +
               std::string(from.bits == 64   ? "ulong"
                           : from.bits == 16 ? "ushort"
                                             : "uint") +
               "(" + x + ")";
      else
        bits = "((" + value_type(DataType::UInt(from.bits)) + ")" + x + ")";
      if (is_soft_half(t, opt_)) return "rx_bits2h(" + bits + ")";
      if (is_bf16(t)) return "rx_bf2f(" + bits + ")";
      if (t.is_float()) return "as_" + value_type(t) + "(" + bits + ")";
      return "((" + value_type(t) + ")" + bits + ")";
    }
    case Intrinsic::kStorageSync:
      unsupported("T.tvm_storage_sync inside an expression (it must be a statement of its own)");
    case Intrinsic::kExtern:
      unsupported("the external function call " + op->name);
    default:
      unsupported(std::string("the intrinsic ") + intrinsic_name(op->op));
  }
}

}  // namespace relax::opencl
