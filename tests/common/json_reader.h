// A strict, small JSON reader for tests that check what the driver writes (traces, run --json):
// parse() returns the value tree or throws std::runtime_error naming the offset of the first
// thing that is not JSON.
#pragma once

#include <cctype>
#include <cstdlib>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace relax::test::json {

struct Value {
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject } kind = Kind::kNull;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<Value> array;
  std::map<std::string, Value> object;
  /// The member `key` of an object; throws when absent.
  const Value& at(const std::string& key) const {
    auto it = object.find(key);
    if (kind != Kind::kObject || it == object.end())
      throw std::runtime_error("json: no member \"" + key + "\"");
    return it->second;
  }
  bool has(const std::string& key) const { return object.count(key) > 0; }
};

class Parser {
 public:
  explicit Parser(const std::string& text) : s_(text) {}
  Value parse_document() {
    Value v = value();
    ws();
    if (i_ != s_.size()) fail("trailing characters");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) {
    throw std::runtime_error("json: " + what + " at offset " + std::to_string(i_));
  }
  void ws() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool eat(char c) {
    ws();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!eat(c)) fail(std::string("expected '") + c + "'");
  }
  bool word(const char* w) {
    std::string t(w);
    if (s_.compare(i_, t.size(), t) != 0) return false;
    i_ += t.size();
    return true;
  }
  std::string str() {
    expect('"');
    std::string out;
    while (true) {
      if (i_ >= s_.size()) fail("unterminated string");
      char c = s_[i_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in a string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (i_ >= s_.size()) fail("unterminated escape");
      char e = s_[i_++];
      switch (e) {
        case '"': case '\\': case '/': out += e; break;
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'u':
          if (i_ + 4 > s_.size()) fail("short \\u escape");
          out += char(std::strtol(s_.substr(i_, 4).c_str(), nullptr, 16));
          i_ += 4;
          break;
        default: fail("bad escape");
      }
    }
  }
  Value value() {
    ws();
    if (i_ >= s_.size()) fail("unexpected end");
    Value v;
    char c = s_[i_];
    if (c == '{') {
      ++i_;
      v.kind = Value::Kind::kObject;
      if (eat('}')) return v;
      do {
        ws();
        std::string k = str();
        expect(':');
        v.object[k] = value();
      } while (eat(','));
      expect('}');
    } else if (c == '[') {
      ++i_;
      v.kind = Value::Kind::kArray;
      if (eat(']')) return v;
      do v.array.push_back(value());
      while (eat(','));
      expect(']');
    } else if (c == '"') {
      v.kind = Value::Kind::kString;
      v.string = str();
    } else if (word("true")) {
      v.kind = Value::Kind::kBool;
      v.boolean = true;
    } else if (word("false")) {
      v.kind = Value::Kind::kBool;
    } else if (word("null")) {
      v.kind = Value::Kind::kNull;
    } else {
      const char* begin = s_.c_str() + i_;
      char* end = nullptr;
      v.number = std::strtod(begin, &end);
      if (end == begin) fail("not a value");
      i_ += size_t(end - begin);
      v.kind = Value::Kind::kNumber;
    }
    return v;
  }
  const std::string& s_;
  size_t i_ = 0;
};

inline Value parse(const std::string& text) { return Parser(text).parse_document(); }

}  // namespace relax::test::json
