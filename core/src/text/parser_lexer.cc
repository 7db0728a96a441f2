// Tokenizer of the Relax script syntax: Python's lexical rules (INDENT/DEDENT from leading
// whitespace, newlines ignored inside brackets, '#' comments, backslash continuations) for the
// subset the script uses. Every malformed input is a relax::Error pointing at the character.
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>

#include "parser_ast.h"

namespace relax::text {

SourceContext::SourceContext(std::string_view text, std::string file)
    : text_(text), file_(std::move(file)) {
  line_starts_.push_back(0);
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') line_starts_.push_back(i + 1);
}

void SourceContext::error(Pos pos, const std::string& message) const {
  std::string msg = message;
  if (pos.line >= 1 && size_t(pos.line) <= line_starts_.size()) {
    size_t start = line_starts_[size_t(pos.line) - 1];
    size_t end = text_.find('\n', start);
    if (end == std::string_view::npos) end = text_.size();
    std::string line;
    for (size_t i = start; i < end && line.size() < 200; ++i) {
      unsigned char c = static_cast<unsigned char>(text_[i]);
      line += (c == '\t' || (c >= 0x20 && c < 0x7f)) ? char(c) : '?';
    }
    std::string caret;
    for (int i = 1; i < pos.col && size_t(i) <= line.size(); ++i)
      caret += line[size_t(i) - 1] == '\t' ? '\t' : ' ';
    msg += "\n    " + line + "\n    " + caret + "^";
  }
  SourceSpan span{file_, pos.line, pos.col, pos.line, pos.col};
  throw Error(msg, span);
}

namespace {

bool is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

class Lexer {
 public:
  Lexer(std::string_view s, const SourceContext& ctx) : s_(s), ctx_(ctx) {}

  std::vector<Token> run() {
    indents_.push_back(0);
    bool at_line_start = true;
    while (true) {
      if (at_line_start && brackets_.empty()) {
        if (!handle_indentation()) break;  // end of input
        at_line_start = false;
      }
      if (i_ >= s_.size()) break;
      char c = s_[i_];
      if (c == '\n') {
        advance();
        if (brackets_.empty()) {
          if (!out_.empty() && out_.back().kind != TokKind::kNewline &&
              out_.back().kind != TokKind::kIndent && out_.back().kind != TokKind::kDedent)
            push(TokKind::kNewline, "", pos());
          at_line_start = true;
        }
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\r' || c == '\f') {
        advance();
        continue;
      }
      if (c == '#') {
        while (i_ < s_.size() && s_[i_] != '\n') advance();
        continue;
      }
      if (c == '\\' && i_ + 1 < s_.size() && (s_[i_ + 1] == '\n' || s_[i_ + 1] == '\r')) {
        advance();
        if (s_[i_] == '\r') advance();
        if (i_ < s_.size() && s_[i_] == '\n') advance();
        continue;
      }
      Pos p = pos();
      if (is_name_start(c)) {
        size_t b = i_;
        while (i_ < s_.size() && (is_name_start(s_[i_]) || is_digit(s_[i_]))) advance();
        push(TokKind::kName, std::string(s_.substr(b, i_ - b)), p);
      } else if (is_digit(c) || (c == '.' && i_ + 1 < s_.size() && is_digit(s_[i_ + 1]))) {
        lex_number(p);
      } else if (c == '"' || c == '\'') {
        lex_string(p);
      } else {
        lex_operator(p);
      }
    }
    if (!brackets_.empty())
      ctx_.error(brackets_.back().second,
                 std::string("'") + brackets_.back().first + "' was never closed");
    Pos p = pos();
    if (!out_.empty() && out_.back().kind != TokKind::kNewline &&
        out_.back().kind != TokKind::kDedent)
      push(TokKind::kNewline, "", p);
    while (indents_.size() > 1) {
      indents_.pop_back();
      push(TokKind::kDedent, "", p);
    }
    push(TokKind::kEnd, "", p);
    return std::move(out_);
  }

 private:
  Pos pos() const { return {line_, col_}; }
  void advance() {
    if (s_[i_] == '\n') {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
    ++i_;
  }
  void push(TokKind k, std::string text, Pos p) {
    out_.push_back(Token{k, std::move(text), p});
    adjacent_string_ = false;
  }

  /// Measures the indentation of the next non-blank line and emits INDENT/DEDENT; false at EOF.
  bool handle_indentation() {
    while (true) {
      int width = 0;
      while (i_ < s_.size() &&
             (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\r' || s_[i_] == '\f')) {
        if (s_[i_] == '\t') {
          width = (width / 8 + 1) * 8;
        } else if (s_[i_] == ' ') {
          ++width;
        }
        advance();
      }
      if (i_ >= s_.size()) return false;
      if (s_[i_] == '\n') {
        advance();
        continue;
      }
      if (s_[i_] == '#') {
        while (i_ < s_.size() && s_[i_] != '\n') advance();
        continue;
      }
      Pos p = pos();
      if (width > indents_.back()) {
        if (out_.empty() || out_.back().kind != TokKind::kNewline) {
          // Indentation at the very start of the file, or after a dedent.
          if (out_.empty()) ctx_.error(p, "unexpected indentation at the start of the file");
        }
        if (indents_.size() > 200) ctx_.error(p, "blocks are nested too deeply");
        indents_.push_back(width);
        push(TokKind::kIndent, "", p);
      } else {
        while (width < indents_.back()) {
          indents_.pop_back();
          push(TokKind::kDedent, "", p);
        }
        if (width != indents_.back())
          ctx_.error(p, "unindent does not match any outer indentation level");
      }
      return true;
    }
  }

  void lex_number(Pos p) {
    size_t b = i_;
    bool is_float = false;
    if (s_[i_] == '0' && i_ + 1 < s_.size() && (s_[i_ + 1] == 'x' || s_[i_ + 1] == 'X')) {
      advance();
      advance();
      while (i_ < s_.size() && (std::isxdigit(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_'))
        advance();
    } else {
      while (i_ < s_.size() && (is_digit(s_[i_]) || s_[i_] == '_')) advance();
      if (i_ < s_.size() && s_[i_] == '.') {
        is_float = true;
        advance();
        while (i_ < s_.size() && is_digit(s_[i_])) advance();
      }
      if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
        size_t save_i = i_;
        int save_col = col_;
        advance();
        if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) advance();
        if (i_ < s_.size() && is_digit(s_[i_])) {
          is_float = true;
          while (i_ < s_.size() && is_digit(s_[i_])) advance();
        } else {
          i_ = save_i;
          col_ = save_col;
        }
      }
    }
    if (i_ < s_.size() && is_name_start(s_[i_])) ctx_.error(pos(), "invalid number literal");
    std::string text;
    for (size_t k = b; k < i_; ++k)
      if (s_[k] != '_') text += s_[k];
    Token t{is_float ? TokKind::kFloat : TokKind::kInt, text, p};
    errno = 0;
    char* end = nullptr;
    if (is_float) {
      t.fval = std::strtod(text.c_str(), &end);
    } else {
      unsigned long long v = std::strtoull(text.c_str(), &end, 0);
      if (errno == ERANGE || v > uint64_t(INT64_MAX) + 1)
        ctx_.error(p, "integer literal " + text +
                          " is out of range: an int64 is at most 9223372036854775807");
      t.ival = int64_t(v);
    }
    out_.push_back(std::move(t));
    adjacent_string_ = false;
  }

  void lex_string(Pos p) {
    char q = s_[i_];
    bool triple = i_ + 2 < s_.size() && s_[i_ + 1] == q && s_[i_ + 2] == q;
    advance();
    if (triple) {
      advance();
      advance();
    }
    std::string value;
    while (true) {
      if (i_ >= s_.size()) ctx_.error(p, "unterminated string literal");
      char c = s_[i_];
      if (!triple && c == '\n') ctx_.error(p, "unterminated string literal");
      if (c == q) {
        if (!triple) {
          advance();
          break;
        }
        if (i_ + 2 < s_.size() && s_[i_ + 1] == q && s_[i_ + 2] == q) {
          advance();
          advance();
          advance();
          break;
        }
      }
      if (c == '\\' && i_ + 1 < s_.size()) {
        advance();
        char e = s_[i_];
        switch (e) {
          case 'n':
            value += '\n';
            break;
          case 't':
            value += '\t';
            break;
          case 'r':
            value += '\r';
            break;
          case '0':
            value += '\0';
            break;
          case '\\':
            value += '\\';
            break;
          case '\'':
            value += '\'';
            break;
          case '"':
            value += '"';
            break;
          case '\n':
            break;
          default:
            value += '\\';
            value += e;
        }
        advance();
        continue;
      }
      value += c;
      advance();
    }
    // Adjacent literals concatenate, as in Python.
    if (!out_.empty() && out_.back().kind == TokKind::kString && adjacent_string_) {
      out_.back().text += value;
    } else {
      push(TokKind::kString, value, p);
    }
    adjacent_string_ = true;
  }

  void lex_operator(Pos p) {
    static const char* const kOps[] = {"**", "//=", "//", "->", "==", "!=", "<=", ">=", "+=", "-=",
                                       "*=", "/=",  "%=", "<<", ">>", "+",  "-",  "*",  "/",  "%",
                                       "(",  ")",   "[",  "]",  "{",  "}",  ",",  ":",  ".",  "=",
                                       "<",  ">",   "@",  "~",  "&",  "|",  "^",  ";"};
    for (const char* op : kOps) {
      std::string_view o(op);
      if (s_.substr(i_, o.size()) == o) {
        for (size_t k = 0; k < o.size(); ++k) advance();
        if (o == "(" || o == "[" || o == "{") {
          if (brackets_.size() > 200) ctx_.error(p, "brackets are nested too deeply");
          brackets_.push_back({o[0], p});
        } else if (o == ")" || o == "]" || o == "}") {
          char open = o == ")" ? '(' : o == "]" ? '[' : '{';
          if (brackets_.empty()) ctx_.error(p, std::string("unmatched '") + o[0] + "'");
          if (brackets_.back().first != open)
            ctx_.error(p, std::string("closing '") + o[0] + "' does not match '" +
                              brackets_.back().first + "' opened at line " +
                              std::to_string(brackets_.back().second.line));
          brackets_.pop_back();
        }
        push(TokKind::kOp, std::string(o), p);
        return;
      }
    }
    unsigned char c = static_cast<unsigned char>(s_[i_]);
    char buf[16];
    std::snprintf(buf, sizeof buf, (c >= 0x20 && c < 0x7f) ? "'%c'" : "byte 0x%02x", c);
    ctx_.error(p, std::string("unexpected character ") + buf);
  }

  std::string_view s_;
  const SourceContext& ctx_;
  size_t i_ = 0;
  int line_ = 1, col_ = 1;
  std::vector<int> indents_;
  std::vector<std::pair<char, Pos>> brackets_;
  std::vector<Token> out_;
  bool adjacent_string_ = false;
};

}  // namespace

std::vector<Token> tokenize(std::string_view text, const SourceContext& ctx) {
  Lexer lexer(text, ctx);
  std::vector<Token> toks = lexer.run();
  return toks;
}

std::string dotted_name(const NodeP& n) {
  if (!n) return {};
  if (n->kind == NK::kName) return n->str;
  if (n->kind == NK::kAttr) {
    std::string base = dotted_name(n->a);
    return base.empty() ? base : base + "." + n->str;
  }
  return {};
}

}  // namespace relax::text
