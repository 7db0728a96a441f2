// Struct info: what Relax knows statically about a value (the RFC's checked_type_ and shape_,
// merged as TVM later did). Every Relax expression carries one once normalised.
//
//  - ObjectStructInfo: any value; nothing known.
//  - PrimStructInfo(dtype, value?): a scalar, possibly with a known symbolic value.
//  - ShapeStructInfo(values | ndim): a shape; values known symbolically or only the rank.
//  - TensorStructInfo(shape | ndim, dtype, vdevice?): a tensor. Unknown rank is ndim == -1,
//    unknown dtype is DataType::Void() — the RFC's safety net for data-dependent shapes.
//  - TupleStructInfo(fields).
//  - FuncStructInfo(params?, ret, purity): a function; opaque (params unknown) for packed calls.
//
// "A is a base of B" (is_base_of) means every value described by B is described by A; that is
// the check argument passing and match_cast use.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "relax/support/kinds.h"
#include "relax/tir/expr.h"

namespace relax {

using tir::PrimExpr;

#define RELAX_STRUCT_INFO_NODES(X) \
  X(ObjectStructInfo)              \
  X(PrimStructInfo)                \
  X(ShapeStructInfo)               \
  X(TensorStructInfo)              \
  X(TupleStructInfo)               \
  X(FuncStructInfo)

enum class StructInfoKind : uint32_t {
  kFirst = kStructInfoKindBase - 1,
#define RELAX_X(Name) k##Name,
  RELAX_STRUCT_INFO_NODES(RELAX_X)
#undef RELAX_X
  kLast
};

/// Base of every struct-info node.
struct StructInfoNode : Object {
  static constexpr uint32_t kKindFirst = uint32_t(StructInfoKind::kFirst) + 1;
  static constexpr uint32_t kKindLast = uint32_t(StructInfoKind::kLast) - 1;

 protected:
  explicit StructInfoNode(StructInfoKind kind) : Object(uint32_t(kind)) {}
};
using StructInfo = Ref<StructInfoNode>;

#define RELAX_SINFO_KIND(Name) static constexpr uint32_t kKind = uint32_t(StructInfoKind::k##Name)

/// Any value.
struct ObjectStructInfo : StructInfoNode {
  RELAX_SINFO_KIND(ObjectStructInfo);
  ObjectStructInfo() : StructInfoNode(StructInfoKind::kObjectStructInfo) {}
};

/// A scalar of `dtype`; `value`, when defined, is its symbolic value.
struct PrimStructInfo : StructInfoNode {
  RELAX_SINFO_KIND(PrimStructInfo);
  const DataType dtype;
  const PrimExpr value;
  explicit PrimStructInfo(DataType dtype, PrimExpr value = {})
      : StructInfoNode(StructInfoKind::kPrimStructInfo), dtype(dtype), value(std::move(value)) {}
};

/// A shape. When `values` is set, ndim equals its size.
struct ShapeStructInfo : StructInfoNode {
  RELAX_SINFO_KIND(ShapeStructInfo);
  const std::optional<std::vector<PrimExpr>> values;
  /// Rank, or -1 when unknown.
  const int ndim;
  explicit ShapeStructInfo(std::vector<PrimExpr> values)
      : StructInfoNode(StructInfoKind::kShapeStructInfo), values(std::move(values)),
        ndim(int(this->values->size())) {}
  explicit ShapeStructInfo(int ndim) : StructInfoNode(StructInfoKind::kShapeStructInfo), ndim(ndim) {}
};

/// A tensor. When `shape` is set, ndim equals its size.
struct TensorStructInfo : StructInfoNode {
  RELAX_SINFO_KIND(TensorStructInfo);
  const std::optional<std::vector<PrimExpr>> shape;
  /// Element type; DataType::Void() when unknown.
  const DataType dtype;
  /// Rank, or -1 when unknown.
  const int ndim;
  /// The virtual device ("cpu", "vulkan:0"); empty when unspecified.
  const std::string vdevice;
  TensorStructInfo(std::vector<PrimExpr> shape, DataType dtype, std::string vdevice = {})
      : StructInfoNode(StructInfoKind::kTensorStructInfo), shape(std::move(shape)), dtype(dtype),
        ndim(int(this->shape->size())), vdevice(std::move(vdevice)) {}
  TensorStructInfo(DataType dtype, int ndim, std::string vdevice = {})
      : StructInfoNode(StructInfoKind::kTensorStructInfo), dtype(dtype), ndim(ndim), vdevice(std::move(vdevice)) {}

  bool is_unknown_ndim() const { return ndim < 0; }
  bool is_unknown_dtype() const { return dtype.is_void(); }
};

/// A tuple of values.
struct TupleStructInfo : StructInfoNode {
  RELAX_SINFO_KIND(TupleStructInfo);
  const std::vector<StructInfo> fields;
  explicit TupleStructInfo(std::vector<StructInfo> fields)
      : StructInfoNode(StructInfoKind::kTupleStructInfo), fields(std::move(fields)) {}
};

/// A function. `params` unset means opaque: any arguments (packed functions).
struct FuncStructInfo : StructInfoNode {
  RELAX_SINFO_KIND(FuncStructInfo);
  const std::optional<std::vector<StructInfo>> params;
  const StructInfo ret;
  const bool purity;
  FuncStructInfo(std::vector<StructInfo> params, StructInfo ret, bool purity = true)
      : StructInfoNode(StructInfoKind::kFuncStructInfo), params(std::move(params)), ret(std::move(ret)),
        purity(purity) {}
  /// An opaque function returning `ret`.
  FuncStructInfo(StructInfo ret, bool purity)
      : StructInfoNode(StructInfoKind::kFuncStructInfo), ret(std::move(ret)), purity(purity) {}
  bool is_opaque() const { return !params.has_value(); }
};

#undef RELAX_SINFO_KIND

// ---- Construction helpers.

StructInfo object_sinfo();
StructInfo prim_sinfo(DataType dtype, PrimExpr value = {});
StructInfo shape_sinfo(std::vector<PrimExpr> values);
StructInfo shape_sinfo(int ndim);
StructInfo tensor_sinfo(std::vector<PrimExpr> shape, DataType dtype, std::string vdevice = {});
StructInfo tensor_sinfo(DataType dtype, int ndim, std::string vdevice = {});
StructInfo tuple_sinfo(std::vector<StructInfo> fields);
StructInfo func_sinfo(std::vector<StructInfo> params, StructInfo ret, bool purity = true);
StructInfo opaque_func_sinfo(StructInfo ret, bool purity = false);

/// Shape dims from int64 constants: {2, 3} -> [2, 3].
std::vector<PrimExpr> const_shape(const std::vector<int64_t>& dims);

/// A short readable form for messages: "Tensor((n, 4), float32)", "Tuple(Tensor(...), Shape([2]))".
/// The script printer (ir/printer.h) writes the TVMScript form.
std::string to_string(const StructInfo& sinfo);

}  // namespace relax
