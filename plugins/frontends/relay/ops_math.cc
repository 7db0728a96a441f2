// Relay converters: element-wise unary and binary ops, comparisons, logic, cast, clip and the
// reductions. Relay's broadcasting is NumPy's, as Relax's is, so binary ops map one to one.
#include <cmath>

#include "convert.h"
#include "relax/op/op.h"

namespace relax::relay_frontend {

namespace {

using Unary = Expr (*)(Expr);
using Binary = Expr (*)(Expr, Expr);

/// Relay's reduction axes: `axis` (None: all), with `exclude` meaning every other axis.
std::optional<std::vector<int64_t>> reduce_axes(OpCall& c) {
  int64_t nd = c.ndim(0);
  std::optional<std::vector<int64_t>> axes = c.attr_ints("axis");
  bool exclude = c.attr_bool("exclude", false);
  if (!axes) {
    if (exclude) return std::vector<int64_t>{};
    return std::nullopt;
  }
  std::vector<int64_t> norm;
  for (int64_t a : *axes) norm.push_back(c.axis(a, nd));
  if (!exclude) return norm;
  std::vector<int64_t> rest;
  for (int64_t k = 0; k < nd; ++k) {
    if (std::find(norm.begin(), norm.end(), k) == norm.end()) rest.push_back(k);
  }
  return rest;
}

using Reduce = Expr (*)(Expr, std::optional<std::vector<int64_t>>, bool);

Expr reduce(OpCall& c, Reduce f) {
  std::optional<std::vector<int64_t>> axes = reduce_axes(c);
  if (axes && axes->empty()) return c.arg(0);  // exclude of every axis: nothing reduced
  return f(c.arg(0), axes, c.attr_bool("keepdims", false));
}

/// variance / std (Relay passes the mean as a second argument; `unbiased` divides by n - 1).
Expr moment(OpCall& c, bool root) {
  std::optional<std::vector<int64_t>> axes = reduce_axes(c);
  bool keep = c.attr_bool("keepdims", false);
  Expr x = c.arg(0);
  Expr mean = c.num_args() > 1 ? c.arg(1) : c.bb().emit(op::mean(x, axes, true));
  Expr d = c.bb().emit(op::subtract(x, mean));
  Expr sq = c.bb().emit(op::multiply(d, d));
  Expr var;
  if (c.attr_bool("unbiased", false)) {
    std::vector<int64_t> shape = c.static_shape(0, "unbiased variance");
    int64_t n = 1;
    if (axes) {
      for (int64_t a : *axes) n *= shape[size_t(a)];
    } else {
      for (int64_t s : shape) n *= s;
    }
    Expr s = c.bb().emit(op::sum(sq, axes, keep));
    var = c.bb().emit(op::divide(s, scalar_const(double(n > 1 ? n - 1 : 1), c.dtype(0))));
  } else {
    var = c.bb().emit(op::mean(sq, axes, keep));
  }
  return root ? op::sqrt(var) : var;
}

Expr arg_reduce(OpCall& c, bool is_max) {
  std::optional<std::vector<int64_t>> axes = reduce_axes(c);
  if (c.attr_bool("select_last_index", false)) c.fail("select_last_index=True is not supported");
  bool keep = c.attr_bool("keepdims", false);
  Expr r;
  if (!axes) {
    r = is_max ? op::argmax(c.arg(0), std::nullopt, keep) : op::argmin(c.arg(0), std::nullopt, keep);
  } else {
    if (axes->size() != 1) c.fail("only one axis is supported, got " + std::to_string(axes->size()));
    r = is_max ? op::argmax(c.arg(0), (*axes)[0], keep) : op::argmin(c.arg(0), (*axes)[0], keep);
  }
  // Relay's argmax/argmin give int32 indices.
  Expr idx = c.bb().emit(r);
  return tensor_info(idx) && tensor_info(idx)->dtype == DataType::Int(32) ? idx : op::astype(idx, DataType::Int(32));
}

}  // namespace

void register_math_ops(OpTable& t) {
  const std::pair<const char*, Unary> unary[] = {
      {"exp", op::exp},         {"fast_exp", op::exp},     {"log", op::log},
      {"sqrt", op::sqrt},       {"rsqrt", op::rsqrt},      {"sin", op::sin},
      {"cos", op::cos},         {"tan", op::tan},          {"asin", op::asin},
      {"acos", op::acos},       {"atan", op::atan},        {"sinh", op::sinh},
      {"cosh", op::cosh},       {"tanh", op::tanh},        {"fast_tanh", op::tanh},
      {"asinh", op::asinh},     {"acosh", op::acosh},      {"atanh", op::atanh},
      {"sigmoid", op::sigmoid}, {"erf", op::erf},          {"fast_erf", op::erf},
      {"floor", op::floor},     {"ceil", op::ceil},        {"round", op::round},
      {"trunc", op::trunc},     {"abs", op::abs},          {"negative", op::negative},
      {"sign", op::sign},       {"isnan", op::isnan},      {"isinf", op::isinf},
      {"isfinite", op::isfinite}, {"logical_not", op::logical_not},
      {"bitwise_not", op::bitwise_not}, {"nn.relu", op::relu},
  };
  for (const auto& [name, f] : unary) {
    t[name] = [f = f](OpCall& c) { return f(c.arg(0)); };
  }
  const std::pair<const char*, Binary> binary[] = {
      {"add", op::add},                 {"subtract", op::subtract},     {"multiply", op::multiply},
      {"divide", op::divide},           {"floor_divide", op::floor_divide},
      {"power", op::power},             {"mod", op::mod},               {"floor_mod", op::floor_mod},
      {"maximum", op::maximum},         {"minimum", op::minimum},       {"equal", op::equal},
      {"not_equal", op::not_equal},     {"less", op::less},             {"less_equal", op::less_equal},
      {"greater", op::greater},         {"greater_equal", op::greater_equal},
      {"logical_and", op::logical_and}, {"logical_or", op::logical_or}, {"logical_xor", op::logical_xor},
      {"bitwise_and", op::bitwise_and}, {"bitwise_or", op::bitwise_or}, {"bitwise_xor", op::bitwise_xor},
      {"left_shift", op::left_shift},   {"right_shift", op::right_shift},
  };
  for (const auto& [name, f] : binary) {
    t[name] = [f = f](OpCall& c) { return f(c.arg(0), c.arg(1)); };
  }
  // Integer division in Relay truncates like C for "divide"; Relax's divide does the same on
  // integers, so no special case is needed.
  for (const char* name : {"copy", "stop_gradient", "annotation.stop_fusion", "nn.identity"}) {
    t[name] = [](OpCall& c) { return c.arg(0); };
  }
  t["square"] = [](OpCall& c) { return op::square(c.arg(0)); };
  t["trunc_divide"] = [](OpCall& c) { return op::divide(c.arg(0), c.arg(1)); };  // Relax's truncates on integers
  t["trunc_mod"] = [](OpCall& c) { return op::mod(c.arg(0), c.arg(1)); };
  for (const auto& [name, base] : {std::pair<const char*, double>{"log2", 2.0}, {"log10", 10.0}}) {
    t[name] = [base = base](OpCall& c) {
      Expr l = c.bb().emit(op::log(c.arg(0)));
      return op::divide(l, scalar_const(std::log(base), c.dtype(0)));
    };
  }
  t["cast"] = [](OpCall& c) { return op::astype(c.arg(0), c.attr_dtype("dtype", c.dtype(0))); };
  t["cast_like"] = [](OpCall& c) { return op::astype(c.arg(0), c.dtype(1)); };
  t["clip"] = [](OpCall& c) {
    DataType dt = c.dtype(0);
    double lo = c.attr_float("a_min", 0), hi = c.attr_float("a_max", 0);
    if (dt.is_float()) return op::clip(c.arg(0), tir::float_imm(lo, dt), tir::float_imm(hi, dt));
    return op::clip(c.arg(0), tir::int_imm(int64_t(lo), dt), tir::int_imm(int64_t(hi), dt));
  };
  t["sum"] = [](OpCall& c) { return reduce(c, op::sum); };
  t["mean"] = [](OpCall& c) { return reduce(c, op::mean); };
  t["max"] = [](OpCall& c) { return reduce(c, op::max); };
  t["min"] = [](OpCall& c) { return reduce(c, op::min); };
  t["prod"] = [](OpCall& c) { return reduce(c, op::prod); };
  t["all"] = [](OpCall& c) {  // bool: all == min over {0, 1}
    Expr x = c.bb().emit(op::astype(c.arg(0), DataType::Int(8)));
    OpCall& cc = c;
    Expr r = c.bb().emit(op::min(x, reduce_axes(cc), c.attr_bool("keepdims", false)));
    return op::astype(r, DataType::Bool());
  };
  t["any"] = [](OpCall& c) {
    Expr x = c.bb().emit(op::astype(c.arg(0), DataType::Int(8)));
    Expr r = c.bb().emit(op::max(x, reduce_axes(c), c.attr_bool("keepdims", false)));
    return op::astype(r, DataType::Bool());
  };
  t["variance"] = [](OpCall& c) { return moment(c, false); };
  t["std"] = [](OpCall& c) { return moment(c, true); };
  t["argmax"] = [](OpCall& c) { return arg_reduce(c, true); };
  t["argmin"] = [](OpCall& c) { return arg_reduce(c, false); };
}

}  // namespace relax::relay_frontend
