// The ONNX importer's attribute readers and tensor decoding (TensorProto -> NDArray, with
// external data read from `location` relative to the model's directory), and the small helpers
// of the converters (known elements, scalar constants, dtype and axis checks, binding names),
// shared through importer.h.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include "importer.h"
#include "relax/op/op.h"
#include "relax/runtime/tensor_io.h"
#include "relax/support/diagnostic.h"

namespace relax::onnx_frontend {

// ---- Attributes.

const onnx::AttributeProto* find_attr(const onnx::NodeProto& node, const std::string& name) {
  for (const auto& a : node.attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

int64_t attr_int(const onnx::NodeProto& node, const std::string& name, int64_t default_value) {
  const auto* a = find_attr(node, name);
  return a ? a->i() : default_value;
}

double attr_float(const onnx::NodeProto& node, const std::string& name, double default_value) {
  const auto* a = find_attr(node, name);
  return a ? double(a->f()) : default_value;
}

std::string attr_string(const onnx::NodeProto& node, const std::string& name,
                        const std::string& default_value) {
  const auto* a = find_attr(node, name);
  return a ? a->s() : default_value;
}

std::optional<std::vector<int64_t>> attr_ints(const onnx::NodeProto& node, const std::string& name) {
  const auto* a = find_attr(node, name);
  if (!a) return std::nullopt;
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

std::optional<std::vector<double>> attr_floats(const onnx::NodeProto& node, const std::string& name) {
  const auto* a = find_attr(node, name);
  if (!a) return std::nullopt;
  return std::vector<double>(a->floats().begin(), a->floats().end());
}

// ---- Tensors and types.

bool is_integer_elem_type(int32_t elem_type) {
  switch (elem_type) {
    case onnx::TensorProto::INT64: case onnx::TensorProto::INT32: case onnx::TensorProto::INT16:
    case onnx::TensorProto::INT8: case onnx::TensorProto::UINT64: case onnx::TensorProto::UINT32:
    case onnx::TensorProto::UINT16: case onnx::TensorProto::UINT8:
      return true;
    default:
      return false;
  }
}

DataType dtype_of(int32_t elem_type, const std::string& where) {
  using T = onnx::TensorProto;
  switch (elem_type) {
    case T::FLOAT: return DataType::Float(32);
    case T::DOUBLE: return DataType::Float(64);
    case T::FLOAT16: return DataType::Float(16);
    case T::BFLOAT16: return DataType::BFloat(16);
    case T::INT8: return DataType::Int(8);
    case T::INT16: return DataType::Int(16);
    case T::INT32: return DataType::Int(32);
    case T::INT64: return DataType::Int(64);
    case T::UINT8: return DataType::UInt(8);
    case T::UINT16: return DataType::UInt(16);
    case T::UINT32: return DataType::UInt(32);
    case T::UINT64: return DataType::UInt(64);
    case T::BOOL: return DataType::Bool();
    default: break;
  }
  std::string name = T::DataType_IsValid(elem_type)
                         ? T::DataType_Name(static_cast<T::DataType>(elem_type))
                         : "element type " + std::to_string(elem_type);
  RX_THROW() << where << ": " << name << " tensors are not supported";
}

namespace {

/// The bytes of a tensor stored outside the model (ONNX external data): the `location` file,
/// relative to the model's directory, from `offset` (default 0) for `length` bytes (default:
/// to the end of the file), which must be `expected_bytes` long: checked before reading.
std::string read_external_data(const onnx::TensorProto& t, const std::string& what,
                               const std::string& base_dir, int64_t expected_bytes) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (const auto& e : t.external_data()) {
    auto number = [&](const char* key) {
      char* end = nullptr;
      long long v = std::strtoll(e.value().c_str(), &end, 10);
      RX_CHECK(!e.value().empty() && *end == '\0' && v >= 0)
          << what << ": external data " << key << " '" << e.value()
          << "' is not a non-negative integer";
      return int64_t(v);
    };
    if (e.key() == "location") location = e.value();
    else if (e.key() == "offset") offset = number("offset");
    else if (e.key() == "length") length = number("length");
  }
  RX_CHECK(!location.empty()) << what << " keeps its data in an external file but names none "
                              << "(no 'location' entry)";
  std::filesystem::path path = std::filesystem::path(base_dir) / location;
  std::error_code ec;
  RX_CHECK(std::filesystem::is_regular_file(path, ec))
      << what << ": cannot open its external data file '" << location << "' ("
      << path.string() << "): no such file; expected it relative to the model's directory";
  std::ifstream in(path, std::ios::binary);
  RX_CHECK(in) << what << ": cannot open its external data file " << path.string();
  in.seekg(0, std::ios::end);
  int64_t size = int64_t(in.tellg());
  RX_CHECK(size >= 0) << what << ": cannot read the size of its external data file "
                      << path.string();
  if (length < 0) length = std::max<int64_t>(size - offset, 0);
  RX_CHECK(offset <= size && length <= size - offset)
      << what << ": its external data file " << path.string() << " has " << size
      << " bytes; the tensor needs " << length << " from offset " << offset;
  RX_CHECK(length == expected_bytes)
      << what << ": its external data in " << path.string() << " is " << length
      << " bytes (offset " << offset << "); its shape and dtype need " << expected_bytes;
  std::string bytes(size_t(length), '\0');
  in.seekg(offset);
  in.read(bytes.data(), length);
  RX_CHECK(in) << what << ": error reading its external data file " << path.string();
  return bytes;
}

}  // namespace

runtime::NDArray tensor_from_proto(const onnx::TensorProto& t, const std::string& where,
                                   const std::string& base_dir) {
  std::string what = where + ": tensor '" + t.name() + "'";
  DataType dt = dtype_of(t.data_type(), what);
  std::vector<int64_t> shape(t.dims().begin(), t.dims().end());
  // The element count and byte size with overflow checks, then checked against the data the
  // file actually holds, all before anything is allocated (a 100-byte model must not reserve
  // gigabytes because its dims say so).
  auto shape_text = [&] {
    std::ostringstream os;
    os << "(";
    for (size_t i = 0; i < shape.size(); ++i) os << (i ? ", " : "") << shape[i];
    os << (shape.size() == 1 ? ",)" : ")");
    return os.str();
  };
  for (int64_t d : shape) {
    RX_CHECK(d >= 0) << what << " has a negative dimension " << d << " in its shape "
                     << shape_text();
  }
  int64_t n = 1;
  for (int64_t d : shape) {
    RX_CHECK(!__builtin_mul_overflow(n, d, &n))
        << what << ": its shape " << shape_text() << " is too large (the product of its dims "
        << "overflows int64)";
  }
  int64_t elem_bytes = int64_t(dt.bytes());
  int64_t nbytes = 0;
  RX_CHECK(!__builtin_mul_overflow(n, elem_bytes, &nbytes))
      << what << ": its shape " << shape_text() << " of " << dt.to_string()
      << " is too large (its size in bytes overflows int64)";
  if (t.data_location() == onnx::TensorProto::EXTERNAL) {
    std::string bytes = read_external_data(t, what, base_dir, nbytes);
    runtime::NDArray a = runtime::NDArray::empty(shape, dt);
    if (n) std::memcpy(a.data(), bytes.data(), bytes.size());
    return a;
  }
  if (t.has_raw_data()) {
    RX_CHECK(int64_t(t.raw_data().size()) == nbytes)
        << what << " has " << t.raw_data().size() << " bytes of raw data; its shape "
        << shape_text() << " of " << dt.to_string() << " needs " << nbytes
        << " (a truncated file?)";
    runtime::NDArray a = runtime::NDArray::empty(shape, dt);
    if (n) std::memcpy(a.data(), t.raw_data().data(), size_t(nbytes));
    return a;
  }
  using T = onnx::TensorProto;
  int64_t count = 0;
  const char* field = "int32_data";  // int32 and every narrower type (float16 as bits)
  switch (t.data_type()) {
    case T::FLOAT: count = t.float_data_size(), field = "float_data"; break;
    case T::DOUBLE: count = t.double_data_size(), field = "double_data"; break;
    case T::INT64: count = t.int64_data_size(), field = "int64_data"; break;
    case T::UINT32:
    case T::UINT64: count = t.uint64_data_size(), field = "uint64_data"; break;
    default: count = t.int32_data_size(); break;
  }
  RX_CHECK(count == n) << what << " has " << count << " values in " << field << "; its shape "
                       << shape_text() << " needs " << n;
  runtime::NDArray a = runtime::NDArray::empty(shape, dt);
  switch (t.data_type()) {
    case T::FLOAT:
      std::copy(t.float_data().begin(), t.float_data().end(), a.data_as<float>());
      break;
    case T::DOUBLE:
      std::copy(t.double_data().begin(), t.double_data().end(), a.data_as<double>());
      break;
    case T::INT64:
      std::copy(t.int64_data().begin(), t.int64_data().end(), a.data_as<int64_t>());
      break;
    case T::UINT32:
    case T::UINT64:
      for (int64_t k = 0; k < n; ++k) {
        uint64_t v = t.uint64_data(int(k));
        if (dt.bits == 32) a.data_as<uint32_t>()[k] = uint32_t(v);
        else a.data_as<uint64_t>()[k] = v;
      }
      break;
    default:  // int32_data holds int32 and every narrower type (float16 as bits)
      for (int64_t k = 0; k < n; ++k) {
        int32_t v = t.int32_data(int(k));
        switch (dt.bits) {
          case 1:
          case 8: a.data_as<uint8_t>()[k] = uint8_t(v); break;
          case 16: a.data_as<uint16_t>()[k] = uint16_t(v); break;
          default: a.data_as<int32_t>()[k] = v; break;
        }
      }
      break;
  }
  return a;
}

void attach_known(OnnxValue& v, const runtime::NDArray& a) {
  DataType dt = a.dtype();
  if (!dt.is_integer_like() || a.shape().size() > 1 || a.numel() > 64) return;
  std::vector<PrimExpr> known;
  for (int64_t i = 0; i < a.numel(); ++i) {
    int64_t x = 0;
    switch (dt.bits) {
      case 8: x = dt.is_int() ? a.data_as<int8_t>()[i] : a.data_as<uint8_t>()[i]; break;
      case 16: x = dt.is_int() ? a.data_as<int16_t>()[i] : a.data_as<uint16_t>()[i]; break;
      case 32: x = dt.is_int() ? a.data_as<int32_t>()[i] : a.data_as<uint32_t>()[i]; break;
      case 64: x = a.data_as<int64_t>()[i]; break;
      default: return;
    }
    known.push_back(tir::int_imm(x));
  }
  v.known = std::move(known);
  v.known_scalar = a.shape().empty();
  v.known_dtype = dt;
}

namespace {

/// `value` as integer type I, saturating: out-of-range values clamp to I's limits and NaN
/// becomes 0 (a plain conversion of those is undefined behaviour; ONNX leaves them unspecified
/// for Cast, and saturates in its own saturating conversions).
template <typename I>
I saturate_cast(double value) {
  if (std::isnan(value)) return I(0);
  if (value < double(std::numeric_limits<I>::min())) return std::numeric_limits<I>::min();
  if (value >= std::ldexp(1.0, std::numeric_limits<I>::digits)) return std::numeric_limits<I>::max();
  return I(value);
}

}  // namespace

Expr scalar_constant(double value, DataType dtype) {
  runtime::NDArray a = runtime::NDArray::empty({}, dtype);
  if (dtype == DataType::Float(32)) *a.data_as<float>() = float(value);
  else if (dtype == DataType::Float(64)) *a.data_as<double>() = value;
  else if (dtype == DataType::Int(64)) *a.data_as<int64_t>() = saturate_cast<int64_t>(value);
  else if (dtype == DataType::Int(32)) *a.data_as<int32_t>() = saturate_cast<int32_t>(value);
  else if (dtype == DataType::Int(16)) *a.data_as<int16_t>() = saturate_cast<int16_t>(value);
  else if (dtype == DataType::Int(8)) *a.data_as<int8_t>() = saturate_cast<int8_t>(value);
  else if (dtype == DataType::UInt(8)) *a.data_as<uint8_t>() = saturate_cast<uint8_t>(value);
  else if (dtype.is_bool()) *a.data_as<uint8_t>() = value != 0;  // as ONNX Cast to bool
  else RX_THROW() << "a scalar constant of " << dtype.to_string() << " is not supported";
  return make_constant(a);
}

DataType float_dtype(Context& ctx, const onnx::NodeProto& node, const Expr& x) {
  DataType dt = ctx.tensor(node, x).dtype;
  RX_CHECK(dt.is_float()) << ctx.where(node) << ": expected a floating-point input, got "
                          << dt.to_string();
  return dt;
}

int64_t normalize_axis(int64_t axis, int64_t ndim, const std::string& where) {
  RX_CHECK(axis >= -ndim && axis < ndim)
      << where << ": axis " << axis << " is out of range for rank " << ndim;
  return axis < 0 ? axis + ndim : axis;
}

std::string binding_name(const std::string& name) {
  std::string out;
  for (char c : name) {
    bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    if (ok) out += c;
    else if (!out.empty() && out.back() != '_') out += '_';
  }
  while (!out.empty() && out.back() == '_' && name.back() != '_') out.pop_back();
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out = "v_" + out;
  return out;
}

}  // namespace relax::onnx_frontend
