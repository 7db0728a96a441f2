// The parser's entry points and module driver: finds the `@I.ir_module` class (or the
// top-level functions), the metadata section and module attributes, parses every PrimFunc,
// declares the Relax functions whose signatures are complete (so they can call each other in
// any order), builds them in order through one BlockBuilder, and assembles the module in
// source order.
#include <fstream>
#include <sstream>

#include "parser_internal.h"
#include "relax/text/parser.h"

namespace relax {
namespace script {

Parser::Parser(const text::SourceContext& ctx) : ctx_(ctx) { push_scope(); }
Parser::~Parser() = default;

namespace {

enum class FuncKind { kRelax, kTir };

FuncKind func_kind(const Parser& p, const text::Stmt& def) {
  for (const auto& d : def.decorators) {
    std::string name = text::dotted_name(d->kind == NK::kCall ? d->a : d);
    if (name == "R.function" || name == "R.func" || name == "relax.function")
      return FuncKind::kRelax;
    if (name == "T.prim_func" || name == "tir.prim_func") return FuncKind::kTir;
  }
  p.error(def.pos, "function '" + def.name + "' needs a @R.function or @T.prim_func decorator");
}

}  // namespace

IRModule Parser::module(const std::vector<StmtP>& stmts) {
  std::vector<const text::Stmt*> defs;
  Attrs mod_attrs;
  const text::Stmt* cls = nullptr;
  for (const auto& s : stmts) {
    if (s->kind == SK::kClassDef) {
      if (cls)
        error(s->pos, "a file holds one module class; '" + cls->name + "' is already defined");
      bool is_module = false;
      for (const auto& d : s->decorators) {
        std::string n = text::dotted_name(d->kind == NK::kCall ? d->a : d);
        is_module |= n == "I.ir_module" || n == "tvm.script.ir_module" || n == "ir_module";
      }
      if (!is_module) error(s->pos, "class '" + s->name + "' needs the @I.ir_module decorator");
      cls = s.get();
      class_name_ = s->name;
      for (const auto& m : s->body) {
        if (m->kind == SK::kFuncDef) {
          defs.push_back(m.get());
        } else if (m->kind == SK::kExpr && m->value->kind == NK::kCall &&
                   text::dotted_name(m->value->a) == "I.module_attrs") {
          if (m->value->items.size() != 1) error(m->pos, "I.module_attrs takes one dict");
          mod_attrs = attr_dict(m->value->items[0]);
          // The key holding the @I.py_func sources: as an attribute, any strings would print
          // back as methods that are not Python functions (a fuzz_rx finding).
          if (mod_attrs->has(kPyFuncsAttr))
            error(m->pos, std::string("module attribute '") + kPyFuncsAttr +
                              "' is reserved: write Python functions as @I.py_func methods of the module class");
        } else if (m->kind == SK::kExpr && m->value->kind == NK::kCall &&
                   text::dotted_name(m->value->a) == "I.module_global_infos") {
          global_infos(*m);
        } else if (m->kind == SK::kPass || (m->kind == SK::kExpr && m->value->kind == NK::kStr)) {
          continue;
        } else {
          error(m->pos,
                "expected a function definition (@R.function or @T.prim_func) in the module class");
        }
      }
    } else if (s->kind == SK::kFuncDef) {
      defs.push_back(s.get());
    } else if (s->kind == SK::kAssign && s->target->kind == NK::kName &&
               s->target->str == "metadata") {
      const NodeP& d = s->value;
      if (!d || d->kind != NK::kDict)
        error(s->pos, "expected metadata = {\"relax.expr.Constant\": [...]}");
      for (size_t i = 0; i + 1 < d->items.size(); i += 2) {
        std::string key = string_literal(d->items[i], "a metadata key");
        if (key != "relax.expr.Constant")
          error(d->items[i]->pos, "unknown metadata kind '" + key + "'");
        const NodeP& list = d->items[i + 1];
        if (list->kind != NK::kList && list->kind != NK::kTuple)
          error(list->pos, "expected a list of R.const(...)");
        for (const auto& c : list->items) {
          std::string callee = c->kind == NK::kCall ? text::dotted_name(c->a) : "";
          if (callee == "R.const_elided") {
            metadata_.push_back(elided_constant(*c));
            continue;
          }
          if (callee != "R.const") error(c->pos, "expected R.const(...) or R.const_elided(...)");
          metadata_.push_back(constant(*c));
        }
      }
    } else if (s->kind == SK::kPass || (s->kind == SK::kExpr && s->value->kind == NK::kStr)) {
      continue;
    } else {
      error(s->pos, "expected an @I.ir_module class or a function definition at the top level");
    }
  }
  if (cls && defs.size() != cls->body.size()) {
    // Top-level functions beside a module class are not part of it.
    for (const auto& s : stmts)
      if (s->kind == SK::kFuncDef)
        error(s->pos, "function '" + s->name + "' is outside the module class");
  }

  std::unordered_map<std::string, FuncKind> kinds;
  for (const auto* d : defs) {
    if (kinds.count(d->name)) error(d->pos, "function '" + d->name + "' is defined twice");
    kinds[d->name] = func_kind(*this, *d);
    define(d->name, Entry::function(d->name));
  }
  if (!class_name_.empty()) define(class_name_, Entry());
  define("cls", Entry());

  checked_vdevices_ = true;
  IRModule pre;
  pre.set_vdevices(vdevices_);
  for (const auto* d : defs)
    if (kinds[d->name] == FuncKind::kTir) pre.add(d->name, prim_func(*d));
  bb_ = std::make_unique<BlockBuilder>(pre);
  for (const auto* d : defs) {
    if (kinds[d->name] != FuncKind::kRelax || !d->ret) continue;
    bool pure = true;
    for (const auto& deco : d->decorators)
      if (deco->kind == NK::kCall)
        for (const auto& [k, v] : deco->kwargs)
          if (k == "pure") pure = v->kind != NK::kFalse;
    StructInfo sig = func_signature(*d, pure);
    declared_[d->name] = bb_->declare_function(d->name, sig);
  }
  for (const auto* d : defs)
    if (kinds[d->name] == FuncKind::kRelax) relax_function(*d);

  IRModule out;
  const IRModule& built = bb_->module();
  for (const auto* d : defs) out.add(built.get_global_var(d->name), built.lookup(d->name));
  if (mod_attrs.defined()) out.set_attrs(mod_attrs);
  out.set_vdevices(vdevices_);
  return out;
}

// I.module_global_infos({"vdevice": [I.vdevice(target, device_id, memory_scope), ...]}); the
// id and scope may be left out (0, "global") or given by keyword.
void Parser::global_infos(const text::Stmt& s) {
  const text::Node& call = *s.value;
  if (call.items.size() != 1 || call.items[0]->kind != NK::kDict)
    error(s.pos, "I.module_global_infos takes one dict, e.g. {\"vdevice\": [I.vdevice(\"llvm\")]}");
  const NodeP& d = call.items[0];
  for (size_t i = 0; i + 1 < d->items.size(); i += 2) {
    std::string key = string_literal(d->items[i], "a global info kind");
    if (key != "vdevice")
      error(d->items[i]->pos, "unknown global info kind '" + key + "'; valid: vdevice");
    const NodeP& list = d->items[i + 1];
    if (list->kind != NK::kList && list->kind != NK::kTuple)
      error(list->pos, "expected a list of I.vdevice(target, device_id, memory_scope)");
    for (const auto& v : list->items) {
      if (v->kind != NK::kCall || text::dotted_name(v->a) != "I.vdevice")
        error(v->pos, "expected I.vdevice(target, device_id, memory_scope)");
      if (v->items.empty() || v->items.size() > 3)
        error(v->pos, "I.vdevice takes a target, a device id and a memory scope");
      VDevice dev;
      dev.target = string_literal(v->items[0], "the vdevice target");
      if (dev.target.empty() || dev.target.front() == ',')
        error(v->items[0]->pos, "I.vdevice: the target needs a kind, e.g. \"llvm\"");
      NodeP id = v->items.size() > 1 ? v->items[1] : kwarg(*v, "device_id");
      NodeP scope = v->items.size() > 2 ? v->items[2] : kwarg(*v, "memory_scope");
      if (id) dev.device_id = int_literal(id, "the vdevice device id");
      if (dev.device_id < 0 || dev.device_id > INT32_MAX)
        error(id->pos,
              "I.vdevice: device id " + std::to_string(dev.device_id) + " is out of range");
      if (scope) dev.memory_scope = string_literal(scope, "the vdevice memory scope");
      vdevices_.push_back(std::move(dev));
    }
  }
}

void Parser::check_vdevice(Pos pos, const std::string& ref, const std::string& where) const {
  if (checked_vdevices_ && !find_vdevice(vdevices_, ref))
    error(pos, unknown_vdevice_message(vdevices_, ref, where));
}

namespace {

template <class F>
auto guarded(const text::SourceContext& ctx, F&& f) {
  // The syntax and IR layers throw relax::Error with positions; anything else escaping (an
  // invariant of an IR constructor that the checks above missed) is still the input's fault.
  try {
    return f();
  } catch (const Error&) {
    throw;
  } catch (const InternalError& e) {
    throw Error("invalid program: " + e.detail(), SourceSpan{ctx.file(), 0, 0, 0, 0});
  } catch (const std::exception& e) {
    throw Error(std::string("invalid program: ") + e.what(), SourceSpan{ctx.file(), 0, 0, 0, 0});
  }
}

}  // namespace
}  // namespace script

IRModule parse_module(std::string_view text, std::string file_name) {
  std::string source(text);
  std::vector<std::string> py_funcs = script::extract_py_funcs(source, file_name);
  text::SourceContext ctx(source, std::move(file_name));
  return script::guarded(ctx, [&] {
    auto tokens = text::tokenize(source, ctx);
    auto stmts = text::parse_syntax(tokens, ctx);
    script::Parser p(ctx);
    IRModule mod = p.module(stmts);
    if (!py_funcs.empty()) mod.set_attr(kPyFuncsAttr, std::move(py_funcs));
    return mod;
  });
}

IRModule parse_module_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot read '" + path + "'", SourceSpan{path, 0, 0, 0, 0});
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_module(ss.str(), path);
}

Ref<tir::PrimFunc> parse_prim_func(std::string_view text, std::string file_name) {
  std::string file = file_name;
  IRModule mod = parse_module(text, std::move(file_name));
  if (mod.size() != 1 || !mod.functions()[0].func.is<tir::PrimFunc>())
    throw Error("expected exactly one @T.prim_func", SourceSpan{file, 1, 1, 1, 1});
  return mod.functions()[0].func.as_ref<tir::PrimFunc>();
}

PrimExpr parse_prim_expr(std::string_view text, std::string file_name) {
  text::SourceContext ctx(text, std::move(file_name));
  return script::guarded(ctx, [&] {
    auto tokens = text::tokenize(text, ctx);
    auto stmts = text::parse_syntax(tokens, ctx);
    if (stmts.size() != 1 || stmts[0]->kind != text::SK::kExpr)
      ctx.error({1, 1}, "expected one expression");
    script::Parser p(ctx);
    p.implicit_vars_ = true;
    return p.prim(stmts[0]->value).e;
  });
}

}  // namespace relax
