// Index checks run before gathers and scatters (the ONNX importer emits them for indices known
// only at run time, so that an out-of-range index is an error naming the node and the index
// instead of a read or write out of bounds):
//   vm.builtin.check_indices(indices, data, axis, err_ctx) -> indices
//       every element k of `indices` satisfies -d <= k < d, d = data.shape[axis]
//   vm.builtin.check_nd_indices(indices, data, batch_dims, err_ctx) -> indices
//       for GatherND/ScatterND: component j of each index tuple (the last axis of `indices`)
//       against d = data.shape[batch_dims + j]
// Both return `indices` itself (so the check orders before its user in a dataflow block) and
// throw relax::Error "<err_ctx>: index K at position [i, j] of the indices is out of range for
// axis A of size D (expected -D <= index < D)". Indices not on the CPU are not checked.
#include <sstream>

#include "builtins_internal.h"
#include "relax/runtime/index_position.h"
#include "relax/support/diagnostic.h"

namespace relax::runtime::builtin {

namespace {

/// Element `i` of an integer CPU tensor as int64.
int64_t index_at(const NDArray& t, int64_t i) {
  DataType dt = t.dtype();
  const char* p = static_cast<const char*>(t.data()) + i * dt.bytes();
  if (dt.is_int()) {
    switch (dt.bytes()) {
      case 1: return *reinterpret_cast<const int8_t*>(p);
      case 2: return *reinterpret_cast<const int16_t*>(p);
      case 4: return *reinterpret_cast<const int32_t*>(p);
      default: return *reinterpret_cast<const int64_t*>(p);
    }
  }
  switch (dt.bytes()) {
    case 1: return *reinterpret_cast<const uint8_t*>(p);
    case 2: return *reinterpret_cast<const uint16_t*>(p);
    case 4: return *reinterpret_cast<const uint32_t*>(p);
    default: return int64_t(*reinterpret_cast<const uint64_t*>(p));  // > INT64_MAX reads < 0
  }
}

struct IndexArgs {
  NDArray indices;
  std::vector<int64_t> data_shape;
  int64_t axis;
  std::string err_ctx;
};

IndexArgs index_args(std::string_view builtin, Args args) {
  check_num_args(std::string("vm.builtin.") + std::string(builtin), args, 4);
  IndexArgs a{tensor_arg(builtin, args, 0, "indices"),
              tensor_arg(builtin, args, 1, "data").shape(),
              int_arg(builtin, args, 2, "axis"), string_arg(builtin, args, 3, "error context")};
  RX_CHECK(a.indices.dtype().is_int() || a.indices.dtype().is_uint())
      << a.err_ctx << ": the indices must be integers, got " << a.indices.dtype().to_string();
  return a;
}

[[noreturn]] void out_of_range(const IndexArgs& a, int64_t flat, int64_t k, int64_t axis,
                              int64_t d) {
  RX_THROW() << a.err_ctx << ": index " << k << " at position "
             << index_position(a.indices.shape(), flat) << " of the indices is out of range for axis "
             << axis << " of size " << d
             << " (expected " << -d << " <= index < " << d << ")";
}

bool checkable(const NDArray& t) { return t.device().device_type == kDLCPU && t.is_contiguous(); }

Value check_indices(Args args) {
  IndexArgs a = index_args("check_indices", args);
  int64_t rank = int64_t(a.data_shape.size());
  RX_CHECK(a.axis >= 0 && a.axis < rank)
      << a.err_ctx << ": axis " << a.axis << " is outside the data's rank " << rank;
  if (!checkable(a.indices)) return args[0];
  int64_t d = a.data_shape[size_t(a.axis)];
  for (int64_t i = 0, n = a.indices.numel(); i < n; ++i) {
    int64_t k = index_at(a.indices, i);
    if (k < -d || k >= d) out_of_range(a, i, k, a.axis, d);
  }
  return args[0];
}

Value check_nd_indices(Args args) {
  IndexArgs a = index_args("check_nd_indices", args);
  const std::vector<int64_t>& s = a.indices.shape();
  int64_t rank = int64_t(a.data_shape.size());
  RX_CHECK(!s.empty() && a.axis >= 0 && a.axis + s.back() <= rank)
      << a.err_ctx << ": index tuples of " << (s.empty() ? 0 : s.back()) << " after " << a.axis
      << " batch dims do not fit the data's rank " << rank;
  if (!checkable(a.indices) || s.back() == 0) return args[0];
  int64_t m = s.back();
  for (int64_t i = 0, n = a.indices.numel(); i < n; ++i) {
    int64_t axis = a.axis + i % m, d = a.data_shape[size_t(axis)];
    int64_t k = index_at(a.indices, i);
    if (k < -d || k >= d) out_of_range(a, i, k, axis, d);
  }
  return args[0];
}

}  // namespace

void register_index_builtins() {
  define("check_indices", check_indices);
  define("check_nd_indices", check_nd_indices);
}

}  // namespace relax::runtime::builtin
