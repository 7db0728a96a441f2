// The well-formed checker: the rules of DESIGN.md §3 that every pass must preserve.
//
//  1. Normal form: every expression has struct info; call arguments, tuple fields and If
//     conditions are leaves (or tuples of leaves); If branches are SeqExprs.
//  2. Every variable is defined once, and used only where its definition is in scope.
//  3. DataflowVars are defined only in dataflow blocks and used only inside their block;
//     function parameters and dataflow-block outputs are plain Vars.
//  4. Symbolic variables are defined (by a parameter's struct info or a MatchCast) before use.
//  5. Dataflow blocks hold only pure calls and no control flow (no If).
//  6. A pure function makes no impure call.
//  7. Every GlobalVar names a function of the module; call_tir names a PrimFunc.
#pragma once

#include <string>
#include <vector>

#include "relax/ir/module.h"
#include "relax/support/diagnostic.h"

namespace relax {

/// All violations in `mod`, each naming the function and the variable or binding at fault, and
/// placed at the span of the offending call, binding or parameter when it has one.
std::vector<Diagnostic> well_formed_errors(const IRModule& mod);
/// Violations in one function (checked as if alone; GlobalVars are not resolved).
std::vector<Diagnostic> well_formed_errors(const Ref<Function>& func, const std::string& name = "<function>");
/// True when `mod` is well formed.
bool is_well_formed(const IRModule& mod);
/// Throws relax::Error listing every violation when `mod` is not well formed.
void check_well_formed(const IRModule& mod);

}  // namespace relax
