// The structural walk over Relax IR and PrimExprs (see structural_equal_impl.h): for each
// node, the fields that make up its structure, in the order they are compared and hashed.
// Definition sites map variables; everything else compares field by field.

#include <variant>

#include "structural_equal_impl.h"

namespace relax::sequal {

namespace {
std::string kind_name(uint32_t kind) {
  if (kind >= kPrimExprKindBase && kind < kRelaxExprKindBase) return tir::prim_expr_kind_name(kind);
  if (kind >= kRelaxExprKindBase && kind < kStructInfoKindBase) return relax_kind_name(kind);
  if (kind >= kBindingKindBase && kind < kTirStmtKindBase) return relax_kind_name(kind);
  if (kind >= kTirStmtKindBase && kind < kTirMiscKindBase) return tir::stmt_kind_name(kind);
  switch (kind) {
#define RELAX_X(Name) \
  case Name::kKind:   \
    return #Name;
    RELAX_STRUCT_INFO_NODES(RELAX_X)
#undef RELAX_X
    case tir::Buffer::kKind:
      return "Buffer";
    case tir::IterVar::kKind:
      return "IterVar";
    case AttrsNode::kKind:
      return "Attrs";
    default:
      return "kind " + std::to_string(kind);
  }
}

bool in_range(uint32_t kind, uint32_t first, uint32_t last) {
  return kind >= first && kind <= last;
}

std::string different_kinds(const Object* a, const Object* b) {
  return "different kinds: " + kind_name(a->kind()) + " vs " + kind_name(b->kind());
}
}  // namespace

int check_head(Reducer& r, const Object* a, const Object* b) {
  if (a == nullptr || b == nullptr) {
    if (a == b) {
      r.mix(0);
      return 1;
    }
    r.fail(a, b, a ? "missing on the right" : "missing on the left");
    return 0;
  }
  if (a->kind() != b->kind()) {
    r.fail(a, b, different_kinds(a, b));
    return 0;
  }
  r.mix(a->kind());
  return -1;
}

bool Walker::object(const Object* a, const Object* b) {
  if (int settled = check_head(r_, a, b); settled >= 0) return settled == 1;
  uint32_t k = a->kind();
  if (in_range(k, ExprNode::kKindFirst, ExprNode::kKindLast)) {
    return expr(Expr(static_cast<const ExprNode*>(a)), Expr(static_cast<const ExprNode*>(b)));
  }
  if (in_range(k, StructInfoNode::kKindFirst, StructInfoNode::kKindLast)) {
    return sinfo(StructInfo(static_cast<const StructInfoNode*>(a)),
                 StructInfo(static_cast<const StructInfoNode*>(b)));
  }
  if (in_range(k, tir::PrimExprNode::kKindFirst, tir::PrimExprNode::kKindLast)) {
    return prim(PrimExpr(static_cast<const tir::PrimExprNode*>(a)),
                PrimExpr(static_cast<const tir::PrimExprNode*>(b)));
  }
  if (in_range(k, BindingNode::kKindFirst, BindingNode::kKindLast)) {
    return binding(Binding(static_cast<const BindingNode*>(a)),
                   Binding(static_cast<const BindingNode*>(b)));
  }
  if (in_range(k, BlockNode::kKindFirst, BlockNode::kKindLast)) {
    return block(Block(static_cast<const BlockNode*>(a)), Block(static_cast<const BlockNode*>(b)));
  }
  if (k == AttrsNode::kKind) {
    return attrs(Attrs(static_cast<const AttrsNode*>(a)), Attrs(static_cast<const AttrsNode*>(b)));
  }
  if (in_range(k, tir::StmtNode::kKindFirst, tir::StmtNode::kKindLast) || k == tir::Buffer::kKind ||
      k == tir::IterVar::kKind) {
    return tir_object(a, b);
  }
  return r_.fail(a, b, "structural equality does not know " + kind_name(k));
}

bool Walker::define(const Object* a, const Object* b) {
  switch (r_.lookup(a, b)) {
    case Reducer::VarState::kBound:
      return true;
    case Reducer::VarState::kConflict:
      return false;
    case Reducer::VarState::kUnbound:
      break;
  }
  return r_.bind(a, b);
}

// ---- Relax expressions.

bool Walker::relax_var_def(const Ref<VarNode>& a, const Ref<VarNode>& b) {
  if (int settled = check_head(r_, a.get(), b.get()); settled >= 0) return settled == 1;
  {
    PathStep step(r_, "struct_info");
    DefineScope def(r_);
    if (!sinfo(a->struct_info, b->struct_info)) return false;
  }
  return define(a.get(), b.get());
}

bool Walker::relax_var_use(const VarNode* a, const VarNode* b) {
  switch (r_.lookup(a, b)) {
    case Reducer::VarState::kBound:
      return true;
    case Reducer::VarState::kConflict:
      return false;
    case Reducer::VarState::kUnbound:
      break;
  }
  if (!r_.may_bind()) return r_.free_var(a, b);
  // A free variable mapped on first sight: what is known of it must agree.
  if (!field("struct_info", [&] { return sinfo(a->struct_info, b->struct_info); })) return false;
  return r_.bind(a, b);
}

bool Walker::expr(const Expr& ea, const Expr& eb) {
  if (int settled = check_head(r_, ea.get(), eb.get()); settled >= 0) return settled == 1;
  const Object* a = ea.get();
  const Object* b = eb.get();
  auto exprs = [&](const Expr& x, const Expr& y) { return expr(x, y); };
  auto prims = [&](const PrimExpr& x, const PrimExpr& y) { return prim(x, y); };
  auto sinfos = [&](const StructInfo& x, const StructInfo& y) { return sinfo(x, y); };

  switch (ExprKind(a->kind())) {
    case ExprKind::kConstant: {
      auto* x = static_cast<const Constant*>(a);
      auto* y = static_cast<const Constant*>(b);
      const runtime::NDArray& da = x->data;
      const runtime::NDArray& db = y->data;
      if (!field("dtype", [&] { return r_.leaf(da.dtype(), db.dtype()); })) return false;
      if (!list("shape", da.shape(), db.shape(),
                [&](int64_t p, int64_t q) { return r_.leaf(p, q); }))
        return false;
      if (!field("data", [&] {
            return r_.bytes(da.data(), da.nbytes(), db.data(), db.nbytes(),
                            size_t(std::max(1, da.dtype().bytes())));
          })) {
        return false;
      }
      return field("struct_info", [&] { return sinfo(x->struct_info, y->struct_info); });
    }
    case ExprKind::kTuple:
      return list("fields", static_cast<const Tuple*>(a)->fields,
                  static_cast<const Tuple*>(b)->fields, exprs);
    case ExprKind::kTupleGetItem: {
      auto* x = static_cast<const TupleGetItem*>(a);
      auto* y = static_cast<const TupleGetItem*>(b);
      return field("tuple", [&] { return expr(x->tuple, y->tuple); }) &&
             field("index", [&] { return r_.leaf(int64_t(x->index), int64_t(y->index)); });
    }
    case ExprKind::kVar:
    case ExprKind::kDataflowVar:
      return relax_var_use(static_cast<const VarNode*>(a), static_cast<const VarNode*>(b));
    case ExprKind::kShapeExpr:
      return list("values", static_cast<const ShapeExpr*>(a)->values,
                  static_cast<const ShapeExpr*>(b)->values, prims);
    case ExprKind::kPrimValue:
      return field("value", [&] {
        return prim(static_cast<const PrimValue*>(a)->value,
                    static_cast<const PrimValue*>(b)->value);
      });
    case ExprKind::kStringImm:
      return r_.named(static_cast<const StringImm*>(a)->value,
                      static_cast<const StringImm*>(b)->value, a, b);
    case ExprKind::kDataTypeImm:
      return r_.leaf(static_cast<const DataTypeImm*>(a)->value,
                     static_cast<const DataTypeImm*>(b)->value);
    case ExprKind::kGlobalVar:
      return r_.named(static_cast<const GlobalVar*>(a)->name,
                      static_cast<const GlobalVar*>(b)->name, a, b);
    case ExprKind::kOp:
      return r_.named(static_cast<const Op*>(a)->name, static_cast<const Op*>(b)->name, a, b);
    case ExprKind::kExternFunc: {
      auto* x = static_cast<const ExternFunc*>(a);
      auto* y = static_cast<const ExternFunc*>(b);
      return r_.named(x->global_symbol, y->global_symbol, a, b) &&
             field("struct_info", [&] { return sinfo(x->struct_info, y->struct_info); });
    }
    case ExprKind::kCall: {
      auto* x = static_cast<const Call*>(a);
      auto* y = static_cast<const Call*>(b);
      return field("op", [&] { return expr(x->op, y->op); }) &&
             list("args", x->args, y->args, exprs) &&
             field("attrs", [&] { return attrs(x->attrs, y->attrs); }) &&
             list("sinfo_args", x->sinfo_args, y->sinfo_args, sinfos);
    }
    case ExprKind::kIf: {
      auto* x = static_cast<const If*>(a);
      auto* y = static_cast<const If*>(b);
      return field("cond", [&] { return expr(x->cond, y->cond); }) &&
             field("then_branch", [&] { return expr(x->then_branch, y->then_branch); }) &&
             field("else_branch", [&] { return expr(x->else_branch, y->else_branch); });
    }
    case ExprKind::kSeqExpr: {
      auto* x = static_cast<const SeqExpr*>(a);
      auto* y = static_cast<const SeqExpr*>(b);
      return list("blocks", x->blocks, y->blocks,
                  [&](const Block& p, const Block& q) { return block(p, q); }) &&
             field("body", [&] { return expr(x->body, y->body); });
    }
    case ExprKind::kFunction: {
      auto* x = static_cast<const Function*>(a);
      auto* y = static_cast<const Function*>(b);
      auto params = [&](const Ref<Var>& p, const Ref<Var>& q) { return relax_var_def(p, q); };
      // The body before the result: a match_cast in the body may define the symbolic
      // variables the declared result mentions.
      return list("params", x->params, y->params, params) &&
             field("body", [&] { return expr(x->body, y->body); }) &&
             field("ret_struct_info",
                   [&] { return sinfo(x->ret_struct_info, y->ret_struct_info); }) &&
             field("is_pure",
                   [&] {
                     return r_.leaf(x->is_pure ? "pure" : "impure", y->is_pure ? "pure" : "impure");
                   }) &&
             field("attrs", [&] { return attrs(x->attrs, y->attrs); });
    }
    case ExprKind::kPrimFunc:
      return prim_func(static_cast<const tir::PrimFunc*>(a), static_cast<const tir::PrimFunc*>(b));
    default:
      return r_.fail(a, b, "structural equality does not know " + kind_name(a->kind()));
  }
}

// ---- Struct info.

bool Walker::sinfo(const StructInfo& sa, const StructInfo& sb) {
  if (int settled = check_head(r_, sa.get(), sb.get()); settled >= 0) return settled == 1;
  auto prims = [&](const PrimExpr& x, const PrimExpr& y) { return prim(x, y); };
  auto sinfos = [&](const StructInfo& x, const StructInfo& y) { return sinfo(x, y); };
  // An optional list: present on both sides or on neither.
  auto opt_dims = [&](std::string_view name, const auto& x, const auto& y) {
    if (x.has_value() != y.has_value()) {
      PathStep step(r_, name);
      return r_.fail(sa.get(), sb.get(), x ? "known only on the left" : "known only on the right");
    }
    r_.mix(x.has_value());
    return !x || list(name, *x, *y, prims);
  };

  switch (StructInfoKind(sa->kind())) {
    case StructInfoKind::kObjectStructInfo:
      return true;
    case StructInfoKind::kPrimStructInfo: {
      auto* x = sa.as<PrimStructInfo>();
      auto* y = sb.as<PrimStructInfo>();
      return field("dtype", [&] { return r_.leaf(x->dtype, y->dtype); }) &&
             field("value", [&] { return prim(x->value, y->value); });
    }
    case StructInfoKind::kShapeStructInfo: {
      auto* x = sa.as<ShapeStructInfo>();
      auto* y = sb.as<ShapeStructInfo>();
      return field("ndim", [&] { return r_.leaf(int64_t(x->ndim), int64_t(y->ndim)); }) &&
             opt_dims("values", x->values, y->values);
    }
    case StructInfoKind::kTensorStructInfo: {
      auto* x = sa.as<TensorStructInfo>();
      auto* y = sb.as<TensorStructInfo>();
      return field("ndim", [&] { return r_.leaf(int64_t(x->ndim), int64_t(y->ndim)); }) &&
             opt_dims("shape", x->shape, y->shape) &&
             field("dtype", [&] { return r_.leaf(x->dtype, y->dtype); }) &&
             field("vdevice", [&] { return r_.leaf(x->vdevice, y->vdevice); });
    }
    case StructInfoKind::kTupleStructInfo:
      return list("fields", sa.as<TupleStructInfo>()->fields, sb.as<TupleStructInfo>()->fields,
                  sinfos);
    case StructInfoKind::kFuncStructInfo: {
      auto* x = sa.as<FuncStructInfo>();
      auto* y = sb.as<FuncStructInfo>();
      if (x->params.has_value() != y->params.has_value()) {
        PathStep step(r_, "params");
        return r_.fail(sa.get(), sb.get(),
                       x->params ? "opaque only on the right" : "opaque only on the left");
      }
      r_.mix(x->params.has_value());
      if (x->params) {
        // Symbolic variables first met in a function type's parameters are its own.
        DefineScope def(r_);
        if (!list("params", *x->params, *y->params, sinfos)) return false;
      }
      return field("ret", [&] { return sinfo(x->ret, y->ret); }) && field("purity", [&] {
               return r_.leaf(x->purity ? "pure" : "impure", y->purity ? "pure" : "impure");
             });
    }
    default:
      return r_.fail(sa.get(), sb.get(), "unknown struct info kind");
  }
}

// ---- Bindings and blocks.

bool Walker::binding(const Binding& ba, const Binding& bb) {
  if (int settled = check_head(r_, ba.get(), bb.get()); settled >= 0) return settled == 1;
  auto var = [&] { return relax_var_def(ba->var, bb->var); };
  auto value = [&] { return expr(ba->value, bb->value); };
  if (auto* x = ba.as<MatchCast>()) {
    auto* y = bb.as<MatchCast>();
    if (!field("value", value)) return false;
    {
      PathStep step(r_, "struct_info");
      DefineScope def(r_);
      if (!sinfo(x->struct_info, y->struct_info)) return false;
    }
    return field("var", var);
  }
  // A local function may call itself through its variable: define the variable first.
  if (ba->value.is<Function>()) return field("var", var) && field("value", value);
  return field("value", value) && field("var", var);
}

bool Walker::block(const Block& a, const Block& b) {
  if (int settled = check_head(r_, a.get(), b.get()); settled >= 0) return settled == 1;
  return list("bindings", a->bindings, b->bindings,
              [&](const Binding& x, const Binding& y) { return binding(x, y); });
}

// ---- Attributes: compared as sets of key/value pairs.

bool Walker::attrs(const Attrs& a, const Attrs& b) {
  using Field = std::pair<std::string, AttrValue>;
  auto sorted = [](const Attrs& attrs) {
    std::vector<const Field*> out;
    if (attrs.defined()) {
      for (const auto& f : attrs->fields) out.push_back(&f);
    }
    std::sort(out.begin(), out.end(),
              [](const Field* x, const Field* y) { return x->first < y->first; });
    return out;
  };
  std::vector<const Field*> xs = sorted(a), ys = sorted(b);
  size_t i = 0, j = 0;
  while (i < xs.size() || j < ys.size()) {
    if (j == ys.size() || (i < xs.size() && xs[i]->first < ys[j]->first)) {
      PathStep step(r_, xs[i]->first);
      return r_.fail_text(to_string(xs[i]->second), "(absent)", "attribute only on the left");
    }
    if (i == xs.size() || ys[j]->first < xs[i]->first) {
      PathStep step(r_, ys[j]->first);
      return r_.fail_text("(absent)", to_string(ys[j]->second), "attribute only on the right");
    }
    PathStep step(r_, xs[i]->first);
    if (!r_.leaf(xs[i]->first, ys[j]->first) || !attr_value(xs[i]->second, ys[j]->second))
      return false;
    ++i, ++j;
  }
  r_.mix(xs.size());
  return true;
}

bool Walker::attr_value(const AttrValue& a, const AttrValue& b) {
  if (a.index() != b.index())
    return r_.fail_text(to_string(a), to_string(b), "different kinds of value");
  r_.mix(a.index());
  auto leaves = [&](const auto& x, const auto& y) { return r_.leaf(x, y); };
  return std::visit(
      [&](const auto& x) -> bool {
        using T = std::decay_t<decltype(x)>;
        const T& y = std::get<T>(b);
        if constexpr (std::is_same_v<T, std::monostate>) {
          return true;
        } else if constexpr (std::is_same_v<T, bool>) {
          return r_.leaf(int64_t(x), int64_t(y));
        } else if constexpr (std::is_same_v<T, std::vector<int64_t>> ||
                             std::is_same_v<T, std::vector<double>> ||
                             std::is_same_v<T, std::vector<std::string>>) {
          return list("", x, y, leaves);
        } else if constexpr (std::is_same_v<T, std::vector<tir::PrimExpr>>) {
          return list("", x, y, [&](const PrimExpr& p, const PrimExpr& q) { return prim(p, q); });
        } else if constexpr (std::is_same_v<T, Ref<Object>>) {
          return object(x.get(), y.get());
        } else {
          return r_.leaf(x, y);
        }
      },
      a);
}

// ---- PrimExprs.

bool Walker::tir_var_def(const Ref<tir::Var>& a, const Ref<tir::Var>& b) {
  if (int settled = check_head(r_, a.get(), b.get()); settled >= 0) return settled == 1;
  return field("dtype", [&] { return r_.leaf(a->dtype, b->dtype); }) && define(a.get(), b.get());
}

bool Walker::tir_var_use(const tir::Var* a, const tir::Var* b) {
  switch (r_.lookup(a, b)) {
    case Reducer::VarState::kBound:
      return true;
    case Reducer::VarState::kConflict:
      return false;
    case Reducer::VarState::kUnbound:
      break;
  }
  if (!r_.may_bind()) return r_.free_var(a, b);
  return r_.bind(a, b);  // dtypes were compared by prim()
}

bool Walker::prim(const PrimExpr& ea, const PrimExpr& eb) {
  if (int settled = check_head(r_, ea.get(), eb.get()); settled >= 0) return settled == 1;
  const tir::PrimExprNode* a = ea.get();
  const tir::PrimExprNode* b = eb.get();
  if (a->dtype != b->dtype)
    return r_.fail(a, b, "dtypes differ: " + a->dtype.to_string() + " vs " + b->dtype.to_string());
  r_.leaf(a->dtype, b->dtype);
  auto prims = [&](const PrimExpr& x, const PrimExpr& y) { return prim(x, y); };
  using tir::PrimExprKind;
  switch (PrimExprKind(a->kind())) {
    case PrimExprKind::kIntImm:
      return r_.leaf(static_cast<const tir::IntImm*>(a)->value,
                     static_cast<const tir::IntImm*>(b)->value);
    case PrimExprKind::kFloatImm: {
      // At the constant's own precision: a float32 1e-5 from an attribute (a double) is the
      // constant the printer writes and the parser reads back.
      auto value = [&](const tir::PrimExprNode* e) {
        double v = static_cast<const tir::FloatImm*>(e)->value;
        return e->dtype.bits <= 32 ? double(float(v)) : v;
      };
      return r_.leaf(value(a), value(b));
    }
    case PrimExprKind::kVar:
      return tir_var_use(static_cast<const tir::Var*>(a), static_cast<const tir::Var*>(b));
#define RELAX_X(Name, Symbol) case PrimExprKind::k##Name:
      RELAX_PRIM_EXPR_BINARY_NODES(RELAX_X)
#undef RELAX_X
      {
        auto* x = static_cast<const tir::BinaryOp*>(a);
        auto* y = static_cast<const tir::BinaryOp*>(b);
        return field("a", [&] { return prim(x->a, y->a); }) &&
               field("b", [&] { return prim(x->b, y->b); });
      }
    case PrimExprKind::kNot:
      return field("a", [&] {
        return prim(static_cast<const tir::Not*>(a)->a, static_cast<const tir::Not*>(b)->a);
      });
    case PrimExprKind::kSelect: {
      auto* x = static_cast<const tir::Select*>(a);
      auto* y = static_cast<const tir::Select*>(b);
      return field("condition", [&] { return prim(x->condition, y->condition); }) &&
             field("true_value", [&] { return prim(x->true_value, y->true_value); }) &&
             field("false_value", [&] { return prim(x->false_value, y->false_value); });
    }
    case PrimExprKind::kCast:
      return field("value", [&] {
        return prim(static_cast<const tir::Cast*>(a)->value,
                    static_cast<const tir::Cast*>(b)->value);
      });
    case PrimExprKind::kLet: {
      auto* x = static_cast<const tir::Let*>(a);
      auto* y = static_cast<const tir::Let*>(b);
      return field("value", [&] { return prim(x->value, y->value); }) &&
             field("var", [&] { return tir_var_def(x->var, y->var); }) &&
             field("body", [&] { return prim(x->body, y->body); });
    }
    case PrimExprKind::kCall: {
      auto* x = static_cast<const tir::Call*>(a);
      auto* y = static_cast<const tir::Call*>(b);
      return field(
                 "op",
                 [&] { return r_.leaf(tir::intrinsic_name(x->op), tir::intrinsic_name(y->op)); }) &&
             field("name", [&] { return r_.leaf(x->name, y->name); }) &&
             list("args", x->args, y->args, prims);
    }
    case PrimExprKind::kBufferLoad: {
      auto* x = static_cast<const tir::BufferLoad*>(a);
      auto* y = static_cast<const tir::BufferLoad*>(b);
      return field("buffer", [&] { return buffer_use(x->buffer, y->buffer); }) &&
             list("indices", x->indices, y->indices, prims);
    }
    case PrimExprKind::kRamp: {
      auto* x = static_cast<const tir::Ramp*>(a);
      auto* y = static_cast<const tir::Ramp*>(b);
      return field("base", [&] { return prim(x->base, y->base); }) &&
             field("stride", [&] { return prim(x->stride, y->stride); }) &&
             field("lanes", [&] { return r_.leaf(int64_t(x->lanes), int64_t(y->lanes)); });
    }
    case PrimExprKind::kBroadcast: {
      auto* x = static_cast<const tir::Broadcast*>(a);
      auto* y = static_cast<const tir::Broadcast*>(b);
      return field("value", [&] { return prim(x->value, y->value); }) &&
             field("lanes", [&] { return r_.leaf(int64_t(x->lanes), int64_t(y->lanes)); });
    }
    default:
      return r_.fail(a, b, "unknown PrimExpr kind");
  }
}

}  // namespace relax::sequal
