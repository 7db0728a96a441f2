// Recursive-descent parser from tokens to the Python-subset syntax tree (parser_ast.h):
// decorators, def/class, if/elif/else, for, with, return, assert, pass, assignments with
// annotations, augmented assignments, and Python's expression grammar without lambdas and
// comprehensions. `import` lines are skipped so TVM scripts can be pasted as they are.
#include "parser_ast.h"

namespace relax::text {

namespace {

constexpr int kMaxDepth = 150;

class SyntaxParser {
 public:
  SyntaxParser(const std::vector<Token>& toks, const SourceContext& ctx) : t_(toks), ctx_(ctx) {}

  std::vector<StmtP> file() {
    std::vector<StmtP> out;
    while (!at(TokKind::kEnd)) {
      if (accept(TokKind::kNewline)) continue;
      if (at(TokKind::kIndent)) ctx_.error(peek().pos, "unexpected indentation");
      if (at(TokKind::kDedent)) {
        ++i_;
        continue;
      }
      if (auto s = statement()) out.push_back(s);
    }
    return out;
  }

 private:
  const Token& peek(size_t k = 0) const { return t_[std::min(i_ + k, t_.size() - 1)]; }
  bool at(TokKind k) const { return peek().kind == k; }
  bool at_op(std::string_view op) const { return peek().kind == TokKind::kOp && peek().text == op; }
  bool at_kw(std::string_view kw) const {
    return peek().kind == TokKind::kName && peek().text == kw;
  }
  bool accept(TokKind k) {
    if (!at(k)) return false;
    ++i_;
    return true;
  }
  bool accept_op(std::string_view op) {
    if (!at_op(op)) return false;
    ++i_;
    return true;
  }
  bool accept_kw(std::string_view kw) {
    if (!at_kw(kw)) return false;
    ++i_;
    return true;
  }
  static std::string describe(const Token& t) {
    switch (t.kind) {
      case TokKind::kName:
        return "'" + t.text + "'";
      case TokKind::kInt:
      case TokKind::kFloat:
        return "number '" + t.text + "'";
      case TokKind::kString:
        return "a string";
      case TokKind::kOp:
        return "'" + t.text + "'";
      case TokKind::kNewline:
        return "end of line";
      case TokKind::kIndent:
        return "an indented block";
      case TokKind::kDedent:
        return "the end of the block";
      case TokKind::kEnd:
        return "end of input";
    }
    return "a token";
  }
  [[noreturn]] void expected(const std::string& what) {
    ctx_.error(peek().pos, "expected " + what + ", got " + describe(peek()));
  }
  void expect_op(std::string_view op) {
    if (!accept_op(op)) expected("'" + std::string(op) + "'");
  }
  std::string expect_name(const std::string& what) {
    if (!at(TokKind::kName) || is_keyword(peek().text)) expected(what);
    return t_[i_++].text;
  }
  void expect_newline() {
    if (accept(TokKind::kNewline) || at(TokKind::kEnd) || at(TokKind::kDedent)) return;
    expected("end of line");
  }
  static bool is_keyword(std::string_view s) {
    static const char* const kw[] = {"def",  "class",  "if",     "elif",   "else",   "for", "in",
                                     "with", "as",     "return", "pass",   "assert", "and", "or",
                                     "not",  "lambda", "while",  "import", "from"};
    for (const char* k : kw)
      if (s == k) return true;
    return false;
  }

  struct DepthGuard {
    SyntaxParser* p;
    DepthGuard(SyntaxParser* p) : p(p) {
      if (++p->depth_ > kMaxDepth)
        p->ctx_.error(p->peek().pos, "expression or block is nested too deeply");
    }
    ~DepthGuard() { --p->depth_; }
  };

  std::shared_ptr<Node> mk(NK k, Pos p) {
    auto n = std::make_shared<Node>();
    n->kind = k;
    n->pos = p;
    return n;
  }

  // ---- Statements.

  std::shared_ptr<Stmt> mk_stmt(SK k, Pos p) {
    auto s = std::make_shared<Stmt>();
    s->kind = k;
    s->pos = p;
    return s;
  }

  std::vector<StmtP> suite() {
    DepthGuard g(this);
    std::vector<StmtP> body;
    if (!accept(TokKind::kNewline)) {
      // A simple statement on the same line: `if x: pass`.
      if (auto s = simple_statement()) body.push_back(s);
      return body;
    }
    if (!accept(TokKind::kIndent)) expected("an indented block");
    while (!accept(TokKind::kDedent)) {
      if (at(TokKind::kEnd)) break;
      if (accept(TokKind::kNewline)) continue;
      if (at(TokKind::kIndent)) ctx_.error(peek().pos, "unexpected indentation");
      if (auto s = statement()) body.push_back(s);
    }
    return body;
  }

  StmtP statement() {
    Pos p = peek().pos;
    if (at_op("@")) {
      std::vector<NodeP> decos;
      while (accept_op("@")) {
        decos.push_back(expr());
        expect_newline();
      }
      if (!at_kw("def") && !at_kw("class")) expected("'def' or 'class' after a decorator");
      auto s = std::const_pointer_cast<Stmt>(statement());
      s->decorators = std::move(decos);
      s->pos = p;
      return s;
    }
    if (accept_kw("def")) {
      auto s = mk_stmt(SK::kFuncDef, p);
      s->name = expect_name("a function name");
      expect_op("(");
      while (!accept_op(")")) {
        Param prm;
        prm.pos = peek().pos;
        prm.name = expect_name("a parameter name");
        if (accept_op(":")) prm.annotation = expr();
        if (accept_op("=")) ctx_.error(prm.pos, "parameter defaults are not supported");
        s->params.push_back(std::move(prm));
        if (!accept_op(",")) {
          expect_op(")");
          break;
        }
      }
      if (accept_op("->")) s->ret = expr();
      expect_op(":");
      s->body = suite();
      return s;
    }
    if (accept_kw("class")) {
      auto s = mk_stmt(SK::kClassDef, p);
      s->name = expect_name("a class name");
      if (accept_op("(")) {
        while (!accept_op(")")) {
          expr();
          if (!accept_op(",")) {
            expect_op(")");
            break;
          }
        }
      }
      expect_op(":");
      s->body = suite();
      return s;
    }
    if (accept_kw("if")) return if_rest(p);
    if (accept_kw("for")) {
      auto s = mk_stmt(SK::kFor, p);
      s->target = target_list();
      if (!accept_kw("in")) expected("'in'");
      s->value = expr();
      expect_op(":");
      s->body = suite();
      return s;
    }
    if (accept_kw("with")) {
      auto s = mk_stmt(SK::kWith, p);
      s->value = expr();
      if (accept_kw("as")) s->target = target_list();
      expect_op(":");
      s->body = suite();
      return s;
    }
    if (at_kw("while")) ctx_.error(p, "'while' loops are not supported in Relax script");
    return simple_statement();
  }

  StmtP if_rest(Pos p) {
    auto s = mk_stmt(SK::kIf, p);
    s->value = expr();
    expect_op(":");
    s->body = suite();
    Pos q = peek().pos;
    if (accept_kw("elif")) {
      s->orelse.push_back(if_rest(q));
    } else if (accept_kw("else")) {
      expect_op(":");
      s->orelse = suite();
    }
    return s;
  }

  NodeP target_list() {
    Pos p = peek().pos;
    if (at_op("(")) {
      NodeP e = atom_expr();
      if (!at_op(",")) return e;
      auto t = mk(NK::kTuple, p);
      t->items.push_back(e);
      while (accept_op(",") && !at_kw("in") && !at_op("=") && !at_op(":"))
        t->items.push_back(atom_expr());
      return t;
    }
    NodeP first = atom_expr();
    if (!at_op(",")) return first;
    auto t = mk(NK::kTuple, p);
    t->items.push_back(first);
    while (accept_op(",")) {
      if (at_kw("in") || at_op("=") || at_op(":")) break;
      t->items.push_back(atom_expr());
    }
    return t;
  }

  StmtP simple_statement() {
    Pos p = peek().pos;
    if (accept_kw("pass")) {
      expect_newline();
      return mk_stmt(SK::kPass, p);
    }
    if (at_kw("import") || at_kw("from")) {
      while (!at(TokKind::kNewline) && !at(TokKind::kEnd)) ++i_;
      expect_newline();
      return nullptr;
    }
    if (accept_kw("return")) {
      auto s = mk_stmt(SK::kReturn, p);
      if (!at(TokKind::kNewline) && !at(TokKind::kEnd) && !at(TokKind::kDedent))
        s->value = expr_list();
      expect_newline();
      return s;
    }
    if (accept_kw("assert")) {
      auto s = mk_stmt(SK::kAssert, p);
      s->value = expr();
      if (accept_op(",")) s->msg = expr();
      expect_newline();
      return s;
    }
    if (at(TokKind::kName) && is_keyword(peek().text) && !at_kw("not") && !at_kw("lambda"))
      expected("a statement");
    NodeP lhs = expr_list();
    if (accept_op(":")) {
      auto s = mk_stmt(SK::kAssign, p);
      s->target = lhs;
      s->annotation = expr();
      if (accept_op("=")) s->value = expr_list();
      expect_newline();
      return s;
    }
    if (accept_op("=")) {
      auto s = mk_stmt(SK::kAssign, p);
      s->target = lhs;
      s->value = expr_list();
      if (at_op("=")) ctx_.error(peek().pos, "chained assignment is not supported");
      expect_newline();
      return s;
    }
    for (const char* op : {"+=", "-=", "*=", "/=", "%=", "//="}) {
      if (accept_op(op)) {
        auto s = mk_stmt(SK::kAugAssign, p);
        s->target = lhs;
        s->op = std::string(op).substr(0, std::string(op).size() - 1);
        s->value = expr();
        expect_newline();
        return s;
      }
    }
    auto s = mk_stmt(SK::kExpr, p);
    s->value = lhs;
    expect_newline();
    return s;
  }

  // ---- Expressions.

  bool at_expr_end() const {
    return at(TokKind::kNewline) || at(TokKind::kEnd) || at(TokKind::kDedent) || at_op(")") ||
           at_op("]") || at_op("}") || at_op("=") || at_op(":");
  }

  /// expr (',' expr)* [','] — a tuple when there is a comma.
  NodeP expr_list() {
    Pos p = peek().pos;
    NodeP first = expr();
    if (!at_op(",")) return first;
    auto t = mk(NK::kTuple, p);
    t->items.push_back(first);
    while (accept_op(",")) {
      if (at_expr_end()) break;
      t->items.push_back(expr());
    }
    return t;
  }

  NodeP expr() {
    DepthGuard g(this);
    if (at_kw("lambda")) ctx_.error(peek().pos, "lambda expressions are not supported");
    return or_test();
  }

  NodeP binop(const std::string& op, NodeP a, NodeP b, Pos p) {
    // A long chain builds a deep tree that later passes walk recursively.
    if (++binops_ > 20000) ctx_.error(p, "expression is too long");
    auto n = mk(NK::kBinOp, p);
    n->str = op;
    n->a = std::move(a);
    n->b = std::move(b);
    return n;
  }

  NodeP or_test() {
    NodeP a = and_test();
    while (at_kw("or")) {
      Pos p = peek().pos;
      ++i_;
      a = binop("or", a, and_test(), p);
    }
    return a;
  }
  NodeP and_test() {
    NodeP a = not_test();
    while (at_kw("and")) {
      Pos p = peek().pos;
      ++i_;
      a = binop("and", a, not_test(), p);
    }
    return a;
  }
  NodeP not_test() {
    if (at_kw("not")) {
      DepthGuard g(this);
      Pos p = peek().pos;
      ++i_;
      auto n = mk(NK::kUnary, p);
      n->str = "not";
      n->a = not_test();
      return n;
    }
    return comparison();
  }
  NodeP comparison() {
    NodeP a = arith();
    for (const char* op : {"==", "!=", "<=", ">=", "<", ">"}) {
      if (at_op(op)) {
        Pos p = peek().pos;
        ++i_;
        NodeP r = binop(op, a, arith(), p);
        for (const char* op2 : {"==", "!=", "<=", ">=", "<", ">"})
          if (at_op(op2))
            ctx_.error(peek().pos, "chained comparisons are not supported; use 'and'");
        return r;
      }
    }
    return a;
  }
  NodeP arith() {
    NodeP a = term();
    while (at_op("+") || at_op("-")) {
      Pos p = peek().pos;
      std::string op = t_[i_++].text;
      a = binop(op, a, term(), p);
    }
    return a;
  }
  NodeP term() {
    NodeP a = factor();
    while (at_op("*") || at_op("/") || at_op("//") || at_op("%")) {
      Pos p = peek().pos;
      std::string op = t_[i_++].text;
      a = binop(op, a, factor(), p);
    }
    return a;
  }
  NodeP factor() {
    if (at_op("-") || at_op("+") || at_op("~")) {
      DepthGuard g(this);
      Pos p = peek().pos;
      auto n = mk(NK::kUnary, p);
      n->str = t_[i_++].text;
      n->a = factor();
      return n;
    }
    NodeP a = atom_expr();
    if (at_op("**")) {
      Pos p = peek().pos;
      ++i_;
      DepthGuard g(this);
      return binop("**", a, factor(), p);
    }
    return a;
  }

  NodeP atom_expr() {
    NodeP a = atom();
    int trailers = 0;
    while (true) {
      if (++trailers > kMaxDepth) ctx_.error(peek().pos, "expression is nested too deeply");
      Pos p = peek().pos;
      if (accept_op(".")) {
        auto n = mk(NK::kAttr, a->pos);
        n->a = a;
        n->str = expect_name("an attribute name after '.'");
        a = n;
      } else if (accept_op("(")) {
        auto n = mk(NK::kCall, a->pos);
        n->a = a;
        call_args(n.get());
        a = n;
      } else if (accept_op("[")) {
        auto n = mk(NK::kSubscript, a->pos);
        n->a = a;
        while (!accept_op("]")) {
          n->items.push_back(subscript());
          if (!accept_op(",")) {
            expect_op("]");
            break;
          }
        }
        if (n->items.empty()) ctx_.error(p, "empty subscript");
        if (n->items.size() == 1 && n->items[0]->kind == NK::kTuple && n->items[0]->items.empty())
          n->items.clear();  // buf[()]: a zero-dimensional buffer, no indices
        a = n;
      } else {
        return a;
      }
    }
  }

  void call_args(Node* call) {
    while (!accept_op(")")) {
      if (at(TokKind::kName) && peek(1).kind == TokKind::kOp && peek(1).text == "=") {
        std::string key = t_[i_].text;
        Pos kp = peek().pos;
        i_ += 2;
        for (const auto& kw : call->kwargs)
          if (kw.first == key) ctx_.error(kp, "keyword argument '" + key + "' repeated");
        call->kwargs.emplace_back(key, expr());
      } else {
        if (at_op("*")) ctx_.error(peek().pos, "argument unpacking is not supported");
        if (!call->kwargs.empty())
          ctx_.error(peek().pos, "positional argument follows keyword argument");
        call->items.push_back(expr());
      }
      if (!accept_op(",")) {
        expect_op(")");
        break;
      }
    }
  }

  NodeP subscript() {
    Pos p = peek().pos;
    NodeP lo;
    if (!at_op(":")) lo = expr();
    if (!accept_op(":")) return lo;
    auto n = mk(NK::kSlice, p);
    n->a = lo;
    if (!at_op(",") && !at_op("]")) n->b = expr();
    return n;
  }

  NodeP atom() {
    DepthGuard g(this);
    const Token& t = peek();
    Pos p = t.pos;
    switch (t.kind) {
      case TokKind::kName: {
        if (is_keyword(t.text)) expected("an expression");
        ++i_;
        if (t.text == "True") return mk(NK::kTrue, p);
        if (t.text == "False") return mk(NK::kFalse, p);
        if (t.text == "None") return mk(NK::kNone, p);
        auto n = mk(NK::kName, p);
        n->str = t.text;
        return n;
      }
      case TokKind::kInt: {
        ++i_;
        auto n = mk(NK::kInt, p);
        n->ival = t.ival;
        n->str = t.text;
        return n;
      }
      case TokKind::kFloat: {
        ++i_;
        auto n = mk(NK::kFloat, p);
        n->fval = t.fval;
        n->str = t.text;
        return n;
      }
      case TokKind::kString: {
        ++i_;
        auto n = mk(NK::kStr, p);
        n->str = t.text;
        return n;
      }
      case TokKind::kOp:
        break;
      default:
        expected("an expression");
    }
    if (accept_op("(")) {
      if (accept_op(")")) return mk(NK::kTuple, p);
      NodeP first = expr();
      if (accept_op(")")) return first;  // parenthesised expression
      auto tup = mk(NK::kTuple, p);
      tup->items.push_back(first);
      while (accept_op(",")) {
        if (at_op(")")) break;
        tup->items.push_back(expr());
      }
      expect_op(")");
      return tup;
    }
    if (accept_op("[")) {
      auto l = mk(NK::kList, p);
      while (!accept_op("]")) {
        l->items.push_back(expr());
        if (!accept_op(",")) {
          expect_op("]");
          break;
        }
      }
      return l;
    }
    if (accept_op("{")) {
      auto d = mk(NK::kDict, p);
      while (!accept_op("}")) {
        d->items.push_back(expr());
        expect_op(":");
        d->items.push_back(expr());
        if (!accept_op(",")) {
          expect_op("}");
          break;
        }
      }
      return d;
    }
    expected("an expression");
  }

  const std::vector<Token>& t_;
  const SourceContext& ctx_;
  size_t i_ = 0;
  int depth_ = 0;
  int binops_ = 0;
};

}  // namespace

std::vector<StmtP> parse_syntax(const std::vector<Token>& tokens, const SourceContext& ctx) {
  return SyntaxParser(tokens, ctx).file();
}

}  // namespace relax::text
