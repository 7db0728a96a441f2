#include "relax/tir/buffer.h"

#include <sstream>

namespace relax::tir {

Range Range::point(PrimExpr point) {
  DataType t = point->dtype;
  return {std::move(point), int_imm(1, t)};
}

Range Range::upto(PrimExpr extent) {
  DataType t = extent->dtype;
  return {int_imm(0, t), std::move(extent)};
}

BufferRegion BufferRegion::full(Ref<Buffer> buffer) {
  std::vector<Range> region;
  region.reserve(buffer->ndim());
  for (const auto& dim : buffer->shape) region.push_back(Range::upto(dim));
  return {std::move(buffer), std::move(region)};
}

BufferRegion BufferRegion::from_point(Ref<Buffer> buffer, const std::vector<PrimExpr>& indices) {
  RX_ICHECK(indices.size() == buffer->ndim())
      << "region of buffer " << buffer->name << " (rank " << buffer->ndim() << ") with "
      << indices.size() << " indices";
  std::vector<Range> region;
  region.reserve(indices.size());
  for (const auto& i : indices) region.push_back(Range::point(i));
  return {std::move(buffer), std::move(region)};
}

bool is_valid_storage_scope(std::string_view scope) {
  return scope == "global" || scope == "shared" || scope == "local";
}

namespace {
void check_int_scalar(const PrimExpr& e, const std::string& buffer, const char* what) {
  RX_ICHECK(e.defined()) << "buffer " << buffer << ": undefined " << what;
  RX_ICHECK(e->dtype.is_integer_like() && e->dtype.is_scalar() && !e->dtype.is_bool())
      << "buffer " << buffer << ": " << what << " must be an integer scalar, got "
      << e->dtype.to_string() << " (" << to_string(e) << ")";
}
}  // namespace

Ref<Buffer> make_buffer(Ref<Var> data, DataType dtype, std::vector<PrimExpr> shape,
                        std::string name, std::vector<PrimExpr> strides, PrimExpr elem_offset,
                        std::string scope) {
  RX_ICHECK(data.defined() && data->dtype.is_handle())
      << "buffer " << name << ": data must be a handle variable"
      << (data.defined() ? ", got " + data->dtype.to_string() : std::string());
  RX_ICHECK(!dtype.is_void() && dtype.is_scalar())
      << "buffer " << name << ": element type must be a non-void scalar, got " << dtype.to_string();
  for (const auto& d : shape) check_int_scalar(d, name, "shape dimension");
  RX_ICHECK(strides.empty() || strides.size() == shape.size())
      << "buffer " << name << ": " << strides.size() << " strides for rank " << shape.size();
  for (const auto& s : strides) check_int_scalar(s, name, "stride");
  if (!elem_offset.defined()) elem_offset = int_imm(0);
  check_int_scalar(elem_offset, name, "elem_offset");
  RX_ICHECK(is_valid_storage_scope(scope)) << "buffer " << name << ": unknown storage scope '"
                                           << scope << "' (expected global, shared or local)";
  return make_ref<Buffer>(std::move(name), std::move(data), dtype, std::move(shape),
                          std::move(strides), std::move(elem_offset), std::move(scope));
}

Ref<Buffer> decl_buffer(std::vector<PrimExpr> shape, DataType dtype, std::string name,
                        std::string scope) {
  Ref<Var> data = var(name, DataType::Handle());
  return make_buffer(std::move(data), dtype, std::move(shape), std::move(name), {}, {},
                     std::move(scope));
}

std::vector<PrimExpr> effective_strides(const Buffer& buffer) {
  if (!buffer.strides.empty()) return buffer.strides;
  std::vector<PrimExpr> strides(buffer.ndim());
  if (strides.empty()) return strides;
  PrimExpr acc = int_imm(1, buffer.shape.back()->dtype);
  for (size_t i = buffer.ndim(); i-- > 0;) {
    strides[i] = acc;
    if (i > 0) acc = acc * cast(acc->dtype, buffer.shape[i]);
  }
  return strides;
}

int access_lanes(const Buffer& buffer, const std::vector<PrimExpr>& indices, const char* what) {
  RX_ICHECK(indices.size() == buffer.ndim())
      << what << " of buffer " << buffer.name << " (rank " << buffer.ndim() << ") with "
      << indices.size() << (indices.size() == 1 ? " index" : " indices");
  int lanes = 1;
  for (const auto& i : indices) {
    RX_ICHECK(i.defined()) << what << " of buffer " << buffer.name << " with an undefined index";
    RX_ICHECK(i->dtype.is_integer_like() && !i->dtype.is_bool())
        << what << " of buffer " << buffer.name << ": index " << to_string(i) << " has type "
        << i->dtype.to_string() << ", expected an integer";
    if (i->dtype.lanes > 1) {
      RX_ICHECK(lanes == 1) << what << " of buffer " << buffer.name
                            << " with more than one vector index";
      lanes = i->dtype.lanes;
    }
  }
  return lanes;
}

namespace {
/// a + b, broadcasting a scalar side to the other's lanes.
PrimExpr add_lanes(PrimExpr a, PrimExpr b) {
  if (a->dtype.lanes < b->dtype.lanes) a = make_ref<Broadcast>(std::move(a), b->dtype.lanes);
  if (b->dtype.lanes < a->dtype.lanes) b = make_ref<Broadcast>(std::move(b), a->dtype.lanes);
  return std::move(a) + std::move(b);
}
}  // namespace

PrimExpr flat_offset(const Buffer& buffer, const std::vector<PrimExpr>& indices) {
  access_lanes(buffer, indices, "offset");
  // Compute in the indices' element type when they agree, else in int64.
  DataType t = indices.empty() ? buffer.elem_offset->dtype : indices.front()->dtype.element_of();
  for (const auto& i : indices)
    if (i->dtype.element_of() != t) t = DataType::Int(64);
  std::vector<PrimExpr> strides = effective_strides(buffer);
  PrimExpr offset = cast(t, buffer.elem_offset);
  for (size_t i = 0; i < indices.size(); ++i) {
    int lanes = indices[i]->dtype.lanes;
    PrimExpr index = cast(t.with_lanes(lanes), indices[i]);
    PrimExpr stride = cast(t, strides[i]);
    if (lanes > 1) stride = make_ref<Broadcast>(std::move(stride), lanes);
    offset = add_lanes(std::move(offset), std::move(index) * std::move(stride));
  }
  return offset;
}

PrimExpr buffer_load(const Ref<Buffer>& buffer, std::vector<PrimExpr> indices) {
  RX_ICHECK(buffer.defined()) << "load from an undefined buffer";
  int lanes = access_lanes(*buffer, indices, "load");
  return make_ref<BufferLoad>(buffer->dtype.with_lanes(lanes), buffer, std::move(indices));
}

std::string to_string(const Ref<Buffer>& buffer) {
  if (!buffer.defined()) return "<null buffer>";
  std::ostringstream os;
  os << buffer->name << ": Buffer((";
  for (size_t i = 0; i < buffer->shape.size(); ++i)
    os << (i ? ", " : "") << to_string(buffer->shape[i]);
  if (buffer->shape.size() == 1) os << ",";
  os << "), " << buffer->dtype.to_string();
  if (!buffer->strides.empty()) {
    os << ", strides=(";
    for (size_t i = 0; i < buffer->strides.size(); ++i)
      os << (i ? ", " : "") << to_string(buffer->strides[i]);
    os << ")";
  }
  if (!is_const_int(buffer->elem_offset, 0))
    os << ", elem_offset=" << to_string(buffer->elem_offset);
  if (buffer->scope != "global") os << ", scope=\"" << buffer->scope << "\"";
  os << ")";
  return os.str();
}

}  // namespace relax::tir
