// The Relay text parser, part 2: types, attribute values, and the ADT syntax (type
// definitions, type parameters, match and patterns), parsed so that unused ADT definitions
// can be skipped (parser.h).
#include <cstdlib>

#include "parser.h"
#include "relax/support/diagnostic.h"
#include "relax/support/dtype.h"

namespace relax::relay_frontend {

/// Skips a balanced { ... } group.
void Parser::skip_braces() {
  Loc loc = peek().loc;
  int depth = 0;
  do {
    if (peek().kind == TK::kEnd || peek().kind == TK::kMetadata) src_.error(loc, "unbalanced '{'");
    if (is_punct("{")) ++depth;
    if (is_punct("}")) --depth;
    next();
  } while (depth > 0);
}

/// After a variable: its `{virtual_device=...}` annotation (ignored) and `: type` (returned).
TypeP Parser::var_annotation() {
  if (is_punct("{")) skip_braces();
  if (!is_punct(":")) return nullptr;
  next();
  return type();
}

/// Records the first ADT feature of the def being parsed.
void Parser::adt_use(Loc loc, const std::string& what) {
  if (!adt_) adt_ = AdtUse{loc, what};
}

/// 'type' Name ('[' params ']')? ('{' Ctor ('(' types ')')?, ... '}' | '=' type); also
/// after 'extern': 'type' Name. Returns the name.
std::string Parser::type_def() {
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
void Parser::type_params() {
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
NodeP Parser::match_expr() {
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

void Parser::pattern() {
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

TypeP Parser::type() {
  if (depth_ >= 1000) src_.error(peek().loc, "types nested more than 1000 levels deep");
  ++depth_;
  TypeP t = type_inner();
  --depth_;
  return t;
}

TypeP Parser::type_inner() {
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

std::string Parser::dtype_name() {
  if (peek().kind != TK::kIdent) expected("a dtype (float32, int64, bool, ...)");
  Loc loc = peek().loc;
  std::string name = next().text;
  if (!DataType::parse(name)) src_.error(loc, "unknown dtype '" + name + "'");
  return name;
}

AttrValue Parser::attr_value() {
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
    // An attribute printed as a meta reference (Expr-valued ArangeAttrs, a VirtualDevice):
    // the call's arguments carry the values that matter, so it reads as absent.
    next();
    for (int k = 0; k < 2; ++k) {
      expect("[");
      next();
      expect("]");
    }
  } else if (is_punct("{")) {  // a map or attrs printed as {key=value, ...}
    skip_braces();
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

}  // namespace relax::relay_frontend
