// Lowered TIR -> C99 (c_emitter.h). Loops become serial C loops, flat buffer accesses become
// pointer indexing, intrinsics map to <math.h>. A sketch of what a vendor's real code generator
// does, small enough to read in one sitting.
#include "c_emitter.h"

#include <cmath>
#include <map>
#include <sstream>

#include "relax/kernel/lower.h"
#include "relax/support/diagnostic.h"
#include "relax/tir/stmt.h"

namespace accel {
namespace {

using namespace relax::tir;
using relax::DataType;
using relax::Object;
using relax::Ref;

class Emitter {
 public:
  explicit Emitter(std::string kernel) : kernel_(std::move(kernel)) {}

  std::string function(const Ref<PrimFunc>& f) {
    std::ostringstream head;
    head << "int accel_kernel_" << kernel_
         << "(void* const* data, const int64_t* const* shapes, const int64_t* scalars) {\n";
    int tensor = 0, scalar = 0;
    for (const auto& p : f->params) {
      const Buffer* buf = nullptr;
      for (const auto& [v, b] : f->buffer_map)
        if (v.same_as(p)) buf = b.get();
      if (!buf) {
        head << "  " << type(p->dtype) << " " << name(p.get()) << " = (" << type(p->dtype)
             << ")scalars[" << scalar++ << "];\n";
        continue;
      }
      head << "  " << type(buf->dtype) << "* " << name(buf->data.get()) << " = ("
           << type(buf->dtype) << "*)data[" << tensor << "];\n";
      for (size_t d = 0; d < buf->shape.size(); ++d) {
        auto* v = buf->shape[d].as<Var>();
        if (v && !defined_.count(v)) {
          defined_[v] = true;
          head << "  int64_t " << name(v) << " = shapes[" << tensor << "][" << d << "];\n";
        }
      }
      ++tensor;
    }
    head << "  (void)data; (void)shapes; (void)scalars;\n";
    stmt(f->body, 1);
    return head.str() + body_.str() + "  return 0;\n}\n";
  }

 private:
  [[noreturn]] void unsupported(const std::string& what) {
    RX_THROW() << "accel codegen: kernel '" << kernel_ << "': " << what << " is not supported";
  }

  std::string type(DataType t) {
    if (t.is_vector()) unsupported("vector type " + t.to_string());
    if (t.is_bool()) return "uint8_t";
    if (t.is_float() && t.bits == 32 && t.code == DataType::kFloat) return "float";
    if (t.is_float() && t.bits == 64) return "double";
    if (t.is_int() || t.is_uint()) {
      if (t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64)
        return std::string(t.is_int() ? "int" : "uint") + std::to_string(t.bits) + "_t";
    }
    if (t.is_handle()) return "void*";
    unsupported("type " + t.to_string());
  }

  std::string name(const Object* v) {
    auto it = names_.find(v);
    if (it != names_.end()) return it->second;
    std::string base = static_cast<const Var*>(v)->name, clean;
    for (char c : base) clean += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    std::string n = "v" + std::to_string(names_.size()) + "_" + clean;
    names_[v] = n;
    return n;
  }

  void line(int indent, const std::string& text) {
    body_ << std::string(2 * indent, ' ') << text << "\n";
  }

  std::string math(const std::string& fn, DataType t) { return t.bits == 32 ? fn + "f" : fn; }

  std::string expr(const PrimExpr& e) {
    DataType t = e->dtype;
    if (auto* i = e.as<IntImm>()) return "((" + type(t) + ")" + std::to_string(i->value) + "LL)";
    if (auto* f = e.as<FloatImm>()) {
      if (std::isnan(f->value)) return "((" + type(t) + ")NAN)";
      if (std::isinf(f->value)) return std::string(f->value < 0 ? "(-" : "(") + "(" + type(t) + ")INFINITY)";
      std::ostringstream os;
      os.precision(17);
      os << f->value;
      std::string v = os.str();
      if (v.find_first_of(".eE") == std::string::npos) v += ".0";
      return "((" + type(t) + ")" + v + ")";
    }
    if (auto* v = e.as<Var>()) return name(v);
    if (auto* l = e.as<BufferLoad>()) return name(l->buffer->data.get()) + "[" + expr(l->indices.at(0)) + "]";
    if (auto* c = e.as<Cast>()) {
      if (t.is_bool()) return "((uint8_t)((" + expr(c->value) + ") != 0))";
      return "((" + type(t) + ")(" + expr(c->value) + "))";
    }
    if (auto* s = e.as<Select>())
      return "(" + expr(s->condition) + " ? " + expr(s->true_value) + " : " + expr(s->false_value) + ")";
    if (auto* n = e.as<Not>()) return "(!" + expr(n->a) + ")";
    if (auto* l = e.as<Let>()) {
      return "({ " + type(l->var->dtype) + " " + name(l->var.get()) + " = " + expr(l->value) +
             "; " + expr(l->body) + "; })";
    }
    if (auto* b = e.as<BinaryOp>()) return binary(e, b);
    if (auto* c = e.as<Call>()) return call(c, t);
    unsupported(std::string("expression ") + prim_expr_kind_name(e->kind()));
  }

  std::string binary(const PrimExpr& e, const BinaryOp* b) {
    std::string x = expr(b->a), y = expr(b->b);
    bool fl = b->a->dtype.is_float();
    std::string ty = type(b->a->dtype);
    if (e.as<Add>()) return "(" + x + " + " + y + ")";
    if (e.as<Sub>()) return "(" + x + " - " + y + ")";
    if (e.as<Mul>()) return "(" + x + " * " + y + ")";
    if (e.as<Div>()) return "(" + x + " / " + y + ")";
    if (e.as<Mod>()) return fl ? math("fmod", b->a->dtype) + "(" + x + ", " + y + ")" : "(" + x + " % " + y + ")";
    if (e.as<FloorDiv>())
      return fl ? math("floor", b->a->dtype) + "(" + x + " / " + y + ")" : "((" + ty + ")rx_floordiv(" + x + ", " + y + "))";
    if (e.as<FloorMod>())
      return fl ? "(" + x + " - " + math("floor", b->a->dtype) + "(" + x + " / " + y + ") * " + y + ")"
                : "((" + ty + ")rx_floormod(" + x + ", " + y + "))";
    if (e.as<Min>()) return "(" + x + " < " + y + " ? " + x + " : " + y + ")";
    if (e.as<Max>()) return "(" + x + " > " + y + " ? " + x + " : " + y + ")";
    if (e.as<EQ>()) return "(" + x + " == " + y + ")";
    if (e.as<NE>()) return "(" + x + " != " + y + ")";
    if (e.as<LT>()) return "(" + x + " < " + y + ")";
    if (e.as<LE>()) return "(" + x + " <= " + y + ")";
    if (e.as<GT>()) return "(" + x + " > " + y + ")";
    if (e.as<GE>()) return "(" + x + " >= " + y + ")";
    if (e.as<And>()) return "(" + x + " && " + y + ")";
    if (e.as<Or>()) return "(" + x + " || " + y + ")";
    unsupported("a binary operator");
  }

  std::string call(const Call* c, DataType t) {
    std::vector<std::string> a;
    for (const auto& arg : c->args) a.push_back(expr(arg));
    auto fn = [&](const std::string& f) {
      std::string s = math(f, t) + "(";
      for (size_t i = 0; i < a.size(); ++i) s += (i ? ", " : "") + a[i];
      return s + ")";
    };
    switch (c->op) {
      case Intrinsic::kSigmoid: return "(1 / (1 + " + math("exp", t) + "(-" + a[0] + ")))";
      case Intrinsic::kRsqrt: return "(1 / " + math("sqrt", t) + "(" + a[0] + "))";
      case Intrinsic::kRound: return fn("nearbyint");
      case Intrinsic::kAbs: return t.is_float() ? fn("fabs") : "(" + a[0] + " < 0 ? -" + a[0] + " : " + a[0] + ")";
      case Intrinsic::kIsNan: return "((uint8_t)isnan(" + a[0] + "))";
      case Intrinsic::kIsInf: return "((uint8_t)isinf(" + a[0] + "))";
      case Intrinsic::kIsFinite: return "((uint8_t)isfinite(" + a[0] + "))";
      case Intrinsic::kIfThenElse: return "(" + a[0] + " ? " + a[1] + " : " + a[2] + ")";
      case Intrinsic::kLikely: return a[0];
      case Intrinsic::kBitwiseAnd: return "(" + a[0] + " & " + a[1] + ")";
      case Intrinsic::kBitwiseOr: return "(" + a[0] + " | " + a[1] + ")";
      case Intrinsic::kBitwiseXor: return "(" + a[0] + " ^ " + a[1] + ")";
      case Intrinsic::kBitwiseNot: return "(~" + a[0] + ")";
      case Intrinsic::kShiftLeft: return "(" + a[0] + " << " + a[1] + ")";
      case Intrinsic::kShiftRight: return "(" + a[0] + " >> " + a[1] + ")";
      case Intrinsic::kReinterpret: case Intrinsic::kLaunchKernel: case Intrinsic::kStorageSync:
        unsupported(std::string("intrinsic ") + intrinsic_name(c->op));
      case Intrinsic::kExtern: {
        std::string s = c->name + "(";
        for (size_t i = 0; i < a.size(); ++i) s += (i ? ", " : "") + a[i];
        return s + ")";
      }
      default: return fn(intrinsic_name(c->op));  // exp, log, sqrt, tanh, erf, pow, ... of <math.h>
    }
  }

  void stmt(const Stmt& s, int in) {
    if (auto* seq = s.as<SeqStmt>()) {
      for (const auto& x : seq->seq) stmt(x, in);
    } else if (auto* f = s.as<For>()) {
      std::string v = name(f->loop_var.get()), ty = type(f->loop_var->dtype);
      line(in, "for (" + ty + " " + v + " = " + expr(f->min) + "; " + v + " < " + expr(f->min) +
                   " + " + expr(f->extent) + "; ++" + v + ") {");
      stmt(f->body, in + 1);
      line(in, "}");
    } else if (auto* st = s.as<BufferStore>()) {
      line(in, name(st->buffer->data.get()) + "[" + expr(st->indices.at(0)) + "] = " + expr(st->value) + ";");
    } else if (auto* l = s.as<LetStmt>()) {
      line(in, "{");
      line(in + 1, type(l->var->dtype) + " " + name(l->var.get()) + " = " + expr(l->value) + ";");
      stmt(l->body, in + 1);
      line(in, "}");
    } else if (auto* a = s.as<AssertStmt>()) {
      line(in, "if (!(" + expr(a->condition) + ")) return -1;");
      stmt(a->body, in);
    } else if (auto* i = s.as<IfThenElse>()) {
      line(in, "if (" + expr(i->condition) + ") {");
      stmt(i->then_case, in + 1);
      if (i->else_case.defined()) {
        line(in, "} else {");
        stmt(i->else_case, in + 1);
      }
      line(in, "}");
    } else if (auto* al = s.as<Allocate>()) {
      std::string ty = type(al->dtype), v = name(al->buffer_var.get());
      line(in, "{");
      line(in + 1, ty + "* " + v + " = (" + ty + "*)malloc(sizeof(" + ty + ") * (size_t)(" +
                       expr(al->extents.at(0)) + "));");
      line(in + 1, "if (!" + v + ") return -2;");
      stmt(al->body, in + 1);
      line(in + 1, "free(" + v + ");");
      line(in, "}");
    } else if (auto* ev = s.as<Evaluate>()) {
      line(in, "(void)" + expr(ev->value) + ";");
    } else {
      unsupported(std::string("statement kind ") + std::to_string(s->kind()));
    }
  }

  std::string kernel_;
  std::map<const Object*, std::string> names_;
  std::map<const Object*, bool> defined_;
  std::ostringstream body_;
};

}  // namespace

std::string c_prelude() {
  return "#include <math.h>\n#include <stdint.h>\n#include <stdlib.h>\n"
         "static inline int64_t rx_floordiv(int64_t a, int64_t b) {\n"
         "  int64_t q = a / b; return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;\n}\n"
         "static inline int64_t rx_floormod(int64_t a, int64_t b) {\n"
         "  int64_t m = a % b; return (m != 0 && ((m < 0) != (b < 0))) ? m + b : m;\n}\n";
}

std::string emit_kernel(const std::string& name, const Ref<PrimFunc>& func) {
  return Emitter(name).function(lower(func));
}

}  // namespace accel
