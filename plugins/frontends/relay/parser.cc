// The Relay text parser: tokens (lexer.cc) to the syntax tree of relay_ast.h.
//
// Grammar (format 0.0.5, as TVM's astext() prints it and tvm.relay.fromtext reads it):
//   program := ('#[version = "0.0.5"]')? (def | expr)* ('#[metadata]' json)?
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
#include <cstdlib>

#include "lexer.h"
#include "relax/support/diagnostic.h"
#include "relax/support/dtype.h"

namespace relax::relay_frontend {

namespace {

using TK = Token::Kind;

class Parser {
 public:
  Parser(const Source& src, std::vector<Token> toks) : src_(src), toks_(std::move(toks)) {}

  Program run() {
    Program prog;
    if (is_punct("#[")) version();
    NodeP bare;
    std::optional<AdtUse> bare_adt;
    while (peek().kind != TK::kEnd) {
      const Token& t = peek();
      if (t.kind == TK::kMetadata) {
        prog.has_metadata = true;
        prog.metadata_loc = t.loc;
        prog.constants = decode_metadata(src_, t.offset, t.loc);
        next();
        continue;
      }
      if (is_ident("def")) {
        prog.defs.push_back(def());
        continue;
      }
      if (is_ident("type")) {
        prog.adt_types.push_back(type_def());
        continue;
      }
      if (is_ident("extern")) {
        next();
        if (!is_ident("type")) expected("'type' after 'extern'");
        prog.adt_types.push_back(type_def());
        continue;
      }
      if (bare) src_.error(t.loc, "a program holds one bare expression; found another one here");
      adt_.reset();
      bare = seq();
      bare_adt = adt_;
    }
    if (bare) {
      for (const auto& d : prog.defs) {
        if (d.name == "main") src_.error(bare->loc, "the program has both def @main and a bare expression");
      }
      NodeP fn = bare;
      if (bare->kind != Node::Kind::kFunc) {
        auto f = std::make_shared<Node>(Node::Kind::kFunc, bare->loc);
        f->a = bare;
        fn = f;
      }
      prog.defs.push_back({"main", fn, bare->loc, bare_adt});
    }
    if (prog.defs.empty()) src_.error(peek().loc, "the program defines no function (expected 'def @main(...)' or 'fn (...) { ... }')");
    return prog;
  }

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
  /// Records the first ADT feature of the def being parsed.
  void adt_use(Loc loc, const std::string& what) {
    if (!adt_) adt_ = AdtUse{loc, what};
  }

  /// 'type' Name ('[' params ']')? ('{' Ctor ('(' types ')')?, ... '}' | '=' type); also
  /// after 'extern': 'type' Name. Returns the name.
  std::string type_def() {
    next();
    if (peek().kind != TK::kIdent) expected("a type name");
    std::string name = next().text;
    if (is_punct("[")) type_params();
    if (is_punct("=")) {
      next();
      type();
    } else if (is_punct("{")) {
      next();
      while (!is_punct("}")) {
        if (peek().kind != TK::kIdent) expected("a constructor name");
        next();
        if (is_punct("(")) {
          next();
          while (!is_punct(")")) {
            type();
            if (!is_punct(",")) break;
            next();
          }
          expect(")");
        }
        if (!is_punct(",")) break;
        next();
      }
      expect("}");
    }
    return name;
  }

  /// '[' A, B ']' (type parameters): an ADT feature.
  void type_params() {
    adt_use(peek().loc, "type parameters (a polymorphic function)");
    next();
    while (!is_punct("]")) {
      if (peek().kind != TK::kIdent) expected("a type parameter");
      next();
      if (is_punct(":")) {  // a kind annotation
        next();
        next();
      }
      if (!is_punct(",")) break;
      next();
    }
    expect("]");
  }

  // match (e) { pattern => expr, ... }; a placeholder node (the def is not converted).
  NodeP match_expr() {
    Loc loc = peek().loc;
    adt_use(loc, "match expression");
    next();
    if (is_punct("?")) next();
    expect("(");
    expr();
    expect(")");
    expect("{");
    while (!is_punct("}")) {
      pattern();
      expect("=");
      expect(">");
      expr();
      if (!is_punct(",")) break;
      next();
    }
    expect("}");
    return make(Node::Kind::kTuple, loc);
  }

  void pattern() {
    if (peek().kind == TK::kLocal) {
      next();
      if (is_punct(":")) {
        next();
        type();
      }
      return;
    }
    if (is_punct("(")) {
      next();
      while (!is_punct(")")) {
        pattern();
        if (!is_punct(",")) break;
        next();
      }
      expect(")");
      return;
    }
    if (peek().kind != TK::kIdent) expected("a pattern ('_', '%x', a constructor or a tuple)");
    next();
    if (is_punct("(")) {
      next();
      while (!is_punct(")")) {
        pattern();
        if (!is_punct(",")) break;
        next();
      }
      expect(")");
    }
  }

  void version() {
    Loc loc = peek().loc;
    next();
    if (!is_ident("version")) expected("'version' in the header '#[version = \"0.0.5\"]'");
    next();
    expect("=");
    if (peek().kind != TK::kString) expected("a version string");
    std::string v = next().text;
    if (v != "0.0.5") src_.error(loc, "Relay text format version \"" + v + "\" is not supported (expected \"0.0.5\")");
    expect("]");
  }

  // ---- Definitions and functions.
  GlobalDef def() {
    Loc loc = next().loc;
    if (peek().kind != TK::kGlobal) expected("a global name '@name' after 'def'");
    std::string name = next().text;
    adt_.reset();
    NodeP fn = function_rest(loc);
    return {name, fn, loc, adt_};
  }

  // After 'fn' or 'def @name': type params?, '(' params ')', ('->' type)?, '{' seq '}'.
  NodeP function_rest(Loc loc) {
    auto f = std::make_shared<Node>(Node::Kind::kFunc, loc);
    if (is_punct("[")) type_params();
    expect("(");
    while (!is_punct(")")) {
      if (peek().kind == TK::kLocal) {
        Param p{next().text, nullptr, peek(0).loc};
        p.loc = toks_[pos_ - 1].loc;
        if (is_punct(":")) {
          next();
          p.type = type();
        }
        f->params.push_back(std::move(p));
      } else if (peek().kind == TK::kIdent && is_punct("=", 1)) {
        std::string key = next().text;
        next();
        f->attrs.emplace_back(key, attr_value());
      } else {
        expected("a parameter '%name' or an attribute 'key=value'");
      }
      if (!is_punct(",")) break;
      next();
    }
    expect(")");
    if (is_punct("->")) {
      next();
      f->type = type();
    }
    expect("{");
    f->a = seq();
    expect("}");
    return f;
  }

  // ---- Types.
  TypeP type() {
    if (depth_ >= 1000) src_.error(peek().loc, "types nested more than 1000 levels deep");
    ++depth_;
    TypeP t = type_inner();
    --depth_;
    return t;
  }

  TypeP type_inner() {
    auto t = std::make_shared<Type>();
    t->loc = peek().loc;
    if (is_punct("(")) {
      next();
      t->kind = Type::Kind::kTuple;
      while (!is_punct(")")) {
        t->fields.push_back(type());
        if (!is_punct(",")) break;
        next();
      }
      expect(")");
      return t;
    }
    if (peek().kind != TK::kIdent) expected("a type");
    std::string name = next().text;
    if (name == "_") return t;
    if (name == "Tensor") {
      t->kind = Type::Kind::kTensor;
      expect("[");
      if (is_punct("(")) {
        next();
        while (!is_punct(")")) {
          Dim d;
          if (peek().kind == TK::kInt) d.value = std::strtoll(next().text.c_str(), nullptr, 10);
          else if (is_punct("?")) next();
          else if (peek().kind == TK::kIdent) d.name = next().text;
          else expected("a dimension (a number, '?' or a name)");
          t->dims.push_back(d);
          if (!is_punct(",")) break;
          next();
        }
        expect(")");
      } else if (peek().kind == TK::kInt) {
        t->dims.push_back(Dim{std::strtoll(next().text.c_str(), nullptr, 10), ""});
      } else {
        expected("the shape '(d0, d1, ...)' of the tensor type");
      }
      expect(",");
      t->dtype = dtype_name();
      expect("]");
      return t;
    }
    if (name == "fn") {
      t->kind = Type::Kind::kFunc;
      if (is_punct("[")) type_params();
      expect("(");
      while (!is_punct(")")) {
        t->fields.push_back(type());
        if (!is_punct(",")) break;
        next();
      }
      expect(")");
      expect("->");
      t->ret = type();
      return t;
    }
    if (DataType::parse(name)) {
      t->kind = Type::Kind::kTensor;
      t->dtype = name;
      return t;
    }
    // An ADT type (List[A]) or a type variable (A).
    adt_use(t->loc, "type '" + name + "' (an ADT or a type variable)");
    if (is_punct("[")) {
      next();
      while (!is_punct("]")) {
        type();
        if (!is_punct(",")) break;
        next();
      }
      expect("]");
    }
    return t;
  }

  std::string dtype_name() {
    if (peek().kind != TK::kIdent) expected("a dtype (float32, int64, bool, ...)");
    Loc loc = peek().loc;
    std::string name = next().text;
    if (!DataType::parse(name)) src_.error(loc, "unknown dtype '" + name + "'");
    return name;
  }

  // ---- Attribute values.
  AttrValue attr_value() {
    AttrValue v;
    v.loc = peek().loc;
    bool neg = false;
    if (is_punct("-")) {
      next();
      neg = true;
    }
    const Token& t = peek();
    if (t.kind == TK::kInt) {
      v.kind = AttrValue::Kind::kInt;
      v.i = std::strtoll(next().text.c_str(), nullptr, 10) * (neg ? -1 : 1);
      v.f = double(v.i);
    } else if (t.kind == TK::kFloat) {
      v.kind = AttrValue::Kind::kFloat;
      v.f = std::strtod(next().text.c_str(), nullptr) * (neg ? -1 : 1);
    } else if (neg) {
      expected("a number after '-'");
    } else if (t.kind == TK::kString) {
      v.kind = AttrValue::Kind::kString;
      v.s = next().text;
    } else if (is_ident("True") || is_ident("False")) {
      v.kind = AttrValue::Kind::kBool;
      v.b = next().text == "True";
      v.i = v.b;
    } else if (is_ident("None")) {
      next();
    } else if (is_ident("meta")) {
      // An Expr-valued attribute printed as a meta reference (older ArangeAttrs): the call's
      // arguments carry the same values, so it reads as absent.
      meta();
    } else if (is_punct("[") || is_punct("(")) {
      std::string close = is_punct("[") ? "]" : ")";
      next();
      v.kind = AttrValue::Kind::kList;
      while (!is_punct(close.c_str())) {
        v.list.push_back(attr_value());
        if (!is_punct(",")) break;
        next();
      }
      expect(close.c_str());
    } else {
      expected("an attribute value (a number, string, boolean, None or list)");
    }
    return v;
  }

  // ---- Expressions.
  std::shared_ptr<Node> make(Node::Kind k, Loc loc) { return std::make_shared<Node>(k, loc); }

  // A let chain is as long as the program: built iteratively, the lets linked at the end.
  NodeP seq() {
    std::vector<std::shared_ptr<Node>> lets;
    NodeP tail;
    for (;;) {
      Loc loc = peek().loc;
      bool graph = peek().kind == TK::kLocal && is_punct("=", 1);
      if (is_ident("let") || graph) {
        auto let = make(Node::Kind::kLet, loc);
        if (!graph) next();
        if (peek().kind != TK::kLocal) expected("a variable '%name' after 'let'");
        let->name = next().text;
        if (is_punct(":")) {
          next();
          let->type = type();
        }
        expect("=");
        let->a = expr();
        expect(";");
        lets.push_back(let);
        continue;
      }
      NodeP e = expr();
      if (!is_punct(";")) {
        tail = e;
        break;
      }
      next();
      auto let = make(Node::Kind::kLet, loc);  // `e; rest`: e evaluated, its value unused
      let->a = e;
      lets.push_back(let);
    }
    for (size_t k = lets.size(); k-- > 0;) {
      lets[k]->b = tail;
      tail = lets[k];
    }
    return tail;
  }

  NodeP expr() {
    // Nesting (calls in calls, parentheses) recurses; a limit keeps the stack safe.
    constexpr int kMaxDepth = 1000;
    if (depth_ >= kMaxDepth) src_.error(peek().loc, "expressions nested more than " + std::to_string(kMaxDepth) + " levels deep");
    ++depth_;
    NodeP e = binary(0);
    --depth_;
    return e;
  }

  NodeP binary(int level) {
    static const std::vector<std::vector<std::pair<const char*, const char*>>> levels = {
        {{"==", "equal"}, {"!=", "not_equal"}, {"<", "less"}, {">", "greater"},
         {"<=", "less_equal"}, {">=", "greater_equal"}},
        {{"+", "add"}, {"-", "subtract"}},
        {{"*", "multiply"}, {"/", "divide"}}};
    if (level == int(levels.size())) return unary();
    NodeP lhs = binary(level + 1);
    for (;;) {
      const char* op = nullptr;
      for (const auto& [sym, name] : levels[size_t(level)]) {
        if (is_punct(sym)) op = name;
      }
      if (!op) return lhs;
      Loc loc = next().loc;
      auto call = make(Node::Kind::kCall, loc);
      auto callee = make(Node::Kind::kOp, loc);
      callee->name = op;
      call->a = callee;
      call->args = {lhs, binary(level + 1)};
      lhs = call;
    }
  }

  NodeP unary() {
    if (!is_punct("-")) return postfix();
    Loc loc = next().loc;
    if (peek().kind == TK::kInt || peek().kind == TK::kFloat) {
      auto lit = std::const_pointer_cast<Node>(literal());
      lit->number = -lit->number;
      lit->loc = loc;
      return postfix_ops(lit);
    }
    auto call = make(Node::Kind::kCall, loc);
    auto callee = make(Node::Kind::kOp, loc);
    callee->name = "negative";
    call->a = callee;
    call->args = {unary()};
    return call;
  }

  NodeP postfix() { return postfix_ops(primary()); }

  NodeP postfix_ops(NodeP e) {
    for (;;) {
      if (is_punct("(")) {
        auto call = make(Node::Kind::kCall, e->loc);
        call->a = e;
        next();
        while (!is_punct(")")) {
          if (peek().kind == TK::kIdent && is_punct("=", 1)) {
            std::string key = next().text;
            next();
            call->attrs.emplace_back(key, attr_value());
          } else {
            if (!call->attrs.empty()) src_.error(peek().loc, "a positional argument after keyword attributes");
            call->args.push_back(expr());
          }
          if (!is_punct(",")) break;
          next();
        }
        expect(")");
        e = call;
      } else if (is_punct(".")) {
        next();
        // "%t.0.1" lexes its tail as the float "0.1": two projections.
        std::vector<std::string> parts;
        if (peek().kind == TK::kInt && peek().suffix.empty()) {
          parts.push_back(peek().text);
        } else if (peek().kind == TK::kFloat && peek().suffix.empty() &&
                   peek().text.find_first_not_of("0123456789.") == std::string::npos) {
          std::string s = peek().text;
          parts = {s.substr(0, s.find('.')), s.substr(s.find('.') + 1)};
        } else {
          expected("a field index after '.'");
        }
        Loc loc = next().loc;
        for (const auto& p : parts) {
          auto proj = make(Node::Kind::kProj, loc);
          proj->a = e;
          proj->index = std::strtoll(p.c_str(), nullptr, 10);
          e = proj;
        }
      } else {
        return e;
      }
    }
  }

  NodeP literal() {
    const Token& t = next();
    auto lit = make(Node::Kind::kLiteral, t.loc);
    lit->number = std::strtod(t.text.c_str(), nullptr);
    const std::string& s = t.suffix;
    if (t.kind == TK::kFloat) {
      lit->dtype = s.size() <= 1 ? "float32" : "float" + s.substr(1);
    } else if (s.empty()) {
      lit->dtype = "int32";
    } else if (s == "b") {
      lit->dtype = "bool";
    } else {
      lit->dtype = (s[0] == 'i' ? "int" : "uint") + (s.size() > 1 ? s.substr(1) : std::string("32"));
    }
    if (!DataType::parse(lit->dtype)) src_.error(t.loc, "unknown literal suffix '" + s + "'");
    return lit;
  }

  NodeP primary() {
    const Token& t = peek();
    Loc loc = t.loc;
    switch (t.kind) {
      case TK::kLocal: {
        auto v = make(Node::Kind::kVar, loc);
        v->name = next().text;
        return v;
      }
      case TK::kGlobal: {
        auto v = make(Node::Kind::kGlobal, loc);
        v->name = next().text;
        return v;
      }
      case TK::kInt:
      case TK::kFloat: return literal();
      case TK::kPunct:
        if (t.text == "(") {
          next();
          std::vector<NodeP> fields;
          bool comma = false;
          while (!is_punct(")")) {
            fields.push_back(expr());
            if (!is_punct(",")) break;
            comma = true;
            next();
          }
          expect(")");
          if (fields.size() == 1 && !comma) return fields[0];
          auto tup = make(Node::Kind::kTuple, loc);
          tup->args = std::move(fields);
          return tup;
        }
        if (t.text == "{") {
          next();
          NodeP e = seq();
          expect("}");
          return e;
        }
        break;
      case TK::kIdent: {
        const std::string& w = t.text;
        if (w == "fn") {
          next();
          return function_rest(loc);
        }
        if (w == "let") return seq();
        if (w == "if") return if_expr();
        if (w == "meta") return meta();
        if (w == "True" || w == "False") {
          auto lit = make(Node::Kind::kLiteral, loc);
          lit->number = next().text == "True";
          lit->dtype = "bool";
          return lit;
        }
        if (w == "match") return match_expr();
        if (w == "ref" || w == "ref_read" || w == "ref_write") {
          src_.error(loc, "not supported: references ('" + w + "')");
        }
        if (std::isupper(static_cast<unsigned char>(w[0]))) adt_use(loc, "constructor '" + w + "'");
        auto op = make(Node::Kind::kOp, loc);
        op->name = next().text;
        return op;
      }
      default: break;
    }
    expected("an expression");
  }

  NodeP if_expr() {
    auto n = make(Node::Kind::kIf, next().loc);
    expect("(");
    n->a = expr();
    expect(")");
    expect("{");
    n->b = seq();
    expect("}");
    if (!is_ident("else")) expected("'else'");
    next();
    if (is_ident("if")) {
      n->c = if_expr();
      return n;
    }
    expect("{");
    n->c = seq();
    expect("}");
    return n;
  }

  NodeP meta() {
    auto n = make(Node::Kind::kMeta, next().loc);
    expect("[");
    if (peek().kind != TK::kIdent) expected("a metadata kind such as 'relay.Constant'");
    n->name = next().text;
    expect("]");
    expect("[");
    if (peek().kind != TK::kInt) expected("a metadata index");
    n->index = std::strtoll(next().text.c_str(), nullptr, 10);
    expect("]");
    if (n->name != "relay.Constant") {
      src_.error(n->loc, "not supported: meta[" + n->name + "] (only meta[relay.Constant][N] references are)");
    }
    return n;
  }

  const Source& src_;
  std::vector<Token> toks_;
  size_t pos_ = 0;
  int depth_ = 0;
  std::optional<AdtUse> adt_;  ///< the first ADT feature of the def being parsed
};

}  // namespace

std::string type_string(const Type& t) {
  switch (t.kind) {
    case Type::Kind::kIncomplete: return "_";
    case Type::Kind::kTensor: {
      std::string s = "Tensor[(";
      for (size_t k = 0; k < t.dims.size(); ++k) {
        const Dim& d = t.dims[k];
        s += (k ? ", " : "") + (d.any() ? std::string("?") : d.name.empty() ? std::to_string(d.value) : d.name);
      }
      return s + "), " + t.dtype + "]";
    }
    case Type::Kind::kTuple: {
      std::string s = "(";
      for (size_t k = 0; k < t.fields.size(); ++k) s += (k ? ", " : "") + type_string(*t.fields[k]);
      return s + (t.fields.size() == 1 ? ",)" : ")");
    }
    case Type::Kind::kFunc: {
      std::string s = "fn (";
      for (size_t k = 0; k < t.fields.size(); ++k) s += (k ? ", " : "") + type_string(*t.fields[k]);
      return s + ") -> " + (t.ret ? type_string(*t.ret) : "_");
    }
  }
  return "?";
}

Program parse_program(const Source& src) { return Parser(src, tokenize(src)).run(); }

}  // namespace relax::relay_frontend
