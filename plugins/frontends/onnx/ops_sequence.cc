// ONNX converters for sequences: SequenceEmpty, SequenceConstruct, SequenceAt, SequenceInsert,
// SequenceErase, SequenceLength, SplitToSequence and ConcatFromSequence.
//
// A sequence is represented at import as the list of its elements (OnnxValue::sequence, Relax
// tensors), its Relax value being their tuple. That covers what exporters write: lists built
// and consumed inside the graph, with positions and split sizes known at import (constants, or
// graph inputs specialised with value.NAME=FILE). Where the number of elements would depend on
// run-time data (a position computed from an input, a split of a dimension whose size is
// symbolic) the converter says so, naming the node. A value of tuple type from elsewhere (an
// If's output) is read as a sequence of its fields. Sequence-typed graph inputs are not
// supported (the importer refuses non-tensor graph inputs).
//
// Semantics (ONNX opset 11+): positions may be negative (counting from the end); Insert accepts
// a position in [-n, n] (default: append), At and Erase one in [-n, n-1] (Erase's default: the
// last element). SplitToSequence splits along `axis` into pieces of size 1 (squeezed unless
// keepdims=1, the default) when `split` is absent, pieces of `split` elements (the last one
// smaller) for a scalar `split`, or the given sizes for a 1-D `split`. ConcatFromSequence
// concatenates along `axis`, or with new_axis=1 stacks along a new axis `axis` (which may then
// be in [-r-1, r]).
#include "importer.h"
#include "relax/op/op.h"
#include "relax/support/diagnostic.h"

namespace relax::onnx_frontend {

namespace {

using Node = onnx::NodeProto;

/// A sequence value from its elements.
OnnxValue sequence_value(std::vector<Expr> elems, DataType dtype) {
  OnnxValue v;
  v.expr = make_tuple(elems);
  v.sequence = std::move(elems);
  v.sequence_dtype = dtype;
  return v;
}

/// The dtype of a sequence's elements (the first one's, else `fallback`).
DataType elem_dtype(Context& ctx, const Node& node, const std::vector<Expr>& elems,
                    DataType fallback) {
  if (elems.empty()) return fallback;
  return ctx.tensor(node, elems[0]).dtype;
}

/// Input `i` of `node` as a sequence: a sequence built in the graph, or a value of tuple type
/// with known fields; an error naming the node otherwise.
std::pair<std::vector<Expr>, DataType> seq_input(Context& ctx, const Node& node, int i) {
  RX_CHECK(Context::has_input(node, i)) << ctx.where(node) << ": input " << i
                                        << " (the sequence) is required";
  const OnnxValue& v = ctx.value(node.input(i));
  if (v.sequence) return {*v.sequence, v.sequence_dtype};
  if (v.expr.defined()) {
    if (const auto* t = get_struct_info(v.expr).as<TupleStructInfo>()) {
      std::vector<Expr> elems;
      for (size_t k = 0; k < t->fields.size(); ++k)
        elems.push_back(ctx.bb().emit(make_ref<TupleGetItem>(v.expr, int(k))));
      return {elems, elem_dtype(ctx, node, elems, DataType::Float(32))};
    }
  }
  RX_THROW() << ctx.where(node) << ": input '" << node.input(i)
             << "' is not a sequence (expected a value built by SequenceConstruct, "
             << "SequenceEmpty, SequenceInsert, SequenceErase or SplitToSequence)";
}

/// The position input `i` (a scalar integer known at import), normalised against `n` elements:
/// in [-n, n] when `insert`, else in [-n, n-1].
int64_t position(Context& ctx, const Node& node, int i, int64_t n, bool insert) {
  std::vector<int64_t> p = ctx.const_ints(node, i, "the position");
  RX_CHECK(p.size() == 1) << ctx.where(node) << ": the position (input '" << node.input(i)
                          << "') must hold one value, got " << p.size();
  int64_t hi = insert ? n : n - 1;
  RX_CHECK(p[0] >= -n && p[0] <= hi)
      << ctx.where(node) << ": position " << p[0] << " is out of range for a sequence of " << n
      << " elements (expected a value in [" << -n << ", " << hi << "])";
  return p[0] < 0 ? p[0] + n : p[0];
}

std::vector<OnnxValue> convert_sequence_empty(Context& ctx, const Node& node) {
  DataType dt = dtype_of(int32_t(attr_int(node, "dtype", onnx::TensorProto::FLOAT)),
                         ctx.where(node));
  return {sequence_value({}, dt)};
}

std::vector<OnnxValue> convert_sequence_construct(Context& ctx, const Node& node) {
  RX_CHECK(node.input_size() >= 1) << ctx.where(node) << ": needs at least one input";
  std::vector<Expr> elems;
  for (int i = 0; i < node.input_size(); ++i) elems.push_back(ctx.input(node, i));
  DataType dt = ctx.tensor(node, elems[0]).dtype;
  for (size_t k = 1; k < elems.size(); ++k) {
    DataType d = ctx.tensor(node, elems[k]).dtype;
    RX_CHECK(d == dt) << ctx.where(node) << ": input " << k << " ('" << node.input(int(k))
                      << "') is " << d.to_string() << " but input 0 is " << dt.to_string()
                      << " (a sequence holds one dtype)";
  }
  return {sequence_value(std::move(elems), dt)};
}

std::vector<OnnxValue> convert_sequence_at(Context& ctx, const Node& node) {
  auto [elems, dt] = seq_input(ctx, node, 0);
  RX_CHECK(!elems.empty()) << ctx.where(node) << ": the sequence '" << node.input(0)
                           << "' is empty";
  int64_t p = position(ctx, node, 1, int64_t(elems.size()), false);
  // Bound under the output's name (a graph output must not be a value of another block).
  return {Context::tensor_value(ctx.emit(elems[size_t(p)], node))};
}

std::vector<OnnxValue> convert_sequence_insert(Context& ctx, const Node& node) {
  auto [elems, dt] = seq_input(ctx, node, 0);
  Expr t = ctx.input(node, 1);
  DataType d = ctx.tensor(node, t).dtype;
  RX_CHECK(elems.empty() || d == dt)
      << ctx.where(node) << ": the tensor '" << node.input(1) << "' is " << d.to_string()
      << " but the sequence holds " << dt.to_string();
  int64_t n = int64_t(elems.size());
  int64_t p = Context::has_input(node, 2) ? position(ctx, node, 2, n, true) : n;
  elems.insert(elems.begin() + p, t);
  return {sequence_value(std::move(elems), d)};
}

std::vector<OnnxValue> convert_sequence_erase(Context& ctx, const Node& node) {
  auto [elems, dt] = seq_input(ctx, node, 0);
  RX_CHECK(!elems.empty()) << ctx.where(node) << ": the sequence '" << node.input(0)
                           << "' is empty";
  int64_t n = int64_t(elems.size());
  int64_t p = Context::has_input(node, 1) ? position(ctx, node, 1, n, false) : n - 1;
  elems.erase(elems.begin() + p);
  return {sequence_value(std::move(elems), dt)};
}

std::vector<OnnxValue> convert_sequence_length(Context& ctx, const Node& node) {
  auto [elems, dt] = seq_input(ctx, node, 0);
  return {Context::folded({tir::int_imm(int64_t(elems.size()))}, /*scalar=*/true)};
}

std::vector<OnnxValue> convert_split_to_sequence(Context& ctx, const Node& node) {
  Expr x = ctx.input(node, 0);
  const TensorStructInfo& ti = ctx.tensor(node, x);
  int64_t rank = ctx.ndim(node, x);
  RX_CHECK(rank >= 1) << ctx.where(node) << ": the input must have rank >= 1";
  int64_t axis = normalize_axis(attr_int(node, "axis", 0), rank, ctx.where(node));
  std::vector<PrimExpr> shape = ctx.shape_of(node, x, "SplitToSequence");
  const int64_t* dim = tir::as_const_int(shape[size_t(axis)]);
  std::vector<int64_t> sizes;
  bool squeeze = false;
  if (Context::has_input(node, 1)) {
    std::vector<int64_t> split = ctx.const_ints(node, 1, "split");
    const OnnxValue& sv = ctx.value(node.input(1));
    bool scalar = sv.expr.defined() ? ctx.tensor(node, sv.expr).ndim == 0 : sv.known_scalar;
    if (scalar) {
      RX_CHECK(split.size() == 1 && split[0] > 0)
          << ctx.where(node) << ": a scalar split must be a positive size";
      RX_CHECK(dim) << ctx.where(node) << ": splitting dim " << axis << " of size "
                    << tir::to_string(shape[size_t(axis)]) << " into pieces of " << split[0]
                    << " gives a number of elements known only at run time (not supported)";
      for (int64_t at = 0; at < *dim; at += split[0]) sizes.push_back(std::min(split[0], *dim - at));
    } else {
      int64_t total = 0;
      for (int64_t s : split) {
        RX_CHECK(s >= 0) << ctx.where(node) << ": split sizes must be >= 0, got " << s;
        total += s;
      }
      RX_CHECK(!dim || total == *dim)
          << ctx.where(node) << ": the split sizes add up to " << total << " but dim " << axis
          << " has size " << *dim;
      sizes = split;
    }
  } else {
    RX_CHECK(dim) << ctx.where(node) << ": splitting dim " << axis << " of size "
                  << tir::to_string(shape[size_t(axis)]) << " into its elements gives a number "
                  << "of sequence elements known only at run time (not supported)";
    sizes.assign(size_t(*dim), 1);
    squeeze = attr_int(node, "keepdims", 1) == 0;
  }
  RX_CHECK(!sizes.empty()) << ctx.where(node) << ": the split gives no elements";
  std::vector<Expr> elems;
  if (sizes.size() == 1) {
    elems.push_back(x);
  } else {
    std::vector<int64_t> indices;
    int64_t at = 0;
    for (size_t i = 0; i + 1 < sizes.size(); ++i) indices.push_back(at += sizes[i]);
    Expr parts = ctx.bb().emit(op::split(x, indices, axis));
    for (size_t k = 0; k < sizes.size(); ++k)
      elems.push_back(ctx.bb().emit(make_ref<TupleGetItem>(parts, int(k))));
  }
  if (squeeze) {
    for (Expr& e : elems) e = ctx.bb().emit(op::squeeze(e, std::vector<int64_t>{axis}));
  }
  return {sequence_value(std::move(elems), ti.dtype)};
}

std::vector<OnnxValue> convert_concat_from_sequence(Context& ctx, const Node& node) {
  auto [elems, dt] = seq_input(ctx, node, 0);
  RX_CHECK(!elems.empty()) << ctx.where(node) << ": the sequence '" << node.input(0)
                           << "' is empty (nothing to concatenate)";
  const auto* axis_attr = find_attr(node, "axis");
  RX_CHECK(axis_attr) << ctx.where(node) << ": the 'axis' attribute is required";
  bool new_axis = attr_int(node, "new_axis", 0) != 0;
  int64_t rank = ctx.ndim(node, elems[0]);
  int64_t axis = normalize_axis(axis_attr->i(), new_axis ? rank + 1 : rank, ctx.where(node));
  Expr out = new_axis ? op::stack(elems, axis) : op::concat(elems, axis);
  return {Context::tensor_value(ctx.emit(out, node))};
}

}  // namespace

void register_sequence_ops(std::map<std::string, ConverterEntry>& t) {
  t["SequenceEmpty"] = {convert_sequence_empty, 11};
  t["SequenceConstruct"] = {convert_sequence_construct, 11};
  t["SequenceAt"] = {convert_sequence_at, 11};
  t["SequenceInsert"] = {convert_sequence_insert, 11};
  t["SequenceErase"] = {convert_sequence_erase, 11};
  t["SequenceLength"] = {convert_sequence_length, 11};
  t["SplitToSequence"] = {convert_split_to_sequence, 11};
  t["ConcatFromSequence"] = {convert_concat_from_sequence, 11};
}

}  // namespace relax::onnx_frontend
