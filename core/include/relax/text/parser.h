// The Relax script parser: text (.rx files, TVMScript syntax) to IR (DESIGN.md §3).
//
// It reads everything the printer (ir/printer.h) writes, the older spellings of the Relax RFC
// (`R.Tensor[(n, k), "float32"]`, `R.Tensor[_, "float32"]`, `R.match_shape`,
// `R.call_tir(f, args, shape, dtype=...)`, `R.outputs`, `T.var("int32")`,
// `T.Buffer[(n,), "float32"]`) and the variants TVM prints (`R.Tensor(("n", 4), ...)` with
// string dims, `out_sinfo=[...]`, `@T.prim_func(private=True)`, `I.module_attrs({...})`).
// A file may hold one `@I.ir_module` class or bare top-level functions. TVMScript as TVM's own
// tests write it is read too (docs/architecture.md, "Text format"): method calls and operators
// on Relax values, R.print / R.assert_op / R.call_tir_inplace, literal arguments of the lowered
// builtins and direct PrimFunc calls (as R.vm.call_dps), nested dict attributes,
// T.min_value / T.max_value, `buf[()]`, R.Tensor(shape_var, ...), recursive local functions
// and TVM's S-TIR and newer names (T.sblock, ty_args=, R.Any).
//
// Relax functions are built through the BlockBuilder: struct info is inferred and checked
// (an annotation that contradicts inference is an error at the annotation), op calls are
// resolved through the op registry (`R.nn.relu` is "relax.nn.relu") and their attributes are
// validated against the op's AttrSpecs. Variable names are kept as written.
//
// Every error is a relax::Error whose Diagnostic carries file:line:column; the message says
// what was expected and ends with the source line and a caret under the column. An ill-typed
// call is reported at the call itself (nested ones included), an attribute of the wrong kind
// at its value. No input crashes or hangs the parser.
//
// The Relax IR built keeps its place: parameters, binding variables, bindings, calls, tuples,
// tuple indexing, Ifs and functions carry the span (file = `file_name`, line, column) of their
// text (ExprNode::span, BindingNode::span), so errors raised about them after parsing — by the
// BlockBuilder, the well-formed checker, a pass — can name file:line:column too.
//
// Python functions (the Python-module design, docs/python.md): an `@I.py_func` method of the
// module class is not parsed; its source (decorators included, dedented) is kept in the module
// attribute kPyFuncsAttr, a list of strings in text order, which the printer writes back as
// methods. `R.call_py_func("f", (args...), out_sinfo=S)` (or `cls.f` for the name) is a pure
// call of the packed function "relax.py_func.f" (kPyFuncPrefix + name), which whoever runs the
// module registers (relax.BasePyModule does, for each py_func).
#pragma once

#include <string>
#include <string_view>

#include "relax/ir/module.h"
#include "relax/ir/prim_func.h"

namespace relax {

/// The module attribute holding the sources of the `@I.py_func` methods.
inline constexpr const char* kPyFuncsAttr = "py_funcs";
/// R.call_py_func("f", ...) calls the packed function kPyFuncPrefix + "f".
inline constexpr const char* kPyFuncPrefix = "relax.py_func.";

/// Parses a module (an `@I.ir_module` class, or top-level functions gathered into one).
IRModule parse_module(std::string_view text, std::string file_name = "<input>");
/// Reads and parses a file; a relax::Error when it cannot be read.
IRModule parse_module_file(const std::string& path);
/// Parses text holding exactly one `@T.prim_func`.
Ref<tir::PrimFunc> parse_prim_func(std::string_view text, std::string file_name = "<input>");
/// Parses a PrimExpr in script form; free names become int64 variables (`T.int32()` style
/// dtypes are not known for them).
PrimExpr parse_prim_expr(std::string_view text, std::string file_name = "<input>");

}  // namespace relax
