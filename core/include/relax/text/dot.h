// The dataflow graph of Relax functions in Graphviz DOT (`relax-driver graph`), for reading a
// model's structure: `dot -Tsvg g.dot -o g.svg`.
//
// One digraph per module, one cluster per Relax function: a node per parameter (ellipse), per
// binding of the function's top-level blocks (box: the variable, what computes it — the op
// without its "relax." prefix, `call_tir <kernel>`, a function or packed-function name — and
// its struct info) and per constant an argument uses (the data elided: shape and dtype), and
// a `return` node; an edge from each variable (or constant) a value uses to the value's node.
// Bindings nested in If branches are drawn as their If's node.
#pragma once
#include <string>

#include "relax/ir/module.h"

namespace relax {

/// `mod` as DOT: every Relax function, or only `function` when it is given (a relax::Error
/// naming it and listing the module's Relax functions when there is none of that name).
std::string module_to_dot(const IRModule& mod, const std::string& function = "");

}  // namespace relax
