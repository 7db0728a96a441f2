// The Relax half of the script printer: modules, functions, bindings, struct info and
// expressions in TVMScript spelling (see ir/printer.h). Op calls print from the registry.
#include <cmath>
#include <cstring>
#include <limits>
#include <unordered_set>

#include "printer_internal.h"
#include "relax/ir/op.h"
#include "relax/text/parser.h"
#include "relax/text/printer.h"
#include "relax/runtime/ndarray.h"
#include "relax/tir/expr_functor.h"
#include "relax/kernel/interpreter.h"

namespace relax {
namespace script {
namespace {

bool is_float16_like(DataType t) { return t.is_float() && t.bits == 16 && t.lanes == 1; }

/// The value of float16/bfloat16 bits, widened to float32 (exactly).
float half_value(DataType t, uint16_t bits) {
  return t.code == DataType::kBFloat ? tir::bfloat16_to_float(bits) : tir::half_to_float(bits);
}

/// Whether float16/bfloat16 `bits` read back unchanged from their printed value: every finite
/// value and infinity does; of the NaNs only the one float("nan") converts to.
bool half_prints_as_value(DataType t, uint16_t bits) {
  float f = half_value(t, bits);
  if (!std::isnan(f)) return true;
  float nan = std::numeric_limits<float>::quiet_NaN();
  return bits ==
         (t.code == DataType::kBFloat ? tir::float_to_bfloat16(nan) : tir::float_to_half(nan));
}

/// Reads element `i` of a CPU tensor as text; float16/bfloat16 as raw bits when `raw_bits`.
std::string element(const runtime::NDArray& a, int64_t i, bool raw_bits = false) {
  DataType t = a.dtype();
  const char* p = static_cast<const char*>(a.data());
  auto rd = [&](auto tag) {
    decltype(tag) v;
    std::memcpy(&v, p + i * int64_t(sizeof v), sizeof v);
    return v;
  };
  if (is_float16_like(t)) {
    uint16_t bits = rd(uint16_t{});
    if (raw_bits) return std::to_string(bits);
    std::string f = format_float32(half_value(t, bits));
    return (f == "nan" || f == "inf" || f == "-inf") ? "float(" + quote(f) + ")" : f;
  }
  if (t.is_bool()) return p[i] ? "True" : "False";
  if (t == DataType::Float(32)) {
    std::string f = format_float32(rd(float{}));
    return (f == "nan" || f == "inf" || f == "-inf") ? "float(" + quote(f) + ")" : f;
  }
  if (t == DataType::Float(64)) {
    std::string f = format_float(rd(double{}));
    return (f == "nan" || f == "inf" || f == "-inf") ? "float(" + quote(f) + ")" : f;
  }
  if (t.code == DataType::kInt) {
    switch (t.bits) {
      case 8:
        return std::to_string(rd(int8_t{}));
      case 16:
        return std::to_string(rd(int16_t{}));
      case 32:
        return std::to_string(rd(int32_t{}));
      case 64:
        return std::to_string(rd(int64_t{}));
    }
  }
  if (t.code == DataType::kUInt) {
    switch (t.bits) {
      case 8:
        return std::to_string(rd(uint8_t{}));
      case 16:
        return std::to_string(rd(uint16_t{}));
      case 32:
        return std::to_string(rd(uint32_t{}));
      case 64:
        return std::to_string(rd(uint64_t{}));
    }
  }
  return "0";
}

std::string nested_list(const runtime::NDArray& a, size_t dim, int64_t* index, bool raw_bits) {
  const auto& shape = a.shape();
  std::string s = "[";
  for (int64_t k = 0; k < shape[dim]; ++k) {
    if (k) s += ", ";
    s += dim + 1 == shape.size() ? element(a, (*index)++, raw_bits)
                                 : nested_list(a, dim + 1, index, raw_bits);
  }
  return s + "]";
}

}  // namespace

/// The text of a constant's data: `R.const(...)`.
std::string constant_text(const runtime::NDArray& a) {
  if (!a.defined()) return "R.const(0)";
  runtime::NDArray data = a;
  if (a.device().device_type != kDLCPU || !a.is_contiguous()) data = a.copy_to(runtime::kCPU);
  std::string dtype = quote(data.dtype().to_string());
  // A float16/bfloat16 NaN with a payload has no value spelling: such a constant prints all
  // its elements as raw bits, marked bits=True.
  bool raw_bits = false;
  if (is_float16_like(data.dtype())) {
    const auto* p = static_cast<const unsigned char*>(data.data());
    for (int64_t i = 0; i < data.numel() && !raw_bits; ++i) {
      uint16_t b;
      std::memcpy(&b, p + i * 2, 2);
      raw_bits = !half_prints_as_value(data.dtype(), b);
    }
  }
  if (raw_bits) dtype += ", bits=True";
  if (data.ndim() == 0) return "R.const(" + element(data, 0, raw_bits) + ", " + dtype + ")";
  int64_t index = 0;
  std::string s = "R.const(" + nested_list(data, 0, &index, raw_bits) + ", " + dtype;
  if (data.numel() == 0) {
    s += ", shape=(";
    for (int64_t i = 0; i < data.ndim(); ++i)
      s += (i ? ", " : "") + std::to_string(data.shape()[size_t(i)]);
    s += data.ndim() == 1 ? ",)" : ")";
  }
  return s + ")";
}

class RelaxPrinter {
 public:
  RelaxPrinter(Writer* w, bool module_mode, std::vector<runtime::NDArray>* metadata,
               const IRModule* mod = nullptr)
      : w_(w), module_mode_(module_mode), metadata_(metadata), mod_(mod) {}

  void function(const Ref<Function>& f, const std::string& name, int ind) {
    for (const auto& p : f->params) names_.define(p.get(), p->name);
    // Symbolic variables of the function and of the local functions it binds are declared
    // once, at the top of the outermost body.
    std::vector<Ref<tir::Var>> sym;
    std::unordered_set<const tir::Var*> seen;
    auto add_sinfo = [&](const StructInfo& s) { collect_sinfo(s, &sym, &seen); };
    for (const auto& p : f->params) add_sinfo(p->struct_info);
    add_sinfo(f->ret_struct_info);
    collect_expr(f->body, &sym, &seen);
    for (const auto& v : sym) names_.define(v.get(), v->name);
    definition(f.get(), name, ind, &sym);
  }

  std::string sinfo(const StructInfo& s) {
    if (!s.defined()) return "R.Object";
    if (s.is<ObjectStructInfo>()) return "R.Object";
    if (auto* p = s.as<PrimStructInfo>()) {
      if (p->value.defined()) {
        if (p->value->dtype == p->dtype)
          return "R.Prim(value=" + prims_.print(p->value, p->dtype) + ")";
        return "R.Prim(" + quote(p->dtype.to_string()) +
               ", value=" + prims_.print(p->value, p->dtype) + ")";
      }
      return "R.Prim(" + quote(p->dtype.to_string()) + ")";
    }
    if (auto* sh = s.as<ShapeStructInfo>()) {
      if (sh->values) return "R.Shape(" + list(*sh->values) + ")";
      if (sh->ndim >= 0) return "R.Shape(ndim=" + std::to_string(sh->ndim) + ")";
      return "R.Shape";
    }
    if (auto* t = s.as<TensorStructInfo>()) {
      std::vector<std::string> args;
      if (t->shape) {
        args.push_back(tuple(*t->shape));
      } else if (t->ndim >= 0) {
        args.push_back("ndim=" + std::to_string(t->ndim));
      }
      if (!t->dtype.is_void()) args.push_back("dtype=" + quote(t->dtype.to_string()));
      if (!t->vdevice.empty()) args.push_back("vdevice=" + quote(t->vdevice));
      if (args.empty()) return "R.Tensor";
      return "R.Tensor(" + join(args) + ")";
    }
    if (auto* tu = s.as<TupleStructInfo>()) {
      std::vector<std::string> fs;
      for (const auto& f : tu->fields) fs.push_back(sinfo(f));
      return "R.Tuple(" + join(fs) + ")";
    }
    if (auto* fn = s.as<FuncStructInfo>()) {
      std::string purity = fn->purity ? "" : ", purity=False";
      if (fn->is_opaque()) return "R.Callable(ret=" + sinfo(fn->ret) + purity + ")";
      std::vector<std::string> ps;
      for (const auto& p : *fn->params) ps.push_back(sinfo(p));
      return "R.Callable((" + join(ps) + (ps.size() == 1 ? ",)" : ")") + ", " + sinfo(fn->ret) +
             purity + ")";
    }
    return "R.Object";
  }

  std::string expr(const Expr& e) {
    if (!e.defined()) return "None";
    switch (ExprKind(e->kind())) {
      case ExprKind::kVar:
      case ExprKind::kDataflowVar:
        return var(e.as<VarNode>());
      case ExprKind::kConstant: {
        const runtime::NDArray& data = e.as<Constant>()->data;
        if (metadata_ && data.defined() && data.numel() > kInlineConstantLimit) {
          metadata_->push_back(data);
          return "metadata[\"relax.expr.Constant\"][" + std::to_string(metadata_->size() - 1) + "]";
        }
        return constant_text(data);
      }
      case ExprKind::kTuple: {
        auto* t = e.as<Tuple>();
        if (t->fields.empty()) return "R.tuple()";
        std::vector<std::string> fs;
        for (const auto& f : t->fields) fs.push_back(expr(f));
        return "(" + join(fs) + (fs.size() == 1 ? ",)" : ")");
      }
      case ExprKind::kTupleGetItem: {
        auto* g = e.as<TupleGetItem>();
        return expr(g->tuple) + "[" + std::to_string(g->index) + "]";
      }
      case ExprKind::kShapeExpr:
        return "R.shape(" + list(e.as<ShapeExpr>()->values) + ")";
      case ExprKind::kPrimValue:
        return "R.prim_value(" + prims_.print(e.as<PrimValue>()->value) + ")";
      case ExprKind::kStringImm:
        return "R.str(" + quote(e.as<StringImm>()->value) + ")";
      case ExprKind::kDataTypeImm:
        return "R.dtype(" + quote(e.as<DataTypeImm>()->value.to_string()) + ")";
      case ExprKind::kGlobalVar:
        return global(e.as<GlobalVar>()->name);
      case ExprKind::kExternFunc:
        return "R.ExternFunc(" + quote(e.as<ExternFunc>()->global_symbol) + ")";
      case ExprKind::kOp: {
        // An op as a value: R.<name> without a call (the parser reads it back through the
        // registry); an op outside the relax. namespace keeps its full name in R.op("...").
        const std::string& n = e.as<Op>()->name;
        if (n.rfind("relax.", 0) == 0) return "R." + n.substr(6);
        return "R.op(" + quote(n) + ")";
      }
      case ExprKind::kCall:
        return call(e.as<Call>());
      default:
        return "None  # unsupported: " + std::string(relax_kind_name(e->kind()));
    }
  }

 private:
  static std::string join(const std::vector<std::string>& xs) {
    std::string s;
    for (size_t i = 0; i < xs.size(); ++i) s += (i ? ", " : "") + xs[i];
    return s;
  }
  /// `@R.function def name(...):` and the body. `sym` (the outermost function only) holds the
  /// symbolic variables to declare; a local function uses its enclosing function's.
  void definition(const Function* f, const std::string& name, int ind,
                  const std::vector<Ref<tir::Var>>* sym) {
    for (const auto& p : f->params) names_.define(p.get(), p->name);
    std::string deco = "@R.function";
    if (!f->is_pure) deco += "(pure=False)";
    w_->line(ind, deco);
    std::string sig = "def " + name + "(";
    for (size_t i = 0; i < f->params.size(); ++i)
      sig += (i ? ", " : "") + var(f->params[i].get()) + ": " + sinfo(f->params[i]->struct_info);
    sig += ")";
    if (f->ret_struct_info.defined()) sig += " -> " + sinfo(f->ret_struct_info);
    w_->line(ind, sig + ":");
    int b = ind + 1;
    if (sym) {
      for (const auto& v : *sym)
        w_->line(b, var_name(v.get()) + " = T." + v->dtype.to_string() + "()");
      if (module_mode_ && uses_global_) w_->line(b, "cls = Module");
    }
    if (f->attrs.defined() && !f->attrs->fields.empty())
      w_->line(b, "R.func_attr(" + print_attr_dict(f->attrs, &prims_) + ")");
    if (auto* seq = f->body.as<SeqExpr>()) {
      for (const auto& blk : seq->blocks) block(blk, b);
      w_->line(b, "return " + expr(seq->body));
    } else {
      w_->line(b, "return " + expr(f->body));
    }
  }

  std::string tuple(const std::vector<PrimExpr>& xs) {
    std::vector<std::string> s;
    for (const auto& x : xs) s.push_back(prims_.print(x));
    return "(" + join(s) + (s.size() == 1 ? ",)" : ")");
  }
  std::string list(const std::vector<PrimExpr>& xs) {
    std::vector<std::string> s;
    for (const auto& x : xs) s.push_back(prims_.print(x));
    return "[" + join(s) + "]";
  }
  std::string var(const VarNode* v) {
    if (const std::string* n = names_.find(v)) return *n;
    return names_.define(v, v->name);
  }
  std::string var_name(const tir::Var* v) { return prims_.var_name(v); }
  std::string global(const std::string& name) {
    uses_global_ = true;
    return module_mode_ ? "cls." + name : name;
  }
  std::string sinfo_list(const std::vector<StructInfo>& ss) {
    if (ss.size() == 1) return sinfo(ss[0]);
    std::vector<std::string> s;
    for (const auto& x : ss) s.push_back(sinfo(x));
    return "[" + join(s) + "]";
  }
  /// The out_sinfo of a DPS call: one struct info, or a list for a tuple of two or more outputs.
  std::string out_sinfo(const StructInfo& s) {
    if (auto* t = s.as<TupleStructInfo>(); t && t->fields.size() >= 2) return sinfo_list(t->fields);
    return sinfo(s);
  }

  std::string call(const Call* c) {
    std::vector<std::string> args;
    CallPrintHooks hooks{[this](const Expr& e) { return expr(e); },
                         [this](const std::vector<StructInfo>& ss) { return sinfo_list(ss); },
                         [this](const StructInfo& s) { return out_sinfo(s); },
                         [this](const std::string& g) { return !mod_ || mod_->contains(g); },
                         &prims_};
    if (auto special = print_special_call(c, hooks)) return *special;
    if (auto* op = c->op.as<Op>()) {
      const std::string& n = op->name;
      for (const auto& a : c->args) args.push_back(expr(a));
      if (c->attrs.defined())
        for (const auto& [k, v] : c->attrs->fields)
          args.push_back(k + "=" + print_attr_value(v, &prims_));
      if (!c->sinfo_args.empty()) args.push_back("sinfo_args=" + sinfo_list(c->sinfo_args));
      std::string short_name = n.rfind("relax.", 0) == 0 ? n.substr(6) : n;
      if (short_name == n)
        return "R.call_op(" + quote(n) + (args.empty() ? "" : ", ") + join(args) + ")";
      return "R." + short_name + "(" + join(args) + ")";
    }
    for (const auto& a : c->args) args.push_back(expr(a));
    if (!c->sinfo_args.empty()) args.push_back("sinfo_args=" + sinfo_list(c->sinfo_args));
    return expr(c->op) + "(" + join(args) + ")";
  }

  void block(const Block& blk, int ind) {
    if (blk->is_dataflow()) {
      w_->line(ind, "with R.dataflow():");
      std::vector<std::string> outs;
      for (const auto& b : blk->bindings) {
        binding(b, ind + 1);
        if (b->var.is<Var>()) outs.push_back(var(b->var.get()));
      }
      w_->line(ind + 1, "R.output(" + join(outs) + ")");
    } else {
      for (const auto& b : blk->bindings) binding(b, ind);
    }
  }

  void seq_into(const Expr& branch, const std::string& target, int ind) {
    if (auto* seq = branch.as<SeqExpr>()) {
      for (const auto& blk : seq->blocks) block(blk, ind);
      w_->line(ind, target + expr(seq->body));
    } else {
      w_->line(ind, target + expr(branch));
    }
  }

  void binding(const Binding& b, int ind) {
    std::string value;
    if (auto* fn = b->value.as<Function>(); fn && b.is<VarBinding>()) {
      // A local function prints as a nested definition named after its variable (TVM's form);
      // the variable's struct info is the function's own.
      definition(fn, var(b->var.get()), ind, nullptr);
      return;
    }
    if (auto* mc = b.as<MatchCast>()) {
      value = "R.match_cast(" + expr(mc->value) + ", " + sinfo(mc->struct_info) + ")";
    } else if (auto* i = b->value.as<If>()) {
      std::string cond = expr(i->cond);
      std::string target = var(b->var.get()) + ": " + sinfo(b->var->struct_info) + " = ";
      w_->line(ind, "if " + cond + ":");
      seq_into(i->then_branch, target, ind + 1);
      w_->line(ind, "else:");
      seq_into(i->else_branch, target, ind + 1);
      return;
    } else {
      value = expr(b->value);
    }
    w_->line(ind, var(b->var.get()) + ": " + sinfo(b->var->struct_info) + " = " + value);
  }

  // ---- Symbolic variables, in order of first appearance.
  void collect_prim(const PrimExpr& e, std::vector<Ref<tir::Var>>* out,
                    std::unordered_set<const tir::Var*>* seen) {
    if (!e.defined()) return;
    struct V : tir::ExprVisitor {
      std::vector<Ref<tir::Var>>* out;
      std::unordered_set<const tir::Var*>* seen;
      using tir::ExprVisitor::visit_;
      void visit_(const tir::Var* v) override {
        if (seen->insert(v).second) out->push_back(Ref<tir::Var>(v));
      }
    } v;
    v.out = out;
    v.seen = seen;
    v.visit_expr(e);
  }
  void collect_sinfo(const StructInfo& s, std::vector<Ref<tir::Var>>* out,
                     std::unordered_set<const tir::Var*>* seen) {
    if (!s.defined()) return;
    if (auto* p = s.as<PrimStructInfo>()) collect_prim(p->value, out, seen);
    if (auto* sh = s.as<ShapeStructInfo>(); sh && sh->values)
      for (const auto& v : *sh->values) collect_prim(v, out, seen);
    if (auto* t = s.as<TensorStructInfo>(); t && t->shape)
      for (const auto& v : *t->shape) collect_prim(v, out, seen);
    if (auto* t = s.as<TupleStructInfo>())
      for (const auto& f : t->fields) collect_sinfo(f, out, seen);
    if (auto* f = s.as<FuncStructInfo>()) {
      if (f->params)
        for (const auto& p : *f->params) collect_sinfo(p, out, seen);
      collect_sinfo(f->ret, out, seen);
    }
  }
  void collect_expr(const Expr& e, std::vector<Ref<tir::Var>>* out,
                    std::unordered_set<const tir::Var*>* seen) {
    if (!e.defined()) return;
    switch (ExprKind(e->kind())) {
      case ExprKind::kShapeExpr:
        for (const auto& v : e.as<ShapeExpr>()->values) collect_prim(v, out, seen);
        break;
      case ExprKind::kPrimValue:
        collect_prim(e.as<PrimValue>()->value, out, seen);
        break;
      case ExprKind::kTuple:
        for (const auto& f : e.as<Tuple>()->fields) collect_expr(f, out, seen);
        break;
      case ExprKind::kTupleGetItem:
        collect_expr(e.as<TupleGetItem>()->tuple, out, seen);
        break;
      case ExprKind::kGlobalVar:
        uses_global_ |= !mod_ || mod_->contains(e.as<GlobalVar>()->name);
        break;
      case ExprKind::kCall: {
        auto* c = e.as<Call>();
        collect_expr(c->op, out, seen);
        for (const auto& a : c->args) collect_expr(a, out, seen);
        for (const auto& s : c->sinfo_args) collect_sinfo(s, out, seen);
        if (c->attrs.defined())
          for (const auto& [k, v] : c->attrs->fields)
            if (auto* ps = std::get_if<std::vector<PrimExpr>>(&v))
              for (const auto& p : *ps) collect_prim(p, out, seen);
        break;
      }
      case ExprKind::kIf: {
        auto* i = e.as<If>();
        collect_expr(i->cond, out, seen);
        collect_expr(i->then_branch, out, seen);
        collect_expr(i->else_branch, out, seen);
        break;
      }
      case ExprKind::kFunction: {
        auto* f = e.as<Function>();
        for (const auto& p : f->params) collect_sinfo(p->struct_info, out, seen);
        collect_sinfo(f->ret_struct_info, out, seen);
        collect_expr(f->body, out, seen);
        break;
      }
      case ExprKind::kSeqExpr: {
        auto* s = e.as<SeqExpr>();
        for (const auto& blk : s->blocks) {
          for (const auto& b : blk->bindings) {
            if (auto* mc = b.as<MatchCast>()) collect_sinfo(mc->struct_info, out, seen);
            collect_expr(b->value, out, seen);
            collect_sinfo(b->var->struct_info, out, seen);
          }
        }
        collect_expr(s->body, out, seen);
        break;
      }
      default:
        break;
    }
  }

  Writer* w_;
  bool module_mode_;
  std::vector<runtime::NDArray>* metadata_;
  const IRModule* mod_;
  NameTable names_;
  PrimPrinter prims_{&names_};
  bool uses_global_ = false;
};

}  // namespace script

std::string print_struct_info(const StructInfo& sinfo) {
  script::Writer w;
  script::RelaxPrinter p(&w, false, nullptr);
  return p.sinfo(sinfo);
}

std::string print_function(const Ref<Function>& func, const std::string& name) {
  script::Writer w;
  script::RelaxPrinter p(&w, false, nullptr);
  p.function(func, name, 0);
  return w.out;
}

std::string print_expr(const Expr& expr) {
  if (auto f = expr.as_ref<Function>()) return print_function(f);
  if (auto f = expr.as_ref<tir::PrimFunc>()) return print_prim_func(f);
  script::Writer w;
  script::RelaxPrinter p(&w, false, nullptr);
  return p.expr(expr);
}

std::string print_module(const IRModule& mod, const std::string& class_name,
                         const PrintOptions& options) {
  script::Writer w;
  std::vector<runtime::NDArray> metadata;
  w.line(0, "# from tvm.script import ir as I");
  w.line(0, "# from tvm.script import relax as R");
  w.line(0, "# from tvm.script import tir as T");
  w.out += "\n";
  w.line(0, "@I.ir_module");
  w.line(0, "class " + class_name + ":");
  bool first = true;
  // The @I.py_func sources (parser.h) print as methods, not as a module attribute.
  auto [attrs, py_funcs] = script::split_py_funcs(mod.attrs());
  if (attrs.defined() && !attrs->fields.empty()) {
    script::NameTable names;
    script::PrimPrinter prims(&names);
    w.line(1, "I.module_attrs(" + script::print_attr_dict(attrs, &prims) + ")");
  }
  if (py_funcs) first = script::write_py_funcs(*py_funcs, &w);
  if (!mod.vdevices().empty()) {
    std::string list;
    for (const VDevice& d : mod.vdevices())
      list += (list.empty() ? "" : ", ") + std::string("I.vdevice(") + script::quote(d.target) +
              ", " + std::to_string(d.device_id) + ", " + script::quote(d.memory_scope) + ")";
    w.line(1, "I.module_global_infos({\"vdevice\": [" + list + "]})");
  }
  for (const auto& entry : mod.functions()) {
    if (!first) w.out += "\n";
    first = false;
    if (auto pf = entry.func.as_ref<tir::PrimFunc>()) {
      script::print_prim_func_into(pf, entry.gv->name, 1, &w);
    } else if (auto f = entry.func.as_ref<Function>()) {
      script::RelaxPrinter p(&w, true, &metadata, &mod);
      p.function(f, entry.gv->name, 1);
    }
  }
  if (mod.empty() && !py_funcs) w.line(1, "pass");
  if (!metadata.empty()) {
    w.out += "\n";
    w.line(0, "metadata = {");
    w.line(1, "\"relax.expr.Constant\": [");
    for (const auto& m : metadata) {
      if (options.show_constants) {
        w.line(2, script::constant_text(m) + ",");
        continue;
      }
      std::string shape;
      for (int64_t d : m.shape()) shape += (shape.empty() ? "" : ", ") + std::to_string(d);
      if (m.shape().size() == 1) shape += ",";
      w.line(2, "R.const_elided((" + shape + "), \"" + m.dtype().to_string() + "\"),");
    }
    w.line(1, "]");
    w.line(0, "}");
  }
  return w.out;
}

}  // namespace relax
