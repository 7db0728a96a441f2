// The ONNX importer's Context (importer.h): the values defined so far and what converters read
// from them. Inputs come as Relax tensors (a folded value becomes a constant when first needed
// as one, or a tensor computed at run time from the dims when its elements are symbolic), as elements known at import time (const_ints, with values supplied for graph inputs
// recorded for their run-time guards), or as shape values bound at run time (shape_ints,
// runtime_shape: tensor_to_shape + match_cast). Emitting binds a node's output under its
// name, with emit_output for graph outputs.
#include <algorithm>

#include "importer.h"
#include "relax/arith/analyzer.h"
#include "relax/op/op.h"
#include "relax/support/diagnostic.h"

namespace relax::onnx_frontend {

namespace {

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

}  // namespace

const OnnxValue& Context::value(const std::string& name) const {
  // An empty name is an omitted optional input: reading it means a required one is missing.
  RX_CHECK(!name.empty()) << "a required input is left empty";
  auto it = values_.find(name);
  RX_ICHECK(it != values_.end()) << "value '" << name << "' read before check_model defined it";
  return it->second;
}

std::string Context::where(const onnx::NodeProto& node) const {
  // A node may have neither a name nor outputs (a damaged model): this message must not fail.
  std::string name = !node.name().empty()  ? node.name()
                     : node.output_size() > 0 ? "output " + node.output(0)
                                              : "#unnamed";
  return file_ + ": node '" + name + "' (" + node.op_type() + ")";
}

Expr Context::input(const onnx::NodeProto& node, int i) {
  RX_CHECK(has_input(node, i)) << where(node) << ": input " << i << " is required";
  auto it = values_.find(node.input(i));
  RX_ICHECK(it != values_.end()) << "value '" << node.input(i) << "' undefined";
  OnnxValue& v = it->second;
  if (v.expr.defined()) return v.expr;
  // A folded value needed as a tensor: a constant when every element is a number, else
  // computed at run time from the symbolic dims.
  RX_ICHECK(v.known.has_value()) << "value '" << node.input(i) << "' has no expression";
  if (!std::all_of(v.known->begin(), v.known->end(),
                   [](const PrimExpr& e) { return tir::as_const_int(e) != nullptr; })) {
    v.expr = known_at_run_time(v, binding_name(node.input(i)));
    return v.expr;
  }
  std::vector<int64_t> shape;
  if (!v.known_scalar) shape.push_back(int64_t(v.known->size()));
  runtime::NDArray a = runtime::NDArray::empty(shape, v.known_dtype);
  for (size_t k = 0; k < v.known->size(); ++k) {
    const int64_t* c = tir::as_const_int((*v.known)[k]);
    switch (v.known_dtype.bits) {
      case 1: a.data_as<uint8_t>()[k] = *c != 0; break;  // bool, known as 0/1
      case 8: a.data_as<int8_t>()[k] = int8_t(*c); break;
      case 16: a.data_as<int16_t>()[k] = int16_t(*c); break;
      case 32: a.data_as<int32_t>()[k] = int32_t(*c); break;
      default: a.data_as<int64_t>()[k] = *c; break;
    }
  }
  v.expr = make_constant(a);
  return v.expr;
}

Expr Context::known_at_run_time(const OnnxValue& v, const std::string& name) {
  // Each element e as arange(e, e + 1) (one int64 element), joined.
  DataType i64 = DataType::Int(64);
  std::vector<Expr> parts;
  for (const PrimExpr& e : *v.known) {
    Expr part = bb_.emit(op::arange(e, e + 1, tir::int_imm(1), i64));
    const TensorStructInfo* t = tensor_info(part);
    if (!t || !t->shape || !tir::is_const_int((*t->shape)[0], 1))
      part = bb_.emit_match_cast(part, tensor_sinfo({tir::int_imm(1)}, i64));
    parts.push_back(part);
  }
  Expr out = parts.empty() ? make_constant(runtime::NDArray::empty({0}, i64))
             : parts.size() == 1 ? parts[0]
                                 : bb_.emit(op::concat(parts, 0));
  if (v.known_dtype.is_bool()) {
    out = bb_.emit(op::not_equal(out, scalar_constant(0, i64)));
  } else if (v.known_dtype != i64) {
    out = bb_.emit(op::astype(out, v.known_dtype));
  }
  if (v.known_scalar) out = bb_.emit(op::reshape(out, std::vector<PrimExpr>{}));
  return bb_.emit(op::reshape(out, tensor_info(out)->shape.value()), name);
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
  return onnx_frontend::const_floats(value(node.input(i)));
}

std::optional<std::vector<double>> const_floats(const OnnxValue& v) {
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

}  // namespace relax::onnx_frontend
