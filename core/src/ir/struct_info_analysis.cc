#include "relax/ir/struct_info_analysis.h"

#include <algorithm>

#include "relax/arith/analyzer.h"
#include "relax/support/diagnostic.h"
#include "relax/tir/expr_functor.h"

namespace relax {

namespace {
/// Two vdevice references name the same entry: equal, or "kind" beside "kind:0".
bool same_vdevice(const std::string& a, const std::string& b) {
  return a == b || a + ":0" == b || a == b + ":0";
}
}  // namespace

namespace {

BaseCheck combine(BaseCheck a, BaseCheck b) { return std::min(a, b); }

/// Compares two dims: equal, provably different constants, or unknown.
BaseCheck dim_check(const PrimExpr& base, const PrimExpr& derived, arith::Analyzer& ana) {
  if (base.same_as(derived)) return BaseCheck::kPass;
  auto* a = tir::as_const_int(base);
  auto* b = tir::as_const_int(derived);
  if (a && b) return *a == *b ? BaseCheck::kPass : BaseCheck::kFail;
  if (ana.prove_equal(base, derived)) return BaseCheck::kPass;
  if (ana.can_prove(tir::ne(base, derived))) return BaseCheck::kFail;
  return BaseCheck::kNeedsRuntimeCheck;
}

BaseCheck dims_check(const std::vector<PrimExpr>& base, const std::vector<PrimExpr>& derived, arith::Analyzer& ana) {
  if (base.size() != derived.size()) return BaseCheck::kFail;
  BaseCheck r = BaseCheck::kPass;
  for (size_t i = 0; i < base.size(); ++i) {
    r = combine(r, dim_check(base[i], derived[i], ana));
    if (r == BaseCheck::kFail) return r;
  }
  return r;
}

}  // namespace

BaseCheck struct_info_base_check(const StructInfo& base, const StructInfo& derived, arith::Analyzer& ana) {
  RX_ICHECK(base.defined() && derived.defined()) << "struct info base check on undefined struct info";
  if (base.is<ObjectStructInfo>()) return BaseCheck::kPass;
  // A value only known as Object may be anything: a runtime check decides.
  if (derived.is<ObjectStructInfo>()) return BaseCheck::kNeedsRuntimeCheck;
  if (auto* b = base.as<PrimStructInfo>()) {
    auto* d = derived.as<PrimStructInfo>();
    if (!d) return BaseCheck::kFail;
    if (!b->dtype.is_void() && b->dtype != d->dtype) return d->dtype.is_void() ? BaseCheck::kNeedsRuntimeCheck : BaseCheck::kFail;
    if (!b->value.defined()) return BaseCheck::kPass;
    if (!d->value.defined()) return BaseCheck::kNeedsRuntimeCheck;
    return dim_check(b->value, d->value, ana);
  }
  if (auto* b = base.as<ShapeStructInfo>()) {
    auto* d = derived.as<ShapeStructInfo>();
    if (!d) return BaseCheck::kFail;
    if (b->ndim >= 0 && d->ndim >= 0 && b->ndim != d->ndim) return BaseCheck::kFail;
    if (b->ndim >= 0 && d->ndim < 0) return BaseCheck::kNeedsRuntimeCheck;
    if (!b->values) return BaseCheck::kPass;
    if (!d->values) return BaseCheck::kNeedsRuntimeCheck;
    return dims_check(*b->values, *d->values, ana);
  }
  if (auto* b = base.as<TensorStructInfo>()) {
    auto* d = derived.as<TensorStructInfo>();
    if (!d) return BaseCheck::kFail;
    BaseCheck r = BaseCheck::kPass;
    if (!b->dtype.is_void()) {
      if (d->dtype.is_void()) r = BaseCheck::kNeedsRuntimeCheck;
      else if (b->dtype != d->dtype) return BaseCheck::kFail;
    }
    if (!b->vdevice.empty() && !d->vdevice.empty() && !same_vdevice(b->vdevice, d->vdevice))
      return BaseCheck::kFail;
    if (b->ndim >= 0) {
      if (d->ndim < 0) return combine(r, BaseCheck::kNeedsRuntimeCheck);
      if (b->ndim != d->ndim) return BaseCheck::kFail;
    }
    if (!b->shape) return r;
    if (!d->shape) return combine(r, BaseCheck::kNeedsRuntimeCheck);
    return combine(r, dims_check(*b->shape, *d->shape, ana));
  }
  if (auto* b = base.as<TupleStructInfo>()) {
    auto* d = derived.as<TupleStructInfo>();
    if (!d || d->fields.size() != b->fields.size()) return BaseCheck::kFail;
    BaseCheck r = BaseCheck::kPass;
    for (size_t i = 0; i < b->fields.size() && r != BaseCheck::kFail; ++i)
      r = combine(r, struct_info_base_check(b->fields[i], d->fields[i], ana));
    return r;
  }
  if (auto* b = base.as<FuncStructInfo>()) {
    auto* d = derived.as<FuncStructInfo>();
    if (!d) return BaseCheck::kFail;
    // An impure function is not a pure one; a pure function may stand for an impure one.
    if (b->purity && !d->purity) return BaseCheck::kFail;
    if (b->is_opaque()) return struct_info_base_check(b->ret, d->ret, ana);
    if (d->is_opaque())
      return combine(struct_info_base_check(b->ret, d->ret, ana), BaseCheck::kNeedsRuntimeCheck);
    if (b->params->size() != d->params->size()) return BaseCheck::kFail;
    // The parameters define their symbolic variables, so two signatures compare up to renaming
    // them: `(x: (n, 3)) -> (n,)` written twice has two variables n (one per annotation, as in a
    // printed module read back). d's are bound to b's first.
    SymbolicVarMap rename;
    for (size_t i = 0; i < b->params->size(); ++i)
      bind_symbolic_vars((*d->params)[i], (*b->params)[i], &rename);
    BaseCheck r = struct_info_base_check(b->ret, substitute_sinfo(d->ret, rename, ana), ana);
    // Parameters are contravariant.
    for (size_t i = 0; i < b->params->size() && r != BaseCheck::kFail; ++i)
      r = combine(r, struct_info_base_check(substitute_sinfo((*d->params)[i], rename, ana),
                                            (*b->params)[i], ana));
    return r;
  }
  RX_IFAIL() << "unknown struct info kind";
}

bool is_base_of(const StructInfo& base, const StructInfo& derived, arith::Analyzer& ana) {
  return struct_info_base_check(base, derived, ana) == BaseCheck::kPass;
}

StructInfo struct_info_lca(const StructInfo& a, const StructInfo& b, arith::Analyzer& ana) {
  if (is_base_of(a, b, ana)) return a;
  if (is_base_of(b, a, ana)) return b;
  if (auto* x = a.as<PrimStructInfo>()) {
    if (auto* y = b.as<PrimStructInfo>()) return prim_sinfo(x->dtype == y->dtype ? x->dtype : DataType::Void());
  }
  if (auto* x = a.as<ShapeStructInfo>()) {
    if (auto* y = b.as<ShapeStructInfo>()) return shape_sinfo(x->ndim == y->ndim ? x->ndim : -1);
  }
  if (auto* x = a.as<TensorStructInfo>()) {
    if (auto* y = b.as<TensorStructInfo>()) {
      DataType dt = x->dtype == y->dtype ? x->dtype : DataType::Void();
      std::string dev = same_vdevice(x->vdevice, y->vdevice) ? x->vdevice : std::string();
      if (x->shape && y->shape && x->ndim == y->ndim) {
        // Keep the dims both sides agree on; others become unknown only through ndim.
        if (dims_check(*x->shape, *y->shape, ana) == BaseCheck::kPass) return tensor_sinfo(*x->shape, dt, dev);
      }
      return tensor_sinfo(dt, x->ndim == y->ndim ? x->ndim : -1, dev);
    }
  }
  if (auto* x = a.as<TupleStructInfo>()) {
    if (auto* y = b.as<TupleStructInfo>(); y && y->fields.size() == x->fields.size()) {
      std::vector<StructInfo> fields;
      for (size_t i = 0; i < x->fields.size(); ++i) fields.push_back(struct_info_lca(x->fields[i], y->fields[i], ana));
      return tuple_sinfo(std::move(fields));
    }
  }
  if (auto* x = a.as<FuncStructInfo>()) {
    if (auto* y = b.as<FuncStructInfo>()) {
      return opaque_func_sinfo(struct_info_lca(x->ret, y->ret, ana), x->purity && y->purity);
    }
  }
  return object_sinfo();
}

// ---- Symbolic variables.

namespace {

template <class F>
void for_each_dim(const StructInfo& s, F&& f) {
  if (!s.defined()) return;
  if (auto* p = s.as<PrimStructInfo>()) {
    if (p->value.defined()) f(p->value);
  } else if (auto* sh = s.as<ShapeStructInfo>()) {
    if (sh->values)
      for (const auto& v : *sh->values) f(v);
  } else if (auto* t = s.as<TensorStructInfo>()) {
    if (t->shape)
      for (const auto& v : *t->shape) f(v);
  } else if (auto* tu = s.as<TupleStructInfo>()) {
    for (const auto& fld : tu->fields) for_each_dim(fld, f);
  } else if (auto* fn = s.as<FuncStructInfo>()) {
    if (fn->params)
      for (const auto& p : *fn->params) for_each_dim(p, f);
    for_each_dim(fn->ret, f);
  }
}

void push_unique(std::vector<Ref<tir::Var>>* out, const tir::Var* v) {
  for (const auto& x : *out)
    if (x.get() == v) return;
  out->push_back(Ref<tir::Var>(v));
}

}  // namespace

std::vector<Ref<tir::Var>> symbolic_vars(const StructInfo& sinfo) {
  std::vector<Ref<tir::Var>> out;
  for_each_dim(sinfo, [&](const PrimExpr& dim) {
    struct Collect : tir::ExprVisitor {
      std::vector<Ref<tir::Var>>* out;
      using tir::ExprVisitor::visit_;
      void visit_(const tir::Var* v) override { push_unique(out, v); }
    } c;
    c.out = &out;
    c(dim);
  });
  return out;
}

std::vector<Ref<tir::Var>> defined_symbolic_vars(const StructInfo& sinfo) {
  std::vector<Ref<tir::Var>> out;
  // Function struct info defines nothing for its caller's scope.
  if (sinfo.is<FuncStructInfo>()) return out;
  for_each_dim(sinfo, [&](const PrimExpr& dim) {
    if (auto* v = dim.as<tir::Var>()) push_unique(&out, v);
  });
  return out;
}

void bind_symbolic_vars(const StructInfo& param, const StructInfo& arg, SymbolicVarMap* bindings) {
  auto bind_dims = [&](const std::vector<PrimExpr>& ps, const std::vector<PrimExpr>& as) {
    if (ps.size() != as.size()) return;
    for (size_t i = 0; i < ps.size(); ++i) {
      if (auto* v = ps[i].as<tir::Var>()) bindings->emplace(v, as[i]);
    }
  };
  if (auto* p = param.as<TensorStructInfo>()) {
    if (auto* a = arg.as<TensorStructInfo>(); a && p->shape && a->shape) bind_dims(*p->shape, *a->shape);
  } else if (auto* p = param.as<ShapeStructInfo>()) {
    if (auto* a = arg.as<ShapeStructInfo>(); a && p->values && a->values) bind_dims(*p->values, *a->values);
  } else if (auto* p = param.as<PrimStructInfo>()) {
    if (auto* a = arg.as<PrimStructInfo>(); a && p->value.defined() && a->value.defined())
      bind_dims({p->value}, {a->value});
  } else if (auto* p = param.as<TupleStructInfo>()) {
    if (auto* a = arg.as<TupleStructInfo>(); a && a->fields.size() == p->fields.size())
      for (size_t i = 0; i < p->fields.size(); ++i) bind_symbolic_vars(p->fields[i], a->fields[i], bindings);
  }
}

StructInfo substitute_sinfo(const StructInfo& sinfo, const SymbolicVarMap& map, arith::Analyzer& ana) {
  if (map.empty() || !sinfo.defined()) return sinfo;
  auto sub = [&](const PrimExpr& e) {
    PrimExpr r = tir::substitute(e, [&](const tir::Var* v) -> PrimExpr {
      auto it = map.find(v);
      return it == map.end() ? PrimExpr() : it->second;
    });
    return r.same_as(e) ? e : ana.simplify(r);
  };
  auto sub_all = [&](const std::vector<PrimExpr>& dims) {
    std::vector<PrimExpr> out;
    for (const auto& d : dims) out.push_back(sub(d));
    return out;
  };
  if (auto* p = sinfo.as<PrimStructInfo>()) {
    return p->value.defined() ? prim_sinfo(p->dtype, sub(p->value)) : sinfo;
  }
  if (auto* s = sinfo.as<ShapeStructInfo>()) return s->values ? shape_sinfo(sub_all(*s->values)) : sinfo;
  if (auto* t = sinfo.as<TensorStructInfo>()) {
    return t->shape ? tensor_sinfo(sub_all(*t->shape), t->dtype, t->vdevice) : sinfo;
  }
  if (auto* tu = sinfo.as<TupleStructInfo>()) {
    std::vector<StructInfo> fields;
    for (const auto& f : tu->fields) fields.push_back(substitute_sinfo(f, map, ana));
    return tuple_sinfo(std::move(fields));
  }
  if (auto* f = sinfo.as<FuncStructInfo>()) {
    StructInfo ret = substitute_sinfo(f->ret, map, ana);
    if (f->is_opaque()) return opaque_func_sinfo(ret, f->purity);
    std::vector<StructInfo> params;
    for (const auto& p : *f->params) params.push_back(substitute_sinfo(p, map, ana));
    return func_sinfo(std::move(params), ret, f->purity);
  }
  return sinfo;
}

namespace {

// Erases from `sinfo` every shape, value or dimension list that mentions a variable `defined`
// rejects. A function's struct info binds the variables its parameters define, so those count
// as defined within it (Callable((Tensor((n,)),), Tensor((n,)))) stays as it is).
template <class Defined>
StructInfo erase_undefined(const StructInfo& sinfo, const Defined& defined,
                           const std::unordered_set<const tir::Var*>& bound) {
  if (!sinfo.defined()) return sinfo;
  auto all_defined = [&](const PrimExpr& e) {
    bool ok = true;
    struct Check : tir::ExprVisitor {
      const Defined* defined;
      const std::unordered_set<const tir::Var*>* bound;
      bool* ok;
      using tir::ExprVisitor::visit_;
      void visit_(const tir::Var* v) override {
        if (!bound->count(v) && !(*defined)(v)) *ok = false;
      }
    } c;
    c.defined = &defined;
    c.bound = &bound;
    c.ok = &ok;
    c(e);
    return ok;
  };
  auto dims_ok = [&](const std::vector<PrimExpr>& dims) {
    return std::all_of(dims.begin(), dims.end(), all_defined);
  };
  if (auto* p = sinfo.as<PrimStructInfo>()) {
    return (!p->value.defined() || all_defined(p->value)) ? sinfo : prim_sinfo(p->dtype);
  }
  if (auto* s = sinfo.as<ShapeStructInfo>()) return (!s->values || dims_ok(*s->values)) ? sinfo : shape_sinfo(s->ndim);
  if (auto* t = sinfo.as<TensorStructInfo>()) {
    return (!t->shape || dims_ok(*t->shape)) ? sinfo : tensor_sinfo(t->dtype, t->ndim, t->vdevice);
  }
  if (auto* tu = sinfo.as<TupleStructInfo>()) {
    std::vector<StructInfo> fields;
    bool changed = false;
    for (const auto& f : tu->fields) {
      fields.push_back(erase_undefined(f, defined, bound));
      changed |= !fields.back().same_as(f);
    }
    return changed ? tuple_sinfo(std::move(fields)) : sinfo;
  }
  if (auto* fn = sinfo.as<FuncStructInfo>()) {
    std::unordered_set<const tir::Var*> inner = bound;
    if (fn->params)
      for (const auto& p : *fn->params)
        for (const auto& v : defined_symbolic_vars(p)) inner.insert(v.get());
    StructInfo ret = erase_undefined(fn->ret, defined, inner);
    bool changed = !ret.same_as(fn->ret);
    if (fn->is_opaque()) return changed ? opaque_func_sinfo(ret, fn->purity) : sinfo;
    std::vector<StructInfo> params;
    for (const auto& p : *fn->params) {
      params.push_back(erase_undefined(p, defined, inner));
      changed |= !params.back().same_as(p);
    }
    return changed ? func_sinfo(std::move(params), ret, fn->purity) : sinfo;
  }
  return sinfo;
}

}  // namespace

StructInfo derive_call_ret_struct_info(const FuncStructInfo& func, const std::vector<Expr>& args,
                                       const std::string& callee, arith::Analyzer& ana,
                                       const std::unordered_set<const tir::Var*>* caller_scope) {
  if (func.is_opaque()) return func.ret;
  const auto& params = *func.params;
  RX_CHECK(params.size() == args.size()) << callee << " takes " << params.size() << " argument(s), got "
                                         << args.size();
  SymbolicVarMap bindings;
  for (size_t i = 0; i < params.size(); ++i) bind_symbolic_vars(params[i], get_struct_info(args[i]), &bindings);
  for (size_t i = 0; i < params.size(); ++i) {
    StructInfo expected = substitute_sinfo(params[i], bindings, ana);
    const StructInfo& actual = get_struct_info(args[i]);
    RX_CHECK(struct_info_base_check(expected, actual, ana) != BaseCheck::kFail)
        << callee << ": argument " << i << " (" << describe(args[i]) << ") has struct info " << to_string(actual)
        << ", which does not match the parameter's " << to_string(expected);
  }
  // Variables of the return struct info that no parameter binds belong to the callee (a
  // function's body defines them by match_cast, or its signature leaves them free): the caller
  // cannot name them, so what mentions them is erased to its rank (as TVM's EraseToWellDefined
  // does). A local function may also mention its enclosing scope's variables, which the caller
  // sees too (they are in `caller_scope`).
  StructInfo ret = substitute_sinfo(func.ret, bindings, ana);
  if (!caller_scope) return ret;
  std::unordered_set<const tir::Var*> callee_local;
  for (const auto& v : symbolic_vars(func.ret))
    if (!bindings.count(v.get()) && !caller_scope->count(v.get())) callee_local.insert(v.get());
  if (callee_local.empty()) return ret;
  return erase_undefined(ret, [&](const tir::Var* v) { return !callee_local.count(v); }, {});
}

StructInfo erase_to_well_defined(const StructInfo& sinfo, const std::unordered_set<const tir::Var*>& in_scope) {
  return erase_undefined(sinfo, [&](const tir::Var* v) { return in_scope.count(v) > 0; }, {});
}

}  // namespace relax
