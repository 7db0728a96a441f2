// The ONNX frontend plugin: reads a ModelProto, checks the whole model (model_check.cc), then
// builds Relax function "main" through the BlockBuilder (see importer.h for the two phases).
//
// Graph inputs become parameters (their dims: numbers, `dim_param` names as symbolic
// variables shared by name across inputs, unknown dims (no value, or -1) as fresh variables;
// other negative dims are errors), so a model with a dynamic batch compiles once for every
// batch. Declared graph outputs must agree with what the graph computes: dtype, rank, and
// every static dim where the computed one is static too. Initializers become constants; option
// "params=inputs" makes them parameters after the graph inputs instead. A graph input that
// is also an initializer is a parameter with a default in ONNX: a constant here, unless
// params=inputs. Value names become binding names where they are identifiers (sanitised
// otherwise). Every error is a relax::Error naming the file, and the node where there is one.
//
// Options: params=constants|inputs; value.NAME=FILE (.npy or .pb) gives graph input NAME's
// value for specialisation where a static value is needed (importer.h), guarded at run time;
// unknown-values=ignore drops value.NAME options that name no parameter (for callers that pass
// every input). Tensors with external data (data_location EXTERNAL) are read from their
// `location` relative to the model's directory, at `offset` for `length` bytes. Every tensor's
// size is checked (overflow-safe) against the bytes present before it is allocated; messages
// name the file and the tensor. Protobuf nesting is allowed to 1000 levels (deep If/Loop/Scan
// subgraphs), and a model nested deeper is said to be so rather than "corrupt".
#include "importer.h"

#include <google/protobuf/stubs/common.h>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "relax/op/op.h"
#include "relax/runtime/tensor_io.h"
#include "relax/sdk/plugin.h"
#include "relax/support/diagnostic.h"

namespace relax::onnx_frontend {

namespace {

/// The graph inputs whose shape the graph never depends on: read only as CastLike's `like`
/// (which gives a dtype), or not read at all. Their parameters declare only the dtype, so a
/// caller may pass any shape (ONNX's own CastLike tests pass a one-element `like`).
std::set<std::string> dtype_only_inputs(const onnx::GraphProto& graph) {
  std::set<std::string> shaped;  // read in a way that depends on the value or its shape
  for (const auto& node : graph.node()) {
    for (int i = 0; i < node.input_size(); ++i) {
      if (!(node.op_type() == "CastLike" && i == 1)) shaped.insert(node.input(i));
    }
    std::set<std::string> reads = subgraph_reads(node);
    shaped.insert(reads.begin(), reads.end());
  }
  for (const auto& out : graph.output()) shaped.insert(out.name());
  std::set<std::string> out;
  for (const auto& in : graph.input()) {
    if (!shaped.count(in.name())) out.insert(in.name());
  }
  return out;
}

/// The struct info of a graph input (or initializer parameter) from its declared type; with
/// `dtype_only`, the declared shape is left out (see dtype_only_inputs).
StructInfo input_sinfo(const onnx::ValueInfoProto& vi, const std::string& file,
                       std::map<std::string, Ref<tir::Var>>& dim_vars, bool dtype_only = false) {
  RX_CHECK(vi.type().has_tensor_type())
      << file << ": graph input '" << vi.name() << "' is not a tensor (sequences, maps and "
      << "optionals are not supported)";
  const auto& tt = vi.type().tensor_type();
  DataType dtype = dtype_of(tt.elem_type(), file + ": graph input '" + vi.name() + "'");
  if (!tt.has_shape() || dtype_only) return tensor_sinfo(dtype, -1);
  std::vector<PrimExpr> dims;
  for (int d = 0; d < tt.shape().dim_size(); ++d) {
    const auto& dim = tt.shape().dim(d);
    RX_CHECK(!dim.has_dim_value() || dim.dim_value() >= -1)
        << file << ": graph input '" << vi.name() << "': dim " << d << " is "
        << dim.dim_value() << "; expected a size >= 0, or a dim_param name or no value (or -1) "
        << "for an unknown size";
    if (dim.has_dim_value() && dim.dim_value() >= 0) {
      dims.push_back(tir::int_imm(dim.dim_value()));
      continue;
    }
    std::string name = dim.has_dim_param() && !dim.dim_param().empty()
                           ? binding_name(dim.dim_param())
                           : binding_name(vi.name()) + "_dim" + std::to_string(d);
    auto [it, added] = dim_vars.try_emplace(name);
    if (added) it->second = tir::var(name);
    dims.push_back(it->second);
  }
  return tensor_sinfo(std::move(dims), dtype);
}

/// A graph output's declared shape against the one the import computed (`t`, of struct info
/// `sinfo`): the same rank where both are known, no negative dims other than -1 (unknown), and
/// every declared static dim equal to the computed one where that is static too.
void check_declared_dims(const onnx::ValueInfoProto& out, const TensorStructInfo& t,
                         const StructInfo& sinfo, const std::string& file) {
  const auto& shape = out.type().tensor_type().shape();
  for (int d = 0; d < shape.dim_size(); ++d) {
    RX_CHECK(!shape.dim(d).has_dim_value() || shape.dim(d).dim_value() >= -1)
        << file << ": graph output '" << out.name() << "': dim " << d << " is "
        << shape.dim(d).dim_value() << "; expected a size >= 0, or a dim_param name or no "
        << "value (or -1) for an unknown size";
  }
  if (t.ndim < 0) return;
  RX_CHECK(shape.dim_size() == t.ndim)
      << file << ": graph output '" << out.name() << "' is declared with rank "
      << shape.dim_size() << " but the graph computes " << to_string(sinfo);
  if (!t.shape) return;
  for (int d = 0; d < shape.dim_size(); ++d) {
    if (!shape.dim(d).has_dim_value() || shape.dim(d).dim_value() < 0) continue;
    const int64_t* c = tir::as_const_int((*t.shape)[size_t(d)]);
    RX_CHECK(!c || *c == shape.dim(d).dim_value())
        << file << ": graph output '" << out.name() << "' is declared with dim " << d << " = "
        << shape.dim(d).dim_value() << " but the graph computes " << to_string(sinfo);
  }
}

}  // namespace

// ---- Converting nodes.

void convert_node(Context& ctx, const onnx::NodeProto& node) {
  // Every ONNX operator has at least one output, and all but a few generators at least one
  // input; converters rely on both.
  RX_CHECK(node.output_size() > 0) << ctx.where(node) << ": the node has no outputs";
  static const std::set<std::string> kNoInputs = {"Constant", "RandomNormal", "RandomUniform",
                                                  "SequenceEmpty"};
  RX_CHECK(node.input_size() > 0 || kNoInputs.count(node.op_type()))
      << ctx.where(node) << ": the node has no inputs; " << node.op_type() << " takes at least one";
  std::vector<OnnxValue> outs;
  try {
    if (std::optional<std::vector<OnnxValue>> folded = fold_node(ctx, node)) {
      outs = std::move(*folded);
    } else {
      outs = converter_table().at(node.op_type()).convert(ctx, node);
    }
  } catch (const Error& e) {
    std::string msg = e.message();
    if (msg.rfind(ctx.file() + ":", 0) == 0) throw;
    RX_THROW() << ctx.where(node) << ": " << msg;
  } catch (const google::protobuf::FatalException& e) {
    // A converter indexed an input or output the node does not have (protobuf checks the
    // index): a malformed node, not an importer bug.
    RX_THROW() << ctx.where(node) << ": the node lacks an input or output its operator needs ("
               << node.input_size() << " inputs, " << node.output_size() << " outputs)";
  }
  for (int k = 0; k < node.output_size(); ++k) {
    if (node.output(k).empty()) continue;
    RX_CHECK(size_t(k) < outs.size())
        << ctx.where(node) << ": output " << k << " ('" << node.output(k)
        << "') is not supported by this importer";
    ctx.define(node.output(k), std::move(outs[size_t(k)]));
  }
}

void convert_nodes(Context& ctx, const onnx::GraphProto& graph, const std::vector<int>& order,
                   bool dataflow) {
  BlockBuilder& bb = ctx.bb();
  for (size_t k = 0; k < order.size(); ++k) {
    const onnx::NodeProto& node = graph.node(order[k]);
    if (!dataflow || !has_subgraphs(node)) {
      convert_node(ctx, node);
      continue;
    }
    // Control flow cannot sit in a dataflow block: end it, making the values read from here on
    // (by later nodes, subgraphs or as graph outputs) visible after it.
    std::set<std::string> live;
    for (size_t q = k; q < order.size(); ++q) {
      const onnx::NodeProto& later = graph.node(order[q]);
      live.insert(later.input().begin(), later.input().end());
      std::set<std::string> reads = subgraph_reads(later);
      live.insert(reads.begin(), reads.end());
    }
    for (const auto& out : graph.output()) live.insert(out.name());
    for (const std::string& name : live) {
      if (name.empty() || !ctx.has(name)) continue;
      OnnxValue v = ctx.value(name);
      if (!v.expr.defined() || !v.expr.is<DataflowVar>()) continue;
      v.expr = bb.emit_output(v.expr, binding_name(name));
      ctx.define(name, std::move(v));
    }
    bb.begin_binding_block();
    convert_node(ctx, node);
    bb.begin_dataflow_block();
  }
}

// ---- Phase 2.

namespace {

/// The values of option value.NAME=FILE (.npy or TensorProto .pb): each NAME must be a graph
/// input that stays a parameter, the value an integer tensor of rank 0 or 1 of its declared
/// dtype.
std::map<std::string, runtime::NDArray> load_specialized(
    const onnx::GraphProto& graph, const std::map<std::string, std::string>& files,
    bool params_as_inputs, const std::string& file) {
  std::map<std::string, runtime::NDArray> out;
  for (const auto& [name, path] : files) {
    const onnx::ValueInfoProto* input = nullptr;
    for (const auto& in : graph.input()) {
      if (in.name() == name) input = &in;
    }
    std::string opt = "option value." + name + "=" + path;
    RX_CHECK(input) << file << ": " << opt << ": the model has no graph input '" << name << "'";
    bool is_init = std::any_of(graph.initializer().begin(), graph.initializer().end(),
                               [&n = name](const onnx::TensorProto& t) { return t.name() == n; });
    RX_CHECK(!is_init || params_as_inputs)
        << file << ": " << opt << ": '" << name << "' has an initializer, so it is a constant "
        << "(give params=inputs to make it a parameter)";
    runtime::NDArray a;
    try {
      a = runtime::load_tensor(path);
    } catch (const Error& e) {
      RX_THROW() << file << ": " << opt << ": " << e.message();
    }
    RX_CHECK((a.dtype().is_int() || a.dtype().is_uint()) && a.ndim() <= 1)
        << file << ": " << opt << ": only integer tensors of rank 0 or 1 can specialise the "
        << "import, got " << a.dtype().to_string() << " of rank " << a.ndim();
    if (input->type().has_tensor_type()) {
      DataType declared = dtype_of(input->type().tensor_type().elem_type(), file);
      RX_CHECK(a.dtype() == declared) << file << ": " << opt << ": the input is declared "
                                      << declared.to_string() << " but the value is "
                                      << a.dtype().to_string();
    }
    out[name] = a;
  }
  return out;
}

}  // namespace

IRModule import_model(const onnx::ModelProto& model, const std::string& file,
                      const transform::FrontendOptions& options) {
  bool params_as_inputs = false;
  std::map<std::string, std::string> value_files;  // option value.NAME=FILE
  bool ignore_unknown_values = false;
  for (const auto& [key, value] : options) {
    if (key == "params") {
      RX_CHECK(value == "inputs" || value == "constants")
          << file << ": option params=" << value << " is not valid (expected params=constants "
          << "or params=inputs)";
      params_as_inputs = value == "inputs";
    } else if (key.rfind("value.", 0) == 0 && key.size() > 6) {
      value_files[key.substr(6)] = value;
    } else if (key == "unknown-values") {
      RX_CHECK(value == "error" || value == "ignore")
          << file << ": option unknown-values=" << value << " is not valid (expected "
          << "unknown-values=error or unknown-values=ignore)";
      ignore_unknown_values = value == "ignore";
    } else {
      RX_THROW() << file << ": unknown ONNX frontend option '" << key
                 << "' (valid options: params=constants|inputs, value.NAME=FILE, "
                 << "unknown-values=error|ignore)";
    }
  }
  if (ignore_unknown_values) {
    // Callers passing every input's value (relax-driver run, relax-conformance): keep those of
    // graph inputs that stay parameters and are declared integer tensors (only those can
    // specialise the import).
    for (auto it = value_files.begin(); it != value_files.end();) {
      bool param = false;
      for (const auto& in : model.graph().input()) {
        int32_t elem = in.type().has_tensor_type() ? in.type().tensor_type().elem_type() : 0;
        param |= in.name() == it->first && (elem == 0 || is_integer_elem_type(elem));
      }
      for (const auto& init : model.graph().initializer())
        param &= params_as_inputs || init.name() != it->first;
      it = param ? std::next(it) : value_files.erase(it);
    }
  }
  RX_CHECK(model.has_graph()) << file << ": the model has no graph";
  const onnx::GraphProto& graph = model.graph();
  int opset = model_opset(model, file);
  std::vector<int> order = check_model(graph, opset, file);
  std::string base_dir = std::filesystem::path(file).parent_path().string();

  BlockBuilder bb;
  Context ctx(bb, opset, file);
  ctx.set_specialized(load_specialized(graph, value_files, params_as_inputs, file));
  std::set<std::string> output_names;
  for (const auto& out : graph.output()) output_names.insert(out.name());
  ctx.set_graph_outputs(std::move(output_names));
  std::map<std::string, Ref<tir::Var>> dim_vars;
  std::set<std::string> initializer_names;
  for (const auto& init : graph.initializer()) initializer_names.insert(init.name());

  std::set<std::string> dtype_only = dtype_only_inputs(graph);
  std::vector<Ref<Var>> params;
  std::map<std::string, Ref<Var>> param_of;  // by ONNX name, for the guards
  std::vector<std::string> input_names;
  for (const auto& in : graph.input()) {
    // A graph input with an initializer has a default: a constant, or with params=inputs a
    // parameter at its place among the graph inputs.
    if (initializer_names.count(in.name()) && !params_as_inputs) continue;
    Ref<Var> p = make_var(binding_name(in.name()),
                          input_sinfo(in, file, dim_vars, dtype_only.count(in.name()) != 0));
    params.push_back(p);
    param_of[in.name()] = p;
    input_names.push_back(in.name());
    ctx.define(in.name(), Context::tensor_value(p));
  }
  for (const auto& init : graph.initializer()) {
    runtime::NDArray data = tensor_from_proto(init, file + ": initializer", base_dir);
    // A graph input of the same name must agree with the initializer's type.
    for (const auto& in : graph.input()) {
      if (in.name() != init.name() || !in.type().has_tensor_type()) continue;
      RX_CHECK(in.type().tensor_type().elem_type() == init.data_type())
          << file << ": graph input '" << in.name() << "' is declared "
          << dtype_of(in.type().tensor_type().elem_type(), file).to_string()
          << " but its initializer is " << data.dtype().to_string();
    }
    if (params_as_inputs && param_of.count(init.name())) continue;  // a graph input too
    if (params_as_inputs) {
      Ref<Var> p = make_var(binding_name(init.name()),
                            tensor_sinfo(const_shape(data.shape()), data.dtype()));
      params.push_back(p);
      param_of[init.name()] = p;
      input_names.push_back(init.name());
      ctx.define(init.name(), Context::tensor_value(p));
    } else {
      OnnxValue v = Context::tensor_value(make_constant(data));
      attach_known(v, data);
      ctx.define(init.name(), std::move(v));
    }
  }

  ctx.set_graph_inputs(input_names);
  // Guards of specialised values are impure calls (they may fail).
  bb.begin_function("main", params, /*pure=*/value_files.empty());
  bb.begin_dataflow_block();
  convert_nodes(ctx, graph, order, /*dataflow=*/true);

  auto is_param = [&params](const Expr& e) {
    return std::any_of(params.begin(), params.end(), [&](const Ref<Var>& p) { return p.same_as(e); });
  };
  std::vector<Expr> results;
  for (const auto& out : graph.output()) {
    onnx::NodeProto reader;  // for messages: the graph output as a pseudo node
    reader.set_op_type("graph output");
    reader.set_name(out.name());
    reader.add_input(out.name());
    Expr e = ctx.input(reader, 0);
    if (const TensorStructInfo* t = tensor_info(e); t && out.type().has_tensor_type() &&
                                                    out.type().tensor_type().elem_type() != 0) {
      DataType declared = dtype_of(out.type().tensor_type().elem_type(), file);
      RX_CHECK(t->is_unknown_dtype() || t->dtype == declared)
          << file << ": graph output '" << out.name() << "' is declared " << declared.to_string()
          << " but the graph computes " << t->dtype.to_string();
      if (out.type().tensor_type().has_shape()) {
        check_declared_dims(out, *t, get_struct_info(e), file);
      }
    }
    // A node bound it with emit_output already (Context::emit); otherwise bind it here.
    results.push_back(e.is<Var>() && !is_param(e) ? e : Expr(bb.emit_output(e, binding_name(out.name()))));
  }
  RX_CHECK(!results.empty()) << file << ": the graph has no outputs";
  bb.end_block();
  // The run-time guards of the values the import specialised on, after the computation (which
  // is consistent with the specialised values either way) and before main returns.
  for (const auto& [name, data] : ctx.used_specializations()) {
    bb.emit(op::call_packed("vm.builtin.check_tensor_value",
                            {param_of.at(name), make_constant(data),
                             make_string("main: input '" + name + "' (specialised at import)")}),
            "check_" + binding_name(name));
  }
  Expr ret = results.size() == 1 ? results[0] : make_tuple(results);
  bb.end_function(ret);
  return bb.get_module();
}

IRModule import_file(const std::string& path, const transform::FrontendOptions& options) {
  std::ifstream in(path, std::ios::binary);
  RX_CHECK(in) << path << ": cannot open the ONNX model";
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  RX_CHECK(!bytes.empty()) << path << ": the file is empty, not an ONNX model";
  RX_CHECK(bytes.size() <= size_t(INT32_MAX))
      << path << ": the model is " << bytes.size() << " bytes; a protobuf ONNX model is at most "
      << "2 GiB (larger weights belong in external data files)";
  // Protobuf's default nesting limit (100 messages) refuses valid models with deeply nested
  // If/Loop/Scan subgraphs (each level is about 4 messages); kParseDepth allows ~250 levels.
  // A failure is then re-parsed once with a far larger limit, only to tell a model nested too
  // deeply from a corrupt one (the parser's frames are small; kProbeDepth stays well inside
  // the stack).
  constexpr int kParseDepth = 1000, kProbeDepth = 20000;
  auto parse = [&](onnx::ModelProto& model, int depth) {
    google::protobuf::io::ArrayInputStream raw(bytes.data(), int(bytes.size()));
    google::protobuf::io::CodedInputStream coded(&raw);
    coded.SetTotalBytesLimit(INT32_MAX);
    coded.SetRecursionLimit(depth);
    return model.ParseFromCodedStream(&coded) && coded.ConsumedEntireMessage();
  };
  onnx::ModelProto model;
  if (!parse(model, kParseDepth)) {
    onnx::ModelProto probe;
    RX_CHECK(!parse(probe, kProbeDepth))
        << path << ": the model nests its messages (If/Loop/Scan subgraphs inside each other) "
        << "more than " << kParseDepth << " levels deep; the importer reads at most "
        << kParseDepth;
    RX_THROW() << path << ": not a valid ONNX model (the protobuf does not parse: a truncated "
               << "or corrupt file of " << bytes.size() << " bytes?)";
  }
  return import_model(model, path, options);
}

const std::map<std::string, ConverterEntry>& converter_table() {
  static const std::map<std::string, ConverterEntry> table = [] {
    std::map<std::string, ConverterEntry> t;
    register_math_ops(t);
    register_nn_ops(t);
    register_tensor_ops(t);
    register_index_ops(t);
    register_quant_ops(t);
    register_rnn_ops(t);
    register_control_ops(t);
    register_loss_ops(t);
    register_extra_ops(t);
    register_image_ops(t);
    register_dynamic_ops(t);
    register_loop_ops(t);
    register_sequence_ops(t);
    register_signal_ops(t);
    register_roi_ops(t);
    register_tfidf_ops(t);
    register_unique_axis(t);
    register_resize_ops(t);
    register_shape_value_ops(t);  // wraps converters registered above: keep it last
    return t;
  }();
  return table;
}

}  // namespace relax::onnx_frontend

namespace {

void register_onnx(relax::transform::PluginRegistrar&) {
  relax::transform::register_frontend({"onnx", {".onnx"}, relax::onnx_frontend::import_file});
}

}  // namespace

RELAX_PLUGIN("onnx", "0.1.0", register_onnx)
