// The Relay text parser (parser.cc: programs, defs, expressions; parser_types.cc: types,
// attribute values and the ADT syntax): tokens (lexer.cc) to the syntax tree of relay_ast.h.
//
// Grammar (format 0.0.5, as TVM's astext() prints it and tvm.relay.fromtext reads it):
//   program := ('#[version = "0.0.5"]')? (def | type def | 'free_var' %x: T ';' | expr)*
//              ('#[metadata]' json)?
//   def     := 'def' @name '(' params ')' ('->' type)? '{' seq '}'
//   seq     := 'let' %x (':' type)? '=' expr ';' seq  |  %x '=' expr ';' seq  |  expr (';' seq)?
//   expr    := comparisons over + - over * / over unary '-' over postfix
//   postfix := primary ('(' args ')' | '.' INT)*
//   primary := %x | @f | op.name | literal | meta[relay.Constant][N] | '(' tuple ')' |
//              fn | if | let | '{' seq '}'
// ADTs are parsed (type definitions, `extern type`, type parameters `fn [A]`, ADT types
// `List[A]`, constructors, `match`/`match?` with their patterns) but not converted: the
// first ADT feature of each def is recorded (GlobalDef::adt) and the converter refuses a
// program only when one such def is used — so the prelude that TVM's frontends put in every
// module (List, Option, Tree, @map, ...) does not stop a model that never calls it.
// References (`ref`, `ref_read`, `ref_write`) are refused with one error naming the line.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lexer.h"

namespace relax::relay_frontend {

/// Recursive descent over the token stream; errors are relax::Errors placed by the Source.
class Parser {
 public:
  using TK = Token::Kind;
  Parser(const Source& src, std::vector<Token> toks) : src_(src), toks_(std::move(toks)) {}

  Program run();

 private:
  // ---- Tokens.
  const Token& peek(size_t k = 0) const { return toks_[std::min(pos_ + k, toks_.size() - 1)]; }
  const Token& next() {
    const Token& t = toks_[pos_];
    if (pos_ + 1 < toks_.size()) ++pos_;
    return t;
  }
  bool is_punct(const char* p, size_t k = 0) const { return peek(k).kind == TK::kPunct && peek(k).text == p; }
  bool is_ident(const char* p, size_t k = 0) const { return peek(k).kind == TK::kIdent && peek(k).text == p; }
  static std::string describe(const Token& t) {
    switch (t.kind) {
      case TK::kEnd: return "the end of the text";
      case TK::kMetadata: return "'#[metadata]'";
      case TK::kLocal: return "'%" + t.text + "'";
      case TK::kGlobal: return "'@" + t.text + "'";
      case TK::kString: return "\"" + t.text + "\"";
      default: return "'" + t.text + t.suffix + "'";
    }
  }
  [[noreturn]] void expected(const std::string& what) const {
    src_.error(peek().loc, "expected " + what + ", found " + describe(peek()));
  }
  void expect(const char* p) {
    if (!is_punct(p)) expected(std::string("'") + p + "'");
    next();
  }
  /// Skips a balanced { ... } group.
  void skip_braces();

  /// After a variable: its `{virtual_device=...}` annotation (ignored) and `: type` (returned).
  TypeP var_annotation();

  /// Records the first ADT feature of the def being parsed.
  void adt_use(Loc loc, const std::string& what);

  /// 'type' Name ('[' params ']')? ('{' Ctor ('(' types ')')?, ... '}' | '=' type); also
  /// after 'extern': 'type' Name. Returns the name.
  std::string type_def();

  /// '[' A, B ']' (type parameters): an ADT feature.
  void type_params();

  // match (e) { pattern => expr, ... }; a placeholder node (the def is not converted).
  NodeP match_expr();

  void pattern();

  void version();

  // ---- Definitions and functions.
  GlobalDef def();

  // After 'fn' or 'def @name': type params?, '(' params ')', ('->' type)?, '{' seq '}'.
  NodeP function_rest(Loc loc);

  // ---- Types.
  TypeP type();

  TypeP type_inner();

  std::string dtype_name();

  // ---- Attribute values.
  AttrValue attr_value();

  // ---- Expressions.
  std::shared_ptr<Node> make(Node::Kind k, Loc loc) { return std::make_shared<Node>(k, loc); }

  // A let chain is as long as the program: built iteratively, the lets linked at the end.
  NodeP seq();

  NodeP expr();

  NodeP binary(int level);

  NodeP unary();

  NodeP postfix() { return postfix_ops(primary()); }

  NodeP postfix_ops(NodeP e);

  NodeP literal();

  NodeP primary();

  NodeP if_expr();

  NodeP meta();

  const Source& src_;
  std::vector<Token> toks_;
  size_t pos_ = 0;
  int depth_ = 0;
  std::optional<AdtUse> adt_;  ///< the first ADT feature of the def being parsed
};

}  // namespace relax::relay_frontend
