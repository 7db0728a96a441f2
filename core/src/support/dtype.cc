#include "relax/support/dtype.h"

#include <charconv>

namespace relax {

std::string DataType::to_string() const {
  if (is_void()) return "void";
  if (is_bool()) return lanes == 1 ? "bool" : "boolx" + std::to_string(lanes);
  std::string s;
  switch (code) {
    case kInt: s = "int"; break;
    case kUInt: s = "uint"; break;
    case kFloat: s = "float"; break;
    case kBFloat: s = "bfloat"; break;
    case kHandle: return "handle";
    default: s = "unknown" + std::to_string(code) + "_"; break;
  }
  s += std::to_string(bits);
  if (lanes != 1) s += "x" + std::to_string(lanes);
  return s;
}

namespace {
bool parse_int(std::string_view text, int* out) {
  if (text.empty()) return false;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && ptr == text.data() + text.size();
}
}  // namespace

std::optional<DataType> DataType::parse(std::string_view text) {
  if (text == "void" || text.empty()) return Void();
  if (text == "handle") return Handle();
  int lanes = 1;
  if (auto x = text.find('x'); x != std::string_view::npos) {
    if (!parse_int(text.substr(x + 1), &lanes) || lanes < 1 || lanes > 65535) return std::nullopt;
    text = text.substr(0, x);
  }
  if (text == "bool") return Bool(lanes);
  struct Prefix { std::string_view name; Code code; };
  // Longest prefixes first so that "uint" is not read as "int".
  for (Prefix p : {Prefix{"bfloat", kBFloat}, Prefix{"float", kFloat}, Prefix{"uint", kUInt},
                   Prefix{"int", kInt}}) {
    if (text.substr(0, p.name.size()) == p.name) {
      int bits = 0;
      if (!parse_int(text.substr(p.name.size()), &bits)) return std::nullopt;
      if (bits != 8 && bits != 16 && bits != 32 && bits != 64 && !(bits == 1 && p.code == kUInt) &&
          !(bits == 4 && p.code != kFloat))
        return std::nullopt;
      return DataType(p.code, uint8_t(bits), uint16_t(lanes));
    }
  }
  return std::nullopt;
}

}  // namespace relax
