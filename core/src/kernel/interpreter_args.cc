// Argument binding of the reference interpreter (tir/interpreter.h): checks each argument
// against its parameter (an NDArray for a buffer: CPU, dtype, rank, shape and strides; a
// number for a scalar, converted to its dtype), binds the symbolic dimensions and strides that
// are plain variables at their first occurrence, and maps each buffer's memory into the Env.
// Every error names the parameter and its buffer.
#include <sstream>

#include "interpreter_internal.h"
#include "relax/support/diagnostic.h"

namespace relax::tir::interp {

namespace {

std::string shape_str(const std::vector<int64_t>& s) {
  std::ostringstream os;
  os << "(";
  for (size_t i = 0; i < s.size(); ++i) os << (i ? ", " : "") << s[i];
  os << (s.size() == 1 ? ",)" : ")");
  return os.str();
}

std::string shape_str(const std::vector<PrimExpr>& s) {
  std::ostringstream os;
  os << "(";
  for (size_t i = 0; i < s.size(); ++i) os << (i ? ", " : "") << to_string(s[i]);
  os << (s.size() == 1 ? ",)" : ")");
  return os.str();
}

/// The strides of an NDArray in elements (compact row-major when it has none).
std::vector<int64_t> array_strides(const runtime::NDArray& a) {
  if (!a.node()->strides.empty()) return a.node()->strides;
  std::vector<int64_t> s(a.shape().size());
  int64_t acc = 1;
  for (size_t d = s.size(); d-- > 0;) {
    s[d] = acc;
    acc *= a.shape()[d];
  }
  return s;
}

}  // namespace

/// Binds the arguments: symbolic dimensions first (plain variables, first occurrence), then
/// checks every shape, stride and dtype, and maps each buffer's memory.
void bind_args(const PrimFunc& f, const std::vector<InterpArg>& args, Env& env) {
  RX_CHECK(args.size() == f.params.size())
      << "the PrimFunc takes " << f.params.size() << " arguments, got " << args.size();
  auto bind_var = [&](const PrimExpr& e, int64_t value) {
    if (auto* v = e.as<Var>(); v && !env.vars.count(v))
      env.vars[v] = {int_scalar(wrap(v->dtype, value))};
  };
  // Pass 1: scalar parameters and whole-dimension variables.
  for (size_t i = 0; i < f.params.size(); ++i) {
    const Ref<Var>& p = f.params[i];
    const InterpArg& a = args[i];
    if (p->dtype.is_handle()) {
      const auto* arr = std::get_if<runtime::NDArray>(&a);
      RX_CHECK(arr != nullptr && arr->defined())
          << "parameter " << p->name << " is a buffer and needs an NDArray";
      RX_CHECK(arr->device().device_type == kDLCPU)
          << "parameter " << p->name << ": the interpreter runs on CPU NDArrays only";
      Ref<Buffer> b = f.buffer_of(p);
      if (!b.defined()) continue;
      RX_CHECK(arr->dtype() == b->dtype)
          << "parameter " << p->name << " (buffer " << b->name << ") has dtype "
          << b->dtype.to_string() << ", got an NDArray of " << arr->dtype().to_string();
      RX_CHECK(size_t(arr->ndim()) == b->ndim())
          << "parameter " << p->name << " (buffer " << b->name << ") expects shape "
          << shape_str(b->shape) << ", got " << shape_str(arr->shape()) << " (" << arr->ndim()
          << " dimensions, not " << b->ndim() << ")";
      std::vector<int64_t> strides = array_strides(*arr);
      for (size_t d = 0; d < b->ndim(); ++d) bind_var(b->shape[d], arr->shape()[d]);
      for (size_t d = 0; d < b->strides.size(); ++d) bind_var(b->strides[d], strides[d]);
      bind_var(b->elem_offset, 0);
    } else if (const auto* x = std::get_if<int64_t>(&a)) {
      RX_CHECK(p->dtype.is_integer_like() || p->dtype.is_float())
          << "parameter " << p->name << " of type " << p->dtype.to_string()
          << " cannot take an integer";
      Scalar s = convert(DataType::Int(64), p->dtype, int_scalar(*x));
      env.vars[p.get()] = {s};
    } else if (const auto* x = std::get_if<double>(&a)) {
      RX_CHECK(p->dtype.is_float())
          << "parameter " << p->name << " of type " << p->dtype.to_string()
          << " needs an integer, got the float " << *x;
      env.vars[p.get()] = {float_scalar(interp::round_float(p->dtype, *x))};
    } else {
      RX_THROW() << "parameter " << p->name << " is a scalar of type " << p->dtype.to_string()
                 << " and cannot take an NDArray";
    }
  }
  // Pass 2: every dimension and stride agrees; map the memory.
  for (size_t i = 0; i < f.params.size(); ++i) {
    const Ref<Var>& p = f.params[i];
    if (!p->dtype.is_handle()) continue;
    const auto& arr = std::get<runtime::NDArray>(args[i]);
    Ref<Buffer> b = f.buffer_of(p);
    std::vector<int64_t> strides = array_strides(arr);
    int64_t extent = 1;  // elements reachable: one past the largest offset
    for (size_t d = 0; d < strides.size(); ++d) {
      if (arr.shape()[d] == 0) extent = 0;
      if (extent) extent += (arr.shape()[d] - 1) * strides[d];
    }
    if (arr.shape().empty()) extent = 1;
    env.memory[p.get()] = Memory{static_cast<char*>(arr.data()), extent * arr.dtype().bytes()};
    if (!b.defined()) continue;
    std::vector<int64_t> expected;
    for (const auto& d : b->shape) expected.push_back(eval_int(env, d));
    RX_CHECK(expected == arr.shape()) << "parameter " << p->name << " (buffer " << b->name
                                      << ") expects shape " << shape_str(b->shape) << " = "
                                      << shape_str(expected) << ", got " << shape_str(arr.shape());
    if (b->strides.empty()) {
      RX_CHECK(arr.is_contiguous())
          << "parameter " << p->name << " (buffer " << b->name
          << ") is compact, got a strided NDArray with strides " << shape_str(strides);
    } else {
      std::vector<int64_t> want;
      for (const auto& s : b->strides) want.push_back(eval_int(env, s));
      for (size_t d = 0; d < want.size(); ++d)
        RX_CHECK(want[d] == strides[d] || arr.shape()[d] == 1)
            << "parameter " << p->name << " (buffer " << b->name << ") expects strides "
            << shape_str(want) << ", got " << shape_str(strides);
    }
  }
}

}  // namespace relax::tir::interp
