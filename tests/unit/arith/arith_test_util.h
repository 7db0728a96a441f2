// Helpers shared by the arith tests: a reference evaluator for integer PrimExprs (the oracle
// the randomized tests check the simplifier against) and short names for variables.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "relax/arith/analyzer.h"
#include "relax/tir/expr.h"

namespace relax::arith::testing {

using namespace relax::tir;
using tir::max;
using tir::min;

/// min / max with an integer constant, which expr.h does not provide.
inline PrimExpr min(PrimExpr a, int64_t b) {
  DataType t = a->dtype;
  return tir::min(std::move(a), int_imm(b, t));
}
inline PrimExpr max(PrimExpr a, int64_t b) {
  DataType t = a->dtype;
  return tir::max(std::move(a), int_imm(b, t));
}
inline PrimExpr min(int64_t a, PrimExpr b) {
  DataType t = b->dtype;
  return tir::min(int_imm(a, t), std::move(b));
}
inline PrimExpr max(int64_t a, PrimExpr b) {
  DataType t = b->dtype;
  return tir::max(int_imm(a, t), std::move(b));
}

/// Evaluates an integer/bool expression with the variables of `env` (by name); nullopt when
/// it divides by zero or meets a node it does not know.
inline std::optional<int64_t> eval(const PrimExpr& e, const std::map<std::string, int64_t>& env) {
  auto fdiv = [](int64_t a, int64_t b) {
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
  };
  if (auto* n = e.as<IntImm>()) return n->value;
  if (auto* n = e.as<Var>()) {
    auto it = env.find(n->name);
    if (it == env.end()) return std::nullopt;
    return it->second;
  }
  if (auto* n = e.as<Select>()) {
    auto c = eval(n->condition, env);
    auto t = eval(n->true_value, env), f = eval(n->false_value, env);
    if (!c || !t || !f) return std::nullopt;
    return *c ? t : f;
  }
  if (auto* n = e.as<Not>()) {
    auto a = eval(n->a, env);
    if (!a) return std::nullopt;
    return int64_t(!*a);
  }
  if (auto* n = e.as<Let>()) {
    auto v = eval(n->value, env);
    if (!v) return std::nullopt;
    auto inner = env;
    inner[n->var->name] = *v;
    return eval(n->body, inner);
  }
  if (auto* n = e.as<Cast>()) return eval(n->value, env);
  auto* bin = e.as<BinaryOp>();
  if (!bin) return std::nullopt;
  auto a = eval(bin->a, env), b = eval(bin->b, env);
  if (!a || !b) return std::nullopt;
  int64_t x = *a, y = *b;
  switch (PrimExprKind(e->kind())) {
    case PrimExprKind::kAdd:
      return x + y;
    case PrimExprKind::kSub:
      return x - y;
    case PrimExprKind::kMul:
      return x * y;
    case PrimExprKind::kDiv:
      return y == 0 ? std::nullopt : std::optional<int64_t>(x / y);
    case PrimExprKind::kMod:
      return y == 0 ? std::nullopt : std::optional<int64_t>(x % y);
    case PrimExprKind::kFloorDiv:
      return y == 0 ? std::nullopt : std::optional<int64_t>(fdiv(x, y));
    case PrimExprKind::kFloorMod:
      return y == 0 ? std::nullopt : std::optional<int64_t>(x - fdiv(x, y) * y);
    case PrimExprKind::kMin:
      return std::min(x, y);
    case PrimExprKind::kMax:
      return std::max(x, y);
    case PrimExprKind::kEQ:
      return int64_t(x == y);
    case PrimExprKind::kNE:
      return int64_t(x != y);
    case PrimExprKind::kLT:
      return int64_t(x < y);
    case PrimExprKind::kLE:
      return int64_t(x <= y);
    case PrimExprKind::kGT:
      return int64_t(x > y);
    case PrimExprKind::kGE:
      return int64_t(x >= y);
    case PrimExprKind::kAnd:
      return int64_t(x && y);
    case PrimExprKind::kOr:
      return int64_t(x || y);
    default:
      return std::nullopt;
  }
}

/// The printed simplified form, for readable expectations.
inline std::string simplified(Analyzer& an, const PrimExpr& e) { return to_string(an.simplify(e)); }
inline std::string simplified(const PrimExpr& e) { return to_string(arith::simplify(e)); }

}  // namespace relax::arith::testing
