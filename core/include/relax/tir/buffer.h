// Buffers: the multi-dimensional arrays a PrimFunc reads and writes.
//
// A Buffer is a view of memory: a data pointer (a handle-typed tir::Var), an element type, a
// shape (PrimExprs; symbolic dimensions allowed), strides (empty = compact row-major), an
// element offset (counted in elements, not bytes) and a storage scope. Element
// buffer[i0, ..., ik] lives at data[elem_offset + sum(i_j * stride_j)].
//
// Buffers are compared by identity, like variables: two buffers with one name are different
// buffers. Several Buffers may share one data variable (a reshape view, a flattened form).
//
// Storage scopes: "global" (device memory visible to all threads; parameters live here),
// "shared" (per GPU thread block), "local" (per thread; registers or the stack).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "relax/support/diagnostic.h"
#include "relax/tir/expr.h"

namespace relax::tir {

/// Kinds of the TIR objects that are neither expressions nor statements.
enum class TirMiscKind : uint32_t { kFirst = kTirMiscKindBase - 1, kBuffer, kIterVar, kLast };

/// The half-open interval [min, min + extent). A plain value: loop domains, buffer regions.
struct Range {
  PrimExpr min;
  PrimExpr extent;

  /// [min, min + extent).
  static Range from_min_extent(PrimExpr min, PrimExpr extent) {
    return {std::move(min), std::move(extent)};
  }
  /// The one-element range [point, point + 1) (extent typed like `point`).
  static Range point(PrimExpr point);
  /// [0, extent) (min typed like `extent`).
  static Range upto(PrimExpr extent);
};

/// A view of memory as an n-dimensional array of `dtype` elements.
struct Buffer : Object {
  static constexpr uint32_t kKind = uint32_t(TirMiscKind::kBuffer);
  /// A hint for printing; identity is the node.
  const std::string name;
  /// The data pointer: a Var of handle dtype.
  const Ref<Var> data;
  /// Element type (scalar; vector accesses use a Ramp index).
  const DataType dtype;
  /// Extent of each dimension (integer PrimExprs, possibly symbolic).
  const std::vector<PrimExpr> shape;
  /// Stride of each dimension in elements; empty means compact row-major.
  const std::vector<PrimExpr> strides;
  /// Offset of element [0, ..., 0] from `data`, in elements.
  const PrimExpr elem_offset;
  /// "global", "shared" or "local".
  const std::string scope;

  /// Prefer make_buffer / decl_buffer, which validate.
  Buffer(std::string name, Ref<Var> data, DataType dtype, std::vector<PrimExpr> shape,
         std::vector<PrimExpr> strides, PrimExpr elem_offset, std::string scope)
      : Object(kKind),
        name(std::move(name)),
        data(std::move(data)),
        dtype(dtype),
        shape(std::move(shape)),
        strides(std::move(strides)),
        elem_offset(std::move(elem_offset)),
        scope(std::move(scope)) {}

  size_t ndim() const { return shape.size(); }
  /// True when the strides are those of a compact row-major layout (given implicitly).
  bool is_compact() const { return strides.empty(); }
};

/// A set of elements of one buffer: one Range per dimension (T.reads(A[i, 0:n])).
struct BufferRegion {
  Ref<Buffer> buffer;
  std::vector<Range> region;

  /// The whole buffer.
  static BufferRegion full(Ref<Buffer> buffer);
  /// The single element buffer[indices].
  static BufferRegion from_point(Ref<Buffer> buffer, const std::vector<PrimExpr>& indices);
};

/// True for the storage scopes TIR knows ("global", "shared", "local").
bool is_valid_storage_scope(std::string_view scope);

/// A validated buffer: `data` must be a handle Var, shape/strides/elem_offset integer
/// scalars, strides empty or one per dimension, `dtype` scalar and not void, scope valid.
/// An InternalError otherwise. A null `elem_offset` means 0 (int64).
Ref<Buffer> make_buffer(Ref<Var> data, DataType dtype, std::vector<PrimExpr> shape,
                        std::string name, std::vector<PrimExpr> strides = {},
                        PrimExpr elem_offset = {}, std::string scope = "global");

/// A fresh compact buffer with its own data variable (named like the buffer).
Ref<Buffer> decl_buffer(std::vector<PrimExpr> shape, DataType dtype, std::string name,
                        std::string scope = "global");

/// The effective stride of each dimension: the explicit strides, or the row-major products of
/// the shape (innermost 1) for a compact buffer. Typed like the shape.
std::vector<PrimExpr> effective_strides(const Buffer& buffer);

/// The flat element offset of buffer[indices]: elem_offset + sum(index_j * stride_j).
/// Index count must match the buffer's rank.
PrimExpr flat_offset(const Buffer& buffer, const std::vector<PrimExpr>& indices);

/// buffer[indices], checked: one integer index per dimension, at most one of them a vector
/// (a Ramp); the result has the buffer's dtype with that index's lanes. InternalError otherwise.
PrimExpr buffer_load(const Ref<Buffer>& buffer, std::vector<PrimExpr> indices);

/// The lanes an access with these indices touches (1, or the lanes of its vector index);
/// checks the index count and index types as buffer_load does.
int access_lanes(const Buffer& buffer, const std::vector<PrimExpr>& indices, const char* what);

/// "A: Buffer((n, 4), float32)" plus non-default strides/offset/scope, for messages.
std::string to_string(const Ref<Buffer>& buffer);

}  // namespace relax::tir
