// Index checks of the gathers and scatters (Gather, GatherElements, GatherND, ScatterElements,
// Scatter, ScatterND): an index outside [-d, d) of its axis is an error naming the node, the
// index and its position (as ONNX Runtime reports it), never a read or write out of bounds.
// Constant indices against a static dimension are checked here, at import; the others at run
// time by vm.builtin.check_indices / check_nd_indices (runtime/builtins_index.cc), which
// return the indices they checked, so the check is ordered before the op inside the dataflow
// block. (OneHot defines out-of-range indices: their rows are all off_value.)
#include <sstream>

#include "importer.h"
#include "relax/runtime/index_position.h"
#include "relax/op/op.h"
#include "relax/support/diagnostic.h"

namespace relax::onnx_frontend {

namespace {

/// The static shape of `t`, or nullopt.
std::optional<std::vector<int64_t>> static_shape(const TensorStructInfo& t) {
  if (!t.shape) return std::nullopt;
  std::vector<int64_t> out;
  for (const PrimExpr& d : *t.shape) {
    const int64_t* c = tir::as_const_int(d);
    if (!c) return std::nullopt;
    out.push_back(*c);
  }
  return out;
}

}  // namespace

Expr checked_indices(Context& ctx, const onnx::NodeProto& node, int i, const Expr& x,
                     int64_t axis, bool nd) {
  Expr ind = ctx.input(node, i);
  const TensorStructInfo& is = ctx.tensor(node, ind);
  auto xshape = static_shape(ctx.tensor(node, x));
  auto ishape = static_shape(is);
  std::optional<std::vector<double>> values = ctx.const_floats(node, i);
  if (values && xshape && ishape) {
    int64_t m = nd ? (ishape->empty() ? 0 : ishape->back()) : 1;
    for (size_t k = 0; k < values->size(); ++k) {
      int64_t ax = nd ? axis + (m ? int64_t(k) % m : 0) : axis;
      if (ax < 0 || ax >= int64_t(xshape->size())) break;  // the op's inference reports it
      double d = double((*xshape)[size_t(ax)]), v = (*values)[k];
      RX_CHECK(v >= -d && v < d)
          << ctx.where(node) << ": index " << int64_t(v) << " at position "
          << runtime::index_position(*ishape, int64_t(k)) << " of the indices '" << node.input(i)
          << "' is out of range for axis " << ax << " of size " << int64_t(d) << " (expected "
          << -int64_t(d) << " <= index < " << int64_t(d) << ")";
    }
    return ind;
  }
  return ctx.bb().emit(op::call_pure_packed(
      nd ? "vm.builtin.check_nd_indices" : "vm.builtin.check_indices",
      {ind, x, make_prim_value(axis), make_string(ctx.where(node))}, {ind->struct_info}));
}

}  // namespace relax::onnx_frontend
