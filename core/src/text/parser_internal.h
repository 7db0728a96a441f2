// The IR-building half of the Relax script parser: walks the syntax tree (parser_ast.h) and
// builds Relax functions through the BlockBuilder (parser_relax.cc, parser_relax_call.cc),
// PrimFuncs (parser_tir.cc, parser_tir_block.cc, parser_tir_stmt.cc) and PrimExprs
// (parser_expr.cc). Relax nodes get the span of the text they come from (span_at), which is
// how errors raised after parsing find their way back to file:line:column.
// Internal to core/src/text.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "parser_ast.h"
#include "relax/ir/block_builder.h"
#include "relax/ir/prim_func.h"

namespace relax::script {

using text::NK;
using text::NodeP;
using text::Pos;
using text::SK;
using text::StmtP;

/// Takes the `@I.py_func` methods out of `text` (py_func.cc): each becomes empty lines, and
/// its source (decorators included, dedented to column 0) is returned, in text order. Throws
/// relax::Error at `file`:line when a decorator is not followed by a def.
std::vector<std::string> extract_py_funcs(std::string& text, const std::string& file);

/// The value of keyword argument `key` of call `n`, or null.
inline NodeP kwarg(const text::Node& n, const std::string& key) {
  for (const auto& [k, v] : n.kwargs)
    if (k == key) return v;
  return nullptr;
}

/// "T.grid" when `n` is a call of T.grid; empty when `n` is not a call. TVM's S-TIR names
/// T.sblock, T.sblock_alloc_buffer and T.sblock_attr read as T.block, T.alloc_buffer and
/// T.block_attr.
inline std::string call_name(const NodeP& n) {
  if (!n || n->kind != NK::kCall) return std::string();
  std::string name = text::dotted_name(n->a);
  if (name == "T.sblock") return "T.block";
  if (name == "T.sblock_alloc_buffer") return "T.alloc_buffer";
  if (name == "T.sblock_attr") return "T.block_attr";
  return name;
}

/// A PrimExpr and whether it is a bare literal (whose dtype adapts to the other operand).
struct Typed {
  PrimExpr e;
  bool untyped = false;
};

/// What a name refers to.
struct Entry {
  enum Kind { kRelaxVar, kSymVar, kBuffer, kGlobal, kModuleAlias } kind = kModuleAlias;
  Ref<VarNode> rvar;
  Ref<tir::Var> tvar;
  Ref<tir::Buffer> buf;
  std::string global;  ///< function name for kGlobal

  static Entry relax_var(Ref<VarNode> v) {
    Entry e;
    e.kind = kRelaxVar;
    e.rvar = std::move(v);
    return e;
  }
  static Entry sym(Ref<tir::Var> v) {
    Entry e;
    e.kind = kSymVar;
    e.tvar = std::move(v);
    return e;
  }
  static Entry buffer(Ref<tir::Buffer> b) {
    Entry e;
    e.kind = kBuffer;
    e.buf = std::move(b);
    return e;
  }
  static Entry function(std::string name) {
    Entry e;
    e.kind = kGlobal;
    e.global = std::move(name);
    return e;
  }
};

/// An enclosing TIR loop, for T.axis.remap.
struct LoopInfo {
  Ref<tir::Var> var;
  PrimExpr min, extent;
};

/// The block being read: header statements (T.axis.*, T.reads, ...) land here.
struct BlockCtx {
  bool is_root = false;
  std::vector<Ref<tir::IterVar>> iter_vars;
  std::vector<PrimExpr> values;
  std::optional<std::vector<tir::BufferRegion>> reads, writes;
  tir::Stmt init;
  std::vector<Ref<tir::Buffer>> allocs;
  std::vector<tir::MatchBufferRegion> match_buffers;
  Attrs annotations;
  PrimExpr predicate;
};

class Parser {
 public:
  explicit Parser(const text::SourceContext& ctx);
  ~Parser();

  IRModule module(const std::vector<StmtP>& stmts);
  /// I.module_global_infos({"vdevice": [...]}) into vdevices_ (parser_module.cc).
  void global_infos(const text::Stmt& s);
  Ref<tir::PrimFunc> prim_func(const text::Stmt& def);
  [[noreturn]] void error(Pos pos, const std::string& message) const { ctx_.error(pos, message); }
  /// The span of `pos` in this file, for the IR nodes built from the text there.
  Span span_at(Pos pos) const;
  /// Re-raises `e`, thrown by the BlockBuilder or an op while building, with the caret line:
  /// at the place it already names when that is in this file (the call whose inference
  /// failed), else at `pos`.
  [[noreturn]] void rethrow_at(const Error& e, Pos pos) const;

  // ---- Names (lexical scopes).
  void push_scope() { scopes_.emplace_back(); }
  void pop_scope() { scopes_.pop_back(); }
  const Entry* lookup(const std::string& name) const;
  void define(const std::string& name, Entry e) { scopes_.back()[name] = std::move(e); }

  // ---- PrimExprs (parser_expr.cc).
  Typed prim(const NodeP& n);
  /// A PrimExpr with a bare literal given `hint`'s dtype.
  PrimExpr prim_as(const NodeP& n, DataType hint);
  /// A dimension (of a shape, tensor, buffer or shape pattern): an integer scalar expression, or
  /// an error at `n` naming `what` ("a shape dimension") and the dtype found.
  PrimExpr int_dim(const NodeP& n, const char* what);
  /// True when `n` reads as a scalar expression (literal, symbolic var, arithmetic of them).
  bool looks_prim(const NodeP& n) const;
  DataType dtype_of(const NodeP& n);
  /// A literal with `t` (literals adopt the other side's dtype).
  PrimExpr coerce(const Typed& x, DataType t, Pos pos);
  /// Binary arithmetic with the literal and int-width rules.
  PrimExpr binary(const std::string& op, Typed a, Typed b, Pos pos);
  /// The value of the integer literal `n` (kInt), negated when `negate`. The lexer keeps 2**63
  /// (as INT64_MIN) so that -9223372036854775808 can be written; unnegated it is an error.
  int64_t int_value(const NodeP& n, bool negate);
  /// An integer literal, possibly negated, for `what`; anything else is an error at `n`.
  int64_t int_literal(const NodeP& n, const std::string& what);
  /// T.min_value(dtype) / T.max_value(dtype) (call `n`): the constant.
  PrimExpr limit_value(const text::Node& n, bool max);
  std::string string_literal(const NodeP& n, const std::string& what);
  AttrValue attr_value(const NodeP& n);
  Attrs attr_dict(const NodeP& n);
  /// When set, an unknown name in a PrimExpr defines a new int64 symbolic variable there.
  bool implicit_vars_ = false;

  // ---- Struct info (parser_sinfo.cc) and Relax expressions (parser_relax_call.cc).
  StructInfo sinfo(const NodeP& n);
  Expr rexpr(const NodeP& n);

  // ---- TIR (parser_tir.cc, parser_tir_stmt.cc).
  tir::Stmt tir_stmts(const std::vector<StmtP>& list, size_t from);
  tir::Stmt allocate(const text::Node& call, const std::string& name,
                     const std::function<tir::Stmt()>& body);

  const text::SourceContext& ctx_;
  std::vector<std::unordered_map<std::string, Entry>> scopes_;
  std::unique_ptr<BlockBuilder> bb_;
  std::string class_name_;
  std::unordered_map<std::string, Ref<GlobalVar>> declared_;
  std::vector<Expr> metadata_;
  /// The module's vdevices (I.module_global_infos); checked_vdevices_: parsing a module, so
  /// every vdevice string must name one of them (parser_module.cc).
  std::vector<VDevice> vdevices_;
  bool checked_vdevices_ = false;
  /// Throws at `pos` when `ref` names no vdevice of the module being parsed.
  void check_vdevice(Pos pos, const std::string& ref, const std::string& where) const;
  std::vector<LoopInfo> loops_;
  BlockCtx* block_ctx_ = nullptr;
  bool in_tir_ = false;

 private:
  // parser_relax.cc
  /// What the decorator and signature of a Relax function say.
  struct FuncHeader {
    bool pure = true;
    Attrs attrs;
    std::vector<Ref<Var>> params;
    StructInfo ret;
  };
  /// Reads the decorator, symbolic variable declarations, R.func_attr and parameters of `def`
  /// into the current name scope (parameters defined); checks it ends with a return.
  FuncHeader func_header(const text::Stmt& def);
  void relax_function(const text::Stmt& def);
  /// A function defined in a Relax function body: bound to a variable named after it.
  void local_function(const text::Stmt& def, bool dataflow,
                      const std::vector<std::string>& outputs);
  StructInfo func_signature(const text::Stmt& def, bool pure);
  void relax_stmts(const std::vector<StmtP>& list, bool dataflow,
                   const std::vector<std::string>& outputs);
  void relax_assign(const text::Stmt& s, bool dataflow, const std::vector<std::string>& outputs);
  void relax_if(const text::Stmt& s);
  // parser_relax_call.cc
  Expr relax_call(const text::Node& n);
  /// R.print, R.assert_op, R.call_tir_inplace and the lowered builtins' TVM spellings
  /// (parser_script_ops.cc); null when `f` (the name after "R.") is none of them.
  Expr script_op(const text::Node& n, const std::string& f);
  /// `cls.f(args...)` with `f` a PrimFunc (TVM's lowered form: outputs are trailing arguments)
  /// is R.vm.call_dps(cls.f, (args...)); null when `callee` is not a PrimFunc.
  Expr direct_prim_func_call(const Expr& callee, const std::vector<Expr>& args, Pos pos);
  /// Argument `index` of a call of op `op_name`: a Relax expression, or for the lowered
  /// builtins (R.builtin.*, R.memory.*, R.vm.*) also a literal, which becomes R.prim_value,
  /// R.str or (for a dtype argument) R.dtype as in TVM.
  Expr op_arg(const NodeP& v, const std::string& op_name, size_t index);
  /// `a + b`, `a < b`, `-a` between Relax values: the op TVM's ExprWithOp maps it to.
  Expr operator_call(const text::Node& n);
  /// True when `n` is a dotted name (R, T.x, cls, the class) whose root is not a Relax
  /// variable, so that `n.f(...)` is not a method call on a value.
  bool is_module_ref(const NodeP& n) const;
  /// A call of op `op_name` with `n`'s arguments; keywords are attributes or named arguments.
  Expr op_call(const text::Node& n, const std::string& op_name);
  // parser_relax.cc
  /// Normalises `value` and binds it to a new variable `name` (checked against `annotation`;
  /// a MatchCast when `match_sinfo` is given); the variable and binding get `pos`'s span.
  void emit_named(const std::string& name, const Expr& value, const NodeP& annotation,
                  bool dataflow_var, Pos pos, const StructInfo& match_sinfo = {});
  void check_purity(const Expr& value, bool dataflow, Pos pos);
  Ref<GlobalVar> global_var(const std::string& name, Pos pos);
  // parser_sinfo.cc
  Expr constant(const text::Node& call);
  /// `R.const_elided((shape), "dtype")` of a metadata section: a zero-filled placeholder.
  Expr elided_constant(const text::Node& call);

  bool pure_ = true;
  bool force_pure_ = false;  ///< the function has "relax.force_pure": True
  std::string func_name_;

  // parser_tir_stmt.cc
  tir::Stmt tir_stmt(const std::vector<StmtP>& list, size_t* i);
  tir::Stmt tir_for(const text::Stmt& s);
  // parser_tir_block.cc
  tir::Stmt tir_block(const text::Stmt& s, const NodeP& call);
  bool tir_header(const text::Stmt& s);
  // parser_tir.cc
  tir::BufferRegion region(const NodeP& n);
  Ref<tir::Buffer> buffer_decl(const text::Node& call, size_t first_arg, const std::string& name,
                               Ref<tir::Var> data);
  Ref<tir::Buffer> buffer_of(const NodeP& n);
  std::vector<PrimExpr> shape_dims(const NodeP& n);
  void declare_sym(const text::Stmt& s);
  bool is_sym_decl(const NodeP& value) const;
};

}  // namespace relax::script
