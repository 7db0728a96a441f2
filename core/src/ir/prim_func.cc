#include "relax/ir/prim_func.h"

#include <sstream>
#include <unordered_set>

#include "relax/support/diagnostic.h"

namespace relax::tir {

namespace {
const Buffer* find_buffer(const std::vector<std::pair<Ref<Var>, Ref<Buffer>>>& buffer_map,
                          const Var* param) {
  for (const auto& [p, b] : buffer_map)
    if (p.get() == param) return b.get();
  return nullptr;
}
}  // namespace

relax::StructInfo prim_func_struct_info(
    const std::vector<Ref<Var>>& params,
    const std::vector<std::pair<Ref<Var>, Ref<Buffer>>>& buffer_map, DataType ret_type) {
  std::vector<relax::StructInfo> param_sinfo;
  param_sinfo.reserve(params.size());
  for (const auto& p : params) {
    if (const Buffer* b = find_buffer(buffer_map, p.get())) {
      // Relax shapes are int64.
      std::vector<PrimExpr> shape;
      shape.reserve(b->ndim());
      for (const auto& d : b->shape) shape.push_back(cast(DataType::Int(64), d));
      param_sinfo.push_back(make_ref<relax::TensorStructInfo>(std::move(shape), b->dtype));
    } else if (p->dtype.is_handle()) {
      param_sinfo.push_back(make_ref<relax::ObjectStructInfo>());
    } else {
      param_sinfo.push_back(make_ref<relax::PrimStructInfo>(p->dtype));
    }
  }
  relax::StructInfo ret =
      ret_type.is_void()
          ? relax::StructInfo(make_ref<relax::TupleStructInfo>(std::vector<relax::StructInfo>{}))
          : relax::StructInfo(make_ref<relax::PrimStructInfo>(ret_type));
  return make_ref<relax::FuncStructInfo>(std::move(param_sinfo), std::move(ret), /*purity=*/false);
}

PrimFunc::PrimFunc(std::vector<Ref<Var>> params_, Stmt body_,
                   std::vector<std::pair<Ref<Var>, Ref<Buffer>>> buffer_map_, relax::Attrs attrs_,
                   DataType ret_type_)
    : BaseFuncNode(relax::ExprKind::kPrimFunc, std::move(attrs_),
                   prim_func_struct_info(params_, buffer_map_, ret_type_)),
      params(std::move(params_)),
      buffer_map(std::move(buffer_map_)),
      body(std::move(body_)),
      ret_type(ret_type_) {
  RX_ICHECK(body.defined()) << "PrimFunc without a body";
  std::unordered_set<const Var*> seen;
  for (const auto& p : params) {
    RX_ICHECK(p.defined()) << "PrimFunc with an undefined parameter";
    RX_ICHECK(seen.insert(p.get()).second) << "PrimFunc parameter " << p->name << " appears twice";
    RX_ICHECK(p->dtype.is_handle() || (p->dtype.is_scalar() && !p->dtype.is_void()))
        << "PrimFunc parameter " << p->name << " must be a handle or a scalar, got "
        << p->dtype.to_string();
  }
  std::unordered_set<const Var*> mapped;
  for (const auto& [p, b] : buffer_map) {
    RX_ICHECK(p.defined() && b.defined()) << "PrimFunc buffer_map with an undefined entry";
    RX_ICHECK(seen.count(p.get())) << "buffer_map key " << p->name << " is not a parameter";
    RX_ICHECK(p->dtype.is_handle()) << "buffer_map key " << p->name << " is not a handle parameter";
    RX_ICHECK(mapped.insert(p.get()).second)
        << "parameter " << p->name << " is mapped to two buffers";
    RX_ICHECK(b->data.get() == p.get()) << "buffer " << b->name << " of parameter " << p->name
                                        << " must use the parameter as its data var";
  }
}

Ref<Buffer> PrimFunc::buffer_of(const Ref<Var>& param) const {
  for (const auto& [p, b] : buffer_map)
    if (p.same_as(param)) return b;
  return {};
}

Ref<PrimFunc> make_prim_func(const std::vector<Ref<Buffer>>& buffers, Stmt body,
                             std::vector<Ref<Var>> scalars, relax::Attrs attrs) {
  std::vector<Ref<Var>> params;
  std::vector<std::pair<Ref<Var>, Ref<Buffer>>> buffer_map;
  for (const auto& b : buffers) {
    RX_ICHECK(b.defined()) << "make_prim_func with an undefined buffer";
    params.push_back(b->data);
    buffer_map.emplace_back(b->data, b);
  }
  for (auto& s : scalars) params.push_back(std::move(s));
  return make_ref<PrimFunc>(std::move(params), std::move(body), std::move(buffer_map),
                            std::move(attrs));
}

Ref<PrimFunc> with_body(const Ref<PrimFunc>& func, Stmt body) {
  if (body.same_as(func->body)) return func;
  return make_ref<PrimFunc>(func->params, std::move(body), func->buffer_map, func->attrs,
                            func->ret_type);
}

std::string to_string(const Ref<PrimFunc>& func) {
  if (!func.defined()) return "<null PrimFunc>";
  std::ostringstream os;
  std::string name = "main";
  if (func->attrs.defined())
    for (const auto& [key, value] : func->attrs->fields)
      if (const auto* s = std::get_if<std::string>(&value); s && key == kAttrGlobalSymbol)
        name = *s;
  os << "@T.prim_func\ndef " << name << "(";
  for (size_t i = 0; i < func->params.size(); ++i) {
    const auto& p = func->params[i];
    os << (i ? ", " : "");
    if (Ref<Buffer> b = func->buffer_of(p)) {
      os << to_string(b);
    } else {
      os << p->name << ": " << p->dtype.to_string();
    }
  }
  os << "):\n";
  std::string body = to_string(func->body);
  // Indent the body one level.
  std::istringstream lines(body);
  for (std::string line; std::getline(lines, line);) os << "    " << line << "\n";
  return os.str();
}

void visit_func(const Ref<PrimFunc>& func, StmtVisitor& visitor) {
  for (const auto& [param, buffer] : func->buffer_map) visitor.visit_buffer(buffer);
  visitor.visit_stmt(func->body);
}

Ref<PrimFunc> mutate_func(const Ref<PrimFunc>& func, StmtMutator& mutator) {
  bool changed = false;
  std::vector<std::pair<Ref<Var>, Ref<Buffer>>> buffer_map;
  buffer_map.reserve(func->buffer_map.size());
  for (const auto& [param, buffer] : func->buffer_map) {
    buffer_map.emplace_back(param, mutator.visit_buffer(buffer));
    changed |= !buffer_map.back().second.same_as(buffer);
  }
  Stmt body = mutator.visit_stmt(func->body);
  changed |= !body.same_as(func->body);
  if (!changed) return func;
  return make_ref<PrimFunc>(func->params, std::move(body), std::move(buffer_map), func->attrs,
                            func->ret_type);
}

Ref<PrimFunc> substitute(const Ref<PrimFunc>& func, const std::function<PrimExpr(const Var*)>& f) {
  VarSubstituter sub(f);
  return mutate_func(func, sub);
}

}  // namespace relax::tir
