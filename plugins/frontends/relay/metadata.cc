// The `#[metadata]` section of Relay text: TVM's JSON object graph (src/node/serialization.cc
// writes it) holding the relay.Constant values as base64 NDArrays.
//
//   {"root": R, "nodes": [{"type_key": "..."}, ...], "b64ndarrays": ["...", ...], "attrs": {...}}
//
// The root is a Map from "relay.Constant" to an Array of relay.Constant nodes; each Constant's
// attrs.data is the index of its NDArray in b64ndarrays. Maps are read in both encodings TVM
// has used: "keys" (strings) beside "data" (values), and "data" as key/value node pairs whose
// keys are runtime.String nodes (repr_str). An NDArray blob is TVM's save format: uint64 magic
// 0xDD5E40F096B4A13F, uint64 reserved, DLDevice (2 x int32), int32 ndim, DLDataType (uint8 code,
// uint8 bits, uint16 lanes), int64 shape[ndim], int64 byte count, the bytes (little-endian).
#include <cstring>
#include <map>

#include "relax/support/diagnostic.h"
#include "relax/support/dtype.h"
#include "relay_ast.h"

namespace relax::relay_frontend {

namespace {

/// A JSON value (only what the metadata uses).
struct Json {
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject } kind = Kind::kNull;
  double num = 0;
  std::string str;
  std::vector<Json> items;
  std::map<std::string, Json> fields;
  const Json* get(const std::string& k) const {
    auto it = fields.find(k);
    return kind == Kind::kObject && it != fields.end() ? &it->second : nullptr;
  }
};

class JsonParser {
 public:
  JsonParser(const Source& src, size_t pos) : src_(src), t_(src.text()), pos_(pos) {}

  Json document() {
    Json v = value(0);
    skip();
    if (pos_ < t_.size()) fail("unexpected text after the metadata JSON");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& msg) const {
    int line = 1, col = 1;
    for (size_t i = 0; i < pos_ && i < t_.size(); ++i) {
      if (t_[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    src_.error({line, col}, "bad #[metadata] section: " + msg);
  }
  void skip() {
    while (pos_ < t_.size() && std::isspace(static_cast<unsigned char>(t_[pos_]))) ++pos_;
  }
  void expect(char c) {
    skip();
    if (pos_ >= t_.size() || t_[pos_] != c) fail(std::string("expected '") + c + "'" + (pos_ >= t_.size() ? " (the text ends: truncated?)" : ""));
    ++pos_;
  }
  Json value(int depth) {
    if (depth > 200) fail("JSON nested too deeply");
    skip();
    if (pos_ >= t_.size()) fail("the JSON ends early (truncated?)");
    Json v;
    char c = t_[pos_];
    if (c == '{') {
      v.kind = Json::Kind::kObject;
      ++pos_;
      skip();
      if (pos_ < t_.size() && t_[pos_] == '}') {
        ++pos_;
        return v;
      }
      for (;;) {
        skip();
        std::string key = string();
        expect(':');
        v.fields[key] = value(depth + 1);
        skip();
        if (pos_ < t_.size() && t_[pos_] == ',') {
          ++pos_;
          continue;
        }
        expect('}');
        return v;
      }
    }
    if (c == '[') {
      v.kind = Json::Kind::kArray;
      ++pos_;
      skip();
      if (pos_ < t_.size() && t_[pos_] == ']') {
        ++pos_;
        return v;
      }
      for (;;) {
        v.items.push_back(value(depth + 1));
        skip();
        if (pos_ < t_.size() && t_[pos_] == ',') {
          ++pos_;
          continue;
        }
        expect(']');
        return v;
      }
    }
    if (c == '"') {
      v.kind = Json::Kind::kString;
      v.str = string();
      return v;
    }
    for (const char* w : {"true", "false", "null"}) {
      if (t_.compare(pos_, std::strlen(w), w) == 0) {
        pos_ += std::strlen(w);
        v.kind = w[0] == 'n' ? Json::Kind::kNull : Json::Kind::kBool;
        v.num = w[0] == 't';
        return v;
      }
    }
    char* end = nullptr;
    v.num = std::strtod(t_.c_str() + pos_, &end);
    if (end == t_.c_str() + pos_) fail("expected a JSON value");
    v.kind = Json::Kind::kNumber;
    pos_ = size_t(end - t_.c_str());
    return v;
  }
  std::string string() {
    if (pos_ >= t_.size() || t_[pos_] != '"') fail("expected a string");
    ++pos_;
    std::string s;
    for (;;) {
      if (pos_ >= t_.size()) fail("unterminated string (truncated?)");
      char c = t_[pos_++];
      if (c == '"') return s;
      if (c == '\\') {
        if (pos_ >= t_.size()) fail("unterminated string");
        char e = t_[pos_++];
        if (e == 'u') {
          pos_ += 4;  // non-ASCII escapes do not occur in the fields read here
          s += '?';
        } else {
          s += e == 'n' ? '\n' : e == 't' ? '\t' : e;
        }
        continue;
      }
      s += c;
    }
  }

  const Source& src_;
  const std::string& t_;
  size_t pos_;
};

template <class T>
T read_le(const std::string& b, size_t& off) {
  T v;
  std::memcpy(&v, b.data() + off, sizeof(T));
  off += sizeof(T);
  return v;
}

}  // namespace

std::optional<std::string> base64_decode(const std::string& text) {
  auto val = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  size_t n = 0, pad = 0;
  for (char c : text) {
    if (c == '=') {
      ++pad;
      continue;
    }
    if (pad) return std::nullopt;  // data after padding
    int v = val(c);
    if (v < 0) return std::nullopt;
    ++n;
    acc = (acc << 6) | uint32_t(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += char((acc >> bits) & 0xff);
    }
  }
  if (n % 4 == 1 || pad > 2) return std::nullopt;
  return out;
}

runtime::NDArray decode_ndarray(const std::string& b, const std::string& what) {
  constexpr uint64_t kMagic = 0xDD5E40F096B4A13FULL;
  size_t off = 0;
  auto need = [&](size_t n, const char* field) {
    RX_CHECK(b.size() - off >= n && off <= b.size())
        << what << ": the NDArray blob is truncated (" << b.size() << " bytes; its " << field
        << " needs " << n << " more from byte " << off << ")";
  };
  need(8 + 8 + 8 + 4 + 4, "header");
  uint64_t magic = read_le<uint64_t>(b, off);
  RX_CHECK(magic == kMagic) << what << ": not an NDArray blob (magic 0x" << std::hex << magic
                            << ", expected 0x" << kMagic << ")";
  off += 8 + 8;  // reserved, DLDevice (the data is loaded on the CPU)
  int32_t ndim = read_le<int32_t>(b, off);
  uint8_t code = read_le<uint8_t>(b, off), bits = read_le<uint8_t>(b, off);
  uint16_t lanes = read_le<uint16_t>(b, off);
  RX_CHECK(ndim >= 0 && ndim <= 32) << what << ": the NDArray blob has rank " << ndim << " (expected 0..32)";
  // DLPack codes: 0 int, 1 uint, 2 float, 4 bfloat, 6 bool.
  bool known = (code <= 2 && (bits == 8 || bits == 16 || bits == 32 || bits == 64 || (code == 1 && bits == 1))) ||
               (code == 4 && bits == 16) || (code == 6 && bits == 8);
  RX_CHECK(lanes == 1 && known) << what << ": the NDArray blob has an unsupported dtype (code " << int(code)
                                << ", bits " << int(bits) << ", lanes " << lanes << ")";
  DataType dtype = code == 0 ? DataType::Int(bits) : code == 1 ? (bits == 1 ? DataType::Bool() : DataType::UInt(bits))
                 : code == 2 ? DataType::Float(bits) : code == 4 ? DataType::BFloat(16) : DataType::Bool();
  need(size_t(ndim) * 8 + 8, "shape");
  std::vector<int64_t> shape;
  uint64_t numel = 1;
  for (int k = 0; k < ndim; ++k) {
    int64_t d = read_le<int64_t>(b, off);
    RX_CHECK(d >= 0 && d < (int64_t(1) << 40)) << what << ": the NDArray blob has dim " << k << " = " << d;
    shape.push_back(d);
    RX_CHECK(d == 0 || numel <= (uint64_t(1) << 40) / uint64_t(d)) << what << ": the NDArray blob is too large";
    numel *= uint64_t(d);
  }
  int64_t nbytes = read_le<int64_t>(b, off);
  uint64_t expect = numel * uint64_t(dtype.bytes());
  RX_CHECK(nbytes >= 0 && uint64_t(nbytes) == expect)
      << what << ": the NDArray blob says " << nbytes << " data bytes but shape and dtype "
      << dtype.to_string() << " need " << expect;
  need(size_t(nbytes), "data");
  return runtime::NDArray::from_bytes(shape, dtype, b.data() + off);
}

std::vector<runtime::NDArray> decode_metadata(const Source& src, size_t offset, Loc loc) {
  Json doc = JsonParser(src, offset).document();
  auto bad = [&](const std::string& msg) { src.error(loc, "bad #[metadata] section: " + msg); };
  const Json* nodes = doc.get("nodes");
  const Json* root = doc.get("root");
  if (!nodes || nodes->kind != Json::Kind::kArray || !root || root->kind != Json::Kind::kNumber) {
    bad("expected a JSON object with \"root\" and \"nodes\"");
  }
  auto node = [&](double index) -> const Json& {
    if (index < 0 || size_t(index) >= nodes->items.size()) bad("node index " + std::to_string(int64_t(index)) + " out of range");
    return nodes->items[size_t(index)];
  };
  auto type_key = [&](const Json& n) {
    const Json* k = n.get("type_key");
    return k ? k->str : std::string();
  };
  const Json& map = node(root->num);
  std::vector<double> arrays;  // the Array node of relay.Constant
  const Json* data = map.get("data");
  if (type_key(map) != "Map" || !data) bad("the root is not a Map (type_key '" + type_key(map) + "')");
  if (const Json* keys = map.get("keys")) {
    for (size_t k = 0; k < keys->items.size() && k < data->items.size(); ++k) {
      if (keys->items[k].str == "relay.Constant") arrays.push_back(data->items[k].num);
    }
  } else {
    for (size_t k = 0; k + 1 < data->items.size(); k += 2) {
      const Json& key = node(data->items[k].num);
      const Json* attrs = key.get("repr_str");
      if (attrs && attrs->str == "relay.Constant") arrays.push_back(data->items[k + 1].num);
    }
  }
  std::vector<runtime::NDArray> out;
  if (arrays.empty()) return out;
  const Json& array = node(arrays[0]);
  const Json* b64 = doc.get("b64ndarrays");
  const Json* items = array.get("data");
  if (!items) return out;
  for (size_t k = 0; k < items->items.size(); ++k) {
    const Json& c = node(items->items[k].num);
    std::string what = "meta[relay.Constant][" + std::to_string(k) + "]";
    const Json* attrs = c.get("attrs");
    const Json* d = attrs ? attrs->get("data") : nullptr;
    if (type_key(c) != "relay.Constant" || !d) bad(what + " is not a relay.Constant node with attrs.data");
    char* end = nullptr;
    long idx = std::strtol(d->str.c_str(), &end, 10);
    if (!b64 || idx < 0 || size_t(idx) >= b64->items.size() || end == d->str.c_str()) {
      bad(what + ": its NDArray index '" + d->str + "' is not in b64ndarrays");
    }
    std::optional<std::string> bytes = base64_decode(b64->items[size_t(idx)].str);
    if (!bytes) bad(what + ": b64ndarrays[" + std::to_string(idx) + "] is not valid base64");
    try {
      out.push_back(decode_ndarray(*bytes, what));
    } catch (const Error& e) {
      bad(e.message());
    }
  }
  return out;
}

}  // namespace relax::relay_frontend
