// Structural equality and hashing of IR, up to the renaming of variables.
//
// Two IR trees are structurally equal when they have the same node kinds and the same field
// values, and their variables correspond one to one. Variables (Relax Var and DataflowVar,
// tir::Var, TIR buffers) are matched by position, never by name or identity:
//  - A definition site (function parameter, binding variable, match_cast variable, TIR loop,
//    block iteration, let and buffer parameter) maps its left variable to its right one; the
//    two must have the same kind (Var and DataflowVar never match) and equal struct info
//    (Relax) or dtype (TIR).
//  - Symbolic tir::Vars met first in a parameter's struct info, a binding variable's struct
//    info or a match_cast's struct info are defined there too.
//  - Any other variable met before its definition is free. With `map_free_vars` it is mapped
//    on first sight, like a definition; without, it only equals itself.
//  - A later occurrence must agree with the mapping, in both directions: (n, n) differs from
//    (n, m).
// GlobalVars and Ops compare by name. Floats compare bitwise (NaN equals NaN). Constants
// compare by dtype, shape and bytes. Attributes compare as sets of key/value pairs (order
// does not matter). The struct info of ordinary expressions is not compared (it is derived);
// that of variables, constants and extern functions is.
//
// structural_hash is consistent with structural_equal: equal trees hash equal, because
// variables hash by their order of definition (or of first sight), not by pointer or name.
//
// structural_compare reports the first difference as an access path from the root
// ("main.body.blocks[0].bindings[2].value.args[1]") with a short rendering of both sides;
// assert_structural_equal throws it as a relax::Error, for tests.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "relax/ir/module.h"

namespace relax {

/// The outcome of a structural comparison, with the first difference when there is one.
struct StructuralEqualResult {
  bool equal = true;
  /// Where the first difference is, e.g. "main.params[0].struct_info.shape[1]";
  /// "<root>" when the roots themselves differ.
  std::string path;
  /// Short renderings of the two differing sides ("'x'", "Tensor((n, 4), float32)", "n * 4").
  std::string lhs;
  std::string rhs;
  /// Why they differ, when more than "not equal" can be said ("different kinds", "'n' was
  /// already mapped to 'm'").
  std::string reason;

  explicit operator bool() const { return equal; }
  /// "at main.body.blocks[0]: DataflowBlock vs BindingBlock (different kinds)"; "equal" when equal.
  std::string to_string() const;
};

/// True when `a` and `b` are equal up to variable renaming. Any node kind: Relax expressions
/// (functions included), struct info, bindings, blocks, PrimExprs, TIR statements, PrimFuncs,
/// buffers and attributes. Null equals only null.
bool structural_equal(const Ref<Object>& a, const Ref<Object>& b, bool map_free_vars = true);
/// Modules are equal when they hold the same function names, the functions of each name are
/// structurally equal (each compared on its own), and the module attributes are equal.
bool structural_equal(const IRModule& a, const IRModule& b);

/// As structural_equal, reporting the first difference.
StructuralEqualResult structural_compare(const Ref<Object>& a, const Ref<Object>& b,
                                         bool map_free_vars = true);
StructuralEqualResult structural_compare(const IRModule& a, const IRModule& b);

/// The first difference as text (StructuralEqualResult::to_string), or nullopt when equal.
std::optional<std::string> structural_diff(const Ref<Object>& a, const Ref<Object>& b,
                                           bool map_free_vars = true);
std::optional<std::string> structural_diff(const IRModule& a, const IRModule& b);

/// Throws relax::Error ("structurally different at <path>: <lhs> vs <rhs> ...") unless equal.
void assert_structural_equal(const Ref<Object>& a, const Ref<Object>& b, bool map_free_vars = true);
void assert_structural_equal(const IRModule& a, const IRModule& b);

/// A hash consistent with structural_equal(a, b, map_free_vars). Null hashes to a constant.
size_t structural_hash(const Ref<Object>& obj, bool map_free_vars = true);
/// Independent of function order; consistent with structural_equal on modules.
size_t structural_hash(const IRModule& mod);

/// Function objects for hash maps keyed by structure within one scope (e.g. common-subexpression
/// elimination). Free variables are not mapped: `add(x, y)` must not equal `add(y, x)` there.
struct StructuralHash {
  size_t operator()(const Ref<Object>& obj) const {
    return structural_hash(obj, /*map_free_vars=*/false);
  }
};
struct StructuralEqual {
  bool operator()(const Ref<Object>& a, const Ref<Object>& b) const {
    return structural_equal(a, b, /*map_free_vars=*/false);
  }
};

}  // namespace relax
