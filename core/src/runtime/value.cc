#include "relax/runtime/value.h"

#include <sstream>

#include "relax/runtime/packed_func.h"
#include "relax/support/diagnostic.h"

namespace relax::runtime {

int64_t Shape::numel() const {
  int64_t n = 1;
  for (int64_t d : dims()) n *= d;
  return n;
}

const char* value_kind_name(ValueKind kind) {
  switch (kind) {
    case ValueKind::kNull:
      return "null";
    case ValueKind::kInt:
      return "int";
    case ValueKind::kFloat:
      return "float";
    case ValueKind::kBool:
      return "bool";
    case ValueKind::kString:
      return "string";
    case ValueKind::kTensor:
      return "tensor";
    case ValueKind::kShape:
      return "shape";
    case ValueKind::kTuple:
      return "tuple";
    case ValueKind::kFunction:
      return "function";
    case ValueKind::kObject:
      return "object";
  }
  return "?";
}

Value::Value(std::string v) : kind_(ValueKind::kString), obj_(make_ref<StringObj>(std::move(v))) {}

Value::Value(const NDArray& v) : kind_(ValueKind::kTensor), obj_(v.node()) {
  if (!obj_) kind_ = ValueKind::kNull;
}

Value Value::from_object(Ref<Object> obj) {
  Value v;
  if (!obj) return v;
  switch (obj->kind()) {
    case kStringObjKind:
      v.kind_ = ValueKind::kString;
      break;
    case NDArrayNode::kKind:
      v.kind_ = ValueKind::kTensor;
      break;
    case kShapeObjKind:
      v.kind_ = ValueKind::kShape;
      break;
    case kTupleObjKind:
      v.kind_ = ValueKind::kTuple;
      break;
    case kPackedFuncObjKind:
      v.kind_ = ValueKind::kFunction;
      break;
    default:
      v.kind_ = ValueKind::kObject;
      break;
  }
  v.obj_ = std::move(obj);
  return v;
}

void Value::kind_error(const char* expected) const {
  RX_THROW() << "expected " << expected << ", got " << describe();
}

int64_t Value::as_int() const {
  if (kind_ != ValueKind::kInt && kind_ != ValueKind::kBool) kind_error("an int");
  return int_;
}

double Value::as_float() const {
  if (kind_ == ValueKind::kInt) return double(int_);
  if (kind_ != ValueKind::kFloat) kind_error("a float");
  return float_;
}

bool Value::as_bool() const {
  if (kind_ != ValueKind::kBool && kind_ != ValueKind::kInt) kind_error("a bool");
  return int_ != 0;
}

const std::string& Value::as_string() const {
  if (kind_ != ValueKind::kString) kind_error("a string");
  return static_cast<const StringObj*>(obj_.get())->value;
}

NDArray Value::as_tensor() const {
  if (kind_ != ValueKind::kTensor) kind_error("a tensor");
  return NDArray(obj_.as_ref<NDArrayNode>());
}

Shape Value::as_shape() const {
  if (kind_ != ValueKind::kShape) kind_error("a shape");
  return Shape(obj_.as_ref<ShapeObj>());
}

Tuple Value::as_tuple() const {
  if (kind_ != ValueKind::kTuple) kind_error("a tuple");
  return Tuple(obj_.as_ref<TupleObj>());
}

std::string Value::describe() const {
  std::ostringstream os;
  switch (kind_) {
    case ValueKind::kNull:
      return "null";
    case ValueKind::kInt:
      os << "int " << int_;
      break;
    case ValueKind::kFloat:
      os << "float " << float_;
      break;
    case ValueKind::kBool:
      os << "bool " << (int_ ? "true" : "false");
      break;
    case ValueKind::kString:
      os << "string \"" << as_string() << "\"";
      break;
    case ValueKind::kTensor: {
      NDArray t = as_tensor();
      os << "tensor " << shape_to_string(t.shape()) << " " << t.dtype().to_string();
      break;
    }
    case ValueKind::kShape:
      os << "shape " << shape_to_string(as_shape().dims());
      break;
    case ValueKind::kTuple:
      os << "tuple of " << as_tuple().size();
      break;
    case ValueKind::kFunction: {
      const std::string& name = static_cast<const PackedFuncObj*>(obj_.get())->name;
      os << "function" << (name.empty() ? "" : " " + name);
      break;
    }
    case ValueKind::kObject:
      os << "object (kind " << obj_->kind() << ")";
      break;
  }
  return os.str();
}

bool operator==(const Value& a, const Value& b) {
  if (a.kind_ != b.kind_) return false;
  switch (a.kind_) {
    case ValueKind::kNull:
      return true;
    case ValueKind::kInt:
    case ValueKind::kBool:
      return a.int_ == b.int_;
    case ValueKind::kFloat:
      return a.float_ == b.float_;
    case ValueKind::kString:
      return a.as_string() == b.as_string();
    case ValueKind::kShape:
      return a.as_shape().dims() == b.as_shape().dims();
    default:
      return a.obj_ == b.obj_;
  }
}

}  // namespace relax::runtime
