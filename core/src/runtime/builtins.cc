// register_builtins(), the argument helpers, and the small builtins: tuples, null, conditions,
// closures and print.
#include "relax/runtime/builtins.h"

#include <algorithm>
#include <cstring>
#include <iostream>
#include <mutex>
#include <sstream>

#include "builtins_internal.h"
#include "relax/runtime/device_api.h"
#include "relax/support/diagnostic.h"

namespace relax::runtime {

namespace builtin {

void define(std::string_view name, PackedFuncObj::Body body) {
  std::string full = "vm.builtin." + std::string(name);
  if (Registry::get(full).defined()) return;  // a user override wins
  Registry::register_func(full, PackedFunc(full, std::move(body)));
}

namespace {
template <class F>
decltype(auto) typed_arg(std::string_view builtin, Args args, size_t index, const char* what,
                         F&& get) {
  RX_CHECK(index < args.size()) << "vm.builtin." << builtin << ": missing argument " << index
                                << " (" << what << ")";
  try {
    return get(args[index]);
  } catch (const Error& e) {
    RX_THROW() << "vm.builtin." << builtin << ": argument " << index << " (" << what
               << "): " << e.message();
  }
  __builtin_unreachable();
}
}  // namespace

int64_t int_arg(std::string_view builtin, Args args, size_t index, const char* what) {
  return typed_arg(builtin, args, index, what, [](const Value& v) { return v.as_int(); });
}
const std::string& string_arg(std::string_view builtin, Args args, size_t index, const char* what) {
  return typed_arg(builtin, args, index, what,
                   [](const Value& v) -> const std::string& { return v.as_string(); });
}
NDArray tensor_arg(std::string_view builtin, Args args, size_t index, const char* what) {
  return typed_arg(builtin, args, index, what, [](const Value& v) { return v.as_tensor(); });
}
Shape shape_arg(std::string_view builtin, Args args, size_t index, const char* what) {
  return typed_arg(builtin, args, index, what, [](const Value& v) { return v.as_shape(); });
}

namespace {

/// Reads element `i` of a CPU tensor as a double (for print and read_if_cond).
double element_as_double(const NDArray& t, int64_t i) {
  DataType dt = t.dtype();
  const char* p = static_cast<const char*>(t.data());
  switch (dt.code) {
    case DataType::kInt:
      if (dt.bits == 8) return double(reinterpret_cast<const int8_t*>(p)[i]);
      if (dt.bits == 16) return double(reinterpret_cast<const int16_t*>(p)[i]);
      if (dt.bits == 32) return double(reinterpret_cast<const int32_t*>(p)[i]);
      if (dt.bits == 64) return double(reinterpret_cast<const int64_t*>(p)[i]);
      break;
    case DataType::kUInt:
      if (dt.bits == 1 || dt.bits == 8) return double(reinterpret_cast<const uint8_t*>(p)[i]);
      if (dt.bits == 16) return double(reinterpret_cast<const uint16_t*>(p)[i]);
      if (dt.bits == 32) return double(reinterpret_cast<const uint32_t*>(p)[i]);
      if (dt.bits == 64) return double(reinterpret_cast<const uint64_t*>(p)[i]);
      break;
    case DataType::kFloat:
      if (dt.bits == 32) return double(reinterpret_cast<const float*>(p)[i]);
      if (dt.bits == 64) return reinterpret_cast<const double*>(p)[i];
      break;
    default:
      break;
  }
  RX_THROW() << "cannot read elements of dtype " << dt.to_string();
  __builtin_unreachable();
}

}  // namespace

void print_value(std::ostream& os, const Value& v) {
  if (v.is(ValueKind::kTuple)) {
    Tuple t = v.as_tuple();
    os << "(";
    for (size_t i = 0; i < t.size(); ++i) {
      if (i) os << ", ";
      print_value(os, t[i]);
    }
    os << (t.size() == 1 ? ",)" : ")");
    return;
  }
  if (!v.is(ValueKind::kTensor)) {
    os << v.describe();
    return;
  }
  NDArray t = v.as_tensor();
  os << v.describe();
  if (t.device().device_type != kDLCPU || !t.is_contiguous() || t.dtype().lanes != 1) return;
  constexpr int64_t kMaxShown = 16;
  os << " [";
  for (int64_t i = 0; i < std::min(t.numel(), kMaxShown); ++i) {
    if (i) os << ", ";
    try {
      os << element_as_double(t, i);
    } catch (const Error&) {
      os << "?";
      break;
    }
  }
  os << (t.numel() > kMaxShown ? ", ...]" : "]");
}

void register_misc_builtins() {
  define("null_value", [](Args args) -> Value {
    check_num_args("vm.builtin.null_value", args, 0);
    return {};
  });
  define("make_tuple",
         [](Args args) -> Value { return Tuple(std::vector<Value>(args.begin(), args.end())); });
  define("tuple_getitem", [](Args args) -> Value {
    check_num_args("vm.builtin.tuple_getitem", args, 2);
    const Value& v = args[0];
    RX_CHECK(v.is(ValueKind::kTuple))
        << "vm.builtin.tuple_getitem: expected a tuple, got " << v.describe();
    Tuple t = v.as_tuple();
    int64_t index = int_arg("tuple_getitem", args, 1, "index");
    RX_CHECK(index >= 0 && index < int64_t(t.size()))
        << "vm.builtin.tuple_getitem: index " << index << " is out of range for a tuple of "
        << t.size();
    return t[size_t(index)];
  });
  define("read_if_cond", [](Args args) -> Value {
    check_num_args("vm.builtin.read_if_cond", args, 1);
    const Value& v = args[0];
    if (v.is(ValueKind::kInt) || v.is(ValueKind::kBool)) return v.as_int() != 0;
    RX_CHECK(v.is(ValueKind::kTensor))
        << "vm.builtin.read_if_cond: expected a bool, int or one-element tensor, got "
        << v.describe();
    NDArray t = v.as_tensor();
    RX_CHECK(t.numel() == 1) << "vm.builtin.read_if_cond: the condition tensor has " << t.numel()
                             << " elements";
    if (t.device().device_type != kDLCPU) t = t.copy_to(DLDevice{kDLCPU, 0});
    return element_as_double(t, 0) != 0;
  });
  // relax.nonzero (op/gather_scatter.cc): the int64 [ndim, count] indices of the non-zero
  // elements in row-major order (ONNX NonZero); its size is known only here, at run time.
  define("nonzero", [](Args args) -> Value {
    check_num_args("vm.builtin.nonzero", args, 1);
    NDArray t = tensor_arg("nonzero", args, 0, "tensor");
    RX_CHECK(t.device().device_type == kDLCPU && t.is_contiguous())
        << "vm.builtin.nonzero: needs a contiguous CPU tensor";
    std::vector<int64_t> hits;
    for (int64_t i = 0; i < t.numel(); ++i)
      if (element_as_double(t, i) != 0) hits.push_back(i);
    const std::vector<int64_t>& shape = t.shape();
    int64_t ndim = int64_t(shape.size()), count = int64_t(hits.size());
    NDArray out = NDArray::empty({ndim, count}, DataType::Int(64));
    int64_t* o = out.data_as<int64_t>();
    for (int64_t c = 0; c < count; ++c) {
      int64_t flat = hits[size_t(c)];
      for (int64_t d = ndim; d-- > 0;) {
        o[d * count + c] = flat % shape[size_t(d)];
        flat /= shape[size_t(d)];
      }
    }
    return out;
  });
  // relax.tensor_to_shape (op/manipulate.cc): the elements of a rank-1 integer tensor as a
  // Shape (values are not checked: a consumer such as reshape gives -1 and 0 their meaning,
  // and match_shape/alloc reject what is invalid for them).
  define("tensor_to_shape", [](Args args) -> Value {
    check_num_args("vm.builtin.tensor_to_shape", args, 1);
    NDArray t = tensor_arg("tensor_to_shape", args, 0, "tensor");
    DataType dt = t.dtype();
    RX_CHECK(t.device().device_type == kDLCPU && t.is_contiguous() && t.ndim() == 1 &&
             (dt.is_int() || dt.is_uint()))
        << "vm.builtin.tensor_to_shape: needs a contiguous rank-1 integer CPU tensor, got "
        << Value(t).describe();
    std::vector<int64_t> dims(size_t(t.numel()));
    for (int64_t i = 0; i < t.numel(); ++i) {
      if (dt.bits == 64) {
        uint64_t u = t.data_as<uint64_t>()[i];
        RX_CHECK(dt.is_int() || u <= uint64_t(INT64_MAX))
            << "vm.builtin.tensor_to_shape: element " << i << " (" << u << ") exceeds int64";
        dims[size_t(i)] = int64_t(u);
      } else {
        dims[size_t(i)] = int64_t(element_as_double(t, i));  // exact below 64 bits
      }
    }
    return Shape(std::move(dims));
  });
  // relax.unique (op/manipulate.cc): the distinct elements of a tensor, flattened; sorted
  // ascending when the second argument is true, else in order of first occurrence. Elements
  // compare as doubles (exact for every dtype but 64-bit integers beyond 2^53); NaNs are all
  // distinct, as in NumPy.
  define("unique", [](Args args) -> Value {
    check_num_args("vm.builtin.unique", args, 2);
    NDArray t = tensor_arg("unique", args, 0, "tensor");
    bool sorted = args[1].as_bool();
    RX_CHECK(t.device().device_type == kDLCPU && t.is_contiguous())
        << "vm.builtin.unique: needs a contiguous CPU tensor";
    std::vector<int64_t> order(size_t(t.numel()));
    for (int64_t i = 0; i < t.numel(); ++i) order[size_t(i)] = i;
    auto value = [&](int64_t i) { return element_as_double(t, i); };
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t a, int64_t b) { return value(a) < value(b); });
    std::vector<int64_t> firsts;  // the first occurrence of each distinct value
    for (size_t k = 0; k < order.size(); ++k) {
      if (k > 0 && value(order[k]) == value(order[k - 1])) continue;
      firsts.push_back(order[k]);
    }
    if (!sorted) std::sort(firsts.begin(), firsts.end());
    NDArray out = NDArray::empty({int64_t(firsts.size())}, t.dtype());
    size_t width = size_t(t.dtype().bytes());
    const char* src = static_cast<const char*>(t.data());
    char* dst = static_cast<char*>(out.data());
    for (size_t k = 0; k < firsts.size(); ++k)
      std::memcpy(dst + k * width, src + size_t(firsts[k]) * width, width);
    return out;
  });
  define("make_closure", [](Args args) -> Value {
    check_num_args("vm.builtin.make_closure", args, 1, size_t(-1));
    RX_CHECK(args[0].is(ValueKind::kFunction))
        << "vm.builtin.make_closure: expected a function, got " << args[0].describe();
    PackedFunc f = args[0].as_function();
    std::vector<Value> captured(args.begin() + 1, args.end());
    return PackedFunc("closure of " + f.name(), [f, captured](Args call_args) {
      std::vector<Value> all = captured;
      all.insert(all.end(), call_args.begin(), call_args.end());
      return f(Args(all));
    });
  });
  define("invoke_closure", [](Args args) -> Value {
    check_num_args("vm.builtin.invoke_closure", args, 1, size_t(-1));
    RX_CHECK(args[0].is(ValueKind::kFunction))
        << "vm.builtin.invoke_closure: expected a closure, got " << args[0].describe();
    return args[0].as_function()(args.subspan(1));
  });
  define("print", [](Args args) -> Value {
    std::ostringstream os;
    for (size_t i = 0; i < args.size(); ++i) {
      if (i) os << " ";
      if (args[i].is(ValueKind::kString)) {
        os << args[i].as_string();
      } else {
        print_value(os, args[i]);
      }
    }
    os << "\n";
    std::cout << os.str() << std::flush;
    return {};
  });
}

}  // namespace builtin

void register_builtins() {
  static std::once_flag once;
  std::call_once(once, [] {
    builtin::register_memory_builtins();
    builtin::register_shape_builtins();
    builtin::register_misc_builtins();
    builtin::register_vision_builtins();
    builtin::register_index_builtins();
    builtin::register_format_builtins();
  });
}

}  // namespace relax::runtime
