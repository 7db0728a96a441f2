// Runtime values: what VM registers, packed-function arguments and constants hold.
//
// A Value is null, an int, a float, a bool, a string, a tensor (NDArray), a shape, a tuple of
// values, a function (PackedFunc) or an opaque runtime object (storage, a module, a user
// object). Scalars are held inline; everything else is a reference-counted immutable object,
// so copying a Value is cheap and Values may be shared between threads. Tensor *contents* are
// mutable (kernels write their outputs); sharing a tensor between threads is the user's call.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "relax/runtime/ndarray.h"
#include "relax/support/kinds.h"
#include "relax/support/object.h"

namespace relax::runtime {

class PackedFunc;
class Value;
class Tuple;  // declared here so that Value::as_tuple never binds to relax::Tuple (the IR node)

/// Kind tags of the runtime objects (NDArrayNode is kRuntimeKindBase + 1).
inline constexpr uint32_t kStringObjKind = kRuntimeKindBase + 2;
inline constexpr uint32_t kShapeObjKind = kRuntimeKindBase + 3;
inline constexpr uint32_t kTupleObjKind = kRuntimeKindBase + 4;
inline constexpr uint32_t kPackedFuncObjKind = kRuntimeKindBase + 5;
inline constexpr uint32_t kStorageObjKind = kRuntimeKindBase + 6;
inline constexpr uint32_t kModuleObjKind = kRuntimeKindBase + 7;
inline constexpr uint32_t kExecutableObjKind = kRuntimeKindBase + 8;
inline constexpr uint32_t kVMContextObjKind = kRuntimeKindBase + 9;
/// First kind tag free for user-defined runtime objects.
inline constexpr uint32_t kUserObjKindBase = kRuntimeKindBase + 0x80;

/// An immutable string.
struct StringObj : Object {
  static constexpr uint32_t kKind = kStringObjKind;
  explicit StringObj(std::string v) : Object(kKind), value(std::move(v)) {}
  const std::string value;
};

/// An immutable list of dimensions (the runtime's ShapeTuple).
struct ShapeObj : Object {
  static constexpr uint32_t kKind = kShapeObjKind;
  explicit ShapeObj(std::vector<int64_t> d) : Object(kKind), dims(std::move(d)) {}
  const std::vector<int64_t> dims;
};

/// Handle to a shape. Cheap to copy; never null once constructed from dimensions.
class Shape {
 public:
  Shape() : Shape(std::vector<int64_t>{}) {}
  Shape(std::vector<int64_t> dims) : node_(make_ref<ShapeObj>(std::move(dims))) {}  // NOLINT
  Shape(std::initializer_list<int64_t> dims) : Shape(std::vector<int64_t>(dims)) {}
  explicit Shape(Ref<ShapeObj> node) : node_(std::move(node)) {}

  const std::vector<int64_t>& dims() const { return node_->dims; }
  size_t size() const { return node_->dims.size(); }
  int64_t operator[](size_t i) const { return node_->dims[i]; }
  /// Product of the dimensions (1 for a scalar shape).
  int64_t numel() const;
  const Ref<ShapeObj>& node() const { return node_; }
  friend bool operator==(const Shape& a, const Shape& b) { return a.dims() == b.dims(); }

 private:
  Ref<ShapeObj> node_;
};

/// What a Value holds.
enum class ValueKind : uint8_t {
  kNull,
  kInt,
  kFloat,
  kBool,
  kString,
  kTensor,
  kShape,
  kTuple,
  kFunction,
  kObject,
};

/// "int", "tensor", ... for messages.
const char* value_kind_name(ValueKind kind);

/// A dynamically typed runtime value (see the file comment).
class Value {
 public:
  Value() = default;
  Value(std::nullptr_t) {}                                             // NOLINT
  Value(int v) : kind_(ValueKind::kInt), int_(v) {}                    // NOLINT
  Value(int64_t v) : kind_(ValueKind::kInt), int_(v) {}                // NOLINT
  Value(double v) : kind_(ValueKind::kFloat), float_(v) {}             // NOLINT
  Value(bool v) : kind_(ValueKind::kBool), int_(v ? 1 : 0) {}          // NOLINT
  Value(std::string v);                                                // NOLINT
  Value(const char* v) : Value(std::string(v)) {}                      // NOLINT
  Value(const NDArray& v);                                             // NOLINT
  Value(const Shape& v) : kind_(ValueKind::kShape), obj_(v.node()) {}  // NOLINT
  Value(const PackedFunc& v);                                          // NOLINT
  /// Wraps any runtime object, choosing the kind from its tag (string, tensor, shape, tuple,
  /// function, or opaque object). A null handle gives the null value.
  static Value from_object(Ref<Object> obj);

  ValueKind kind() const { return kind_; }
  bool is_null() const { return kind_ == ValueKind::kNull; }
  bool is(ValueKind k) const { return kind_ == k; }

  /// Accessors; each throws relax::Error naming both kinds when the value has another kind.
  /// as_int accepts a bool, as_float accepts an int.
  int64_t as_int() const;
  double as_float() const;
  bool as_bool() const;
  const std::string& as_string() const;
  NDArray as_tensor() const;
  Shape as_shape() const;
  Tuple as_tuple() const;
  PackedFunc as_function() const;
  /// The object behind a non-scalar value (null for scalars and null).
  const Ref<Object>& as_object() const { return obj_; }
  /// The object downcast to T, or null when it is not a T.
  template <class T>
  Ref<T> as_object_of() const {
    return obj_.as_ref<T>();
  }

  /// "int 3", "tensor (2, 3) float32", "shape (2, 3)", "tuple of 2" — for messages.
  std::string describe() const;
  /// Same kind and same contents for scalars, strings and shapes; identity for the rest.
  friend bool operator==(const Value& a, const Value& b);

 private:
  [[noreturn]] void kind_error(const char* expected) const;

  ValueKind kind_ = ValueKind::kNull;
  union {
    int64_t int_ = 0;
    double float_;
  };
  Ref<Object> obj_;
};

/// An immutable tuple of values.
struct TupleObj : Object {
  static constexpr uint32_t kKind = kTupleObjKind;
  explicit TupleObj(std::vector<Value> f) : Object(kKind), fields(std::move(f)) {}
  const std::vector<Value> fields;
};

/// Handle to a tuple.
class Tuple {
 public:
  Tuple() : Tuple(std::vector<Value>{}) {}
  explicit Tuple(std::vector<Value> fields) : node_(make_ref<TupleObj>(std::move(fields))) {}
  explicit Tuple(Ref<TupleObj> node) : node_(std::move(node)) {}
  size_t size() const { return node_->fields.size(); }
  const Value& operator[](size_t i) const { return node_->fields[i]; }
  const std::vector<Value>& fields() const { return node_->fields; }
  const Ref<TupleObj>& node() const { return node_; }
  operator Value() const { return Value::from_object(node_); }  // NOLINT

 private:
  Ref<TupleObj> node_;
};

}  // namespace relax::runtime
