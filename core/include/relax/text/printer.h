// The Relax script printer: IR to text in today's TVMScript spelling (DESIGN.md §3).
//
// A module prints as `@I.ir_module class Module:` with one method per function: Relax
// functions under `@R.function` (`@R.function(pure=False)` when impure), PrimFuncs under
// `@T.prim_func`. Symbolic variables are declared as `n = T.int64()` at the top of the body
// that uses them; module functions are referred to as `cls.f`; constants with more than
// kInlineConstantLimit elements go to a `metadata` section after the module and are referred to
// as `metadata["relax.expr.Constant"][i]`. Op calls print from the op registry:
// `R.<name without "relax.">(args..., attr=value)`, so ops added later print without changes here.
//
// A local function (a Function bound in a function body) prints as a nested `@R.function def
// <var name>(...)` at the binding's place, as TVM prints it, and is then used by its name; its
// free variables are the enclosing function's. An op used as a value (not called) prints as
// `R.<name>`. float16/bfloat16 constants print their values (`R.const(1.5, "float16")`; every
// finite value, and inf, is exact in decimal); a constant holding a NaN other than the one
// float("nan") reads as prints all its elements as raw bit patterns, `R.const([32257],
// "float16", bits=True)`, so that the payload survives.
//
// The parser (ir/parser.h) reads everything printed here back to structurally equal IR, with
// one normalisation: consecutive plain (non-dataflow) binding blocks have one spelling in the
// text (their bindings in sequence, as in TVMScript) and read back as one block.
// Variable names are kept; two different variables with one name in one function get suffixes
// (`x`, `x_1`) so the text is unambiguous.
#pragma once

#include <string>

#include "relax/ir/module.h"
#include "relax/ir/prim_func.h"

namespace relax {

/// Constants with at most this many elements print inline as `R.const([...], "float32")`.
inline constexpr int64_t kInlineConstantLimit = 16;

/// How print_module writes the metadata section.
struct PrintOptions {
  /// Every element of every large constant (the text reads back to the same module). Off:
  /// each large constant is `R.const_elided((shape), "dtype")` — a few bytes whatever its size
  /// (`relax-driver print` of a model with its weights, IR dumps) — which reads back as a
  /// zero-filled constant of that shape and dtype: the module parses, with placeholders for
  /// the weights.
  bool show_constants = true;
};

/// The whole module, with a metadata section when it holds large constants.
std::string print_module(const IRModule& mod, const std::string& class_name = "Module",
                         const PrintOptions& options = {});
/// One Relax function as a top-level `@R.function def name(...)` (GlobalVars print by name).
std::string print_function(const Ref<Function>& func, const std::string& name = "main");
/// One PrimFunc as a top-level `@T.prim_func def name(...)`.
std::string print_prim_func(const Ref<tir::PrimFunc>& func, const std::string& name = "main");
/// A Relax expression (a function prints as a definition; other expressions on one line,
/// preceded by their bindings when they are SeqExprs).
std::string print_expr(const Expr& expr);
/// Struct info in annotation form: `R.Tensor((n, 4), dtype="float32")`.
std::string print_struct_info(const StructInfo& sinfo);
/// A PrimExpr in script form (`T.float32(0)`, `n * 4`, `T.exp(x)`).
std::string print_prim_expr(const PrimExpr& expr);
/// A TIR statement in script form (buffers print by name).
std::string print_stmt(const tir::Stmt& stmt);

}  // namespace relax
