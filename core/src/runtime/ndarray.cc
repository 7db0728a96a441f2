#include "relax/runtime/ndarray.h"

#include <cstdlib>
#include <cstring>

#include "relax/runtime/device_api.h"
#include "relax/support/diagnostic.h"

namespace relax::runtime {

namespace {
constexpr size_t kAlignment = 64;

int64_t product(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

Ref<NDArrayNode> make_node(const std::vector<int64_t>& shape, DataType dtype, DLDevice device) {
  auto node = make_ref<NDArrayNode>();
  auto* n = const_cast<NDArrayNode*>(node.get());
  n->shape = shape;
  n->tensor.device = device;
  n->tensor.ndim = int32_t(shape.size());
  n->tensor.dtype = to_dl(dtype);
  n->tensor.shape = n->shape.data();
  n->tensor.strides = nullptr;
  n->tensor.byte_offset = 0;
  return node;
}

// Byte size of a compact tensor, or an error when a dimension is negative or the size overflows.
size_t checked_nbytes(const std::vector<int64_t>& shape, DataType dtype, const char* what) {
  constexpr uint64_t kLimit = uint64_t(1) << 48;  // far beyond any real tensor; no overflow below
  uint64_t n = 1;
  for (int64_t d : shape) {
    RX_CHECK(d >= 0) << what << ": negative dimension in shape " << shape_to_string(shape);
    RX_CHECK(d == 0 || n <= kLimit / uint64_t(d))
        << what << ": shape " << shape_to_string(shape) << " is too large";
    n *= uint64_t(d);
  }
  uint64_t bytes = n * uint64_t(dtype.bytes());
  RX_CHECK(n <= kLimit && bytes <= kLimit)
      << what << ": shape " << shape_to_string(shape) << " is too large";
  return size_t(bytes);
}
}  // namespace

NDArray NDArray::empty(const std::vector<int64_t>& shape, DataType dtype, DLDevice device) {
  size_t bytes = checked_nbytes(shape, dtype, "NDArray::empty");
  DeviceAPI& api = DeviceAPI::get(device.device_type);
  auto node = make_node(shape, dtype, device);
  void* data = api.alloc(device, bytes, kAlignment);
  auto* n = const_cast<NDArrayNode*>(node.get());
  n->tensor.data = data;
  n->deleter = [&api, device, data] { api.free(device, data); };
  return NDArray(node);
}

NDArray NDArray::from_bytes(const std::vector<int64_t>& shape, DataType dtype, const void* bytes) {
  NDArray a = empty(shape, dtype);
  if (a.nbytes()) std::memcpy(a.data(), bytes, a.nbytes());
  return a;
}

NDArray NDArray::from_dlpack(DLManagedTensor* managed) {
  RX_CHECK(managed != nullptr) << "NDArray::from_dlpack: null tensor";
  const DLTensor& t = managed->dl_tensor;
  auto node =
      make_node(std::vector<int64_t>(t.shape, t.shape + t.ndim), from_dl(t.dtype), t.device);
  auto* n = const_cast<NDArrayNode*>(node.get());
  if (t.strides) n->strides.assign(t.strides, t.strides + t.ndim);
  n->tensor.strides = n->strides.empty() ? nullptr : n->strides.data();
  n->tensor.data = t.data;
  n->tensor.byte_offset = t.byte_offset;
  n->deleter = [managed] {
    if (managed->deleter) managed->deleter(managed);
  };
  return NDArray(node);
}

NDArray NDArray::borrow(const DLTensor& t, std::function<void()> release) {
  RX_CHECK(t.ndim >= 0 && (t.ndim == 0 || t.shape != nullptr))
      << "NDArray::borrow: malformed DLTensor";
  auto node =
      make_node(std::vector<int64_t>(t.shape, t.shape + t.ndim), from_dl(t.dtype), t.device);
  auto* n = const_cast<NDArrayNode*>(node.get());
  if (t.strides) n->strides.assign(t.strides, t.strides + t.ndim);
  n->tensor.strides = n->strides.empty() ? nullptr : n->strides.data();
  n->tensor.data = t.data;
  n->tensor.byte_offset = t.byte_offset;
  n->deleter = std::move(release);
  return NDArray(node);
}

namespace {
struct ExportContext {
  Ref<NDArrayNode> keep;
  DLManagedTensor managed;
};
}  // namespace

DLManagedTensor* NDArray::to_dlpack() const {
  auto* ctx = new ExportContext{node_, {}};
  ctx->managed.dl_tensor = node_->tensor;
  ctx->managed.manager_ctx = ctx;
  ctx->managed.deleter = [](DLManagedTensor* self) {
    delete static_cast<ExportContext*>(self->manager_ctx);
  };
  return &ctx->managed;
}

int64_t NDArray::numel() const { return product(node_->shape); }
size_t NDArray::nbytes() const { return size_t(numel()) * size_t(dtype().bytes()); }

bool NDArray::is_contiguous() const {
  if (node_->strides.empty()) return true;
  int64_t expected = 1;
  for (int i = ndim() - 1; i >= 0; --i) {
    if (node_->shape[i] != 1 && node_->strides[i] != expected) return false;
    expected *= node_->shape[i];
  }
  return true;
}

NDArray NDArray::view(const std::vector<int64_t>& shape, DataType dtype,
                      int64_t byte_offset) const {
  RX_CHECK(is_contiguous()) << "NDArray::view of a strided tensor";
  size_t bytes = checked_nbytes(shape, dtype, "NDArray::view");
  RX_CHECK(byte_offset >= 0 && size_t(byte_offset) <= nbytes() &&
           bytes <= nbytes() - size_t(byte_offset))
      << "NDArray::view: a view of " << shape_to_string(shape) << " " << dtype.to_string()
      << " at byte offset " << byte_offset << " does not fit in " << nbytes() << " bytes";
  auto node = make_node(shape, dtype, device());
  auto* n = const_cast<NDArrayNode*>(node.get());
  n->tensor.data = node_->tensor.data;
  n->tensor.byte_offset = node_->tensor.byte_offset + uint64_t(byte_offset);
  n->base = node_;
  return NDArray(node);
}

NDArray NDArray::copy() const { return copy_to(device()); }

NDArray NDArray::copy_to(DLDevice device) const {
  NDArray out = empty(shape(), dtype(), device);
  out.copy_from(*this);
  return out;
}

void NDArray::copy_from(const NDArray& src) const {
  RX_CHECK(src.shape() == shape() && src.dtype() == dtype())
      << "NDArray::copy_from: shape/dtype mismatch: " << shape_to_string(src.shape()) << " "
      << src.dtype().to_string() << " into " << shape_to_string(shape()) << " "
      << dtype().to_string();
  RX_CHECK(is_contiguous() && src.is_contiguous()) << "NDArray::copy_from: strided tensors";
  if (nbytes() == 0) return;
  if (device().device_type == kDLCPU && src.device().device_type == kDLCPU) {
    std::memcpy(data(), src.data(), nbytes());
    return;
  }
  copy_tensor_bytes(*src.dltensor(), *mutable_dltensor());
}

std::string shape_to_string(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  return s + ")";
}

}  // namespace relax::runtime
