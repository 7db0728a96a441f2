// ONNX MaxPool with its second output, Indices (ops_nn.cc hands such nodes here).
//
// Composed from core ops, for inputs of static shape: the input is padded with the dtype's
// lowest value, and for every kernel offset a strided slice gives each window's candidate at
// that offset; a running maximum keeps the value and the flat index of the first strict
// maximum in the kernel's row-major order (the reference implementation's choice on ties).
// Indices are flat positions in the whole input, N and C included (values in
// [0, N*C*D1*...*Dn)): row-major, or with storage_order=1 column-major over the spatial axes
// ((n*C + c)*D1*...*Dn + d1 + D1*(d2 + D2*...)). Padding never wins (a window always holds at
// least one input element, which is >= the pad value). Output sizes follow MaxPool: floor
// ((D + pads - dilated kernel) / stride) + 1, or ceil with ceil_mode=1 where the last window
// must start inside the input or its begin padding.
#include <cmath>
#include <limits>

#include "importer.h"
#include "relax/op/op.h"
#include "relax/support/diagnostic.h"

namespace relax::onnx_frontend {

namespace {

using Node = onnx::NodeProto;

std::vector<int64_t> per_axis(const Node& node, const std::string& name, size_t dims,
                              int64_t fallback) {
  std::optional<std::vector<int64_t>> v = attr_ints(node, name);
  return v && !v->empty() ? *v : std::vector<int64_t>(dims, fallback);
}

/// The flat index of every element of a tensor of `shape` (row-major, or column-major over the
/// spatial axes), as an int64 constant of that shape.
Expr index_constant(const std::vector<int64_t>& shape, bool column_major) {
  runtime::NDArray a = runtime::NDArray::empty(shape, DataType::Int(64));
  int64_t spatial = 1;
  for (size_t d = 2; d < shape.size(); ++d) spatial *= shape[d];
  int64_t total = shape[0] * shape[1] * spatial;
  int64_t* out = a.data_as<int64_t>();
  std::vector<int64_t> pos(shape.size() - 2, 0);
  for (int64_t flat = 0; flat < total; ++flat) {
    int64_t nc = flat / spatial, rest = flat % spatial;
    if (!column_major) {
      out[flat] = flat;
      continue;
    }
    // Row-major position -> coordinates -> column-major spatial index.
    for (size_t d = shape.size(); d-- > 2;) {
      pos[d - 2] = rest % shape[d];
      rest /= shape[d];
    }
    int64_t cm = 0;
    for (size_t d = shape.size(); d-- > 2;) cm = cm * shape[d] + pos[d - 2];
    out[flat] = nc * spatial + cm;
  }
  return make_constant(a);
}

}  // namespace

std::vector<OnnxValue> convert_maxpool_indices(Context& ctx, const Node& node) {
  Expr x = ctx.input(node, 0);
  std::vector<PrimExpr> sym = ctx.shape_of(node, x, "MaxPool with Indices");
  std::vector<int64_t> shape;
  for (const PrimExpr& d : sym) {
    const int64_t* c = tir::as_const_int(d);
    RX_CHECK(c) << ctx.where(node) << ": the Indices output needs an input of static shape, got "
                << to_string(get_struct_info(x));
    shape.push_back(*c);
  }
  RX_CHECK(shape.size() >= 3 && shape.size() <= 5)
      << ctx.where(node) << ": 1-D, 2-D or 3-D pooling expected; the input has rank "
      << shape.size();
  size_t dims = shape.size() - 2;
  std::optional<std::vector<int64_t>> kernel = attr_ints(node, "kernel_shape");
  RX_CHECK(kernel && kernel->size() == dims)
      << ctx.where(node) << ": kernel_shape with " << dims << " values is required";
  std::vector<int64_t> strides = per_axis(node, "strides", dims, 1);
  std::vector<int64_t> dilations = per_axis(node, "dilations", dims, 1);
  std::vector<int64_t> pads = resolve_pads(ctx, node, x, *kernel, strides, dilations);
  bool ceil_mode = attr_int(node, "ceil_mode", 0) != 0;
  bool column_major = attr_int(node, "storage_order", 0) != 0;

  // Output sizes, and the padding that makes every window's slice fit.
  std::vector<int64_t> out(dims), pad_width(2 * (dims + 2), 0);
  for (size_t d = 0; d < dims; ++d) {
    int64_t extent = (*kernel)[d] - 1;
    extent = extent * dilations[d] + 1;
    int64_t span = shape[d + 2] + pads[d] + pads[d + dims] - extent;
    RX_CHECK(span >= 0 && strides[d] > 0)
        << ctx.where(node) << ": the kernel (" << extent << " with dilation) is larger than the "
        << "padded input along spatial axis " << d;
    out[d] = (ceil_mode ? (span + strides[d] - 1) / strides[d] : span / strides[d]) + 1;
    if (ceil_mode && (out[d] - 1) * strides[d] >= shape[d + 2] + pads[d]) --out[d];
    int64_t needed = (out[d] - 1) * strides[d] + extent;
    pad_width[d + 2] = pads[d];
    pad_width[d + 2 + dims + 2] = std::max<int64_t>(0, needed - shape[d + 2] - pads[d]);
  }
  DataType dt = ctx.tensor(node, x).dtype;
  double lowest = dt.is_float() ? -std::numeric_limits<double>::infinity()
                  : dt.is_uint() ? 0.0
                                 : -std::pow(2.0, dt.bits - 1);
  BlockBuilder& bb = ctx.bb();
  Expr xp = bb.emit(op::pad(x, pad_width, "constant", lowest));
  Expr ip = bb.emit(op::pad(index_constant(shape, column_major), pad_width, "constant", 0));

  std::vector<int64_t> axes, steps;
  for (size_t d = 0; d < dims; ++d) {
    axes.push_back(int64_t(d) + 2);
    steps.push_back(strides[d]);
  }
  Expr best, best_index;
  std::vector<int64_t> offset(dims, 0);
  while (true) {
    std::vector<int64_t> begin, end;
    for (size_t d = 0; d < dims; ++d) {
      begin.push_back(offset[d] * dilations[d]);
      end.push_back(begin.back() + (out[d] - 1) * strides[d] + 1);
    }
    Expr v = bb.emit(op::strided_slice(xp, axes, begin, end, steps));
    Expr i = bb.emit(op::strided_slice(ip, axes, begin, end, steps));
    if (!best.defined()) {
      best = v;
      best_index = i;
    } else {
      Expr wins = bb.emit(op::greater(v, best));
      best = bb.emit(op::where(wins, v, best));
      best_index = bb.emit(op::where(wins, i, best_index));
    }
    size_t d = dims;  // next offset, row-major over the kernel
    while (d > 0 && ++offset[d - 1] == (*kernel)[d - 1]) offset[--d] = 0;
    if (d == 0) break;
  }
  std::vector<OnnxValue> outs;
  outs.push_back(Context::tensor_value(ctx.emit(best, node, 0)));
  outs.push_back(Context::tensor_value(ctx.emit(best_index, node, 1)));
  return outs;
}

}  // namespace relax::onnx_frontend
