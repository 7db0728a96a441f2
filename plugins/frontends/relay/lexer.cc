// The Relay text lexer, and Source (places and carets for messages). Block comments nest, as
// in TVM's tokenizer; `/* ty=... */` annotations that astext() writes are comments too.
// Strings are taken verbatim up to the next '"' (TVM's printer writes no escapes).
#include "lexer.h"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "relax/support/diagnostic.h"

namespace relax::relay_frontend {

Source::Source(std::string file, std::string text) : file_(std::move(file)), text_(std::move(text)) {
  line_starts_.push_back(0);
  for (size_t i = 0; i < text_.size(); ++i) {
    if (text_[i] == '\n') line_starts_.push_back(i + 1);
  }
}

std::string Source::format(Loc loc, const std::string& msg) const {
  std::ostringstream os;
  os << file_ << ":" << loc.line << ":" << loc.col << ": " << msg;
  if (loc.line >= 1 && size_t(loc.line) <= line_starts_.size()) {
    size_t start = line_starts_[size_t(loc.line - 1)];
    size_t end = text_.find('\n', start);
    std::string line = text_.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (line.size() > 200) line = line.substr(0, 200) + " ...";
    std::string pad;
    for (int k = 1; k < loc.col && size_t(k - 1) < line.size(); ++k) pad += line[size_t(k - 1)] == '\t' ? '\t' : ' ';
    os << "\n  " << line << "\n  " << pad << "^";
  }
  return os.str();
}

void Source::error(Loc loc, const std::string& msg) const { RX_THROW() << format(loc, msg); }

namespace {

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

class Lexer {
 public:
  explicit Lexer(const Source& src) : src_(src), t_(src.text()) {}

  std::vector<Token> run() {
    std::vector<Token> out;
    for (;;) {
      skip_space();
      Token tok;
      tok.loc = {line_, col_};
      if (pos_ >= t_.size()) {
        out.push_back(tok);
        return out;
      }
      char c = t_[pos_];
      if (c == '#' && peek(1) == '[' && t_.compare(pos_, 11, "#[metadata]") == 0) {
        tok.kind = Token::Kind::kMetadata;
        advance(11);
        tok.offset = pos_;
        out.push_back(tok);
        Token end;
        end.loc = {line_, col_};
        out.push_back(end);
        return out;
      }
      if (c == '%' || c == '@') {
        advance(1);
        size_t start = pos_;
        // Names may hold '/' (TensorFlow-style "conv/weights", as TVM's tokenizer allows)
        // and '.' before a letter ("conv1.weight"); "%t.0" stays a projection.
        while (pos_ < t_.size() && (ident_char(t_[pos_]) || ((t_[pos_] == '/' || t_[pos_] == '.') &&
                                                              pos_ > start && ident_start(peek(1))))) {
          advance(1);
        }
        if (pos_ == start) src_.error(tok.loc, std::string("expected a name after '") + c + "'");
        tok.kind = c == '%' ? Token::Kind::kLocal : Token::Kind::kGlobal;
        tok.text = t_.substr(start, pos_ - start);
      } else if (ident_start(c)) {
        size_t start = pos_;
        while (pos_ < t_.size() &&
               (ident_char(t_[pos_]) || (t_[pos_] == '.' && ident_start(peek(1))))) {
          advance(1);
        }
        tok.kind = Token::Kind::kIdent;
        tok.text = t_.substr(start, pos_ - start);
        // Non-finite floats as C++ streams print them: inff, nanf, inff16, -inff64.
        for (const char* base : {"inf", "nan"}) {
          if (tok.text.rfind(base, 0) == 0 && tok.text.size() > 3 && tok.text[3] == 'f' &&
              tok.text.find_first_not_of("0123456789", 4) == std::string::npos) {
            tok.kind = Token::Kind::kFloat;
            tok.suffix = tok.text.substr(3);
            tok.text = base;
          }
        }
      } else if (std::isdigit(static_cast<unsigned char>(c))) {
        number(tok);
      } else if (c == '"') {
        string(tok);
      } else {
        static const char* two[] = {"->", "<=", ">=", "==", "!=", "#["};
        tok.kind = Token::Kind::kPunct;
        for (const char* p : two) {
          if (c == p[0] && peek(1) == p[1]) tok.text = p;
        }
        if (tok.text.empty()) {
          if (std::string("()[]{},;:=.?+-*/<>").find(c) == std::string::npos) {
            src_.error(tok.loc, std::string("unexpected character '") + c + "'");
          }
          tok.text = std::string(1, c);
        }
        advance(tok.text.size());
      }
      out.push_back(std::move(tok));
    }
  }

 private:
  char peek(size_t k) const { return pos_ + k < t_.size() ? t_[pos_ + k] : '\0'; }
  void advance(size_t n) {
    for (size_t k = 0; k < n && pos_ < t_.size(); ++k, ++pos_) {
      if (t_[pos_] == '\n') {
        ++line_;
        col_ = 1;
      } else {
        ++col_;
      }
    }
  }

  void skip_space() {
    for (;;) {
      while (pos_ < t_.size() && std::isspace(static_cast<unsigned char>(t_[pos_]))) advance(1);
      if (peek(0) == '/' && peek(1) == '/') {
        while (pos_ < t_.size() && t_[pos_] != '\n') advance(1);
      } else if (peek(0) == '/' && peek(1) == '*') {
        Loc start{line_, col_};
        int depth = 0;
        do {
          if (pos_ >= t_.size()) src_.error(start, "unterminated comment: '/*' without '*/'");
          if (peek(0) == '/' && peek(1) == '*') {
            ++depth;
            advance(2);
          } else if (peek(0) == '*' && peek(1) == '/') {
            --depth;
            advance(2);
          } else {
            advance(1);
          }
        } while (depth > 0);
      } else {
        return;
      }
    }
  }

  // 12, 12i64, 1.5, 1.5f, 1e-05f, 1f16, 3u8; the suffix says the dtype.
  void number(Token& tok) {
    size_t start = pos_;
    bool is_float = false;
    while (std::isdigit(static_cast<unsigned char>(peek(0)))) advance(1);
    if (peek(0) == '.' && std::isdigit(static_cast<unsigned char>(peek(1)))) {
      is_float = true;
      advance(1);
      while (std::isdigit(static_cast<unsigned char>(peek(0)))) advance(1);
    }
    if ((peek(0) == 'e' || peek(0) == 'E') &&
        (std::isdigit(static_cast<unsigned char>(peek(1))) ||
         ((peek(1) == '-' || peek(1) == '+') && std::isdigit(static_cast<unsigned char>(peek(2)))))) {
      is_float = true;
      advance(2);
      while (std::isdigit(static_cast<unsigned char>(peek(0)))) advance(1);
    }
    tok.text = t_.substr(start, pos_ - start);
    size_t sstart = pos_;
    if (peek(0) == 'f' || peek(0) == 'i' || peek(0) == 'u' || peek(0) == 'b') {
      advance(1);
      while (std::isdigit(static_cast<unsigned char>(peek(0)))) advance(1);
    }
    tok.suffix = t_.substr(sstart, pos_ - sstart);
    if (ident_char(peek(0))) src_.error(tok.loc, "malformed number '" + tok.text + tok.suffix + peek(0) + "...'");
    bool float_suffix = !tok.suffix.empty() && tok.suffix[0] == 'f';
    tok.kind = is_float || float_suffix ? Token::Kind::kFloat : Token::Kind::kInt;
    if (is_float && !tok.suffix.empty() && !float_suffix) {
      src_.error(tok.loc, "a number with a fraction or exponent cannot have suffix '" + tok.suffix + "'");
    }
  }

  void string(Token& tok) {
    advance(1);
    tok.kind = Token::Kind::kString;
    for (;;) {
      if (pos_ >= t_.size() || t_[pos_] == '\n') src_.error(tok.loc, "unterminated string");
      char c = t_[pos_];
      if (c == '"') {
        advance(1);
        return;
      }
      tok.text += c;
      advance(1);
    }
  }

  const Source& src_;
  const std::string& t_;
  size_t pos_ = 0;
  int line_ = 1;
  int col_ = 1;
};

}  // namespace

std::vector<Token> tokenize(const Source& src) { return Lexer(src).run(); }

}  // namespace relax::relay_frontend
