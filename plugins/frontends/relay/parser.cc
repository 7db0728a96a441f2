// The Relay text parser, part 1: programs, defs and expressions (parser.h has the grammar).
#include <cstdlib>

#include "parser.h"
#include "relax/support/diagnostic.h"
#include "relax/support/dtype.h"

namespace relax::relay_frontend {

Program Parser::run() {
  Program prog;
  if (is_punct("#[")) version();
  NodeP bare;
  std::optional<AdtUse> bare_adt;
  std::vector<Param> free_vars;
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
    if (is_ident("free_var")) {  // a free variable of the bare expression: a parameter of main
      next();
      if (peek().kind != TK::kLocal) expected("a variable '%name' after 'free_var'");
      Param p{peek().text, nullptr, peek().loc};
      next();
      p.type = var_annotation();
      expect(";");
      free_vars.push_back(std::move(p));
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
    if (bare->kind != Node::Kind::kFunc || !free_vars.empty()) {
      if (bare->kind == Node::Kind::kFunc) src_.error(bare->loc, "free_var declarations before a bare fn (expected an expression)");
      auto f = std::make_shared<Node>(Node::Kind::kFunc, bare->loc);
      f->a = bare;
      f->params = std::move(free_vars);
      fn = f;
    }
    prog.defs.push_back({"main", fn, bare->loc, bare_adt});
  }
  if (prog.defs.empty()) src_.error(peek().loc, "the program defines no function (expected 'def @main(...)' or 'fn (...) { ... }')");
  return prog;
}

void Parser::version() {
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

GlobalDef Parser::def() {
  Loc loc = next().loc;
  if (peek().kind != TK::kGlobal) expected("a global name '@name' after 'def'");
  std::string name = next().text;
  adt_.reset();
  NodeP fn = function_rest(loc);
  return {name, fn, loc, adt_};
}

// After 'fn' or 'def @name': type params?, '(' params ')', ('->' type)?, '{' seq '}'.
NodeP Parser::function_rest(Loc loc) {
  auto f = std::make_shared<Node>(Node::Kind::kFunc, loc);
  if (is_punct("[")) type_params();
  expect("(");
  while (!is_punct(")")) {
    if (peek().kind == TK::kLocal) {
      Param p{peek().text, nullptr, peek().loc};
      next();
      p.type = var_annotation();
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

// A let chain is as long as the program: built iteratively, the lets linked at the end.
NodeP Parser::seq() {
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
      let->type = var_annotation();
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

NodeP Parser::expr() {
  // Nesting (calls in calls, parentheses) recurses; a limit keeps the stack safe.
  constexpr int kMaxDepth = 1000;
  if (depth_ >= kMaxDepth) src_.error(peek().loc, "expressions nested more than " + std::to_string(kMaxDepth) + " levels deep");
  ++depth_;
  NodeP e = binary(0);
  --depth_;
  return e;
}

NodeP Parser::binary(int level) {
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

NodeP Parser::unary() {
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

NodeP Parser::postfix_ops(NodeP e) {
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

NodeP Parser::literal() {
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

NodeP Parser::primary() {
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

NodeP Parser::if_expr() {
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

NodeP Parser::meta() {
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

Program parse_program(const Source& src) { return Parser(src, tokenize(src)).run(); }

}  // namespace relax::relay_frontend
