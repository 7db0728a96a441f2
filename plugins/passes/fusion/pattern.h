// Dataflow patterns over high-level Relax (TVM's relax.dpl, MLIR's PDL/DRR in miniature), used
// by fuse-ops-by-pattern to find the subgraphs a library or vendor backend claims.
//
// A Pattern describes an expression tree:
//   wildcard("x")              any expression, remembered as "x" (a second use of the same
//                              name must match the same expression)
//   is_var() / is_const()      a variable / a constant tensor
//   is_op("relax.nn.conv2d")   an op; called with argument patterns it matches a call of the op:
//                              is_op("relax.nn.conv2d")(x, w). `*` in the name is a glob
//                              ("relax.nn.*").
//   p | q                      p, else q (alternatives, tried in order)
//   p >> is_op("relax.add")    p as the first argument of the op, the others wildcards
//   p.has_attr("strides", AttrValue(std::vector<int64_t>{1, 1}))   a call attribute (the op's
//                              default counts when the call omits it)
//   p.has_dtype(...), p.has_rank(n), p.has_shape({1, -1, 8, 8})    struct-info predicates
//   p.where(fn, "why")         any other predicate on the matched expression
// Calls of relax.add, relax.multiply, relax.maximum and relax.minimum also match with their two
// arguments swapped.
//
// Matching follows variables: an argument that is a variable matches a call pattern when the
// `resolve` callback gives the value it is bound to (fuse-ops-by-pattern gives the bindings of
// the current dataflow block). The variables looked through are the match's intermediates; the
// expressions wildcards, vars and constants matched are its inputs.
//
// The text form of the same patterns (pattern_text.cc; docs/passes.md, "fuse-ops-by-pattern"):
//   pattern   := alt
//   alt       := postfix ('|' postfix)*
//   postfix   := primary ('{' attr (',' attr)* '}' | '[' info (',' info)* ']')*
//   primary   := '$' NAME [':' ('var' | 'const')] | '_' | 'var' | 'const'
//              | OPNAME '(' [alt (',' alt)*] ')' | '(' alt ')'
//   attr      := NAME '=' value           value: int, float, "string", true/false, [values]
//   info      := 'dtype' '=' DTYPE | 'ndim' '=' INT | 'shape' '=' '(' (INT | '_') ... ')'
// e.g. relax.nn.relu(relax.add(relax.nn.conv2d($x, $w){strides=[1, 1]}, $b:const)).
// A pattern set (the pass option) is `NAME = PATTERN` entries separated by ';' or newlines.
//
// Decision: this header is internal to the fusion plugin. Plugins are MODULE libraries with
// hidden symbols, so another plugin could not link it; when a second client (a backend plugin
// claiming composites) appears, pattern.h/.cc move to core (relax/ir/pattern.h) unchanged — they
// use only the IR headers.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "relax/ir/expr.h"

namespace relax::fusion {

struct PatternNode;

/// A pattern: an immutable tree of PatternNodes, shared.
class Pattern {
 public:
  Pattern() = default;
  explicit Pattern(std::shared_ptr<const PatternNode> node) : node_(std::move(node)) {}

  /// A call of this op pattern with these argument patterns.
  template <class... Args>
  Pattern operator()(const Args&... args) const {
    return call(std::vector<Pattern>{Pattern(args)...});
  }
  Pattern call(std::vector<Pattern> args) const;

  /// The call's attribute `name` equals `value` (this must be a call pattern).
  Pattern has_attr(const std::string& name, AttrValue value) const;
  Pattern has_dtype(DataType dtype) const;
  Pattern has_rank(int ndim) const;
  /// Every dimension is the given constant; -1 matches any dimension.
  Pattern has_shape(std::vector<int64_t> shape) const;
  Pattern where(std::function<bool(const Expr&)> pred, std::string description) const;

  const PatternNode* get() const { return node_.get(); }
  const PatternNode* operator->() const { return node_.get(); }
  bool defined() const { return node_ != nullptr; }

 private:
  std::shared_ptr<const PatternNode> node_;
};

/// A predicate on the matched expression.
struct PatternPredicate {
  enum class Kind { kAttr, kDType, kRank, kShape, kCustom } kind;
  std::string name;                     ///< the attribute (kAttr) or the description (kCustom)
  AttrValue value;                      ///< kAttr
  DataType dtype;                       ///< kDType
  int ndim = -1;                        ///< kRank
  std::vector<int64_t> shape;           ///< kShape, -1 for any dimension
  std::function<bool(const Expr&)> fn;  ///< kCustom
};

struct PatternNode {
  enum class Kind { kWildcard, kVar, kConst, kOp, kCall, kOr } kind;
  std::string name;  ///< kWildcard/kVar/kConst: the binding name (may be empty); kOp: the op name
  std::vector<Pattern> args;  ///< kCall: op pattern then arguments; kOr: the alternatives
  std::vector<PatternPredicate> predicates;
};

Pattern wildcard(std::string name = {});
Pattern is_var(std::string name = {});
Pattern is_const(std::string name = {});
/// An op (or a glob of op names with `*`); call it with argument patterns.
Pattern is_op(std::string name);
/// `a`, else `b`.
Pattern operator|(const Pattern& a, const Pattern& b);
/// `op` (an uncalled is_op pattern) called with `producer` first and wildcards for the rest of
/// its declared arguments.
Pattern operator>>(const Pattern& producer, const Pattern& op);

/// The text form (see the file comment); parses back to the same pattern.
std::string to_string(const Pattern& p);

/// The result of a successful match.
struct PatternMatch {
  /// Named wildcards, vars and constants.
  std::map<std::string, Expr> named;
  /// The variables looked through to their bound calls, in the order matched (root first when
  /// the root was given as a variable).
  std::vector<Ref<VarNode>> intermediates;
  /// Every expression a wildcard, var or const pattern matched, in match order (no duplicates).
  std::vector<Expr> inputs;
};

/// The value a variable is bound to, or null when it must not be looked through.
using VarResolver = std::function<Expr(const VarNode*)>;

/// Matches `pattern` against `expr`; std::nullopt when it does not match.
std::optional<PatternMatch> match(const Pattern& pattern, const Expr& expr,
                                  const VarResolver& resolve = {});

/// One named pattern of a pattern set.
struct NamedPattern {
  std::string name;
  Pattern pattern;
};

/// Parses one pattern; errors (relax::Error) say "pattern '<name>', column C: expected X,
/// got Y" with the text and a caret. Op names must be registered (globs excepted) and attribute
/// names declared by the op.
Pattern parse_pattern(const std::string& text, const std::string& name = "<pattern>");
/// Parses `NAME = PATTERN` entries separated by ';' or newlines (blank entries and `#`
/// comments skipped); names must be unique.
std::vector<NamedPattern> parse_pattern_set(const std::string& text);

}  // namespace relax::fusion
