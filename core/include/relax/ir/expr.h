// The Relax IR: expressions, bindings, blocks and functions (DESIGN.md §3, RFC §4.1).
//
// Semantics:
//  - A function body is a SeqExpr: binding blocks evaluated in order, then the body expression.
//  - A DataflowBlock holds only pure operations without control flow; its DataflowVars are
//    invisible outside it, except the bindings emitted with R.output (plain Vars).
//  - After normalisation every expression carries struct info and the IR is in A-normal form:
//    call arguments, tuple fields and branch conditions are leaves (vars, constants, shapes,
//    immediates, global vars, ops); If branches are SeqExprs.
//  - Vars are compared by identity. Symbolic variables (tir::Var) in struct info are defined by
//    the first parameter or MatchCast that mentions them.
//  - "Pure" means: no visible side effect and no dependence on state; a pure call may be
//    reordered, duplicated or removed when its result is unused.
//  - Expressions and bindings parsed from text carry a `span` (file, line, column) for error
//    messages. It is set at construction like every field, carried by the BlockBuilder and the
//    mutators to the node they rebuild from it, and ignored by structural equality, hashing and
//    the printer: two nodes that differ only in their spans are the same IR.
#pragma once

#include <string>
#include <vector>

#include "relax/tir/attrs.h"
#include "relax/ir/struct_info.h"
#include "relax/runtime/ndarray.h"
#include "relax/support/diagnostic.h"

namespace relax {

namespace tir {
struct PrimFunc;  // tir/function.h
}

/// The one node list of Relax expressions. PrimFunc (tir/function.h) follows Function as the
/// other kind of module function.
#define RELAX_EXPR_NODES(X) \
  X(Constant)               \
  X(Tuple)                  \
  X(TupleGetItem)           \
  X(Var)                    \
  X(DataflowVar)            \
  X(ShapeExpr)              \
  X(PrimValue)              \
  X(StringImm)              \
  X(DataTypeImm)            \
  X(GlobalVar)              \
  X(Op)                     \
  X(ExternFunc)             \
  X(Call)                   \
  X(If)                     \
  X(SeqExpr)                \
  X(Function)

enum class ExprKind : uint32_t {
  kFirst = kRelaxExprKindBase - 1,
#define RELAX_X(Name) k##Name,
  RELAX_EXPR_NODES(RELAX_X)
#undef RELAX_X
  kPrimFunc,
  kLast
};

#define RELAX_BINDING_NODES(X) \
  X(VarBinding)                \
  X(MatchCast)                 \
  X(BindingBlock)              \
  X(DataflowBlock)

enum class BindingKind : uint32_t {
  kFirst = kBindingKindBase - 1,
#define RELAX_X(Name) k##Name,
  RELAX_BINDING_NODES(RELAX_X)
#undef RELAX_X
  kLast
};

/// Name of an expression, binding or block kind ("Call", "MatchCast").
const char* relax_kind_name(uint32_t kind);

/// Base of every Relax expression.
struct ExprNode : Object {
  static constexpr uint32_t kKindFirst = uint32_t(ExprKind::kFirst) + 1;
  static constexpr uint32_t kKindLast = uint32_t(ExprKind::kLast) - 1;
  /// What is known of the value; null until the expression is normalised.
  const StructInfo struct_info;
  /// Where the expression was written (set by the parser); undefined for nodes built in code.
  const Span span;

 protected:
  ExprNode(ExprKind kind, StructInfo sinfo, Span span = {})
      : Object(uint32_t(kind)), struct_info(std::move(sinfo)), span(std::move(span)) {}
};
using Expr = Ref<ExprNode>;

#define RELAX_EXPR_KIND(Name) static constexpr uint32_t kKind = uint32_t(ExprKind::k##Name)

/// A constant tensor.
struct Constant : ExprNode {
  RELAX_EXPR_KIND(Constant);
  const runtime::NDArray data;
  /// Struct info derived from the data when not given.
  explicit Constant(runtime::NDArray data, StructInfo sinfo = {});
};

/// A tuple of values.
struct Tuple : ExprNode {
  RELAX_EXPR_KIND(Tuple);
  const std::vector<Expr> fields;
  /// Struct info derived from the fields when they all have one.
  explicit Tuple(std::vector<Expr> fields, StructInfo sinfo = {}, Span span = {});
};

/// Field `index` of a tuple.
struct TupleGetItem : ExprNode {
  RELAX_EXPR_KIND(TupleGetItem);
  const Expr tuple;
  const int index;
  TupleGetItem(Expr tuple, int index, StructInfo sinfo = {}, Span span = {});
};

/// Base of Var and DataflowVar.
struct VarNode : ExprNode {
  static constexpr uint32_t kKindFirst = uint32_t(ExprKind::kVar);
  static constexpr uint32_t kKindLast = uint32_t(ExprKind::kDataflowVar);
  /// A hint for printing; identity is the node, not the name.
  const std::string name;

 protected:
  VarNode(ExprKind kind, std::string name, StructInfo sinfo, Span span)
      : ExprNode(kind, std::move(sinfo), std::move(span)), name(std::move(name)) {}
};

/// A variable visible in its whole function. Its span is where it is defined.
struct Var : VarNode {
  RELAX_EXPR_KIND(Var);
  Var(std::string name, StructInfo sinfo, Span span = {})
      : VarNode(ExprKind::kVar, std::move(name), std::move(sinfo), std::move(span)) {}
};

/// A variable local to one dataflow block. Its span is where it is defined.
struct DataflowVar : VarNode {
  RELAX_EXPR_KIND(DataflowVar);
  DataflowVar(std::string name, StructInfo sinfo, Span span = {})
      : VarNode(ExprKind::kDataflowVar, std::move(name), std::move(sinfo), std::move(span)) {}
};

/// A shape value built from symbolic dimensions: R.shape([n, 4]).
struct ShapeExpr : ExprNode {
  RELAX_EXPR_KIND(ShapeExpr);
  const std::vector<PrimExpr> values;
  explicit ShapeExpr(std::vector<PrimExpr> values);
};

/// A scalar value: R.prim_value(n + 1).
struct PrimValue : ExprNode {
  RELAX_EXPR_KIND(PrimValue);
  const PrimExpr value;
  explicit PrimValue(PrimExpr value);
};

/// A string constant (e.g. a format argument of a packed call).
struct StringImm : ExprNode {
  RELAX_EXPR_KIND(StringImm);
  const std::string value;
  explicit StringImm(std::string value);
};

/// A dtype as a value (e.g. an argument of R.builtin.alloc_tensor).
struct DataTypeImm : ExprNode {
  RELAX_EXPR_KIND(DataTypeImm);
  const DataType value;
  explicit DataTypeImm(DataType value);
};

/// The name of a function of the enclosing IRModule. Compared by name within a module.
struct GlobalVar : ExprNode {
  RELAX_EXPR_KIND(GlobalVar);
  const std::string name;
  explicit GlobalVar(std::string name, StructInfo sinfo = {})
      : ExprNode(ExprKind::kGlobalVar, std::move(sinfo)), name(std::move(name)) {}
};

struct OpInfo;  // ir/op.h

/// A primitive operator, interned: one node per registered name (ir/op.h).
struct Op : ExprNode {
  RELAX_EXPR_KIND(Op);
  const std::string name;
  /// The registry entry; never null.
  const OpInfo* const info;
  Op(std::string name, const OpInfo* info)
      : ExprNode(ExprKind::kOp, {}), name(std::move(name)), info(info) {}
};

/// A function outside the module, resolved by name at run time (a packed function).
struct ExternFunc : ExprNode {
  RELAX_EXPR_KIND(ExternFunc);
  const std::string global_symbol;
  explicit ExternFunc(std::string global_symbol, StructInfo sinfo = {});
};

/// A call of an op, a function (global, local or extern) or a closure.
struct Call : ExprNode {
  RELAX_EXPR_KIND(Call);
  const Expr op;
  const std::vector<Expr> args;
  /// The op's attributes; may be null.
  const Attrs attrs;
  /// Struct info arguments (the result types of call_tir, call_packed, ...).
  const std::vector<StructInfo> sinfo_args;
  Call(Expr op, std::vector<Expr> args, Attrs attrs = {}, std::vector<StructInfo> sinfo_args = {},
       StructInfo sinfo = {}, Span span = {})
      : ExprNode(ExprKind::kCall, std::move(sinfo), std::move(span)), op(std::move(op)), args(std::move(args)),
        attrs(std::move(attrs)), sinfo_args(std::move(sinfo_args)) {}
};

/// `if cond: then_branch else: else_branch`; cond is a scalar bool tensor or a PrimValue.
struct If : ExprNode {
  RELAX_EXPR_KIND(If);
  const Expr cond;
  const Expr then_branch;
  const Expr else_branch;
  If(Expr cond, Expr then_branch, Expr else_branch, StructInfo sinfo = {}, Span span = {})
      : ExprNode(ExprKind::kIf, std::move(sinfo), std::move(span)), cond(std::move(cond)),
        then_branch(std::move(then_branch)), else_branch(std::move(else_branch)) {}
};

struct BlockNode;
using Block = Ref<BlockNode>;

/// Blocks of bindings evaluated in order, then `body`.
struct SeqExpr : ExprNode {
  RELAX_EXPR_KIND(SeqExpr);
  const std::vector<Block> blocks;
  const Expr body;
  /// Struct info is the body's when not given.
  SeqExpr(std::vector<Block> blocks, Expr body, StructInfo sinfo = {});
};

/// Base of module functions: Relax Functions and TIR PrimFuncs.
struct BaseFuncNode : ExprNode {
  static constexpr uint32_t kKindFirst = uint32_t(ExprKind::kFunction);
  static constexpr uint32_t kKindLast = uint32_t(ExprKind::kPrimFunc);
  /// Function attributes: "global_symbol", "Primitive", "Composite", ...
  const Attrs attrs;

 protected:
  BaseFuncNode(ExprKind kind, Attrs attrs, StructInfo sinfo, Span span = {})
      : ExprNode(kind, std::move(sinfo), std::move(span)), attrs(std::move(attrs)) {}
};
using BaseFunc = Ref<BaseFuncNode>;

/// A Relax function. Its struct info is FuncStructInfo(params' struct info, ret, is_pure).
struct Function : BaseFuncNode {
  RELAX_EXPR_KIND(Function);
  const std::vector<Ref<Var>> params;
  const Expr body;
  /// The declared (or inferred) result.
  const StructInfo ret_struct_info;
  const bool is_pure;
  Function(std::vector<Ref<Var>> params, Expr body, StructInfo ret_struct_info, bool is_pure = true,
           Attrs attrs = {}, Span span = {});
};

#undef RELAX_EXPR_KIND

// ---- Bindings and blocks.

/// Base of VarBinding and MatchCast.
struct BindingNode : Object {
  static constexpr uint32_t kKindFirst = uint32_t(BindingKind::kVarBinding);
  static constexpr uint32_t kKindLast = uint32_t(BindingKind::kMatchCast);
  /// The variable defined (a DataflowVar inside a dataflow block for non-outputs).
  const Ref<VarNode> var;
  const Expr value;
  /// Where the binding was written (the statement, set by the parser; for a binding the
  /// BlockBuilder makes, the value's span). Ignored by structural equality and hashing.
  const Span span;

 protected:
  BindingNode(BindingKind kind, Ref<VarNode> var, Expr value, Span span)
      : Object(uint32_t(kind)), var(std::move(var)), value(std::move(value)), span(std::move(span)) {}
};
using Binding = Ref<BindingNode>;

/// `var = value`.
struct VarBinding : BindingNode {
  static constexpr uint32_t kKind = uint32_t(BindingKind::kVarBinding);
  VarBinding(Ref<VarNode> var, Expr value, Span span = {})
      : BindingNode(BindingKind::kVarBinding, std::move(var), std::move(value), std::move(span)) {}
};

/// `var = R.match_cast(value, struct_info)`: checks at run time that `value` matches
/// `struct_info` and defines the symbolic variables it mentions for the first time.
struct MatchCast : BindingNode {
  static constexpr uint32_t kKind = uint32_t(BindingKind::kMatchCast);
  const StructInfo struct_info;
  MatchCast(Ref<VarNode> var, Expr value, StructInfo struct_info, Span span = {})
      : BindingNode(BindingKind::kMatchCast, std::move(var), std::move(value), std::move(span)),
        struct_info(std::move(struct_info)) {}
};

/// Base of BindingBlock and DataflowBlock.
struct BlockNode : Object {
  static constexpr uint32_t kKindFirst = uint32_t(BindingKind::kBindingBlock);
  static constexpr uint32_t kKindLast = uint32_t(BindingKind::kDataflowBlock);
  const std::vector<Binding> bindings;
  bool is_dataflow() const { return kind() == uint32_t(BindingKind::kDataflowBlock); }

 protected:
  BlockNode(BindingKind kind, std::vector<Binding> bindings) : Object(uint32_t(kind)), bindings(std::move(bindings)) {}
};

/// Bindings that may have side effects and control flow.
struct BindingBlock : BlockNode {
  static constexpr uint32_t kKind = uint32_t(BindingKind::kBindingBlock);
  explicit BindingBlock(std::vector<Binding> bindings) : BlockNode(BindingKind::kBindingBlock, std::move(bindings)) {}
};

/// Pure bindings without control flow (`with R.dataflow():`).
struct DataflowBlock : BlockNode {
  static constexpr uint32_t kKind = uint32_t(BindingKind::kDataflowBlock);
  explicit DataflowBlock(std::vector<Binding> bindings)
      : BlockNode(BindingKind::kDataflowBlock, std::move(bindings)) {}
};

// ---- Construction helpers.

Ref<Var> make_var(std::string name, StructInfo sinfo, Span span = {});
Ref<DataflowVar> make_dataflow_var(std::string name, StructInfo sinfo, Span span = {});
/// A new variable of `var`'s kind (Var or DataflowVar), name and span with struct info `sinfo`:
/// what a rewrite makes when the value bound to `var` changes type.
Ref<VarNode> make_var_like(const Ref<VarNode>& var, StructInfo sinfo);
Expr make_tuple(std::vector<Expr> fields);
Expr make_shape(std::vector<PrimExpr> values);
Expr make_prim_value(PrimExpr value);
/// A PrimValue holding an int64 constant.
Expr make_prim_value(int64_t value);
Expr make_string(std::string value);
Expr make_dtype(DataType value);
Expr make_constant(runtime::NDArray data);
Ref<ExternFunc> make_extern(std::string global_symbol);
/// The block kind chosen by `dataflow`.
Block make_block(std::vector<Binding> bindings, bool dataflow);

/// The struct info of `e`; an InternalError when `e` is not normalised.
const StructInfo& get_struct_info(const Expr& e);
/// The TensorStructInfo of `e`, or null.
const TensorStructInfo* tensor_info(const Expr& e);

/// True for the leaves of A-normal form: variables, constants, shapes, prim values, strings,
/// dtypes, global vars, ops and extern functions.
bool is_leaf(const Expr& e);

/// A short readable name for messages: a var's name, an op's name, or the kind.
std::string describe(const Expr& e);

}  // namespace relax
