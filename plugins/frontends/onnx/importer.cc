// The ONNX frontend plugin: reads a ModelProto, checks the whole model, then builds Relax
// function "main" through the BlockBuilder (see importer.h for the two phases).
//
// Graph inputs become parameters (their dims: numbers, `dim_param` names as symbolic
// variables shared by name across inputs, unknown dims as fresh variables), so a model with
// a dynamic batch compiles once for every batch. Initializers become constants; option
// "params=inputs" makes them parameters after the graph inputs instead. A graph input that
// is also an initializer is a parameter with a default in ONNX: a constant here, unless
// params=inputs. Value names become binding names where they are identifiers (sanitised
// otherwise). Every error is a relax::Error naming the file, and the node where there is one.
//
// Options: params=constants|inputs; value.NAME=FILE (.npy or .pb) gives graph input NAME's
// value for specialisation where a static value is needed (importer.h), guarded at run time;
// unknown-values=ignore drops value.NAME options that name no parameter (for callers that pass
// every input). Tensors with external data (data_location EXTERNAL) are read from their
// `location` relative to the model's directory, at `offset` for `length` bytes.
#include "importer.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "relax/arith/analyzer.h"
#include "relax/op/op.h"
#include "relax/runtime/tensor_io.h"
#include "relax/sdk/plugin.h"
#include "relax/support/diagnostic.h"

namespace relax::onnx_frontend {

namespace {

constexpr int kMinOpset = 1;
constexpr int kMaxOpset = 17;

/// Element `p` of a signed (S) or unsigned (U) integer tensor as int64.
template <class S, class U>
int64_t read_int(const char* p, bool is_signed) {
  return is_signed ? int64_t(*reinterpret_cast<const S*>(p)) : int64_t(*reinterpret_cast<const U*>(p));
}

/// The elements of an integer tensor as int64 (any width, signed or unsigned).
std::vector<int64_t> int_elements(const runtime::NDArray& a) {
  std::vector<int64_t> out;
  DataType dt = a.dtype();
  for (int64_t k = 0; k < a.numel(); ++k) {
    const char* p = static_cast<const char*>(a.data()) + k * dt.bytes();
    switch (dt.bytes()) {
      case 1: out.push_back(read_int<int8_t, uint8_t>(p, dt.is_int())); break;
      case 2: out.push_back(read_int<int16_t, uint16_t>(p, dt.is_int())); break;
      case 4: out.push_back(read_int<int32_t, uint32_t>(p, dt.is_int())); break;
      default: out.push_back(read_int<int64_t, uint64_t>(p, dt.is_int())); break;
    }
  }
  return out;
}

std::string node_label(const onnx::NodeProto& node, int index) {
  return node.name().empty() ? "#" + std::to_string(index) : node.name();
}

/// The default-domain opset the model imports; an error when absent or outside kMin..kMax.
int model_opset(const onnx::ModelProto& model, const std::string& file) {
  int opset = -1;
  for (const auto& imp : model.opset_import()) {
    if (imp.domain().empty() || imp.domain() == "ai.onnx") opset = int(imp.version());
  }
  RX_CHECK(opset >= 0) << file << ": the model imports no opset of the default ONNX domain";
  RX_CHECK(opset >= kMinOpset && opset <= kMaxOpset)
      << file << ": opset " << opset << " is not supported (the ONNX frontend implements opsets "
      << kMinOpset << " to " << kMaxOpset << ")";
  return opset;
}

using UnsupportedOps = std::map<std::string, std::vector<std::string>>;

/// The checks of phase 1 on one graph: `outer` names the values of the enclosing graphs (a
/// subgraph of If/Loop/Scan reads them), `prefix` qualifies node labels ("loop/body/").
/// Subgraphs are checked recursively (their structure by check_control_node). Problems go to
/// `problems`, unsupported ops to `unsupported`; returns the nodes in a topological order, in
/// which a node follows the producers of the outer values its subgraphs read.
std::vector<int> check_graph(const onnx::GraphProto& graph, int opset, const std::set<std::string>& outer,
                             const std::string& prefix, std::vector<std::string>& problems,
                             UnsupportedOps& unsupported) {
  // Unsupported ops, grouped by (domain, op type), with their nodes.
  const auto& table = converter_table();
  for (int i = 0; i < graph.node_size(); ++i) {
    const auto& node = graph.node(i);
    bool default_domain = node.domain().empty() || node.domain() == "ai.onnx";
    auto it = table.find(node.op_type());
    if (default_domain && it != table.end() && opset >= it->second.min_opset) continue;
    std::string key = default_domain ? node.op_type() : node.domain() + "::" + node.op_type();
    unsupported[key].push_back(prefix + node_label(node, i));
  }

  // Definitions: graph inputs, initializers, node outputs (each once).
  std::set<std::string> outside;
  for (const auto& in : graph.input()) outside.insert(in.name());
  for (const auto& init : graph.initializer()) outside.insert(init.name());
  std::map<std::string, int> producer;
  for (int i = 0; i < graph.node_size(); ++i) {
    for (const auto& out : graph.node(i).output()) {
      if (out.empty()) continue;
      if (outside.count(out) || producer.count(out)) {
        problems.push_back("value '" + out + "' is defined twice (again by node '" + prefix +
                           node_label(graph.node(i), i) + "')");
      } else {
        producer[out] = i;
      }
    }
  }
  std::vector<std::vector<int>> users(size_t(graph.node_size()));
  std::vector<int> pending(size_t(graph.node_size()), 0);
  std::set<std::string> visible = outer;  // to the subgraphs
  visible.insert(outside.begin(), outside.end());
  for (const auto& [name, i] : producer) visible.insert(name);
  for (int i = 0; i < graph.node_size(); ++i) {
    const auto& node = graph.node(i);
    for (const auto& in : node.input()) {
      if (in.empty() || outside.count(in) || (outer.count(in) && !producer.count(in))) continue;
      auto it = producer.find(in);
      if (it == producer.end()) {
        problems.push_back("node '" + prefix + node_label(node, i) + "' (" + node.op_type() +
                           ") reads '" + in + "', which no node, graph input or initializer "
                           "defines (a missing initializer?)");
        continue;
      }
      users[size_t(it->second)].push_back(i);
      ++pending[size_t(i)];
    }
    // Subgraphs, and the structure of the control-flow ops this importer converts.
    bool default_domain = node.domain().empty() || node.domain() == "ai.onnx";
    auto conv = table.find(node.op_type());
    bool converted = default_domain && conv != table.end() && opset >= conv->second.min_opset;
    bool control = node.op_type() == "If" || node.op_type() == "Loop" || node.op_type() == "Scan";
    if (!converted || (!has_subgraphs(node) && !control)) continue;  // unsupported: reported above
    std::string label = prefix + node_label(node, i);
    for (const std::string& p : check_control_node(node, opset)) {
      problems.push_back("node '" + label + "' (" + node.op_type() + "): " + p);
    }
    for (const auto& a : node.attribute()) {
      if (a.type() == onnx::AttributeProto::GRAPH) {
        check_graph(a.g(), opset, visible, label + "/" + a.name() + "/", problems, unsupported);
      }
    }
    // The outer values the subgraphs read order the node after their producers.
    for (const std::string& in : subgraph_reads(node)) {
      auto it = producer.find(in);
      if (it == producer.end() || it->second == i) continue;
      users[size_t(it->second)].push_back(i);
      ++pending[size_t(i)];
    }
  }
  for (const auto& out : graph.output()) {
    if (!outside.count(out.name()) && !producer.count(out.name()) && !outer.count(out.name())) {
      problems.push_back((prefix.empty() ? "graph output '" : "output '" + prefix) + out.name() +
                         "' is defined by no node, graph input or initializer");
    }
  }

  // Kahn's algorithm, keeping the file's order among ready nodes.
  std::vector<int> order;
  std::deque<int> ready;
  for (int i = 0; i < graph.node_size(); ++i) {
    if (pending[size_t(i)] == 0) ready.push_back(i);
  }
  while (!ready.empty()) {
    int i = ready.front();
    ready.pop_front();
    order.push_back(i);
    for (int u : users[size_t(i)]) {
      if (--pending[size_t(u)] == 0) ready.push_back(u);
    }
  }
  if (order.size() != size_t(graph.node_size()) && problems.empty()) {
    std::ostringstream os;
    os << "the graph has a cycle through the nodes ";
    int listed = 0;
    for (int i = 0; i < graph.node_size(); ++i) {
      if (pending[size_t(i)] == 0) continue;
      if (listed++ == 8) {
        os << ", ...";
        break;
      }
      os << (listed > 1 ? ", " : "") << "'" << prefix << node_label(graph.node(i), i) << "' ("
         << graph.node(i).op_type() << ")";
    }
    problems.push_back(os.str());
  }
  return order;
}

/// Phase 1: every problem that would stop the import, reported together. Returns the nodes
/// in a topological order.
std::vector<int> check_model(const onnx::GraphProto& graph, int opset, const std::string& file) {
  std::vector<std::string> problems;
  UnsupportedOps unsupported;
  std::vector<int> order = check_graph(graph, opset, {}, "", problems, unsupported);
  if (!unsupported.empty()) {
    std::ostringstream os;
    os << unsupported.size() << " unsupported operator" << (unsupported.size() > 1 ? "s" : "")
       << " at opset " << opset << ":";
    for (const auto& [op, nodes] : unsupported) {
      os << "\n    " << op << " (" << nodes.size() << " node" << (nodes.size() > 1 ? "s" : "") << ": ";
      for (size_t k = 0; k < nodes.size() && k < 8; ++k) os << (k ? ", " : "") << nodes[k];
      if (nodes.size() > 8) os << ", ...";
      os << ")";
    }
    problems.insert(problems.begin(), os.str());
  }

  if (!problems.empty()) {
    std::ostringstream os;
    os << file << ": cannot import the model:";
    for (const auto& p : problems) os << "\n  " << p;
    RX_THROW() << os.str();
  }
  return order;
}

/// The struct info of a graph input (or initializer parameter) from its declared type.
StructInfo input_sinfo(const onnx::ValueInfoProto& vi, const std::string& file,
                       std::map<std::string, Ref<tir::Var>>& dim_vars) {
  RX_CHECK(vi.type().has_tensor_type())
      << file << ": graph input '" << vi.name() << "' is not a tensor (sequences, maps and "
      << "optionals are not supported)";
  const auto& tt = vi.type().tensor_type();
  DataType dtype = dtype_of(tt.elem_type(), file + ": graph input '" + vi.name() + "'");
  if (!tt.has_shape()) return tensor_sinfo(dtype, -1);
  std::vector<PrimExpr> dims;
  for (int d = 0; d < tt.shape().dim_size(); ++d) {
    const auto& dim = tt.shape().dim(d);
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

}  // namespace

// ---- Context.

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


const OnnxValue& Context::value(const std::string& name) const {
  auto it = values_.find(name);
  RX_ICHECK(it != values_.end()) << "value '" << name << "' read before check_model defined it";
  return it->second;
}

std::string Context::where(const onnx::NodeProto& node) const {
  return file_ + ": node '" + (node.name().empty() ? node.output(0) : node.name()) + "' (" +
         node.op_type() + ")";
}

Expr Context::input(const onnx::NodeProto& node, int i) {
  RX_CHECK(has_input(node, i)) << where(node) << ": input " << i << " is required";
  auto it = values_.find(node.input(i));
  RX_ICHECK(it != values_.end()) << "value '" << node.input(i) << "' undefined";
  OnnxValue& v = it->second;
  if (v.expr.defined()) return v.expr;
  // A folded value needed as a tensor: a constant when every element is a number.
  RX_ICHECK(v.known.has_value()) << "value '" << node.input(i) << "' has no expression";
  std::vector<int64_t> shape;
  if (!v.known_scalar) shape.push_back(int64_t(v.known->size()));
  runtime::NDArray a = runtime::NDArray::empty(shape, v.known_dtype);
  for (size_t k = 0; k < v.known->size(); ++k) {
    const int64_t* c = tir::as_const_int((*v.known)[k]);
    RX_CHECK(c) << where(node) << ": input '" << node.input(i) << "' is computed from symbolic "
                << "dimensions (element " << k << " is " << tir::to_string((*v.known)[k])
                << "); using it as a tensor is not supported";
    switch (v.known_dtype.bits) {
      case 8: a.data_as<int8_t>()[k] = int8_t(*c); break;
      case 16: a.data_as<int16_t>()[k] = int16_t(*c); break;
      case 32: a.data_as<int32_t>()[k] = int32_t(*c); break;
      default: a.data_as<int64_t>()[k] = *c; break;
    }
  }
  v.expr = make_constant(a);
  return v.expr;
}

std::optional<std::vector<PrimExpr>> Context::known_ints(const onnx::NodeProto& node, int i) {
  if (!has_input(node, i)) return std::nullopt;
  const OnnxValue& v = value(node.input(i));
  return v.known;
}

std::vector<int64_t> Context::const_ints(const onnx::NodeProto& node, int i, const std::string& what) {
  RX_CHECK(has_input(node, i)) << where(node) << ": input " << i << " (" << what << ") is required";
  std::optional<std::vector<PrimExpr>> known = known_ints(node, i);
  if (!known) {
    // A large integer constant (beyond the folding limit).
    if (auto* c = value(node.input(i)).expr.as<Constant>(); c && c->data.dtype().is_integer_like()) {
      std::optional<std::vector<double>> f = const_floats(node, i);
      std::vector<int64_t> out;
      for (double x : *f) out.push_back(int64_t(x));
      return out;
    }
    // A graph input whose value the caller supplied: specialise on it, guarded at run time.
    if (auto it = specialized_.find(node.input(i)); it != specialized_.end()) {
      used_.emplace(it->first, it->second);
      return int_elements(it->second);
    }
  }
  bool is_input = std::any_of(graph_inputs_.begin(), graph_inputs_.end(),
                              [&](const std::string& n) { return n == node.input(i); });
  RX_CHECK(known) << where(node) << ": " << what << " (input '" << node.input(i)
                  << "') must be an integer constant known at import time"
                  << (is_input ? "; it is a graph input: give its value with the frontend option "
                                 "value." + node.input(i) + "=FILE (relax-driver compile "
                                 "--specialize " + node.input(i) + "=FILE), guarded at run time"
                               : std::string());
  std::vector<int64_t> out;
  for (const PrimExpr& e : *known) {
    const int64_t* c = tir::as_const_int(e);
    RX_CHECK(c) << where(node) << ": " << what << " (input '" << node.input(i)
                << "') depends on symbolic dimensions (" << tir::to_string(e)
                << "); it must be a constant";
    out.push_back(*c);
  }
  return out;
}

std::vector<PrimExpr> Context::shape_ints(const onnx::NodeProto& node, int i,
                                          const std::string& what) {
  RX_CHECK(has_input(node, i)) << where(node) << ": input " << i << " (" << what << ") is required";
  if (auto known = known_ints(node, i)) return *known;
  const std::string& name = node.input(i);
  if (auto it = runtime_shapes_.find(name); it != runtime_shapes_.end()) return it->second;
  Expr t = input(node, i);
  const TensorStructInfo& ti = tensor(node, t);
  const int64_t* n = ti.ndim == 1 && ti.shape ? tir::as_const_int((*ti.shape)[0]) : nullptr;
  RX_CHECK(n && (ti.dtype.is_int() || ti.dtype.is_uint()))
      << where(node) << ": " << what << " (input '" << name << "') is computed at run time; as a "
      << "shape it must be a rank-1 integer tensor of static length, got "
      << to_string(get_struct_info(t));
  if (ti.dtype != DataType::Int(64)) t = bb_.emit(op::astype(t, DataType::Int(64)));
  std::vector<PrimExpr> dims = runtime_shape(t, binding_name(name));
  runtime_shapes_[name] = dims;
  return dims;
}

std::vector<PrimExpr> Context::runtime_shape(const Expr& t, const std::string& name) {
  const TensorStructInfo* ti = tensor_info(t);
  RX_ICHECK(ti && ti->shape && ti->ndim == 1)
      << "runtime_shape of " << to_string(get_struct_info(t));
  const int64_t* n = tir::as_const_int((*ti->shape)[0]);
  RX_ICHECK(n) << "runtime_shape needs a static length";
  Expr s = bb_.emit(op::tensor_to_shape(t), name + "_shape");
  std::vector<PrimExpr> dims;
  for (int64_t k = 0; k < *n; ++k) dims.push_back(tir::var(name + "_" + std::to_string(k)));
  bb_.emit_match_cast(s, shape_sinfo(dims), name + "_dims");
  return dims;
}

std::optional<std::vector<double>> Context::const_floats(const onnx::NodeProto& node, int i) {
  if (!has_input(node, i)) return std::nullopt;
  const OnnxValue& v = value(node.input(i));
  if (v.known) {
    std::vector<double> out;
    for (const PrimExpr& e : *v.known) {
      const int64_t* c = tir::as_const_int(e);
      if (!c) return std::nullopt;
      out.push_back(double(*c));
    }
    return out;
  }
  auto* c = v.expr.as<Constant>();
  if (!c) return std::nullopt;
  const runtime::NDArray& a = c->data;
  DataType dt = a.dtype();
  std::vector<double> out(size_t(a.numel()));
  for (int64_t k = 0; k < a.numel(); ++k) {
    double x = 0;
    if (dt == DataType::Float(32)) x = a.data_as<float>()[k];
    else if (dt == DataType::Float(64)) x = a.data_as<double>()[k];
    else if (dt == DataType::Int(64)) x = double(a.data_as<int64_t>()[k]);
    else if (dt == DataType::Int(32)) x = a.data_as<int32_t>()[k];
    else if (dt == DataType::Int(16)) x = a.data_as<int16_t>()[k];
    else if (dt == DataType::Int(8)) x = a.data_as<int8_t>()[k];
    else if (dt == DataType::UInt(8) || dt.is_bool()) x = a.data_as<uint8_t>()[k];
    else return std::nullopt;
    out[size_t(k)] = x;
  }
  return out;
}

const TensorStructInfo& Context::tensor(const onnx::NodeProto& node, const Expr& e) {
  const TensorStructInfo* t = tensor_info(e);
  RX_CHECK(t) << where(node) << ": expected a tensor input, got "
              << to_string(get_struct_info(e));
  return *t;
}

std::vector<PrimExpr> Context::shape_of(const onnx::NodeProto& node, const Expr& e,
                                        const std::string& why) {
  const TensorStructInfo& t = tensor(node, e);
  RX_CHECK(t.shape.has_value()) << where(node) << ": the shape of input " << describe(e)
                                << " is unknown; " << why << " needs it";
  return *t.shape;
}

int Context::ndim(const onnx::NodeProto& node, const Expr& e) {
  const TensorStructInfo& t = tensor(node, e);
  RX_CHECK(t.ndim >= 0) << where(node) << ": the rank of input " << describe(e) << " is unknown";
  return t.ndim;
}

Expr Context::emit(const Expr& call, const onnx::NodeProto& node, int out) {
  std::string hint = out < node.output_size() ? binding_name(node.output(out)) : "";
  if (out < node.output_size() && graph_outputs_.count(node.output(out))) {
    return bb_.emit_output(call, hint);
  }
  return bb_.emit(call, hint);
}

OnnxValue Context::folded(std::vector<PrimExpr> known, bool scalar, DataType dtype) {
  OnnxValue v;
  for (PrimExpr& e : known) e = arith::simplify(e);
  v.known = std::move(known);
  v.known_scalar = scalar;
  v.known_dtype = dtype;
  return v;
}

// ---- Subgraphs (If, Loop, Scan).

bool has_subgraphs(const onnx::NodeProto& node) {
  return std::any_of(node.attribute().begin(), node.attribute().end(), [](const auto& a) {
    return a.type() == onnx::AttributeProto::GRAPH || a.type() == onnx::AttributeProto::GRAPHS;
  });
}

std::set<std::string> free_names(const onnx::GraphProto& graph) {
  std::set<std::string> defined, reads;
  for (const auto& in : graph.input()) defined.insert(in.name());
  for (const auto& init : graph.initializer()) defined.insert(init.name());
  for (const auto& node : graph.node()) {
    for (const auto& out : node.output()) defined.insert(out);
    for (const auto& in : node.input()) reads.insert(in);
    for (const std::string& in : subgraph_reads(node)) reads.insert(in);
  }
  for (const auto& out : graph.output()) reads.insert(out.name());
  std::set<std::string> out;
  for (const std::string& r : reads) {
    if (!r.empty() && !defined.count(r)) out.insert(r);
  }
  return out;
}

std::set<std::string> subgraph_reads(const onnx::NodeProto& node) {
  std::set<std::string> out;
  for (const auto& a : node.attribute()) {
    if (a.type() == onnx::AttributeProto::GRAPH) {
      std::set<std::string> f = free_names(a.g());
      out.insert(f.begin(), f.end());
    }
    for (const auto& g : a.graphs()) {
      std::set<std::string> f = free_names(g);
      out.insert(f.begin(), f.end());
    }
  }
  return out;
}

std::vector<int> subgraph_order(const onnx::GraphProto& graph, int opset) {
  std::vector<std::string> problems;
  UnsupportedOps unsupported;
  std::vector<int> order = check_graph(graph, opset, free_names(graph), "", problems, unsupported);
  RX_ICHECK(problems.empty() && unsupported.empty()) << "a subgraph failed the checks after check_model";
  return order;
}

void convert_node(Context& ctx, const onnx::NodeProto& node) {
  std::vector<OnnxValue> outs;
  try {
    outs = converter_table().at(node.op_type()).convert(ctx, node);
  } catch (const Error& e) {
    std::string msg = e.message();
    if (msg.rfind(ctx.file() + ":", 0) == 0) throw;
    RX_THROW() << ctx.where(node) << ": " << msg;
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
                               [&](const onnx::TensorProto& t) { return t.name() == name; });
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
    // graph inputs that stay parameters.
    for (auto it = value_files.begin(); it != value_files.end();) {
      bool param = false;
      for (const auto& in : model.graph().input()) param |= in.name() == it->first;
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

  std::vector<Ref<Var>> params;
  std::map<std::string, Ref<Var>> param_of;  // by ONNX name, for the guards
  std::vector<std::string> input_names;
  for (const auto& in : graph.input()) {
    // A graph input with an initializer has a default: a constant, or with params=inputs a
    // parameter at its place among the graph inputs.
    if (initializer_names.count(in.name()) && !params_as_inputs) continue;
    Ref<Var> p = make_var(binding_name(in.name()), input_sinfo(in, file, dim_vars));
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
      if (out.type().tensor_type().has_shape() && t->ndim >= 0) {
        RX_CHECK(out.type().tensor_type().shape().dim_size() == t->ndim)
            << file << ": graph output '" << out.name() << "' is declared with rank "
            << out.type().tensor_type().shape().dim_size() << " but the graph computes "
            << to_string(get_struct_info(e));
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
  onnx::ModelProto model;
  google::protobuf::io::ArrayInputStream raw(bytes.data(), int(bytes.size()));
  google::protobuf::io::CodedInputStream coded(&raw);
  coded.SetTotalBytesLimit(INT32_MAX);
  RX_CHECK(model.ParseFromCodedStream(&coded) && coded.ConsumedEntireMessage())
      << path << ": not a valid ONNX model (the protobuf does not parse: a truncated or "
      << "corrupt file of " << bytes.size() << " bytes?)";
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
