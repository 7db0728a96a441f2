// .npy and TensorProto files (relax/runtime/tensor_io.h).
#include "relax/runtime/tensor_io.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>

#include "relax/support/diagnostic.h"

namespace relax::runtime {

namespace {

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  RX_CHECK(in.good()) << "cannot open tensor file " << path;
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

// ---- .npy ------------------------------------------------------------------------------

/// NumPy's dtype descriptor ("<f4") for a dtype, or "" when .npy cannot hold it.
std::string npy_descr(DataType t) {
  if (t.lanes != 1) return "";
  if (t.is_bool()) return "|b1";
  char kind = t.is_int() ? 'i' : t.is_uint() ? 'u' : t.code == DataType::kFloat ? 'f' : 0;
  if (kind == 0 || t.bits % 8 != 0) return "";
  char order = t.bits == 8 ? '|' : '<';
  return std::string(1, order) + kind + std::to_string(t.bits / 8);
}

std::optional<DataType> dtype_of_descr(const std::string& d) {
  if (d == "|b1" || d == "<b1" || d == "b1") return DataType::Bool();
  if (d.size() < 3 || (d[0] != '<' && d[0] != '|' && d[0] != '=')) return std::nullopt;
  int bytes = std::atoi(d.c_str() + 2);
  if (bytes <= 0 || bytes > 8) return std::nullopt;
  if (bytes > 1 && d[0] == '|') return std::nullopt;
  switch (d[1]) {
    case 'i': return DataType::Int(bytes * 8);
    case 'u': return DataType::UInt(bytes * 8);
    case 'f':
      if (bytes == 2 || bytes == 4 || bytes == 8) return DataType::Float(bytes * 8);
      return std::nullopt;
    default: return std::nullopt;
  }
}

/// The value of `key` in the header dict ("'descr': '<f4', ..."), the raw text after the colon.
std::string header_field(const std::string& header, const std::string& key, const std::string& what) {
  size_t k = header.find("'" + key + "'");
  RX_CHECK(k != std::string::npos) << what << ": .npy header has no '" << key << "' field: "
                                   << header;
  size_t colon = header.find(':', k);
  RX_CHECK(colon != std::string::npos) << what << ": malformed .npy header: " << header;
  size_t start = header.find_first_not_of(' ', colon + 1);
  RX_CHECK(start != std::string::npos) << what << ": malformed .npy header: " << header;
  if (header[start] == '(') {
    size_t end = header.find(')', start);
    RX_CHECK(end != std::string::npos) << what << ": malformed shape in .npy header: " << header;
    return header.substr(start, end - start + 1);
  }
  if (header[start] == '\'') {
    size_t end = header.find('\'', start + 1);
    RX_CHECK(end != std::string::npos) << what << ": malformed .npy header: " << header;
    return header.substr(start + 1, end - start - 1);
  }
  size_t end = header.find_first_of(",}", start);
  return header.substr(start, end - start);
}

/// The dimensions of a .npy shape field such as "(3, 64)", "(3,)" or "()": each entry a
/// non-negative decimal integer (Python 2's "3L" accepted), one trailing comma allowed.
std::vector<int64_t> npy_shape(const std::string& text, const std::string& header,
                               const std::string& what) {
  auto bad = [&](const std::string& why) {
    RX_THROW() << what << ": malformed shape " << text << " in .npy header (" << why
               << "); expected a tuple of non-negative integers such as (3, 64): " << header;
  };
  if (text.size() < 2 || text.front() != '(' || text.back() != ')') bad("not a tuple");
  std::vector<std::string> items(1);  // the text between commas, empty ones included
  for (size_t i = 1; i + 1 < text.size(); ++i) {
    if (text[i] == ',')
      items.emplace_back();
    else
      items.back() += text[i];
  }
  auto blank = [](const char* t) { return t[std::strspn(t, " \t")] == '\0'; };
  // "()" and "( )" have no dimension; "(3,)" ends with one comma, nothing after it.
  if (items.size() > 1 && blank(items.back().c_str())) items.pop_back();
  if (items.size() == 1 && blank(items[0].c_str()) && text.find(',') == std::string::npos)
    return {};
  std::vector<int64_t> shape;
  for (size_t i = 0; i < items.size(); ++i) {
    const std::string& item = items[i];
    if (blank(item.c_str())) bad("dimension " + std::to_string(i) + " is empty");
    const char* b = item.c_str() + std::strspn(item.c_str(), " \t");
    char* end = nullptr;
    errno = 0;
    long long d = std::strtoll(b, &end, 10);
    if (end == b || *b == '-' || *b == '+')
      bad("dimension " + std::to_string(i) + " is '" + item + "'");
    if (errno == ERANGE) bad("dimension " + std::to_string(i) + " is out of range");
    if (*end == 'L') ++end;
    if (!blank(end)) bad("dimension " + std::to_string(i) + " is '" + item + "'");
    shape.push_back(d);
  }
  return shape;
}

// ---- protobuf wire format ----------------------------------------------------------------

class WireReader {
 public:
  WireReader(std::span<const uint8_t> bytes, const std::string& what) : b_(bytes), what_(what) {}
  const std::string& what() const { return what_; }
  bool done() const { return pos_ >= b_.size(); }
  uint64_t varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      RX_CHECK(pos_ < b_.size()) << what_ << ": truncated TensorProto (varint at byte " << pos_
                                 << ")";
      uint8_t c = b_[pos_++];
      v |= uint64_t(c & 0x7F) << shift;
      if (!(c & 0x80)) return v;
    }
    RX_THROW() << what_ << ": malformed varint in TensorProto at byte " << pos_;
  }
  std::span<const uint8_t> take(uint64_t n) {
    RX_CHECK(n <= b_.size() - pos_) << what_ << ": truncated TensorProto: a field of " << n
                                    << " bytes at byte " << pos_ << " runs past the end";
    auto s = b_.subspan(pos_, n);
    pos_ += n;
    return s;
  }
  void skip(uint32_t wire_type) {
    switch (wire_type) {
      case 0: varint(); break;
      case 1: take(8); break;
      case 2: take(varint()); break;
      case 5: take(4); break;
      default: RX_THROW() << what_ << ": TensorProto has unsupported wire type " << wire_type;
    }
  }
  size_t pos() const { return pos_; }

 private:
  std::span<const uint8_t> b_;
  const std::string& what_;
  size_t pos_ = 0;
};

/// ONNX TensorProto.DataType -> DataType.
std::optional<DataType> onnx_dtype(int64_t code) {
  switch (code) {
    case 1: return DataType::Float(32);
    case 2: return DataType::UInt(8);
    case 3: return DataType::Int(8);
    case 4: return DataType::UInt(16);
    case 5: return DataType::Int(16);
    case 6: return DataType::Int(32);
    case 7: return DataType::Int(64);
    case 9: return DataType::Bool();
    case 10: return DataType::Float(16);
    case 11: return DataType::Float(64);
    case 12: return DataType::UInt(32);
    case 13: return DataType::UInt(64);
    case 16: return DataType::BFloat(16);
    default: return std::nullopt;
  }
}

/// Appends the elements of a repeated numeric field (packed or not) as raw values of `width`
/// bytes each (varints narrowed, fixed32/64 copied).
void read_repeated(WireReader& r, uint32_t wire_type, bool is_varint, size_t width,
                   std::vector<uint8_t>& out) {
  auto push = [&](uint64_t v) {
    uint8_t buf[8];
    std::memcpy(buf, &v, 8);
    out.insert(out.end(), buf, buf + width);
  };
  auto one = [&](WireReader& rr, uint32_t wt) {
    if (wt == 0) {
      push(rr.varint());
    } else {
      // A fixed-width element must have the field's width (a 4-byte fixed32 in a field of
      // 8-byte elements would leave `out` short of whole elements).
      size_t n = wt == 5 ? 4 : wt == 1 ? 8 : 0;
      RX_CHECK(n == width) << rr.what() << ": TensorProto field of " << width
                           << "-byte elements has wire type " << wt;
      auto s = rr.take(n);
      out.insert(out.end(), s.begin(), s.end());
    }
  };
  if (wire_type == 2) {  // packed
    std::span<const uint8_t> body = r.take(r.varint());
    static const std::string what = "packed field";
    WireReader inner(body, what);
    while (!inner.done()) one(inner, is_varint ? 0 : (width == 4 ? 5 : 1));
  } else {
    one(r, wire_type);
  }
}

}  // namespace

NDArray parse_npy(std::span<const uint8_t> bytes, const std::string& what) {
  static const uint8_t kMagic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  RX_CHECK(bytes.size() >= 10 && std::memcmp(bytes.data(), kMagic, 6) == 0)
      << what << ": not a .npy file (bad magic)";
  int major = bytes[6];
  size_t header_len, offset;
  if (major == 1) {
    header_len = bytes[8] | (size_t(bytes[9]) << 8);
    offset = 10;
  } else {
    RX_CHECK(major == 2 || major == 3) << what << ": unsupported .npy version " << major;
    RX_CHECK(bytes.size() >= 12) << what << ": truncated .npy header";
    header_len = bytes[8] | (size_t(bytes[9]) << 8) | (size_t(bytes[10]) << 16) |
                 (size_t(bytes[11]) << 24);
    offset = 12;
  }
  RX_CHECK(offset + header_len <= bytes.size()) << what << ": truncated .npy header";
  std::string header(reinterpret_cast<const char*>(bytes.data() + offset), header_len);
  std::string descr = header_field(header, "descr", what);
  std::optional<DataType> dtype = dtype_of_descr(descr);
  RX_CHECK(dtype) << what << ": unsupported .npy dtype '" << descr
                  << "' (expected little-endian bool, int, uint or float)";
  RX_CHECK(header_field(header, "fortran_order", what).find("False") == 0)
      << what << ": Fortran-order .npy arrays are not supported";
  std::string shape_text = header_field(header, "shape", what);
  std::vector<int64_t> shape = npy_shape(shape_text, header, what);
  int64_t n = 1;
  for (int64_t d : shape)
    RX_CHECK(!__builtin_mul_overflow(n, d, &n))
        << what << ": .npy shape " << shape_text << " has more elements than fit in int64";
  size_t data_at = offset + header_len;
  size_t want = 0;
  RX_CHECK(!__builtin_mul_overflow(size_t(n), size_t(dtype->bytes()), &want))
      << what << ": .npy shape " << shape_text << " of " << dtype->to_string()
      << " needs more bytes than fit in memory";
  RX_CHECK(bytes.size() - data_at == want)
      << what << ": .npy data holds " << bytes.size() - data_at << " bytes; shape " << shape_text
      << " of " << dtype->to_string() << " needs " << want;
  return NDArray::from_bytes(shape, *dtype, bytes.data() + data_at);
}

std::vector<uint8_t> serialize_npy(const NDArray& array) {
  std::string descr = npy_descr(array.dtype());
  RX_CHECK(!descr.empty()) << "save_npy: dtype " << array.dtype().to_string()
                           << " has no .npy representation";
  std::string shape = "(";
  for (int64_t d : array.shape()) shape += std::to_string(d) + ", ";
  if (array.shape().size() > 1) shape.erase(shape.size() - 2);
  if (array.shape().size() == 1) shape.erase(shape.size() - 1);
  shape += ")";
  std::string header =
      "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::vector<uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
  out.push_back(uint8_t(header.size() & 0xFF));
  out.push_back(uint8_t(header.size() >> 8));
  out.insert(out.end(), header.begin(), header.end());
  const uint8_t* data = static_cast<const uint8_t*>(array.data());
  out.insert(out.end(), data, data + array.nbytes());
  return out;
}

NDArray load_npy(const std::string& path) { return parse_npy(read_file(path), path); }

void save_npy(const std::string& path, const NDArray& array) {
  std::vector<uint8_t> bytes = serialize_npy(array);
  std::ofstream out(path, std::ios::binary);
  RX_CHECK(out.good()) << "cannot write " << path;
  out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  RX_CHECK(out.good()) << "cannot write " << path;
}

NDArray parse_tensor_proto(std::span<const uint8_t> bytes, std::string* name,
                           const std::string& what) {
  WireReader r(bytes, what);
  std::vector<int64_t> dims;
  int64_t data_type = 0;
  std::vector<uint8_t> raw, typed;
  size_t typed_width = 0;
  bool has_raw = false, has_typed = false;
  while (!r.done()) {
    uint64_t key = r.varint();
    uint32_t field = uint32_t(key >> 3), wt = uint32_t(key & 7);
    switch (field) {
      case 1: {  // dims
        std::vector<uint8_t> d;
        read_repeated(r, wt, true, 8, d);
        for (size_t i = 0; i < d.size(); i += 8) {
          int64_t v;
          std::memcpy(&v, d.data() + i, 8);
          dims.push_back(v);
        }
        break;
      }
      case 2: data_type = int64_t(r.varint()); break;
      case 4: read_repeated(r, wt, false, 4, typed); typed_width = 4; has_typed = true; break;
      case 5: read_repeated(r, wt, true, 4, typed); typed_width = 4; has_typed = true; break;
      case 7: read_repeated(r, wt, true, 8, typed); typed_width = 8; has_typed = true; break;
      case 10: read_repeated(r, wt, false, 8, typed); typed_width = 8; has_typed = true; break;
      case 11: read_repeated(r, wt, true, 8, typed); typed_width = 8; has_typed = true; break;
      case 8: {
        auto s = r.take(r.varint());
        if (name) name->assign(s.begin(), s.end());
        break;
      }
      case 9: {
        auto s = r.take(r.varint());
        raw.assign(s.begin(), s.end());
        has_raw = true;
        break;
      }
      case 6: RX_THROW() << what << ": string tensors are not supported";
      case 13:
      case 14: RX_THROW() << what << ": tensors with external data are not supported";
      default: r.skip(wt);
    }
  }
  RX_CHECK(data_type != 8) << what << ": string tensors are not supported";
  std::optional<DataType> dtype = onnx_dtype(data_type);
  RX_CHECK(dtype) << what << ": unsupported TensorProto data_type " << data_type;
  for (int64_t d : dims) RX_CHECK(d >= 0) << what << ": negative dimension " << d;
  int64_t n = 1, nbytes = 0;
  for (int64_t d : dims) {
    RX_CHECK(!__builtin_mul_overflow(n, d, &n))
        << what << ": TensorProto shape is too large (the product of its dims overflows int64)";
  }
  size_t elem = size_t(dtype->bytes());
  RX_CHECK(!__builtin_mul_overflow(n, int64_t(elem), &nbytes))
      << what << ": TensorProto of " << n << " elements is too large (its size in bytes "
      << "overflows int64)";
  if (has_raw) {
    RX_CHECK(raw.size() == size_t(nbytes))
        << what << ": raw_data holds " << raw.size() << " bytes; " << n << " elements of "
        << dtype->to_string() << " need " << nbytes;
    return NDArray::from_bytes(dims, *dtype, raw.data());
  }
  // The element count is checked before the tensor is allocated.
  size_t count = has_typed ? typed.size() / typed_width : 0;
  RX_CHECK(count == size_t(n)) << what << ": TensorProto holds " << count << " values, shape needs "
                               << n;
  NDArray out = NDArray::empty(dims, *dtype);
  auto* dst = static_cast<uint8_t*>(out.data());
  for (size_t i = 0; i < count; ++i) {
    // Narrow each stored element (int32_data for 8/16-bit types, float16 bits; float_data;
    // int64_data; double_data; uint64_data) to the tensor's width, little-endian.
    std::memcpy(dst + i * elem, typed.data() + i * typed_width, std::min(elem, typed_width));
  }
  return out;
}

NDArray load_tensor_proto(const std::string& path, std::string* name) {
  return parse_tensor_proto(read_file(path), name, path);
}

NDArray load_tensor(const std::string& path) {
  auto ends = [&](const char* ext) {
    size_t n = std::strlen(ext);
    return path.size() >= n && path.compare(path.size() - n, n, ext) == 0;
  };
  if (ends(".npy")) return load_npy(path);
  if (ends(".pb")) return load_tensor_proto(path);
  RX_THROW() << "tensor file " << path << ": unknown extension (expected .npy or .pb)";
}

}  // namespace relax::runtime
