// The text form of dataflow patterns (pattern.h): the printer and a recursive-descent parser
// whose errors name the pattern, the 1-based column and what was expected.
#include <algorithm>
#include <cctype>
#include <sstream>

#include "pattern.h"
#include "relax/ir/op.h"
#include "relax/support/diagnostic.h"

namespace relax::fusion {
namespace {

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

/// A double that reads back as a float ("1.0", not "1").
std::string float_text(double d) {
  std::ostringstream n;
  n.precision(17);
  n << d;
  std::string s = n.str();
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

std::string value_text(const AttrValue& v) {
  std::ostringstream os;
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, bool>) {
          os << (x ? "true" : "false");
        } else if constexpr (std::is_same_v<T, int64_t>) {
          os << x;
        } else if constexpr (std::is_same_v<T, double>) {
          os << float_text(x);
        } else if constexpr (std::is_same_v<T, std::string>) {
          os << quote(x);
        } else if constexpr (std::is_same_v<T, DataType>) {
          os << quote(x.to_string());
        } else if constexpr (std::is_same_v<T, std::vector<int64_t>> ||
                             std::is_same_v<T, std::vector<std::string>>) {
          os << "[";
          for (size_t i = 0; i < x.size(); ++i) {
            os << (i ? ", " : "");
            if constexpr (std::is_same_v<T, std::vector<std::string>>)
              os << quote(x[i]);
            else
              os << x[i];
          }
          os << "]";
        } else if constexpr (std::is_same_v<T, std::vector<double>>) {
          os << "[";
          for (size_t i = 0; i < x.size(); ++i) {
            os << (i ? ", " : "");
            os << float_text(x[i]);
          }
          os << "]";
        } else {
          os << to_string(AttrValue(x));
        }
      },
      v);
  return os.str();
}

void print(const Pattern& p, std::ostream& os) {
  using K = PatternNode::Kind;
  switch (p->kind) {
    case K::kWildcard:
      os << (p->name.empty() ? "_" : "$" + p->name);
      break;
    case K::kVar:
      os << (p->name.empty() ? "var" : "$" + p->name + ":var");
      break;
    case K::kConst:
      os << (p->name.empty() ? "const" : "$" + p->name + ":const");
      break;
    case K::kOp:
      os << p->name;
      break;
    case K::kCall:
      print(p->args[0], os);
      os << "(";
      for (size_t i = 1; i < p->args.size(); ++i) {
        os << (i > 1 ? ", " : "");
        print(p->args[i], os);
      }
      os << ")";
      break;
    case K::kOr:
      os << "(";
      for (size_t i = 0; i < p->args.size(); ++i) {
        os << (i ? " | " : "");
        print(p->args[i], os);
      }
      os << ")";
      break;
  }
  // Consecutive attribute predicates in one {...}, struct-info ones in one [...].
  const auto& preds = p->predicates;
  for (size_t i = 0; i < preds.size();) {
    bool attr = preds[i].kind == PatternPredicate::Kind::kAttr;
    os << (attr ? "{" : "[");
    size_t j = i;
    for (; j < preds.size() && (preds[j].kind == PatternPredicate::Kind::kAttr) == attr; ++j) {
      const PatternPredicate& q = preds[j];
      os << (j > i ? ", " : "");
      switch (q.kind) {
        case PatternPredicate::Kind::kAttr:
          os << q.name << "=" << value_text(q.value);
          break;
        case PatternPredicate::Kind::kDType:
          os << "dtype=" << q.dtype.to_string();
          break;
        case PatternPredicate::Kind::kRank:
          os << "ndim=" << q.ndim;
          break;
        case PatternPredicate::Kind::kShape:
          os << "shape=(";
          for (size_t k = 0; k < q.shape.size(); ++k) {
            os << (k ? ", " : "");
            if (q.shape[k] < 0)
              os << "_";
            else
              os << q.shape[k];
          }
          os << ")";
          break;
        case PatternPredicate::Kind::kCustom:
          os << "where " << quote(q.name);  // not parsable: a C++ predicate has no text form
          break;
      }
    }
    os << (attr ? "}" : "]");
    i = j;
  }
}

/// A recursive-descent parser over one pattern's text, with 1-based columns in its errors.
class PatternParser {
 public:
  PatternParser(const std::string& text, const std::string& name) : text_(text), name_(name) {}

  Pattern parse() {
    Pattern p = parse_alt();
    skip_space();
    if (!at_end()) fail("the end of the pattern or '|'");
    return p;
  }

 private:
  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return at_end() ? '\0' : text_[pos_]; }
  void skip_space() {
    while (!at_end() && std::isspace(static_cast<unsigned char>(peek()))) ++pos_;
  }
  static bool name_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '*';
  }

  [[noreturn]] void fail(const std::string& expected, size_t at = std::string::npos) const {
    if (at == std::string::npos) at = pos_;
    std::string got = "the end of the pattern";
    if (at < text_.size()) {
      size_t end = at + 1;
      if (name_char(text_[at]))
        while (end < text_.size() && name_char(text_[end])) ++end;
      got = "'" + text_.substr(at, end - at) + "'";
    }
    fail_message("expected " + expected + ", got " + got, at);
  }

  [[noreturn]] void fail_message(const std::string& message, size_t at) const {
    RX_THROW() << "pattern '" << name_ << "', column " << at + 1 << ": " << message << "\n  "
               << text_ << "\n  " << std::string(at, ' ') << "^";
  }

  void expect(char c, const std::string& what) {
    skip_space();
    if (peek() != c) fail(what);
    ++pos_;
  }

  std::string parse_name(const std::string& what) {
    skip_space();
    size_t start = pos_;
    while (!at_end() && name_char(peek())) ++pos_;
    if (start == pos_) fail(what);
    return text_.substr(start, pos_ - start);
  }

  Pattern parse_alt() {
    std::vector<Pattern> alts{parse_postfix()};
    while (true) {
      skip_space();
      if (peek() != '|') break;
      ++pos_;
      alts.push_back(parse_postfix());
    }
    Pattern out = alts[0];
    for (size_t i = 1; i < alts.size(); ++i) out = out | alts[i];
    return out;
  }

  Pattern parse_postfix() {
    Pattern p = parse_primary();
    while (true) {
      skip_space();
      if (peek() == '{') {
        if (p->kind != PatternNode::Kind::kCall)
          fail_message("attribute predicates '{...}' apply to op calls only", pos_);
        ++pos_;
        p = parse_attrs(p);
      } else if (peek() == '[') {
        ++pos_;
        p = parse_infos(p);
      } else {
        break;
      }
    }
    return p;
  }

  Pattern parse_primary() {
    skip_space();
    size_t start = pos_;
    if (peek() == '$') {
      ++pos_;
      if (!name_char(peek()) || peek() == '.' || peek() == '*') fail("a name after '$'");
      std::string name = parse_name("a name after '$'");
      if (peek() == ':') {
        ++pos_;
        size_t kind_at = pos_;
        std::string kind = parse_name("'var' or 'const' after ':'");
        if (kind == "var") return is_var(name);
        if (kind == "const") return is_const(name);
        fail("'var' or 'const' after ':'", kind_at);
      }
      return wildcard(name);
    }
    if (peek() == '(') {
      ++pos_;
      Pattern p = parse_alt();
      expect(')', "')' closing the '(' at column " + std::to_string(start + 1));
      return p;
    }
    if (!name_char(peek()) || peek() == '.')
      fail("a pattern ($name, _, var, const, an op call or '(')");
    std::string name = parse_name("a pattern");
    if (name == "_") return wildcard();
    if (name == "var") return is_var();
    if (name == "const") return is_const();
    const OpInfo* info = nullptr;
    if (name.find('*') == std::string::npos) {
      info = OpRegistry::global().find(name);
      if (!info) fail_message("unknown op '" + name + "'", start);
    }
    skip_space();
    if (peek() != '(') fail("'(' after op '" + name + "'");
    ++pos_;
    std::vector<Pattern> args;
    skip_space();
    if (peek() != ')') {
      while (true) {
        args.push_back(parse_alt());
        skip_space();
        if (peek() == ')') break;
        if (peek() != ',') fail("',' or ')' after an argument of '" + name + "'");
        ++pos_;
      }
    }
    ++pos_;
    if (info) {
      size_t fixed = info->variadic ? info->arg_names.size() - 1 : info->arg_names.size();
      bool ok = info->variadic ? args.size() >= fixed : args.size() == fixed;
      if (!ok) {
        std::string names;
        for (const auto& a : info->arg_names) names += (names.empty() ? "" : ", ") + a;
        fail_message("op '" + name + "' takes " + (info->variadic ? "at least " : "") +
                         std::to_string(fixed) + " argument(s) (" + names + "), got " +
                         std::to_string(args.size()),
                     start);
      }
    }
    return is_op(name).call(std::move(args));
  }

  /// One `name=value` list after '{'; values are coerced to the op's declared attribute kind.
  Pattern parse_attrs(Pattern p) {
    const std::string& op = p->args[0]->name;
    const OpInfo* info =
        op.find('*') == std::string::npos ? OpRegistry::global().find(op) : nullptr;
    while (true) {
      skip_space();
      size_t at = pos_;
      std::string key = parse_name("an attribute name");
      const AttrSpec* spec = nullptr;
      if (info) {
        for (const AttrSpec& s : info->attrs)
          if (s.name == key) spec = &s;
        if (!spec) {
          std::string valid;
          for (const AttrSpec& s : info->attrs) valid += (valid.empty() ? "" : ", ") + s.name;
          fail_message("op '" + op + "' has no attribute '" + key + "'; " +
                           (valid.empty() ? "it takes none" : "valid attributes: " + valid),
                       at);
        }
      }
      expect('=', "'=' after attribute '" + key + "'");
      skip_space();
      size_t value_at = pos_;
      AttrValue v = parse_value();
      if (spec) v = coerce(v, *spec, value_at);
      p = p.has_attr(key, std::move(v));
      skip_space();
      if (peek() == '}') {
        ++pos_;
        return p;
      }
      if (peek() != ',') fail("',' or '}' after an attribute predicate");
      ++pos_;
    }
  }

  AttrValue coerce(const AttrValue& v, const AttrSpec& spec, size_t at) const {
    using K = AttrSpec::Kind;
    auto bad = [&]() -> AttrValue {
      fail_message("attribute '" + spec.name + "' is " + attr_kind_name(spec.kind) + ", got " +
                       value_text(v),
                   at);
    };
    switch (spec.kind) {
      case K::kFloat:
        if (auto* i = std::get_if<int64_t>(&v)) return double(*i);
        return std::holds_alternative<double>(v) ? v : bad();
      case K::kFloats:
        if (auto* i = std::get_if<std::vector<int64_t>>(&v))
          return std::vector<double>(i->begin(), i->end());
        return std::holds_alternative<std::vector<double>>(v) ? v : bad();
      case K::kDType:
        if (auto* s = std::get_if<std::string>(&v))
          if (auto d = DataType::parse(*s)) return *d;
        return bad();
      case K::kInt:
        return std::holds_alternative<int64_t>(v) ? v : bad();
      case K::kInts:
        return std::holds_alternative<std::vector<int64_t>>(v) ? v : bad();
      case K::kBool:
        return std::holds_alternative<bool>(v) ? v : bad();
      case K::kString:
        return std::holds_alternative<std::string>(v) ? v : bad();
      case K::kStrings:
        return std::holds_alternative<std::vector<std::string>>(v) ? v : bad();
      default:
        fail_message("attribute '" + spec.name + "' (" + attr_kind_name(spec.kind) +
                         ") cannot be matched by a text pattern",
                     at);
    }
  }

  AttrValue parse_value() {
    skip_space();
    char c = peek();
    if (c == '"') return parse_string();
    if (c == '[') {
      ++pos_;
      std::vector<AttrValue> items;
      skip_space();
      if (peek() != ']') {
        while (true) {
          skip_space();
          size_t at = pos_;
          items.push_back(parse_value());
          if (std::holds_alternative<std::vector<int64_t>>(items.back()) ||
              std::holds_alternative<std::vector<double>>(items.back()) ||
              std::holds_alternative<std::vector<std::string>>(items.back()))
            fail_message("nested lists are not attribute values", at);
          skip_space();
          if (peek() == ']') break;
          if (peek() != ',') fail("',' or ']' in a list");
          ++pos_;
        }
      }
      ++pos_;
      bool all_int = true, all_num = true, all_str = true;
      for (const auto& x : items) {
        all_int &= std::holds_alternative<int64_t>(x);
        all_num &= std::holds_alternative<int64_t>(x) || std::holds_alternative<double>(x);
        all_str &= std::holds_alternative<std::string>(x);
      }
      if (all_int) {
        std::vector<int64_t> out;
        for (const auto& x : items) out.push_back(std::get<int64_t>(x));
        return out;
      }
      if (all_num) {
        std::vector<double> out;
        for (const auto& x : items)
          out.push_back(std::holds_alternative<int64_t>(x) ? double(std::get<int64_t>(x))
                                                           : std::get<double>(x));
        return out;
      }
      if (all_str) {
        std::vector<std::string> out;
        for (const auto& x : items) out.push_back(std::get<std::string>(x));
        return out;
      }
      fail_message("a list mixes numbers and strings", pos_ - 1);
    }
    if (c == '-' || c == '+' || std::isdigit(static_cast<unsigned char>(c))) return parse_number();
    size_t at = pos_;
    std::string word = parse_name("an attribute value (number, \"string\", true, false or [list])");
    if (word == "true") return true;
    if (word == "false") return false;
    fail("an attribute value (number, \"string\", true, false or [list])", at);
  }

  AttrValue parse_string() {
    size_t start = pos_++;
    std::string out;
    while (!at_end() && peek() != '"') {
      if (peek() == '\\' && pos_ + 1 < text_.size()) ++pos_;
      out += text_[pos_++];
    }
    if (at_end()) fail_message("the string has no closing '\"'", start);
    ++pos_;
    return out;
  }

  AttrValue parse_number() {
    size_t start = pos_;
    if (peek() == '-' || peek() == '+') ++pos_;
    bool is_float = false;
    while (!at_end() && (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '.' ||
                         ((peek() == '-' || peek() == '+') &&
                          (text_[pos_ - 1] == 'e' || text_[pos_ - 1] == 'E')))) {
      is_float |= peek() == '.' || peek() == 'e' || peek() == 'E';
      ++pos_;
    }
    std::string s = text_.substr(start, pos_ - start);
    try {
      size_t used = 0;
      if (is_float) {
        double d = std::stod(s, &used);
        if (used == s.size()) return d;
      } else {
        int64_t i = std::stoll(s, &used);
        if (used == s.size()) return i;
      }
    } catch (const std::exception&) {
    }
    fail("a number", start);
  }

  /// One `dtype=`/`ndim=`/`shape=` list after '['.
  Pattern parse_infos(Pattern p) {
    while (true) {
      skip_space();
      size_t at = pos_;
      std::string key = parse_name("dtype, ndim or shape");
      expect('=', "'=' after '" + key + "'");
      skip_space();
      if (key == "dtype") {
        size_t value_at = pos_;
        std::string d = parse_name("a dtype (float32, int64, ...)");
        auto dtype = DataType::parse(d);
        if (!dtype) fail("a dtype (float32, int64, ...)", value_at);
        p = p.has_dtype(*dtype);
      } else if (key == "ndim") {
        size_t value_at = pos_;
        AttrValue v = parse_number();
        if (!std::holds_alternative<int64_t>(v) || std::get<int64_t>(v) < 0)
          fail("a non-negative integer rank", value_at);
        p = p.has_rank(int(std::get<int64_t>(v)));
      } else if (key == "shape") {
        char close = peek() == '[' ? ']' : ')';
        if (peek() != '(' && peek() != '[') fail("'(' starting a shape");
        ++pos_;
        std::vector<int64_t> dims;
        skip_space();
        while (peek() != close) {
          skip_space();
          size_t dim_at = pos_;
          if (peek() == '_') {
            ++pos_;
            dims.push_back(-1);
          } else {
            AttrValue v = parse_number();
            if (!std::holds_alternative<int64_t>(v) || std::get<int64_t>(v) < 0)
              fail("a dimension (a non-negative integer or _)", dim_at);
            dims.push_back(std::get<int64_t>(v));
          }
          skip_space();
          if (peek() == ',') {
            ++pos_;
            skip_space();
          } else if (peek() != close) {
            fail(std::string("',' or '") + close + "' in a shape");
          }
        }
        ++pos_;
        p = p.has_shape(std::move(dims));
      } else {
        fail("dtype, ndim or shape", at);
      }
      skip_space();
      if (peek() == ']') {
        ++pos_;
        return p;
      }
      if (peek() != ',') fail("',' or ']' after a struct-info predicate");
      ++pos_;
    }
  }

  const std::string& text_;
  const std::string& name_;
  size_t pos_ = 0;
};

}  // namespace

std::string to_string(const Pattern& p) {
  if (!p.defined()) return "<undefined>";
  std::ostringstream os;
  print(p, os);
  return os.str();
}

Pattern parse_pattern(const std::string& text, const std::string& name) {
  return PatternParser(text, name).parse();
}

std::vector<NamedPattern> parse_pattern_set(const std::string& text) {
  // Split on ';' and newlines outside string literals.
  std::vector<std::string> entries(1);
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string && c == '\\' && i + 1 < text.size()) {
      entries.back() += c;
      entries.back() += text[++i];
      continue;
    }
    if (c == '"') in_string = !in_string;
    if (!in_string && (c == ';' || c == '\n')) {
      entries.emplace_back();
      continue;
    }
    entries.back() += c;
  }
  std::vector<NamedPattern> out;
  int index = 0;
  for (const std::string& raw : entries) {
    size_t b = raw.find_first_not_of(" \t\r");
    if (b == std::string::npos || raw[b] == '#') continue;
    ++index;
    std::string entry = raw.substr(b);
    entry.erase(entry.find_last_not_of(" \t\r") + 1);
    size_t eq = entry.find('=');
    std::string name = eq == std::string::npos ? "" : entry.substr(0, eq);
    name.erase(name.find_last_not_of(" \t") + 1);
    bool valid = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-';
    });
    RX_CHECK(valid) << "pattern entry " << index << ": expected `NAME = PATTERN` (NAME of letters, "
                    << "digits, '_', '.', '-'), got '" << entry << "'";
    for (const NamedPattern& p : out)
      RX_CHECK(p.name != name) << "pattern '" << name << "' is given twice";
    std::string body = entry.substr(eq + 1);
    body.erase(0, body.find_first_not_of(" \t"));
    RX_CHECK(!body.empty()) << "pattern '" << name << "' is empty";
    out.push_back({name, parse_pattern(body, name)});
  }
  return out;
}

}  // namespace relax::fusion
