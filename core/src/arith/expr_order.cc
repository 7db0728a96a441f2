// A deterministic structural total order on PrimExpr, and the integer helpers of arith.
//
// The canonical form sorts terms and operands by this order, so it must not depend on node
// addresses: expressions compare by kind, dtype, then fields; variables by name, and two
// distinct variables (or buffers) of one name by the order in which this ExprOrder first met
// them.
#include <numeric>

#include "internal.h"
#include "relax/tir/buffer.h"

namespace relax::arith::detail {

using namespace tir;

// Defined for every b != 0: INT64_MIN // -1 wraps (the IR's integer semantics), and the
// remainder is computed without forming floordiv(a, b) * b, which can overflow.
int64_t floordiv_int(int64_t a, int64_t b) {
  if (b == -1) return int64_t(0 - uint64_t(a));
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
int64_t floormod_int(int64_t a, int64_t b) {
  if (b == -1) return 0;
  int64_t r = a % b;
  return r != 0 && (r < 0) != (b < 0) ? r + b : r;
}
int64_t gcd_int(int64_t a, int64_t b) {
  // std::gcd on INT64_MIN is undefined; coefficients that large are not worth a gcd.
  if (a == INT64_MIN || b == INT64_MIN) return 1;
  return std::gcd(a, b);
}

namespace {

template <class T>
int three_way(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

int compare_dtype(DataType a, DataType b) {
  if (int c = three_way(a.code, b.code)) return c;
  if (int c = three_way(a.bits, b.bits)) return c;
  return three_way(a.lanes, b.lanes);
}

}  // namespace

int ExprOrder::compare_identity(const Object* a, const Object* b) {
  if (a == b) return 0;
  auto serial = [&](const Object* o) {
    auto [it, inserted] = serials_.try_emplace(o, serials_.size());
    if (inserted) keep_alive_.emplace_back(o);
    return it->second;
  };
  uint64_t sa = serial(a);
  uint64_t sb = serial(b);
  return three_way(sa, sb);
}

int ExprOrder::compare(const PrimExpr& a, const PrimExpr& b) {
  if (a.same_as(b)) return 0;
  if (int c = three_way(a->kind(), b->kind())) return c;
  if (int c = compare_dtype(a->dtype, b->dtype)) return c;
  auto list = [&](const std::vector<PrimExpr>& x, const std::vector<PrimExpr>& y) {
    if (int c = three_way(x.size(), y.size())) return c;
    for (size_t i = 0; i < x.size(); ++i)
      if (int c = compare(x[i], y[i])) return c;
    return 0;
  };
  switch (PrimExprKind(a->kind())) {
    case PrimExprKind::kIntImm:
      return three_way(a.as<IntImm>()->value, b.as<IntImm>()->value);
    case PrimExprKind::kFloatImm: {
      double x = a.as<FloatImm>()->value, y = b.as<FloatImm>()->value;
      if (x == y) return 0;
      return x < y ? -1 : 1;
    }
    case PrimExprKind::kVar: {
      auto *x = a.as<Var>(), *y = b.as<Var>();
      if (int c = x->name.compare(y->name)) return c < 0 ? -1 : 1;
      return compare_identity(x, y);
    }
#define RELAX_X(Name, Symbol)                        \
  case PrimExprKind::k##Name: {                      \
    auto* x = static_cast<const BinaryOp*>(a.get()); \
    auto* y = static_cast<const BinaryOp*>(b.get()); \
    if (int c = compare(x->a, y->a)) return c;       \
    return compare(x->b, y->b);                      \
  }
      RELAX_PRIM_EXPR_BINARY_NODES(RELAX_X)
#undef RELAX_X
    case PrimExprKind::kNot:
      return compare(a.as<Not>()->a, b.as<Not>()->a);
    case PrimExprKind::kSelect: {
      auto *x = a.as<Select>(), *y = b.as<Select>();
      return list({x->condition, x->true_value, x->false_value},
                  {y->condition, y->true_value, y->false_value});
    }
    case PrimExprKind::kCast:
      return compare(a.as<Cast>()->value, b.as<Cast>()->value);
    case PrimExprKind::kLet: {
      auto *x = a.as<Let>(), *y = b.as<Let>();
      if (int c = compare(x->var, y->var)) return c;
      return list({x->value, x->body}, {y->value, y->body});
    }
    case PrimExprKind::kCall: {
      auto *x = a.as<Call>(), *y = b.as<Call>();
      if (int c = three_way(x->op, y->op)) return c;
      if (int c = x->name.compare(y->name)) return c < 0 ? -1 : 1;
      return list(x->args, y->args);
    }
    case PrimExprKind::kBufferLoad: {
      auto *x = a.as<BufferLoad>(), *y = b.as<BufferLoad>();
      if (!x->buffer.same_as(y->buffer)) {
        if (int c = x->buffer->name.compare(y->buffer->name)) return c < 0 ? -1 : 1;
        return compare_identity(x->buffer.get_object(), y->buffer.get_object());
      }
      return list(x->indices, y->indices);
    }
    case PrimExprKind::kRamp: {
      auto *x = a.as<Ramp>(), *y = b.as<Ramp>();
      if (int c = three_way(x->lanes, y->lanes)) return c;
      return list({x->base, x->stride}, {y->base, y->stride});
    }
    case PrimExprKind::kBroadcast: {
      auto *x = a.as<Broadcast>(), *y = b.as<Broadcast>();
      if (int c = three_way(x->lanes, y->lanes)) return c;
      return compare(x->value, y->value);
    }
    default:
      return compare_identity(a.get(), b.get());
  }
}

}  // namespace relax::arith::detail
