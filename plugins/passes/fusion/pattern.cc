// Dataflow patterns: builders and the matcher (pattern.h); the text form is in pattern_text.cc.
#include "pattern.h"

#include <algorithm>

#include "relax/ir/op.h"
#include "relax/support/diagnostic.h"

namespace relax::fusion {
namespace {

Pattern make_pattern(PatternNode::Kind kind, std::string name, std::vector<Pattern> args = {},
                     std::vector<PatternPredicate> preds = {}) {
  return Pattern(std::make_shared<const PatternNode>(
      PatternNode{kind, std::move(name), std::move(args), std::move(preds)}));
}

Pattern with_predicate(const Pattern& p, PatternPredicate pred) {
  RX_ICHECK(p.defined()) << "a predicate on an undefined pattern";
  std::vector<PatternPredicate> preds = p->predicates;
  preds.push_back(std::move(pred));
  return make_pattern(p->kind, p->name, p->args, std::move(preds));
}

/// `*` matches any run of characters.
bool glob_match(std::string_view glob, std::string_view text) {
  if (glob.empty()) return text.empty();
  if (glob[0] == '*') {
    for (size_t i = 0; i <= text.size(); ++i)
      if (glob_match(glob.substr(1), text.substr(i))) return true;
    return false;
  }
  return !text.empty() && glob[0] == text[0] && glob_match(glob.substr(1), text.substr(1));
}

bool is_commutative(const std::string& op) {
  return op == "relax.add" || op == "relax.multiply" || op == "relax.maximum" ||
         op == "relax.minimum";
}

/// Equality of attribute values, numbers compared by value (an int pattern matches a float
/// attribute of the same value).
bool attr_equal(const AttrValue& a, const AttrValue& b) {
  auto num = [](const AttrValue& v, double* out) {
    if (auto* i = std::get_if<int64_t>(&v)) return *out = double(*i), true;
    if (auto* d = std::get_if<double>(&v)) return *out = *d, true;
    return false;
  };
  auto nums = [](const AttrValue& v, std::vector<double>* out) {
    if (auto* i = std::get_if<std::vector<int64_t>>(&v)) {
      out->assign(i->begin(), i->end());
      return true;
    }
    if (auto* d = std::get_if<std::vector<double>>(&v)) return *out = *d, true;
    return false;
  };
  double x, y;
  if (num(a, &x) && num(b, &y)) return x == y;
  std::vector<double> xs, ys;
  if (nums(a, &xs) && nums(b, &ys)) return xs == ys;
  auto text = [](const AttrValue& v) -> std::optional<std::string> {
    if (auto* s = std::get_if<std::string>(&v)) return *s;
    if (auto* d = std::get_if<DataType>(&v)) return d->to_string();
    return std::nullopt;
  };
  if (text(a) && text(b)) return *text(a) == *text(b);
  if (a.index() != b.index()) return false;
  if (auto* p = std::get_if<bool>(&a)) return *p == std::get<bool>(b);
  if (auto* p = std::get_if<std::vector<std::string>>(&a))
    return *p == std::get<std::vector<std::string>>(b);
  return std::holds_alternative<std::monostate>(a);
}

/// The value of attribute `name` of `call`, its default when omitted, or null.
const AttrValue* call_attr(const Call& call, const std::string& name) {
  if (call.attrs.defined())
    if (const AttrValue* v = call.attrs->find(name)) return v;
  if (auto* op = call.op.as<Op>())
    for (const AttrSpec& s : op->info->attrs)
      if (s.name == name) return &s.default_value;
  return nullptr;
}

bool check_predicate(const PatternPredicate& p, const Expr& e, const Call* call) {
  const auto* t = e->struct_info.defined() ? e->struct_info.as<TensorStructInfo>() : nullptr;
  switch (p.kind) {
    case PatternPredicate::Kind::kAttr: {
      const AttrValue* v = call ? call_attr(*call, p.name) : nullptr;
      return v && attr_equal(*v, p.value);
    }
    case PatternPredicate::Kind::kDType:
      return t && t->dtype == p.dtype;
    case PatternPredicate::Kind::kRank:
      return t && t->ndim == p.ndim;
    case PatternPredicate::Kind::kShape: {
      if (!t || !t->shape || t->shape->size() != p.shape.size()) return false;
      for (size_t i = 0; i < p.shape.size(); ++i) {
        if (p.shape[i] < 0) continue;
        auto* imm = (*t->shape)[i].as<tir::IntImm>();
        if (!imm || imm->value != p.shape[i]) return false;
      }
      return true;
    }
    case PatternPredicate::Kind::kCustom:
      return p.fn(e);
  }
  return false;
}

class Matcher {
 public:
  explicit Matcher(const VarResolver& resolve) : resolve_(resolve) {}

  bool match(const Pattern& p, const Expr& e, PatternMatch* m) {
    switch (p->kind) {
      case PatternNode::Kind::kWildcard:
      case PatternNode::Kind::kVar:
      case PatternNode::Kind::kConst: {
        if (p->kind == PatternNode::Kind::kVar && !e.is<VarNode>()) return false;
        if (p->kind == PatternNode::Kind::kConst && !e.is<Constant>()) return false;
        if (!check_all(p, e, nullptr)) return false;
        if (!p->name.empty()) {
          auto it = m->named.find(p->name);
          if (it != m->named.end() && !it->second.same_as(e)) return false;
          m->named.emplace(p->name, e);
        }
        if (std::none_of(m->inputs.begin(), m->inputs.end(),
                         [&](const Expr& x) { return x.same_as(e); }))
          m->inputs.push_back(e);
        return true;
      }
      case PatternNode::Kind::kOp: {
        auto* op = e.as<Op>();
        return op && glob_match(p->name, op->name) && check_all(p, e, nullptr);
      }
      case PatternNode::Kind::kOr: {
        for (const Pattern& alt : p->args) {
          PatternMatch trial = *m;
          if (match(alt, e, &trial) && check_all(p, e, resolve_call(e))) {
            *m = std::move(trial);
            return true;
          }
        }
        return false;
      }
      case PatternNode::Kind::kCall: {
        Expr value = e;
        Ref<VarNode> through;
        if (auto* v = e.as<VarNode>()) {
          value = resolve_ ? resolve_(v) : Expr();
          if (!value.defined()) return false;
          through = Ref<VarNode>(v);
        }
        const Call* call = value.as<Call>();
        if (!call) return false;
        const PatternNode& op = *p->args[0].get();
        auto* callee = call->op.as<Op>();
        if (!callee || !glob_match(op.name, callee->name)) return false;
        if (call->args.size() + 1 != p->args.size()) return false;
        if (!check_all(p->args[0], e, call) || !check_all(p, e, call)) return false;
        PatternMatch start = *m;
        if (through.defined() &&
            std::none_of(start.intermediates.begin(), start.intermediates.end(),
                         [&](const Ref<VarNode>& x) { return x.same_as(through); }))
          start.intermediates.push_back(through);
        for (bool swapped : {false, true}) {
          if (swapped && !(call->args.size() == 2 && is_commutative(callee->name))) break;
          PatternMatch trial = start;
          if (match_args(p, call->args, swapped, &trial)) {
            *m = std::move(trial);
            return true;
          }
        }
        return false;
      }
    }
    return false;
  }

 private:
  bool match_args(const Pattern& p, const std::vector<Expr>& args, bool swapped, PatternMatch* m) {
    for (size_t i = 0; i < args.size(); ++i) {
      size_t k = swapped ? args.size() - 1 - i : i;
      if (!match(p->args[i + 1], args[k], m)) return false;
    }
    return true;
  }

  bool check_all(const Pattern& p, const Expr& e, const Call* call) {
    for (const PatternPredicate& pred : p->predicates)
      if (!check_predicate(pred, e, call)) return false;
    return true;
  }

  /// The call `e` is or is bound to, or null.
  const Call* resolve_call(const Expr& e) const {
    if (auto* c = e.as<Call>()) return c;
    auto* v = e.as<VarNode>();
    Expr value = v && resolve_ ? resolve_(v) : Expr();
    return value.defined() ? value.as<Call>() : nullptr;
  }

  const VarResolver& resolve_;
};

}  // namespace

Pattern Pattern::call(std::vector<Pattern> args) const {
  RX_CHECK(defined() && node_->kind == PatternNode::Kind::kOp && node_->predicates.empty())
      << "only an op pattern (is_op) can be called with arguments";
  for (const Pattern& a : args)
    RX_CHECK(a.defined()) << "an argument pattern of '" << node_->name << "' is undefined";
  args.insert(args.begin(), *this);
  return make_pattern(PatternNode::Kind::kCall, "", std::move(args));
}

Pattern Pattern::has_attr(const std::string& name, AttrValue value) const {
  RX_CHECK(defined() && node_->kind == PatternNode::Kind::kCall)
      << "has_attr(\"" << name << "\") applies to a call pattern (is_op(...)(args...))";
  PatternPredicate p;
  p.kind = PatternPredicate::Kind::kAttr;
  p.name = name;
  p.value = std::move(value);
  return with_predicate(*this, std::move(p));
}

Pattern Pattern::has_dtype(DataType dtype) const {
  PatternPredicate p;
  p.kind = PatternPredicate::Kind::kDType;
  p.dtype = dtype;
  return with_predicate(*this, std::move(p));
}

Pattern Pattern::has_rank(int ndim) const {
  PatternPredicate p;
  p.kind = PatternPredicate::Kind::kRank;
  p.ndim = ndim;
  return with_predicate(*this, std::move(p));
}

Pattern Pattern::has_shape(std::vector<int64_t> shape) const {
  PatternPredicate p;
  p.kind = PatternPredicate::Kind::kShape;
  p.shape = std::move(shape);
  return with_predicate(*this, std::move(p));
}

Pattern Pattern::where(std::function<bool(const Expr&)> pred, std::string description) const {
  PatternPredicate p;
  p.kind = PatternPredicate::Kind::kCustom;
  p.name = std::move(description);
  p.fn = std::move(pred);
  return with_predicate(*this, std::move(p));
}

Pattern wildcard(std::string name) {
  return make_pattern(PatternNode::Kind::kWildcard, std::move(name));
}
Pattern is_var(std::string name) { return make_pattern(PatternNode::Kind::kVar, std::move(name)); }
Pattern is_const(std::string name) {
  return make_pattern(PatternNode::Kind::kConst, std::move(name));
}
Pattern is_op(std::string name) {
  RX_CHECK(!name.empty()) << "is_op needs an op name";
  return make_pattern(PatternNode::Kind::kOp, std::move(name));
}

Pattern operator|(const Pattern& a, const Pattern& b) {
  RX_CHECK(a.defined() && b.defined()) << "an alternative of '|' is undefined";
  std::vector<Pattern> alts;
  for (const Pattern& p : {a, b}) {
    if (p->kind == PatternNode::Kind::kOr && p->predicates.empty())
      alts.insert(alts.end(), p->args.begin(), p->args.end());
    else
      alts.push_back(p);
  }
  return make_pattern(PatternNode::Kind::kOr, "", std::move(alts));
}

Pattern operator>>(const Pattern& producer, const Pattern& op) {
  RX_CHECK(op.defined() && op->kind == PatternNode::Kind::kOp)
      << "the right side of '>>' is an op pattern (is_op(name)) without arguments";
  const OpInfo* info = OpRegistry::global().find(op->name);
  RX_CHECK(info && !info->variadic && !info->arg_names.empty())
      << "'>> is_op(\"" << op->name << "\")' needs a registered op with a fixed argument count";
  std::vector<Pattern> args{producer};
  for (size_t i = 1; i < info->arg_names.size(); ++i) args.push_back(wildcard());
  return op.call(std::move(args));
}

std::optional<PatternMatch> match(const Pattern& pattern, const Expr& expr,
                                  const VarResolver& resolve) {
  RX_ICHECK(pattern.defined() && expr.defined()) << "match of an undefined pattern or expression";
  PatternMatch m;
  Matcher matcher(resolve);
  if (!matcher.match(pattern, expr, &m)) return std::nullopt;
  return m;
}

}  // namespace relax::fusion
