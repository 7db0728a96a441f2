// ONNX converters: If and NonMaxSuppression, the import of subgraphs that If, Loop and Scan
// share, and the structural checks of control-flow nodes (check_control_node, for check_model).
// Loop and Scan themselves are in ops_loop.cc.
//
// Subgraphs are imported through the same converters as the main graph, in a Context of
// their own that sees the enclosing graph's values by name (importer.cc: convert_nodes, with
// check_model in model_check.cc having checked the subgraphs recursively). Control flow never
// sits in a dataflow block: convert_nodes gives each control-flow node a binding block of its
// own.
//  - If: both branches become the SeqExprs of a Relax If (outer values are used directly);
//    the result's struct info is the join of the branches'. A condition known at import time
//    inlines the branch taken instead.
// NonMaxSuppression, whose output size is data-dependent too, is here as well: the core op
// relax.vision.non_max_suppression (a runtime builtin), its result given a symbolic row count.
#include <algorithm>
#include <limits>

#include "importer.h"
#include "relax/ir/struct_info.h"
#include "relax/op/op.h"
#include "relax/op/vision.h"
#include "relax/support/diagnostic.h"

namespace relax::onnx_frontend {

namespace {

using Node = onnx::NodeProto;
using Graph = onnx::GraphProto;

/// Defines a subgraph's initializers in `sub`.
void define_initializers(Context& sub, const Graph& g) {
  for (const auto& init : g.initializer()) {
    runtime::NDArray data = tensor_from_proto(init, sub.file() + ": subgraph initializer");
    OnnxValue v = Context::tensor_value(make_constant(data));
    attach_known(v, data);
    sub.define(init.name(), std::move(v));
  }
}

}  // namespace

// ---- Subgraph import, shared with Loop and Scan (ops_loop.cc).

const Graph* graph_attr(const Node& node, const std::string& name) {
  const auto* a = find_attr(node, name);
  return a && a->type() == onnx::AttributeProto::GRAPH ? &a->g() : nullptr;
}

/// A tensor of one element, of any rank (ONNX requires one element for conditions and trip
/// counts, and ONNX Runtime accepts any rank), as rank 0. Static dims must all be 1; symbolic
/// ones are made 1 by a match_cast, which checks them at run time.
Expr as_scalar(Context& ctx, const Node& node, const Expr& e, const std::string& what) {
  const TensorStructInfo& t = ctx.tensor(node, e);
  if (t.ndim == 0) return e;
  if (t.ndim < 0) return ctx.bb().emit(op::reshape(e, std::vector<PrimExpr>{}));
  bool one = true;
  if (one && t.shape) {
    for (const PrimExpr& d : *t.shape) {
      const int64_t* c = tir::as_const_int(d);
      one &= !c || *c == 1;
    }
  }
  RX_CHECK(one) << ctx.where(node) << ": " << what << " must hold exactly one element, got "
                << to_string(get_struct_info(e));
  Expr x = e;
  if (!t.shape || !std::all_of(t.shape->begin(), t.shape->end(),
                               [](const PrimExpr& d) { return tir::as_const_int(d); })) {
    x = ctx.bb().emit_match_cast(
        e, tensor_sinfo(std::vector<PrimExpr>(size_t(t.ndim), tir::int_imm(1)), t.dtype));
  }
  return ctx.bb().emit(op::reshape(x, std::vector<PrimExpr>{}));
}

/// Gives a tensor whose shape is unknown but rank known fresh symbolic dims (match_cast), so
/// that later converters see a shape.
Expr with_symbolic_shape(BlockBuilder& bb, const Expr& e, const std::string& hint) {
  const TensorStructInfo* t = tensor_info(e);
  if (!t || t->shape || t->ndim < 0) return e;
  std::vector<PrimExpr> dims;
  for (int d = 0; d < t->ndim; ++d) dims.push_back(tir::var(hint + "_d" + std::to_string(d)));
  return bb.emit_match_cast(e, tensor_sinfo(dims, t->dtype), hint);
}

/// Imports `g` into `bb`'s open binding block: its inputs bound to `inputs`, the outer
/// values it reads taken from `outer` (or `replaced`, for values that are parameters of a
/// loop function); returns its outputs.
std::vector<Expr> import_subgraph(Context& outer, BlockBuilder& bb, const Graph& g,
                                  const std::vector<Expr>& inputs,
                                  const std::map<std::string, Expr>& replaced,
                                  std::vector<OnnxValue>* values) {
  std::vector<OnnxValue> in;
  for (const Expr& e : inputs) in.push_back(Context::tensor_value(e));
  return import_subgraph(outer, bb, g, in, replaced, values);
}

std::vector<Expr> import_subgraph(Context& outer, BlockBuilder& bb, const Graph& g,
                                  const std::vector<OnnxValue>& inputs,
                                  const std::map<std::string, Expr>& replaced,
                                  std::vector<OnnxValue>* values) {
  Context sub(bb, outer.opset(), outer.file());
  for (const std::string& name : free_names(g)) {
    if (auto it = replaced.find(name); it != replaced.end()) {
      sub.define(name, Context::tensor_value(it->second));
    } else if (outer.has(name)) {
      sub.define(name, outer.value(name));
    }
  }
  RX_ICHECK(size_t(g.input_size()) == inputs.size()) << "subgraph input count";
  for (int k = 0; k < g.input_size(); ++k)
    sub.define(g.input(k).name(), inputs[size_t(k)]);
  define_initializers(sub, g);
  convert_nodes(sub, g, subgraph_order(g, outer.opset()), /*dataflow=*/false);
  std::vector<Expr> outs;
  for (const auto& out : g.output()) {
    onnx::NodeProto reader;  // for messages: the subgraph output as a pseudo node
    reader.set_op_type("subgraph output");
    reader.set_name(out.name());
    reader.add_input(out.name());
    outs.push_back(sub.input(reader, 0));
    if (values) values->push_back(sub.value(out.name()));
  }
  return outs;
}

namespace {

/// The subgraph `g` imported as an If branch: a SeqExpr of its bindings and its outputs.
Expr branch(Context& ctx, const Graph& g) {
  BlockBuilder& bb = ctx.bb();
  bb.begin_scope();
  bb.begin_binding_block();
  std::vector<Expr> outs = import_subgraph(ctx, bb, g, std::vector<Expr>{});
  Expr result = bb.normalize(outs.size() == 1 ? outs[0] : make_tuple(outs));
  std::vector<Block> blocks;
  for (auto& b : bb.end_scope()) {
    if (!b->bindings.empty()) blocks.push_back(b);
  }
  return make_ref<SeqExpr>(std::move(blocks), result);
}

/// The node's outputs from a result that is one value (n == 1) or a tuple of n.
std::vector<OnnxValue> split_outputs(Context& ctx, const Node& node, const Expr& result, size_t n,
                                     size_t first = 0) {
  std::vector<OnnxValue> out;
  for (size_t k = 0; k < n; ++k) {
    std::string hint = k < size_t(node.output_size()) ? binding_name(node.output(int(k))) : "";
    Expr e = n == 1 && first == 0
                 ? result
                 : Expr(ctx.bb().emit(make_ref<TupleGetItem>(result, int(first + k)), hint));
    out.push_back(
        Context::tensor_value(with_symbolic_shape(ctx.bb(), e, hint.empty() ? "v" : hint)));
  }
  return out;
}

std::vector<OnnxValue> convert_if(Context& ctx, const Node& node) {
  const Graph* then_g = graph_attr(node, "then_branch");
  const Graph* else_g = graph_attr(node, "else_branch");
  RX_ICHECK(then_g && else_g) << "check_control_node admitted an If without branches";
  // A condition known at import time: the branch taken, inline.
  // Known elements (shape values) stay known through the inlined branch.
  if (std::optional<std::vector<double>> c = ctx.const_floats(node, 0); c && c->size() == 1) {
    std::vector<OnnxValue> values;
    import_subgraph(ctx, ctx.bb(), (*c)[0] != 0 ? *then_g : *else_g, std::vector<Expr>{}, {},
                    &values);
    return values;
  }
  Expr cond = as_scalar(ctx, node, ctx.input(node, 0), "the condition");
  RX_CHECK(ctx.tensor(node, cond).dtype.is_bool())
      << ctx.where(node) << ": the condition must be bool, got "
      << ctx.tensor(node, cond).dtype.to_string();
  Expr t = branch(ctx, *then_g);
  Expr f = branch(ctx, *else_g);
  std::string hint = binding_name(node.output(0));
  Expr result =
      ctx.bb().emit(make_ref<If>(cond, t, f), node.output_size() == 1 ? hint : hint + "_if");
  return split_outputs(ctx, node, result, size_t(node.output_size()));
}

std::vector<OnnxValue> convert_non_max_suppression(Context& ctx, const Node& node) {
  Expr boxes = ctx.input(node, 0);
  Expr scores = ctx.input(node, 1);
  DataType fdt = ctx.tensor(node, scores).dtype;
  auto optional_input = [&](int i, double dflt, DataType dt) {
    return Context::has_input(node, i) ? ctx.input(node, i) : scalar_constant(dflt, dt);
  };
  Expr max_out = optional_input(2, 0, DataType::Int(64));
  Expr iou = optional_input(3, 0, fdt);
  // No score_threshold: every score passes.
  Expr score = optional_input(4, -std::numeric_limits<double>::infinity(), fdt);
  int64_t center = attr_int(node, "center_point_box", 0);
  RX_CHECK(center == 0 || center == 1)
      << ctx.where(node) << ": center_point_box must be 0 or 1, got " << center;
  BlockBuilder& bb = ctx.bb();
  Expr y = bb.emit(op::non_max_suppression(boxes, scores, max_out, iou, score, center));
  std::string hint = binding_name(node.output(0));
  Expr rows = bb.emit_match_cast(
      y, tensor_sinfo({tir::var(hint + "_count"), tir::int_imm(3)}, DataType::Int(64)), hint);
  return {Context::tensor_value(rows)};
}

}  // namespace

std::vector<std::string> check_control_node(const onnx::NodeProto& node, int opset) {
  std::vector<std::string> problems;
  auto need = [&](const std::string& name) -> const Graph* {
    const auto* a = find_attr(node, name);
    if (!a) {
      problems.push_back("the subgraph attribute '" + name + "' is missing");
      return nullptr;
    }
    if (a->type() != onnx::AttributeProto::GRAPH) {
      problems.push_back("attribute '" + name + "' must be a graph");
      return nullptr;
    }
    return &a->g();
  };
  auto count = [&](const std::string& what, int got, int want, const std::string& why) {
    if (got != want) {
      problems.push_back(what + " has " + std::to_string(got) + "; expected " +
                         std::to_string(want) + " (" + why + ")");
    }
  };
  const std::string& op = node.op_type();
  if (op == "If") {
    for (const char* name : {"then_branch", "else_branch"}) {
      if (const Graph* g = need(name)) {
        count(std::string(name) + "'s inputs", g->input_size(), 0, "a branch takes no inputs");
        count(std::string(name) + "'s outputs", g->output_size(), node.output_size(),
              "one per output of the If");
      }
    }
  } else if (op == "Loop") {
    if (const Graph* g = need("body")) {
      int carried = std::max(node.input_size() - 2, 0);
      count(
          "the body's inputs", g->input_size(), 2 + carried,
          "iteration number, condition, then " + std::to_string(carried) + " loop-carried values");
      if (g->output_size() < 1 + carried || node.output_size() != g->output_size() - 1) {
        problems.push_back("the body has " + std::to_string(g->output_size()) +
                           " outputs and the Loop " + std::to_string(node.output_size()) +
                           "; expected the condition, the " + std::to_string(carried) +
                           " loop-carried values, then the scan outputs, one "
                           "Loop output for each after the condition");
      }
    }
  } else if (op == "Scan") {
    if (const Graph* g = need("body")) {
      int64_t scan_in = attr_int(node, "num_scan_inputs", -1);
      int inputs = node.input_size() - (opset < 9 ? 1 : 0);  // Scan-8: sequence_lens first
      if (scan_in < 1 || scan_in > inputs) {
        problems.push_back(
            "num_scan_inputs must be between 1 and the number of scanned and state "
            "inputs (" +
            std::to_string(inputs) + "), got " + std::to_string(scan_in));
      } else {
        int state = inputs - int(scan_in);
        count("the body's inputs", g->input_size(), inputs,
              std::to_string(state) + " state values, then one element of each of the " +
                  std::to_string(scan_in) + " scan inputs");
        count("the body's outputs", g->output_size(), node.output_size(),
              "one per output of the Scan");
        if (node.output_size() < state) {
          problems.push_back("the Scan has " + std::to_string(node.output_size()) +
                             " outputs; it needs at "
                             "least the " +
                             std::to_string(state) + " final state values");
        }
      }
    }
  } else {
    problems.push_back("subgraph attributes are only supported on If, Loop and Scan");
  }
  return problems;
}

void register_control_ops(std::map<std::string, ConverterEntry>& t) {
  t["If"] = {convert_if, 1};
  t["NonMaxSuppression"] = {convert_non_max_suppression, 10};
}

}  // namespace relax::onnx_frontend
