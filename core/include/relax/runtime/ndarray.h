// NDArray: a reference-counted n-dimensional tensor on a device, laid out as a DLPack DLTensor.
//
// An NDArray owns (a share of) its storage; views share the storage with an offset. The IR
// holds NDArrays in Constant nodes and the VM passes them to kernels as DLTensor*.
#pragma once

#include <dlpack/dlpack.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "relax/support/dtype.h"
#include "relax/support/kinds.h"
#include "relax/support/object.h"

namespace relax::runtime {

/// Converts between the IR's DataType and DLPack's DLDataType (same encoding).
inline DLDataType to_dl(DataType t) { return DLDataType{t.code, t.bits, t.lanes}; }
inline DataType from_dl(DLDataType t) { return DataType(t.code, t.bits, t.lanes); }

/// The CPU device.
inline constexpr DLDevice kCPU{kDLCPU, 0};

/// The node behind an NDArray: a DLTensor plus the owner of its memory.
struct NDArrayNode : Object {
  static constexpr uint32_t kKind = kRuntimeKindBase + 1;
  /// Shape and strides live here; tensor.shape/strides point into them.
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;  // empty: compact row-major
  DLTensor tensor{};
  /// Releases the memory; run when the last view goes.
  std::function<void()> deleter;
  /// The array this one views (keeps its storage alive); null for an owner.
  Ref<NDArrayNode> base;

  NDArrayNode() : Object(kKind) {}
  ~NDArrayNode() override {
    if (deleter) deleter();
  }
};

/// Handle to a tensor. Copying the handle shares the tensor; `copy()` copies the data.
class NDArray {
 public:
  NDArray() = default;
  explicit NDArray(Ref<NDArrayNode> node) : node_(std::move(node)) {}

  /// A new compact tensor, uninitialised, on `device` (the CPU, or any device type with a
  /// registered device runtime, see device_api.h). Throws relax::Error for negative or
  /// overflowing shapes and failed allocations.
  static NDArray empty(const std::vector<int64_t>& shape, DataType dtype, DLDevice device = kCPU);
  /// A new CPU tensor holding a copy of `bytes` (which must be nbytes long).
  static NDArray from_bytes(const std::vector<int64_t>& shape, DataType dtype, const void* bytes);
  /// Wraps an external DLTensor without copying; `deleter` runs when the last handle goes.
  static NDArray from_dlpack(DLManagedTensor* managed);
  /// Exports to DLPack without copying; the caller calls the managed tensor's deleter.
  DLManagedTensor* to_dlpack() const;
  /// Wraps a borrowed DLTensor without copying or owning it (a C argument): the caller keeps
  /// the memory alive while the NDArray is used; `release` (if any) runs with the last handle.
  static NDArray borrow(const DLTensor& tensor, std::function<void()> release = {});

  bool defined() const { return node_.defined(); }
  const std::vector<int64_t>& shape() const { return node_->shape; }
  int ndim() const { return int(node_->shape.size()); }
  DataType dtype() const { return from_dl(node_->tensor.dtype); }
  DLDevice device() const { return node_->tensor.device; }
  int64_t numel() const;
  size_t nbytes() const;
  bool is_contiguous() const;
  /// Pointer to the first element (data + byte_offset).
  void* data() const { return static_cast<char*>(node_->tensor.data) + node_->tensor.byte_offset; }
  template <class T>
  T* data_as() const {
    return static_cast<T*>(data());
  }
  const DLTensor* dltensor() const { return &node_->tensor; }
  DLTensor* mutable_dltensor() const { return &const_cast<NDArrayNode*>(node_.get())->tensor; }

  /// A view of the same memory with another shape and dtype, starting `byte_offset` bytes in.
  /// Checks that the view fits.
  NDArray view(const std::vector<int64_t>& shape, DataType dtype, int64_t byte_offset = 0) const;
  /// A deep copy on the same device.
  NDArray copy() const;
  /// A deep copy on `device` (through the device runtimes).
  NDArray copy_to(DLDevice device) const;
  /// Copies the contents of `src` into this array (same shape and dtype; any devices).
  void copy_from(const NDArray& src) const;

  const Ref<NDArrayNode>& node() const { return node_; }
  bool same_as(const NDArray& other) const { return node_.same_as(other.node_); }

 private:
  Ref<NDArrayNode> node_;
};

/// "(2, 3) float32" — for messages.
std::string shape_to_string(const std::vector<int64_t>& shape);

}  // namespace relax::runtime
