// Shape builtins: match_shape and make_shape over the int64 shape heap (RFC §4.3 C1), and
// the argument checks whose messages name the parameter and both the expected and actual
// shapes and dtypes.
#include <cstring>
#include <sstream>

#include "builtins_internal.h"
#include "relax/runtime/builtins.h"
#include "relax/support/diagnostic.h"

namespace relax::runtime::builtin {

namespace {

/// The heap argument: a 1-d int64 CPU tensor (or null when no slot is used).
struct ShapeHeap {
  int64_t* data = nullptr;
  int64_t size = 0;

  ShapeHeap(std::string_view builtin, const Value& v) {
    if (v.is_null()) return;
    RX_CHECK(v.is(ValueKind::kTensor))
        << "vm.builtin." << builtin << ": the shape heap must be a tensor, got " << v.describe();
    NDArray t = v.as_tensor();
    RX_CHECK(t.dtype() == DataType::Int(64) && t.ndim() == 1 && t.device().device_type == kDLCPU &&
             t.is_contiguous())
        << "vm.builtin." << builtin << ": the shape heap must be a 1-d int64 CPU tensor, got "
        << v.describe();
    data = t.data_as<int64_t>();
    size = t.shape()[0];
  }
  int64_t& at(std::string_view builtin, int64_t index) const {
    RX_CHECK(index >= 0 && index < size) << "vm.builtin." << builtin << ": shape heap slot "
                                         << index << " is outside the heap of " << size;
    return data[index];
  }
};

/// The dimensions of a tensor or shape value; `what` says what is matched, for messages.
std::vector<int64_t> dims_of(const Value& v, const std::string& err_ctx) {
  if (v.is(ValueKind::kTensor)) return v.as_tensor().shape();
  if (v.is(ValueKind::kShape)) return v.as_shape().dims();
  RX_THROW() << err_ctx << ": expected a tensor or a shape, got " << v.describe();
  __builtin_unreachable();
}

int64_t checked_ndim(std::string_view builtin, Args args, size_t ndim_index, size_t fixed_args) {
  int64_t ndim = int_arg(builtin, args, ndim_index, "ndim");
  RX_CHECK(ndim >= 0 && uint64_t(ndim) <= (args.size() - fixed_args) / 2 &&
           args.size() == fixed_args + 2 * size_t(ndim))
      << "vm.builtin." << builtin << ": ndim " << ndim << " does not match the " << args.size()
      << " arguments (expected " << fixed_args << " + 2 × ndim)";
  return ndim;
}

std::string kind_and_shape(const Value& v) {
  std::ostringstream os;
  if (v.is(ValueKind::kTensor)) {
    NDArray t = v.as_tensor();
    os << "a tensor of shape " << shape_to_string(t.shape()) << " and dtype "
       << t.dtype().to_string();
  } else {
    os << v.describe();
  }
  return os.str();
}

/// vm.builtin.match_shape(value, heap, ndim, (mode, v) × ndim, err_ctx)
Value match_shape(Args args) {
  constexpr std::string_view kName = "match_shape";
  check_num_args("vm.builtin.match_shape", args, 4, size_t(-1));
  int64_t ndim = checked_ndim(kName, args, 2, 4);
  const std::string& err_ctx = string_arg(kName, args, args.size() - 1, "error context");
  std::vector<int64_t> dims = dims_of(args[0], err_ctx);
  ShapeHeap heap(kName, args[1]);
  RX_CHECK(int64_t(dims.size()) == ndim)
      << err_ctx << ": expected rank " << ndim << ", got " << kind_and_shape(args[0]);
  // The expected shape as known so far, for the message of a mismatch.
  auto expected_shape = [&](size_t upto_exclusive) {
    std::vector<std::string> parts;
    for (size_t j = 0; j < dims.size(); ++j) {
      const Value& mode_value = args[3 + 2 * j];
      const Value& v_value = args[4 + 2 * j];
      if (!mode_value.is(ValueKind::kInt) || !v_value.is(ValueKind::kInt)) {
        parts.push_back("_");
        continue;
      }
      auto mode = MatchShapeMode(mode_value.as_int());
      int64_t v = v_value.as_int();
      if (mode == MatchShapeMode::kAssertEqualToImm) {
        parts.push_back(std::to_string(v));
      } else if (mode == MatchShapeMode::kAssertEqualToLoad && v >= 0 && v < heap.size) {
        parts.push_back(std::to_string(heap.data[v]));
      } else {
        parts.push_back(j < upto_exclusive ? std::to_string(dims[j]) : "_");
      }
    }
    std::string s = "(";
    for (size_t j = 0; j < parts.size(); ++j) s += (j ? ", " : "") + parts[j];
    return s + (parts.size() == 1 ? ",)" : ")");
  };
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t mode = int_arg(kName, args, 3 + 2 * i, "mode");
    int64_t v = int_arg(kName, args, 4 + 2 * i, "value");
    int64_t expected = 0;
    switch (MatchShapeMode(mode)) {
      case MatchShapeMode::kNoOp:
        continue;
      case MatchShapeMode::kStoreToHeap:
        heap.at(kName, v) = dims[i];
        continue;
      case MatchShapeMode::kAssertEqualToImm:
        expected = v;
        break;
      case MatchShapeMode::kAssertEqualToLoad:
        expected = heap.at(kName, v);
        break;
      default:
        RX_THROW() << "vm.builtin.match_shape: unknown mode " << mode << " for dimension " << i;
    }
    RX_CHECK(dims[i] == expected) << err_ctx << ": dimension " << i << " is " << dims[i] << " but "
                                  << expected << " was expected; expected shape "
                                  << expected_shape(i) << ", actual shape "
                                  << shape_to_string(dims);
  }
  return {};
}

/// vm.builtin.make_shape(heap, ndim, (mode, v) × ndim)
Value make_shape(Args args) {
  constexpr std::string_view kName = "make_shape";
  check_num_args("vm.builtin.make_shape", args, 2, size_t(-1));
  int64_t ndim = checked_ndim(kName, args, 1, 2);
  ShapeHeap heap(kName, args[0]);
  std::vector<int64_t> dims(static_cast<size_t>(ndim));
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t mode = int_arg(kName, args, 2 + 2 * i, "mode");
    int64_t v = int_arg(kName, args, 3 + 2 * i, "value");
    switch (MakeShapeMode(mode)) {
      case MakeShapeMode::kUseImm:
        dims[i] = v;
        break;
      case MakeShapeMode::kLoadShape:
        dims[i] = heap.at(kName, v);
        break;
      default:
        RX_THROW() << "vm.builtin.make_shape: unknown mode " << mode << " for dimension " << i;
    }
  }
  return Shape(std::move(dims));
}

/// vm.builtin.check_tensor_info(value, ndim, dtype, err_ctx)
Value check_tensor_info(Args args) {
  constexpr std::string_view kName = "check_tensor_info";
  check_num_args("vm.builtin.check_tensor_info", args, 4);
  int64_t ndim = int_arg(kName, args, 1, "ndim");
  std::string dtype_text = args[2].is_null() ? "" : string_arg(kName, args, 2, "dtype");
  const std::string& err_ctx = string_arg(kName, args, 3, "error context");
  const Value& v = args[0];
  auto expected = [&] {
    std::ostringstream os;
    os << "a tensor";
    if (ndim >= 0) os << " of rank " << ndim;
    if (!dtype_text.empty()) os << (ndim >= 0 ? " and" : " of") << " dtype " << dtype_text;
    return os.str();
  };
  RX_CHECK(v.is(ValueKind::kTensor))
      << err_ctx << ": expected " << expected() << ", got " << v.describe();
  NDArray t = v.as_tensor();
  RX_CHECK(ndim < 0 || t.ndim() == ndim)
      << err_ctx << ": expected " << expected() << ", got " << kind_and_shape(v);
  if (!dtype_text.empty()) {
    auto dt = DataType::parse(dtype_text);
    RX_CHECK(dt.has_value()) << "vm.builtin.check_tensor_info: unknown dtype \"" << dtype_text
                             << "\"";
    RX_CHECK(t.dtype() == *dt) << err_ctx << ": expected " << expected() << ", got "
                               << kind_and_shape(v);
  }
  return {};
}

/// vm.builtin.check_shape_info(value, ndim, err_ctx)
Value check_shape_info(Args args) {
  check_num_args("vm.builtin.check_shape_info", args, 3);
  int64_t ndim = int_arg("check_shape_info", args, 1, "ndim");
  const std::string& err_ctx = string_arg("check_shape_info", args, 2, "error context");
  const Value& v = args[0];
  RX_CHECK(v.is(ValueKind::kShape))
      << err_ctx << ": expected a shape" << (ndim >= 0 ? " of rank " + std::to_string(ndim) : "")
      << ", got " << kind_and_shape(v);
  RX_CHECK(ndim < 0 || int64_t(v.as_shape().size()) == ndim)
      << err_ctx << ": expected a shape of rank " << ndim << ", got " << v.describe();
  return {};
}

/// vm.builtin.check_tuple_info(value, size, err_ctx)
Value check_tuple_info(Args args) {
  check_num_args("vm.builtin.check_tuple_info", args, 3);
  int64_t size = int_arg("check_tuple_info", args, 1, "size");
  const std::string& err_ctx = string_arg("check_tuple_info", args, 2, "error context");
  const Value& v = args[0];
  RX_CHECK(v.is(ValueKind::kTuple))
      << err_ctx << ": expected a tuple of " << size << " fields, got " << kind_and_shape(v);
  RX_CHECK(int64_t(v.as_tuple().size()) == size) << err_ctx << ": expected a tuple of " << size
                                                 << " fields, got one of " << v.as_tuple().size();
  return {};
}

/// Element `p` of a signed (S) or unsigned (U) integer tensor as int64.
template <class S, class U>
int64_t read_int(const char* p, bool is_signed) {
  return is_signed ? int64_t(*reinterpret_cast<const S*>(p)) : int64_t(*reinterpret_cast<const U*>(p));
}

/// The elements of an integer or bool CPU tensor as "[1, 2]" (a scalar as "3").
std::string int_elements(const NDArray& t) {
  DataType dt = t.dtype();
  auto at = [&](int64_t i) -> int64_t {
    const char* p = static_cast<const char*>(t.data()) + i * dt.bytes();
    switch (dt.bytes()) {
      case 1: return read_int<int8_t, uint8_t>(p, dt.is_int());
      case 2: return read_int<int16_t, uint16_t>(p, dt.is_int());
      case 4: return read_int<int32_t, uint32_t>(p, dt.is_int());
      default: return read_int<int64_t, uint64_t>(p, dt.is_int());
    }
  };
  if (t.ndim() == 0) return std::to_string(at(0));
  std::ostringstream os;
  os << "[";
  for (int64_t i = 0; i < t.numel(); ++i) os << (i ? ", " : "") << at(i);
  os << "]";
  return os.str();
}

/// vm.builtin.check_tensor_value(value, expected, err_ctx): `value` equals the integer tensor
/// `expected` (dtype, shape and elements), the guard of a program specialised on an input's
/// value at compile time.
Value check_tensor_value(Args args) {
  constexpr std::string_view kName = "check_tensor_value";
  check_num_args("vm.builtin.check_tensor_value", args, 3);
  NDArray want = tensor_arg(kName, args, 1, "expected value");
  const std::string& err_ctx = string_arg(kName, args, 2, "error context");
  RX_CHECK(args[0].is(ValueKind::kTensor))
      << err_ctx << ": expected the tensor " << int_elements(want) << ", got "
      << args[0].describe();
  NDArray got = args[0].as_tensor();
  RX_CHECK(got.device().device_type == kDLCPU && got.is_contiguous())
      << "vm.builtin.check_tensor_value: needs a contiguous CPU tensor";
  bool same = got.dtype() == want.dtype() && got.shape() == want.shape() &&
              std::memcmp(got.data(), want.data(), size_t(got.numel() * got.dtype().bytes())) == 0;
  RX_CHECK(same) << err_ctx << ": the program was specialised to the value " << int_elements(want)
                 << " (" << want.dtype().to_string() << ") but got " << int_elements(got) << " ("
                 << got.dtype().to_string() << "); compile again with this value";
  return {};
}

}  // namespace

void register_shape_builtins() {
  define("match_shape", match_shape);
  define("make_shape", make_shape);
  define("check_tensor_info", check_tensor_info);
  define("check_shape_info", check_shape_info);
  define("check_tuple_info", check_tuple_info);
  define("check_tensor_value", check_tensor_value);
}

}  // namespace relax::runtime::builtin
