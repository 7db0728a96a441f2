// OpCall: arguments and typed attributes of one Relay operator call (convert.h).
#include <cmath>
#include <cstring>
#include <limits>

#include "convert.h"
#include "relax/support/diagnostic.h"

namespace relax::relay_frontend {

const Expr& OpCall::arg(size_t i) const {
  if (i >= args_.size()) {
    fail("expected at least " + std::to_string(i + 1) + " arguments, got " + std::to_string(args_.size()));
  }
  return args_[i];
}

const TensorStructInfo& OpCall::tensor(size_t i) const {
  const TensorStructInfo* t = tensor_info(arg(i));
  if (!t || t->ndim < 0) {
    fail("argument " + std::to_string(i) + " must be a tensor of known rank, got " +
         to_string(get_struct_info(arg(i))));
  }
  return *t;
}

std::vector<PrimExpr> OpCall::shape(size_t i, const std::string& why) const {
  const TensorStructInfo& t = tensor(i);
  if (!t.shape) fail("the shape of argument " + std::to_string(i) + " must be known (" + why + ")");
  return *t.shape;
}

std::vector<int64_t> OpCall::static_shape(size_t i, const std::string& why) const {
  std::vector<int64_t> out;
  for (const PrimExpr& d : shape(i, why)) {
    const int64_t* c = tir::as_const_int(d);
    if (!c) fail("argument " + std::to_string(i) + " needs a static shape (" + why + "), got " + to_string(get_struct_info(arg(i))));
    out.push_back(*c);
  }
  return out;
}

std::vector<Expr> OpCall::tuple_fields(size_t i) {
  const Expr& e = arg(i);
  if (const auto* t = e.as<Tuple>()) return t->fields;
  const auto* ts = get_struct_info(e).as<TupleStructInfo>();
  if (!ts) fail("argument " + std::to_string(i) + " must be a tuple, got " + to_string(get_struct_info(e)));
  std::vector<Expr> out;
  for (size_t k = 0; k < ts->fields.size(); ++k) out.push_back(bb_.emit(make_ref<TupleGetItem>(e, int(k))));
  return out;
}

std::optional<double> OpCall::const_scalar(size_t i) const {
  const auto* c = arg(i).as<Constant>();
  if (!c || c->data.numel() != 1) return std::nullopt;
  const runtime::NDArray& a = c->data;
  DataType dt = a.dtype();
  const void* p = a.data();
  if (dt == DataType::Float(32)) return *static_cast<const float*>(p);
  if (dt == DataType::Float(64)) return *static_cast<const double*>(p);
  if (dt == DataType::Int(32)) return *static_cast<const int32_t*>(p);
  if (dt == DataType::Int(64)) return double(*static_cast<const int64_t*>(p));
  if (dt == DataType::Int(8)) return *static_cast<const int8_t*>(p);
  if (dt == DataType::UInt(8) || dt.is_bool()) return *static_cast<const uint8_t*>(p);
  return std::nullopt;
}

double OpCall::scalar(size_t i, const std::string& what) const {
  std::optional<double> v = const_scalar(i);
  if (!v) fail(what + " (argument " + std::to_string(i) + ") must be a constant scalar");
  return *v;
}

const AttrValue* OpCall::find(const std::string& name) const {
  for (const auto& [k, v] : node_.attrs) {
    if (k == name) return v.kind == AttrValue::Kind::kNone ? nullptr : &v;
  }
  return nullptr;
}

bool OpCall::has(const std::string& name) const { return find(name) != nullptr; }

bool OpCall::attr_is_list(const std::string& name) const {
  const AttrValue* v = find(name);
  return v && v->kind == AttrValue::Kind::kList;
}

void OpCall::bad_attr(const AttrValue& v, const std::string& name, const char* expected) const {
  src_.error(v.loc, op() + ": attribute '" + name + "' must be " + expected);
}

int64_t OpCall::attr_int(const std::string& name, int64_t dflt) const {
  const AttrValue* v = find(name);
  if (!v) return dflt;
  if (v->kind == AttrValue::Kind::kList && v->list.size() == 1) v = &v->list[0];
  if (v->kind != AttrValue::Kind::kInt && v->kind != AttrValue::Kind::kBool) bad_attr(*v, name, "an integer");
  return v->i;
}

double OpCall::attr_float(const std::string& name, double dflt) const {
  const AttrValue* v = find(name);
  if (!v) return dflt;
  if (v->kind == AttrValue::Kind::kInt) return double(v->i);
  if (v->kind != AttrValue::Kind::kFloat) bad_attr(*v, name, "a number");
  return v->f;
}

bool OpCall::attr_bool(const std::string& name, bool dflt) const {
  const AttrValue* v = find(name);
  if (!v) return dflt;
  if (v->kind != AttrValue::Kind::kBool && v->kind != AttrValue::Kind::kInt) bad_attr(*v, name, "True or False");
  return v->i != 0;
}

std::string OpCall::attr_str(const std::string& name, const std::string& dflt) const {
  const AttrValue* v = find(name);
  if (!v) return dflt;
  if (v->kind != AttrValue::Kind::kString) bad_attr(*v, name, "a string");
  return v->s;
}

std::optional<std::vector<int64_t>> OpCall::attr_ints(const std::string& name) const {
  const AttrValue* v = find(name);
  if (!v) return std::nullopt;
  if (v->kind == AttrValue::Kind::kInt) return std::vector<int64_t>{v->i};
  if (v->kind != AttrValue::Kind::kList) bad_attr(*v, name, "a list of integers");
  std::vector<int64_t> out;
  for (const AttrValue& e : v->list) {
    if (e.kind == AttrValue::Kind::kList) {  // nested lists (nn.pad's pad_width) flatten
      for (const AttrValue& f : e.list) {
        if (f.kind != AttrValue::Kind::kInt) bad_attr(f, name, "a list of integers");
        out.push_back(f.i);
      }
      continue;
    }
    if (e.kind != AttrValue::Kind::kInt) bad_attr(e, name, "a list of integers");
    out.push_back(e.i);
  }
  return out;
}

std::optional<std::vector<double>> OpCall::attr_floats(const std::string& name) const {
  const AttrValue* v = find(name);
  if (!v) return std::nullopt;
  if (v->kind == AttrValue::Kind::kInt || v->kind == AttrValue::Kind::kFloat) return std::vector<double>{v->f};
  if (v->kind != AttrValue::Kind::kList) bad_attr(*v, name, "a list of numbers");
  std::vector<double> out;
  for (const AttrValue& e : v->list) {
    if (e.kind != AttrValue::Kind::kInt && e.kind != AttrValue::Kind::kFloat) bad_attr(e, name, "a list of numbers");
    out.push_back(e.kind == AttrValue::Kind::kInt ? double(e.i) : e.f);
  }
  return out;
}

DataType OpCall::attr_dtype(const std::string& name, DataType dflt) const {
  const AttrValue* v = find(name);
  if (!v) return dflt;
  if (v->kind != AttrValue::Kind::kString) bad_attr(*v, name, "a dtype string");
  if (v->s.empty()) return dflt;
  std::optional<DataType> dt = DataType::parse(v->s);
  if (!dt) bad_attr(*v, name, "a known dtype (float32, int64, ...)");
  return *dt;
}

int64_t OpCall::axis(int64_t a, int64_t ndim, const std::string& what) const {
  if (a < -ndim || a >= std::max<int64_t>(ndim, 1)) {
    fail(what + " " + std::to_string(a) + " is out of range for rank " + std::to_string(ndim));
  }
  return a < 0 ? a + ndim : a;
}

void OpCall::fail(const std::string& msg) const { src_.error(node_.loc, op() + ": " + msg); }

namespace {

/// `v` converted to the integer type T, saturating at its range (NaN: 0): attribute values
/// such as clip's -inf bound reach integer constants.
template <typename T>
T saturate(double v) {
  if (std::isnan(v)) return 0;
  if (v <= double(std::numeric_limits<T>::min())) return std::numeric_limits<T>::min();
  if (v >= double(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  return T(v);
}

}  // namespace

Expr scalar_const(double value, DataType dtype) {
  runtime::NDArray a = runtime::NDArray::empty({}, dtype);
  void* p = a.data();
  if (dtype == DataType::Float(32)) *static_cast<float*>(p) = float(value);
  else if (dtype == DataType::Float(64)) *static_cast<double*>(p) = value;
  else if (dtype == DataType::Float(16) || dtype == DataType::BFloat(16)) {
    float f = float(value);
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    uint16_t h;
    if (dtype == DataType::BFloat(16)) {
      h = uint16_t(bits >> 16);
    } else {  // float16 by rounding the float32 bits (normal range; the constants here are small)
      uint32_t sign = (bits >> 16) & 0x8000, exp = (bits >> 23) & 0xff, man = bits & 0x7fffff;
      int e = int(exp) - 127 + 15;
      if (exp == 0 || e <= 0) h = uint16_t(sign);
      else if (e >= 31) h = uint16_t(sign | 0x7c00);
      else h = uint16_t(sign | uint32_t(e) << 10 | ((man + 0x1000) >> 13));
    }
    std::memcpy(p, &h, 2);
  } else if (dtype == DataType::Int(64)) *static_cast<int64_t*>(p) = saturate<int64_t>(value);
  else if (dtype == DataType::Int(32)) *static_cast<int32_t*>(p) = saturate<int32_t>(value);
  else if (dtype == DataType::Int(16)) *static_cast<int16_t*>(p) = saturate<int16_t>(value);
  else if (dtype == DataType::Int(8)) *static_cast<int8_t*>(p) = saturate<int8_t>(value);
  else if (dtype.is_bool()) *static_cast<uint8_t*>(p) = value != 0;
  else if (dtype == DataType::UInt(8)) *static_cast<uint8_t*>(p) = saturate<uint8_t>(value);
  else if (dtype == DataType::UInt(16)) *static_cast<uint16_t*>(p) = saturate<uint16_t>(value);
  else if (dtype == DataType::UInt(32)) *static_cast<uint32_t*>(p) = saturate<uint32_t>(value);
  else if (dtype == DataType::UInt(64)) *static_cast<uint64_t*>(p) = saturate<uint64_t>(value);
  else RX_THROW() << "a scalar constant of dtype " << dtype.to_string() << " is not supported";
  return make_constant(a);
}

}  // namespace relax::relay_frontend
