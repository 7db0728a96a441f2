// Python handles of IR nodes (node_bindings.cc): expressions, bindings and blocks, compared by
// identity. Shared with pass_bindings.cc, whose mutator hands them to Python.
#pragma once

#include "bindings.h"
#include "relax/ir/expr.h"

namespace relax::python {

/// relax._relax.Expr: any Relax expression (functions included).
struct PyExpr {
  Expr expr;
};
/// relax._relax.Binding: a VarBinding or a MatchCast.
struct PyBinding {
  Binding binding;
};
/// relax._relax.Block: a binding block or a dataflow block.
struct PyBlock {
  Block block;
};

/// The expression inside a Python handle; throws relax::Error naming `what` for anything else.
Expr expr_of(py::handle obj, const std::string& what);

}  // namespace relax::python
