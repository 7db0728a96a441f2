// Reasoning about struct info: subtyping with symbolic shapes, unification of branches,
// return types of calls to functions with symbolic parameters, and symbolic-variable scoping.
#pragma once

#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "relax/ir/expr.h"

namespace relax {

namespace arith {
class Analyzer;
}

/// Outcome of checking that `base` describes every value `derived` describes.
enum class BaseCheck {
  /// Statically incompatible (different rank, dtype, constant dims, kinds).
  kFail,
  /// Compatible only if symbolic dimensions agree at run time (needs a runtime check).
  kNeedsRuntimeCheck,
  /// Provably compatible.
  kPass,
};

/// Checks `base` ⊇ `derived`. Symbolic dims are compared with the analyzer.
BaseCheck struct_info_base_check(const StructInfo& base, const StructInfo& derived, arith::Analyzer& ana);
/// True when struct_info_base_check gives kPass.
bool is_base_of(const StructInfo& base, const StructInfo& derived, arith::Analyzer& ana);

/// The most specific struct info describing both `a` and `b` (for the two branches of an If).
StructInfo struct_info_lca(const StructInfo& a, const StructInfo& b, arith::Analyzer& ana);

using SymbolicVarMap = std::unordered_map<const tir::Var*, PrimExpr>;

/// Matches a parameter's struct info against an argument's, recording for each symbolic
/// variable of `param` (first occurrence, a bare variable dim) the argument's value.
void bind_symbolic_vars(const StructInfo& param, const StructInfo& arg, SymbolicVarMap* bindings);
/// Substitutes symbolic variables in struct info (then simplifies the substituted dims).
StructInfo substitute_sinfo(const StructInfo& sinfo, const SymbolicVarMap& map, arith::Analyzer& ana);

/// The result of calling a function of struct info `func` with `args`: parameters are matched
/// against arguments (symbolic variables bound), arity and kinds checked, and the bindings
/// substituted into the return struct info. Throws relax::Error on a mismatch, naming `callee`.
/// Shapes that mention a variable the callee's parameters do not bind and `caller_scope` (the
/// symbolic variables the caller sees) does not hold are erased to their rank; with no
/// `caller_scope` (not known) nothing is.
StructInfo derive_call_ret_struct_info(const FuncStructInfo& func, const std::vector<Expr>& args,
                                       const std::string& callee, arith::Analyzer& ana,
                                       const std::unordered_set<const tir::Var*>* caller_scope = nullptr);

/// Symbolic variables that appear in `sinfo`, in order of first appearance.
std::vector<Ref<tir::Var>> symbolic_vars(const StructInfo& sinfo);
/// Symbolic variables `sinfo` defines when it annotates a parameter or a match_cast: those that
/// appear bare as a dimension (or as a PrimStructInfo's value), in order of first appearance.
std::vector<Ref<tir::Var>> defined_symbolic_vars(const StructInfo& sinfo);

/// Replaces the shapes that mention variables outside `in_scope` by their rank alone (and
/// PrimStructInfo values by nothing), so the result is meaningful outside a scope. Inside a
/// function's struct info, the variables its parameters define count as in scope.
StructInfo erase_to_well_defined(const StructInfo& sinfo, const std::unordered_set<const tir::Var*>& in_scope);

}  // namespace relax
