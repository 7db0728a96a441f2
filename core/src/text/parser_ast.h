// The syntax layer of the Relax script parser: tokens (with Python's INDENT/DEDENT), a small
// Python-subset syntax tree, and the source context that turns a position into a diagnostic
// with a caret line. The IR builders (parser_relax.cc, parser_tir.cc) read this tree; they
// never see raw text. Internal to core/src/ir.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "relax/support/diagnostic.h"

namespace relax::text {

/// A 1-based line and column.
struct Pos {
  int line = 0;
  int col = 0;
};

/// The text being parsed; builds errors that point into it.
class SourceContext {
 public:
  SourceContext(std::string_view text, std::string file);
  /// Throws relax::Error: "file:line:col: error: message" plus the source line and a caret.
  [[noreturn]] void error(Pos pos, const std::string& message) const;
  const std::string& file() const { return file_; }

 private:
  std::string_view text_;
  std::string file_;
  std::vector<size_t> line_starts_;
};

enum class TokKind { kName, kInt, kFloat, kString, kOp, kNewline, kIndent, kDedent, kEnd };

struct Token {
  TokKind kind;
  std::string text;  ///< name, operator, or decoded string value
  Pos pos;
  int64_t ival = 0;
  double fval = 0;
};

/// Splits `ctx`'s text into tokens; throws relax::Error on bad characters, unterminated
/// strings, unbalanced brackets and inconsistent indentation.
std::vector<Token> tokenize(std::string_view text, const SourceContext& ctx);

// ---- Syntax tree.

enum class NK {
  kName,
  kInt,
  kFloat,
  kStr,
  kTrue,
  kFalse,
  kNone,
  kAttr,       ///< a.str
  kCall,       ///< a(items..., kwargs...)
  kTuple,      ///< (items...)
  kList,       ///< [items...]
  kDict,       ///< {items[0]: items[1], ...}
  kSubscript,  ///< a[items...]
  kSlice,      ///< a:b inside a subscript (either may be null)
  kBinOp,      ///< a str b   ("+", "-", "*", "/", "//", "%", "**", "==", ..., "and", "or")
  kUnary,      ///< str a     ("-", "+", "not")
};

struct Node;
using NodeP = std::shared_ptr<const Node>;

struct Node {
  NK kind;
  Pos pos;
  std::string str;
  int64_t ival = 0;
  double fval = 0;
  NodeP a, b;
  std::vector<NodeP> items;
  std::vector<std::pair<std::string, NodeP>> kwargs;
};

/// "R.nn.relu" for a chain of names and attributes; empty for anything else.
std::string dotted_name(const NodeP& n);

enum class SK {
  kExpr,
  kAssign,
  kAugAssign,
  kReturn,
  kIf,
  kFor,
  kWith,
  kFuncDef,
  kClassDef,
  kPass,
  kAssert
};

struct Stmt;
using StmtP = std::shared_ptr<const Stmt>;

struct Param {
  std::string name;
  Pos pos;
  NodeP annotation;  ///< may be null
};

struct Stmt {
  SK kind;
  Pos pos;
  NodeP target;      ///< assign / aug-assign / for / with-as target (may be null)
  NodeP annotation;  ///< `x: ann = value`
  NodeP value;     ///< assigned value, expression, return value, if/assert condition, for iterable,
                   ///< with item
  NodeP msg;       ///< assert message
  std::string op;  ///< aug-assign operator ("+")
  std::vector<StmtP> body, orelse;
  // def / class
  std::string name;
  std::vector<NodeP> decorators;
  std::vector<Param> params;
  NodeP ret;
};

/// Parses a whole file into statements; throws relax::Error with the position on any syntax error.
std::vector<StmtP> parse_syntax(const std::vector<Token>& tokens, const SourceContext& ctx);

}  // namespace relax::text
