// The ONNX importer's internals, shared by the plugin's source files (never installed; the
// protobuf types stay inside the plugin).
//
// Import runs in two phases:
//  1. check_model (model_check.cc): the opset, every node's op against the converter table (all
//     unsupported ops reported in one error), every value defined exactly once, the nodes
//     sorted topologically (a cycle is an error naming its nodes). No IR is built before it
//     passes.
//  2. import_model (importer.cc): the graph, node by node in that order, through the
//     BlockBuilder into one dataflow block of function "main". Each ONNX value becomes an
//     OnnxValue: a Relax expression, and for small integer tensors (shapes, axes, indices)
//     also the elements known at import time as PrimExprs. Shape arithmetic (Shape ->
//     Gather -> Unsqueeze -> Concat -> Reshape) is folded on those, symbolic dims included, so
//     a dynamic-batch model needs no run-time shape computation.
//
// Values known only at run time (a graph input, or a tensor computed from one):
//  - used as a shape (Reshape's shape, Expand, ConstantOfShape, Tile's repeats, Resize's
//    sizes/scales, Range's bounds): Context::shape_ints computes the shape at run time with
//    relax.tensor_to_shape and R.match_cast names its dims with fresh symbolic variables, so the
//    program compiles once for every value;
//  - deciding a static property (axes, Trilu/TopK k, Split sizes, Pad pads, Slice bounds):
//    Context::const_ints uses the value the caller supplied for that graph input (frontend
//    option value.NAME=FILE; relax-driver compile --specialize NAME=FILE) and records it;
//    import_model then ends "main" with a vm.builtin.check_tensor_value guard per used value
//    (main becomes impure), failing with the input's name and both values when a run passes
//    another value. Without a supplied value the error names the option.
//
// Converters (ops_*.cc) are registered in one table (converter_table) with the opset range
// they implement; per-version semantics live inside each converter (ctx.opset).
#pragma once

#include <onnx/onnx_pb.h>

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "relax/ir/block_builder.h"
#include "relax/ir/expr.h"
#include "relax/op/nn.h"
#include "relax/runtime/ndarray.h"
#include "relax/transform/frontend.h"

namespace relax::onnx_frontend {

/// One ONNX value during import.
struct OnnxValue {
  /// The Relax value; null for a folded integer tensor not yet needed as a tensor.
  Expr expr;
  /// Elements known at import time (integer tensors of rank 0 or 1 only).
  std::optional<std::vector<PrimExpr>> known;
  /// With `known`: rank 0 (true) or rank 1.
  bool known_scalar = false;
  /// With `known`: the element type.
  DataType known_dtype = DataType::Int(64);
  /// An ONNX sequence (ops_sequence.cc): its elements, Relax tensors, whose number is known at
  /// import; `expr` is then their Relax tuple.
  std::optional<std::vector<Expr>> sequence;
  /// With `sequence`: the element dtype (SequenceEmpty's `dtype`; else the elements').
  DataType sequence_dtype = DataType::Float(32);
};

class Context;

/// Converts one node: reads its inputs from `ctx`, returns one OnnxValue per output.
using Converter = std::function<std::vector<OnnxValue>(Context& ctx, const onnx::NodeProto& node)>;

struct ConverterEntry {
  Converter convert;
  int min_opset = 1;  ///< the first opset this converter implements
};

/// op_type -> converter, for the default domain ("" or "ai.onnx").
const std::map<std::string, ConverterEntry>& converter_table();

/// Registration of the converter groups (one per ops_*.cc file).
void register_math_ops(std::map<std::string, ConverterEntry>& table);
void register_nn_ops(std::map<std::string, ConverterEntry>& table);
void register_tensor_ops(std::map<std::string, ConverterEntry>& table);
void register_index_ops(std::map<std::string, ConverterEntry>& table);
void register_quant_ops(std::map<std::string, ConverterEntry>& table);
void register_rnn_ops(std::map<std::string, ConverterEntry>& table);
void register_control_ops(std::map<std::string, ConverterEntry>& table);
void register_loss_ops(std::map<std::string, ConverterEntry>& table);
void register_extra_ops(std::map<std::string, ConverterEntry>& table);
void register_image_ops(std::map<std::string, ConverterEntry>& table);
void register_dynamic_ops(std::map<std::string, ConverterEntry>& table);
void register_loop_ops(std::map<std::string, ConverterEntry>& table);
void register_sequence_ops(std::map<std::string, ConverterEntry>& table);
void register_signal_ops(std::map<std::string, ConverterEntry>& table);
void register_roi_ops(std::map<std::string, ConverterEntry>& table);
void register_tfidf_ops(std::map<std::string, ConverterEntry>& table);
/// Wraps register_dynamic_ops' Unique with the `axis` form (ops_unique_axis.cc): after it.
void register_unique_axis(std::map<std::string, ConverterEntry>& table);

/// MaxPool with its Indices output (ops_pool_indices.cc; ops_nn.cc's MaxPool hands such
/// nodes over).
std::vector<OnnxValue> convert_maxpool_indices(Context& ctx, const onnx::NodeProto& node);
/// Wraps registered converters (registered last): folding of known shape values through
/// comparisons, Where, Mod, Max, Min; Slice and Pad with symbolic bounds (shape_values.cc).
void register_shape_value_ops(std::map<std::string, ConverterEntry>& table);
/// Upsample (opsets 7-9), through the Resize converter (ops_resize.cc).
void register_resize_ops(std::map<std::string, ConverterEntry>& table);

/// What converters see: the builder, the opset, the values defined so far (context.cc).
class Context {
 public:
  Context(BlockBuilder& bb, int opset, std::string file) : bb_(bb), opset_(opset), file_(std::move(file)) {}

  BlockBuilder& bb() { return bb_; }
  int opset() const { return opset_; }
  const std::string& file() const { return file_; }

  /// Values supplied for graph inputs (option value.NAME=FILE): const_ints uses them.
  void set_specialized(std::map<std::string, runtime::NDArray> values) {
    specialized_ = std::move(values);
  }
  /// The names of the graph's inputs that are parameters (for messages).
  void set_graph_inputs(std::vector<std::string> names) { graph_inputs_ = std::move(names); }
  /// Whether the caller supplied a value for graph input `name` (const_ints would use it).
  bool is_specialized(const std::string& name) const { return specialized_.count(name) != 0; }
  /// The supplied values const_ints used, by input name (each needs a run-time guard).
  const std::map<std::string, runtime::NDArray>& used_specializations() const { return used_; }

  /// Graph output names: a node computing one binds it with emit_output, under its name.
  void set_graph_outputs(std::set<std::string> names) { graph_outputs_ = std::move(names); }

  // ---- Values.

  void define(const std::string& name, OnnxValue value) { values_[name] = std::move(value); }
  bool has(const std::string& name) const { return values_.count(name) != 0; }
  const OnnxValue& value(const std::string& name) const;

  /// Input `i` of `node` as a Relax tensor (emitting a constant for a folded value, or its
  /// elements computed at run time from the dims when they are symbolic).
  Expr input(const onnx::NodeProto& node, int i);
  /// The known elements of `v` as a tensor computed at run time (symbolic dims), bound to `name`.
  Expr known_at_run_time(const OnnxValue& v, const std::string& name);
  /// Whether input `i` is present (ONNX marks an omitted optional input with "").
  static bool has_input(const onnx::NodeProto& node, int i) {
    return i < node.input_size() && !node.input(i).empty();
  }
  /// Input `i`'s elements when known at import time (a folded value or an integer constant of
  /// rank 0 or 1); nullopt otherwise.
  std::optional<std::vector<PrimExpr>> known_ints(const onnx::NodeProto& node, int i);
  /// Input `i` as int64 constants: known at import time, or a graph input whose value the caller
  /// supplied (recorded for its run-time guard); an error naming the node, `what` and the
  /// option to use otherwise.
  std::vector<int64_t> const_ints(const onnx::NodeProto& node, int i, const std::string& what);
  /// Input `i` (a rank-1 integer tensor of static length) as shape values: the known elements,
  /// else symbolic variables bound at run time (tensor_to_shape + match_cast, emitted once per
  /// value). An error naming the node and `what` when the input cannot be a shape.
  std::vector<PrimExpr> shape_ints(const onnx::NodeProto& node, int i, const std::string& what);
  /// Binds the elements of the int64 rank-1 tensor `t` (static length) to fresh symbolic
  /// variables named `name`_0, `name`_1, ... at run time.
  std::vector<PrimExpr> runtime_shape(const Expr& t, const std::string& name);
  /// Input `i` as float constants (any numeric dtype), or nullopt when not constant.
  std::optional<std::vector<double>> const_floats(const onnx::NodeProto& node, int i);

  // ---- Struct info of inputs.

  const TensorStructInfo& tensor(const onnx::NodeProto& node, const Expr& e);
  /// The shape of `e`, or an error naming the node: `why` needs it.
  std::vector<PrimExpr> shape_of(const onnx::NodeProto& node, const Expr& e, const std::string& why);
  int ndim(const onnx::NodeProto& node, const Expr& e);

  // ---- Emitting.

  /// Emits `call` bound to a variable named after the node's output `out` (when valid).
  Expr emit(const Expr& call, const onnx::NodeProto& node, int out = 0);
  /// A folded value: `known` elements of `dtype`, scalar or rank 1.
  static OnnxValue folded(std::vector<PrimExpr> known, bool scalar, DataType dtype = DataType::Int(64));
  /// A Relax value with no known elements.
  static OnnxValue tensor_value(Expr e) {
    OnnxValue v;
    v.expr = std::move(e);
    return v;
  }

  // ---- Errors.

  /// "model.onnx: node 'name' (Op): " for messages.
  std::string where(const onnx::NodeProto& node) const;

 private:
  BlockBuilder& bb_;
  int opset_;
  std::string file_;
  std::map<std::string, OnnxValue> values_;
  std::set<std::string> graph_outputs_;
  std::vector<std::string> graph_inputs_;
  std::map<std::string, runtime::NDArray> specialized_;
  std::map<std::string, runtime::NDArray> used_;
  std::map<std::string, std::vector<PrimExpr>> runtime_shapes_;  ///< by value name
};

// ---- Attributes (tensors.cc).

const onnx::AttributeProto* find_attr(const onnx::NodeProto& node, const std::string& name);
int64_t attr_int(const onnx::NodeProto& node, const std::string& name, int64_t default_value);
double attr_float(const onnx::NodeProto& node, const std::string& name, double default_value);
std::string attr_string(const onnx::NodeProto& node, const std::string& name,
                        const std::string& default_value);
std::optional<std::vector<int64_t>> attr_ints(const onnx::NodeProto& node, const std::string& name);
std::optional<std::vector<double>> attr_floats(const onnx::NodeProto& node, const std::string& name);

// ---- Tensors and types (tensors.cc).

/// The Relax dtype of an ONNX TensorProto element type; an error naming `where` for types
/// Relax has no dtype for (strings, complex).
DataType dtype_of(int32_t elem_type, const std::string& where);
/// A value's elements as doubles when known at import (a folded integer tensor or a constant
/// of a numeric dtype); nullopt otherwise. Context::const_floats reads a node input with it.
std::optional<std::vector<double>> const_floats(const OnnxValue& v);
/// Whether `elem_type` (a TensorProto::DataType) is a signed or unsigned integer type.
bool is_integer_elem_type(int32_t elem_type);
/// Decodes a TensorProto (raw_data, the typed fields, or external data: a file `location`
/// relative to `base_dir`, from `offset`, `length` bytes); errors name `where`, the tensor and
/// (for external data) the file.
runtime::NDArray tensor_from_proto(const onnx::TensorProto& t, const std::string& where,
                                   const std::string& base_dir = "");
/// Records the elements of `a` in `v.known` when it is a small integer tensor of rank 0 or 1
/// (for folding shape computations).
void attach_known(OnnxValue& v, const runtime::NDArray& a);
/// A scalar (rank 0) constant tensor; for integer dtypes `value` saturates to the dtype's range
/// (NaN gives 0), for bool it is `value != 0`.
Expr scalar_constant(double value, DataType dtype);
/// The dtype of input `x` of `node`; an error naming the node unless it is a float dtype.
DataType float_dtype(Context& ctx, const onnx::NodeProto& node, const Expr& x);
/// Normalises a possibly negative axis against `ndim`; an error naming `where` when out of range.
int64_t normalize_axis(int64_t axis, int64_t ndim, const std::string& where);

/// Begin-then-end pads of a conv or pool node with `kernel`, `strides`, `dilations` over
/// `data` (NC + spatial dims), from its `pads` or `auto_pad` (SAME_* needs static sizes).
std::vector<int64_t> resolve_pads(Context& ctx, const onnx::NodeProto& node, const Expr& data,
                                  const std::vector<int64_t>& kernel,
                                  const std::vector<int64_t>& strides,
                                  const std::vector<int64_t>& dilations);

/// `name` when it is a valid identifier, else a sanitised form ("/a/b.0" -> "a_b_0").
std::string binding_name(const std::string& name);

// ---- Phase 1 (model_check.cc).

/// The default-domain opset the model imports; an error when absent or outside the range the
/// frontend implements.
int model_opset(const onnx::ModelProto& model, const std::string& file);
/// Phase 1: every problem that would stop the import, reported together in one error naming
/// `file`. Returns the nodes of `graph` in a topological order.
std::vector<int> check_model(const onnx::GraphProto& graph, int opset, const std::string& file);

// ---- Subgraphs (model_check.cc and importer.cc; the control-flow converters are in
// ops_control.cc and ops_loop.cc).

/// Whether `node` has graph attributes (If, Loop, Scan).
bool has_subgraphs(const onnx::NodeProto& node);
/// The values `graph` reads from enclosing graphs (its nested subgraphs' included).
std::set<std::string> free_names(const onnx::GraphProto& graph);
/// The outer values the subgraphs of `node` read (implicit inputs of the node).
std::set<std::string> subgraph_reads(const onnx::NodeProto& node);
/// A topological order of a subgraph's nodes (check_model has checked it).
std::vector<int> subgraph_order(const onnx::GraphProto& graph, int opset);
/// Problems with the structure of a control-flow node (missing subgraph attributes, body
/// inputs/outputs not matching the node), each a phrase for check_model's report.
std::vector<std::string> check_control_node(const onnx::NodeProto& node, int opset);
/// The graph attribute `name` of `node`, or null when absent or not a graph.
const onnx::GraphProto* graph_attr(const onnx::NodeProto& node, const std::string& name);
/// A one-element tensor of any rank as rank 0 (ONNX conditions and trip counts; ONNX Runtime
/// accepts any rank); an error naming `what` otherwise.
Expr as_scalar(Context& ctx, const onnx::NodeProto& node, const Expr& e, const std::string& what);
/// Gives a tensor whose shape is unknown but rank known fresh symbolic dims (match_cast), so
/// that later converters see a shape.
Expr with_symbolic_shape(BlockBuilder& bb, const Expr& e, const std::string& hint);
/// Imports `g` into `bb`'s open binding block: its inputs bound to `inputs`, the outer
/// values it reads taken from `outer` (or `replaced`, for values that are parameters of a
/// loop function); returns its outputs (with `values`, also as OnnxValues, known elements kept).
std::vector<Expr> import_subgraph(Context& outer, BlockBuilder& bb, const onnx::GraphProto& g,
                                  const std::vector<Expr>& inputs,
                                  const std::map<std::string, Expr>& replaced = {},
                                  std::vector<OnnxValue>* values = nullptr);
/// The same with the inputs as OnnxValues (sequences keep their elements).
std::vector<Expr> import_subgraph(Context& outer, BlockBuilder& bb, const onnx::GraphProto& g,
                                  const std::vector<OnnxValue>& inputs,
                                  const std::map<std::string, Expr>& replaced = {},
                                  std::vector<OnnxValue>* values = nullptr);
/// The outputs of `node` computed at import time when all its inputs are constants (fold.cc:
/// the node's converter into a scratch function, legalised and run by the reference
/// interpreter); nullopt when the node is not folded (not constant, random, too large, or not
/// computable at import), and then it is converted as usual.
std::optional<std::vector<OnnxValue>> fold_node(Context& ctx, const onnx::NodeProto& node);
/// Converts one node (folded when fold_node can) and defines its outputs in `ctx`.
void convert_node(Context& ctx, const onnx::NodeProto& node);
/// Converts the nodes of `graph` in `order` into the builder's current scope. With `dataflow`
/// (the open block is a dataflow block), each control-flow node ends the dataflow block and
/// sits in a binding block of its own, the values still to be read made visible after the
/// block (emit_output); without, everything is emitted into the open binding block.
void convert_nodes(Context& ctx, const onnx::GraphProto& graph, const std::vector<int>& order,
                   bool dataflow);

// ---- Import (importer.cc).

IRModule import_model(const onnx::ModelProto& model, const std::string& file,
                      const transform::FrontendOptions& options);
IRModule import_file(const std::string& path, const transform::FrontendOptions& options);

/// `x` (N, C, H, W) resized to `out_hw` with the ONNX reference's coordinate mapping, the
/// scales of H and W given as a float32 [2] tensor (constant or computed at run time);
/// `roi` (float32 [8]) for tf_crop_and_resize. Composed from core ops (resize_composed.cc).
Expr resize_composed(Context& ctx, const onnx::NodeProto& node, const Expr& x,
                     const std::vector<PrimExpr>& out_hw, const Expr& scales_hw,
                     const op::Resize2DOptions& o, const Expr& roi = Expr());

/// The indices, node input `i` of a gather or scatter over `x`, checked against `x`'s axis
/// `axis` (`nd`: GatherND/ScatterND index tuples, component j against axis `axis` + j, `axis`
/// being batch_dims): constant indices of a static shape now (a relax::Error naming the node,
/// the index and its position), the others at run time (index_checks.cc). Returns the
/// indices to use.
Expr checked_indices(Context& ctx, const onnx::NodeProto& node, int i, const Expr& x,
                     int64_t axis, bool nd = false);

}  // namespace relax::onnx_frontend
