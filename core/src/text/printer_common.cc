// Shared script utilities: literal spelling, unique names, block region inference and the
// PrimExpr printer (see script_common.h and printer_internal.h).
#include <charconv>
#include <cmath>

#include "printer_internal.h"
#include "relax/ir/structural_equal.h"
#include "relax/tir/stmt_functor.h"

namespace relax::script {

std::string format_float(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, res.ptr);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

std::string format_float32(float v) {
  if (std::isnan(v) || std::isinf(v)) return format_float(double(v));
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, res.ptr);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        out += c;
    }
  }
  return out + "\"";
}

NameTable::NameTable() {
  for (const char* r :
       {"R",    "T",     "I",     "cls",    "metadata", "Module", "def",    "class", "if",
        "elif", "else",  "for",   "in",     "with",     "as",     "return", "pass",  "assert",
        "and",  "or",    "not",   "lambda", "while",    "import", "from",   "True",  "False",
        "None", "range", "float", "is",     "del",      "global", "yield"})
    used_.insert(r);
}

const std::string& NameTable::define(const Object* obj, const std::string& hint) {
  auto it = names_.find(obj);
  if (it != names_.end()) return it->second;
  std::string base;
  for (char c : hint)
    base += ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')
                ? c
                : '_';
  if (base.empty() || (base[0] >= '0' && base[0] <= '9')) base = "v" + base;
  std::string name = base;
  for (int k = 1; used_.count(name); ++k) name = base + "_" + std::to_string(k);
  used_.insert(name);
  return names_.emplace(obj, name).first->second;
}

const std::string* NameTable::find(const Object* obj) const {
  auto it = names_.find(obj);
  return it == names_.end() ? nullptr : &it->second;
}

// ---- Region inference.

DataType intrinsic_default_dtype(tir::Intrinsic op, const std::vector<tir::PrimExpr>& args) {
  using tir::Intrinsic;
  switch (op) {
    case Intrinsic::kIsNan:
    case Intrinsic::kIsInf:
    case Intrinsic::kIsFinite:
      return DataType::Bool(args.empty() ? 1 : args[0]->dtype.lanes);
    case Intrinsic::kIfThenElse:
      return args.size() > 1 ? args[1]->dtype : DataType::Void();
    case Intrinsic::kLaunchKernel:
      return DataType::Int(32);
    case Intrinsic::kExtern:
    case Intrinsic::kReinterpret:
      return DataType::Void();
    case Intrinsic::kStorageSync:
      return DataType::Int(32);
    default:
      return args.empty() ? DataType::Void() : args[0]->dtype;
  }
}

// ---- PrimExpr printer.

namespace {
// Precedences, loosest first (Python's).
enum Prec { kOr = 1, kAnd, kNot, kCmp, kAdd, kMul, kUnary, kAtom };
}  // namespace

std::string PrimPrinter::typed_literal(const tir::PrimExpr& e) {
  if (auto* i = e.as<tir::IntImm>()) {
    if (i->dtype.is_bool()) return i->value ? "True" : "False";
    return "T." + i->dtype.to_string() + "(" + std::to_string(i->value) + ")";
  }
  if (auto* f = e.as<tir::FloatImm>()) {
    std::string v = f->dtype == DataType::Float(32) && double(float(f->value)) == f->value
                        ? format_float32(float(f->value))
                        : format_float(f->value);
    if (v == "nan" || v == "inf" || v == "-inf") v = quote(v);
    // T.float32(0) rather than T.float32(0.0), as TVM prints it.
    if (std::abs(f->value) < 1e15 && f->value == std::floor(f->value) && !std::signbit(f->value))
      v = std::to_string(int64_t(f->value));
    return "T." + f->dtype.to_string() + "(" + v + ")";
  }
  return {};
}

std::string PrimPrinter::var_name(const tir::Var* v) {
  if (const std::string* n = names_->find(v)) return *n;
  return v->name.empty() ? "v" : v->name;
}

std::string PrimPrinter::print_prec(const tir::PrimExpr& e, DataType hint, int min_prec) {
  using namespace tir;
  if (!e.defined()) return "None";
  std::string s;
  int prec = kAtom;
  auto wrap = [&](std::string text, int p) {
    prec = p;
    return text;
  };
  auto hint_for = [](const PrimExpr& other) {
    return other.is<IntImm>() ? kDefaultInt : other->dtype;
  };
  auto bin = [&](const BinaryOp* op, const char* sym, int p) {
    std::string a = print_prec(op->a, hint_for(op->b), p == kCmp ? p + 1 : p);
    std::string b = print_prec(op->b, hint_for(op->a), p + 1);
    return wrap(a + " " + sym + " " + b, p);
  };
  auto fn = [&](const char* name, const BinaryOp* op) {
    return std::string(name) + "(" + print_prec(op->a, hint_for(op->b), 0) + ", " +
           print_prec(op->b, hint_for(op->a), 0) + ")";
  };
  switch (PrimExprKind(e->kind())) {
    case PrimExprKind::kIntImm: {
      auto* i = e.as<IntImm>();
      if (!i->dtype.is_bool() && i->dtype == hint) {
        s = std::to_string(i->value);
        if (i->value < 0) prec = kUnary;
      } else {
        s = typed_literal(e);
      }
      break;
    }
    case PrimExprKind::kFloatImm:
      s = typed_literal(e);
      break;
    case PrimExprKind::kVar:
      s = var_name(e.as<tir::Var>());
      break;
    case PrimExprKind::kAdd:
      s = bin(e.as<BinaryOp>(), "+", kAdd);
      break;
    case PrimExprKind::kSub:
      s = bin(e.as<BinaryOp>(), "-", kAdd);
      break;
    case PrimExprKind::kMul:
      s = bin(e.as<BinaryOp>(), "*", kMul);
      break;
    case PrimExprKind::kDiv:
      s = e->dtype.is_float() ? bin(e.as<BinaryOp>(), "/", kMul)
                              : fn("T.truncdiv", e.as<BinaryOp>());
      break;
    case PrimExprKind::kMod:
      s = fn("T.truncmod", e.as<BinaryOp>());
      break;
    case PrimExprKind::kFloorDiv:
      s = bin(e.as<BinaryOp>(), "//", kMul);
      break;
    case PrimExprKind::kFloorMod:
      s = bin(e.as<BinaryOp>(), "%", kMul);
      break;
    case PrimExprKind::kMin:
      s = fn("T.min", e.as<BinaryOp>());
      break;
    case PrimExprKind::kMax:
      s = fn("T.max", e.as<BinaryOp>());
      break;
    case PrimExprKind::kEQ:
      s = bin(e.as<BinaryOp>(), "==", kCmp);
      break;
    case PrimExprKind::kNE:
      s = bin(e.as<BinaryOp>(), "!=", kCmp);
      break;
    case PrimExprKind::kLT:
      s = bin(e.as<BinaryOp>(), "<", kCmp);
      break;
    case PrimExprKind::kLE:
      s = bin(e.as<BinaryOp>(), "<=", kCmp);
      break;
    case PrimExprKind::kGT:
      s = bin(e.as<BinaryOp>(), ">", kCmp);
      break;
    case PrimExprKind::kGE:
      s = bin(e.as<BinaryOp>(), ">=", kCmp);
      break;
    case PrimExprKind::kAnd:
      s = bin(e.as<BinaryOp>(), "and", kAnd);
      break;
    case PrimExprKind::kOr:
      s = bin(e.as<BinaryOp>(), "or", kOr);
      break;
    case PrimExprKind::kNot:
      s = wrap("not " + print_prec(e.as<Not>()->a, kDefaultInt, kNot), kNot);
      break;
    case PrimExprKind::kSelect: {
      auto* op = e.as<Select>();
      s = "T.Select(" + print(op->condition) + ", " +
          print(op->true_value, hint_for(op->false_value)) + ", " +
          print(op->false_value, hint_for(op->true_value)) + ")";
      break;
    }
    case PrimExprKind::kCast: {
      auto* op = e.as<Cast>();
      s = "T.Cast(" + quote(op->dtype.to_string()) + ", " + print(op->value) + ")";
      break;
    }
    case PrimExprKind::kLet: {
      auto* op = e.as<Let>();
      const std::string& n = names_->define(op->var.get(), op->var->name);
      s = "T.Let(" + print(op->body, hint) + ", where={" + n + ": " +
          print(op->value, op->var->dtype) + "})";
      break;
    }
    case PrimExprKind::kCall: {
      auto* op = e.as<tir::Call>();
      std::vector<std::string> args;
      if (op->op == Intrinsic::kExtern) {
        args.push_back(quote(op->dtype.to_string()));
        args.push_back(quote(op->name));
      } else if (op->op == Intrinsic::kReinterpret) {
        args.push_back(quote(op->dtype.to_string()));
      } else if (op->op == Intrinsic::kLaunchKernel || op->op == Intrinsic::kStorageSync) {
        args.push_back(quote(op->name));
      }
      // Integer literals print bare when they have the dtype the parser gives them: that of
      // the last argument that is not an integer literal (T.max(x, 0)).
      DataType common = kDefaultInt;
      for (size_t k = (op->op == Intrinsic::kIfThenElse ? 1 : 0); k < op->args.size(); ++k)
        if (!op->args[k].is<IntImm>() && op->op != Intrinsic::kLaunchKernel)
          common = op->args[k]->dtype;
      for (const auto& a : op->args) args.push_back(print(a, common));
      s = std::string("T.") + intrinsic_name(op->op) + "(";
      for (size_t k = 0; k < args.size(); ++k) s += (k ? ", " : "") + args[k];
      if (op->op != Intrinsic::kExtern && op->op != Intrinsic::kReinterpret &&
          op->op != Intrinsic::kLaunchKernel &&
          intrinsic_default_dtype(op->op, op->args) != op->dtype)
        s += std::string(args.empty() ? "" : ", ") + "dtype=" + quote(op->dtype.to_string());
      s += ")";
      break;
    }
    case PrimExprKind::kBufferLoad: {
      auto* op = e.as<BufferLoad>();
      s = buffer_name(op->buffer.get()) + "[";
      for (size_t k = 0; k < op->indices.size(); ++k) s += (k ? ", " : "") + print(op->indices[k]);
      s += op->indices.empty() ? "()]" : "]";
      break;
    }
    case PrimExprKind::kRamp: {
      auto* op = e.as<Ramp>();
      s = "T.Ramp(" + print(op->base) + ", " + print(op->stride, op->base->dtype) + ", " +
          std::to_string(op->lanes) + ")";
      break;
    }
    case PrimExprKind::kBroadcast: {
      auto* op = e.as<Broadcast>();
      s = "T.Broadcast(" + print(op->value) + ", " + std::to_string(op->lanes) + ")";
      break;
    }
    default:
      s = "<unknown>";
  }
  if (prec < min_prec) return "(" + s + ")";
  return s;
}

}  // namespace relax::script
