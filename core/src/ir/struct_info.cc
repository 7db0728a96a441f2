#include "relax/ir/struct_info.h"

#include <sstream>

namespace relax {

StructInfo object_sinfo() { return make_ref<ObjectStructInfo>(); }
StructInfo prim_sinfo(DataType dtype, PrimExpr value) { return make_ref<PrimStructInfo>(dtype, std::move(value)); }
StructInfo shape_sinfo(std::vector<PrimExpr> values) { return make_ref<ShapeStructInfo>(std::move(values)); }
StructInfo shape_sinfo(int ndim) { return make_ref<ShapeStructInfo>(ndim); }
StructInfo tensor_sinfo(std::vector<PrimExpr> shape, DataType dtype, std::string vdevice) {
  return make_ref<TensorStructInfo>(std::move(shape), dtype, std::move(vdevice));
}
StructInfo tensor_sinfo(DataType dtype, int ndim, std::string vdevice) {
  return make_ref<TensorStructInfo>(dtype, ndim, std::move(vdevice));
}
StructInfo tuple_sinfo(std::vector<StructInfo> fields) { return make_ref<TupleStructInfo>(std::move(fields)); }
StructInfo func_sinfo(std::vector<StructInfo> params, StructInfo ret, bool purity) {
  return make_ref<FuncStructInfo>(std::move(params), std::move(ret), purity);
}
StructInfo opaque_func_sinfo(StructInfo ret, bool purity) { return make_ref<FuncStructInfo>(std::move(ret), purity); }

std::vector<PrimExpr> const_shape(const std::vector<int64_t>& dims) {
  std::vector<PrimExpr> out;
  out.reserve(dims.size());
  for (int64_t d : dims) out.push_back(tir::int_imm(d));
  return out;
}

namespace {
void print_dims(std::ostream& os, const std::vector<PrimExpr>& dims) {
  os << "(";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) os << ", ";
    os << tir::to_string(dims[i]);
  }
  if (dims.size() == 1) os << ",";
  os << ")";
}

void print(std::ostream& os, const StructInfo& s) {
  if (!s.defined()) {
    os << "<none>";
  } else if (s.is<ObjectStructInfo>()) {
    os << "Object";
  } else if (auto* p = s.as<PrimStructInfo>()) {
    os << "Prim(" << p->dtype.to_string();
    if (p->value.defined()) os << ", value=" << tir::to_string(p->value);
    os << ")";
  } else if (auto* sh = s.as<ShapeStructInfo>()) {
    os << "Shape(";
    if (sh->values) {
      print_dims(os, *sh->values);
    } else {
      os << "ndim=" << sh->ndim;
    }
    os << ")";
  } else if (auto* t = s.as<TensorStructInfo>()) {
    os << "Tensor(";
    if (t->shape) {
      print_dims(os, *t->shape);
    } else {
      os << "ndim=" << t->ndim;
    }
    os << ", " << (t->dtype.is_void() ? "unknown" : t->dtype.to_string());
    if (!t->vdevice.empty()) os << ", " << t->vdevice;
    os << ")";
  } else if (auto* tu = s.as<TupleStructInfo>()) {
    os << "Tuple(";
    for (size_t i = 0; i < tu->fields.size(); ++i) {
      if (i) os << ", ";
      print(os, tu->fields[i]);
    }
    os << ")";
  } else if (auto* f = s.as<FuncStructInfo>()) {
    os << "Callable(";
    if (f->params) {
      os << "(";
      for (size_t i = 0; i < f->params->size(); ++i) {
        if (i) os << ", ";
        print(os, (*f->params)[i]);
      }
      os << "), ";
    } else {
      os << "opaque, ";
    }
    print(os, f->ret);
    os << (f->purity ? ", pure" : ", impure") << ")";
  } else {
    os << "<unknown struct info>";
  }
}
}  // namespace

std::string to_string(const StructInfo& sinfo) {
  std::ostringstream os;
  print(os, sinfo);
  return os.str();
}

}  // namespace relax
