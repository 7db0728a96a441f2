// Structural equality: the equality reducer over the shared walk (structural_equal_impl.h),
// the report of the first difference, and the public entry points of structural_equal.h.
//
// Variables are mapped in both directions, so a mapping is one to one: once n stands for m,
// neither n nor m can stand for anything else. The mapping is never undone when a scope
// ends; well-formed IR defines every variable once, so that is never observable.

#include "relax/ir/structural_equal.h"

#include <cmath>
#include <cstring>
#include <sstream>
#include <unordered_map>

#include "structural_equal_impl.h"

namespace relax {
namespace sequal {

namespace {

constexpr size_t kMaxRender = 160;

std::string clip(std::string s) {
  if (s.size() > kMaxRender) s = s.substr(0, kMaxRender - 3) + "...";
  return s;
}

std::string quote(std::string_view s) { return "\"" + std::string(s) + "\""; }

std::string render_expr(const ExprNode* e) {
  switch (ExprKind(e->kind())) {
    case ExprKind::kConstant:
      return "constant " + to_string(e->struct_info);
    case ExprKind::kShapeExpr: {
      std::string out = "R.shape([";
      const auto& values = static_cast<const ShapeExpr*>(e)->values;
      for (size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + tir::to_string(values[i]);
      return out + "])";
    }
    case ExprKind::kPrimValue:
      return "R.prim_value(" + tir::to_string(static_cast<const PrimValue*>(e)->value) + ")";
    case ExprKind::kStringImm:
      return quote(static_cast<const StringImm*>(e)->value);
    case ExprKind::kDataTypeImm:
      return "dtype " + static_cast<const DataTypeImm*>(e)->value.to_string();
    case ExprKind::kTupleGetItem: {
      auto* t = static_cast<const TupleGetItem*>(e);
      return render(t->tuple.get()) + "[" + std::to_string(t->index) + "]";
    }
    case ExprKind::kTuple: {
      std::string out = "(";
      const auto& fields = static_cast<const Tuple*>(e)->fields;
      for (size_t i = 0; i < fields.size(); ++i) out += (i ? ", " : "") + render(fields[i].get());
      return out + (fields.size() == 1 ? ",)" : ")");
    }
    case ExprKind::kCall: {
      auto* c = static_cast<const Call*>(e);
      std::string out = render(c->op.get()) + "(";
      for (size_t i = 0; i < c->args.size(); ++i) out += (i ? ", " : "") + render(c->args[i].get());
      return out + ")";
    }
    case ExprKind::kPrimFunc:
      return render_tir(e);
    default:
      return describe(Expr(e));
  }
}

}  // namespace

std::string render(const Object* obj) {
  if (obj == nullptr) return "(null)";
  uint32_t k = obj->kind();
  std::string out;
  if (is_instance<ExprNode>(obj)) {
    out = render_expr(static_cast<const ExprNode*>(obj));
  } else if (is_instance<StructInfoNode>(obj)) {
    out = to_string(StructInfo(static_cast<const StructInfoNode*>(obj)));
  } else if (is_instance<tir::PrimExprNode>(obj)) {
    out = tir::to_string(PrimExpr(static_cast<const tir::PrimExprNode*>(obj)));
  } else if (auto* mc =
                 is_instance<MatchCast>(obj) ? static_cast<const MatchCast*>(obj) : nullptr) {
    out = render(mc->var.get()) + " = R.match_cast(" + render(mc->value.get()) + ", " +
          to_string(mc->struct_info) + ")";
  } else if (is_instance<BindingNode>(obj)) {
    auto* b = static_cast<const BindingNode*>(obj);
    out = render(b->var.get()) + " = " + render(b->value.get());
  } else if (is_instance<BlockNode>(obj)) {
    auto* b = static_cast<const BlockNode*>(obj);
    out = std::string(relax_kind_name(k)) + " with " + std::to_string(b->bindings.size()) +
          " bindings";
  } else if (k == AttrsNode::kKind) {
    out = "{";
    const auto& fields = static_cast<const AttrsNode*>(obj)->fields;
    for (size_t i = 0; i < fields.size(); ++i)
      out += (i ? ", " : "") + fields[i].first + ": " + to_string(fields[i].second);
    out += "}";
  } else {
    out = render_tir(obj);
  }
  return clip(std::move(out));
}

std::string render_item(int64_t v) { return std::to_string(v); }
std::string render_item(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}
std::string render_item(const std::string& v) { return quote(v); }

namespace {

/// Compares two trees; with `record`, keeps the path and renderings of the first difference.
class EqualReducer final : public Reducer {
 public:
  EqualReducer(bool map_free_vars, bool record, std::string root = {})
      : Reducer(map_free_vars), record_(record), root_(std::move(root)) {}

  void push(std::string_view field, int64_t index) override {
    if (record_) path_.push_back({field, index});
  }
  void pop() override {
    if (record_) path_.pop_back();
  }

  bool leaf(int64_t a, int64_t b) override {
    return a == b || report(render_item(a), render_item(b));
  }
  bool leaf(double a, double b) override {
    if (std::isnan(a) && std::isnan(b)) return true;
    if (std::memcmp(&a, &b, sizeof(double)) == 0) return true;
    return report(render_item(a), render_item(b));
  }
  bool leaf(std::string_view a, std::string_view b) override {
    return a == b || report(quote(a), quote(b));
  }
  bool leaf(DataType a, DataType b) override {
    return a == b || report(a.to_string(), b.to_string());
  }
  bool named(std::string_view a, std::string_view b, const Object* na, const Object* nb) override {
    return a == b || fail(na, nb, {});
  }
  bool bytes(const void* a, size_t na, const void* b, size_t nb, size_t elem_size) override {
    if (na != nb)
      return report(std::to_string(na) + " bytes", std::to_string(nb) + " bytes",
                    "different sizes");
    if (a == b || std::memcmp(a, b, na) == 0) return true;
    auto* pa = static_cast<const unsigned char*>(a);
    auto* pb = static_cast<const unsigned char*>(b);
    size_t at = 0;
    while (pa[at] == pb[at]) ++at;
    size_t elem = at / elem_size;
    return report("element " + std::to_string(elem), "element " + std::to_string(elem),
                  "contents differ first at element " + std::to_string(elem) + " (flat index)");
  }

  bool fail(const Object* a, const Object* b, std::string reason) override {
    if (!record_) return report({}, {});
    return report(render(a), render(b), std::move(reason));
  }
  bool fail_text(std::string lhs, std::string rhs, std::string reason) override {
    return report(std::move(lhs), std::move(rhs), std::move(reason));
  }

  VarState lookup(const Object* a, const Object* b) override {
    if (auto it = l2r_.find(a); it != l2r_.end()) {
      if (it->second == b) return VarState::kBound;
      report_conflict(
          a, b, render(a) + " already corresponds to " + render(it->second) + " on the right");
      return VarState::kConflict;
    }
    if (auto it = r2l_.find(b); it != r2l_.end()) {
      report_conflict(a, b,
                      render(b) + " on the right already corresponds to " + render(it->second));
      return VarState::kConflict;
    }
    return VarState::kUnbound;
  }
  bool bind(const Object* a, const Object* b) override {
    l2r_.emplace(a, b);
    r2l_.emplace(b, a);
    return true;
  }
  bool free_var(const Object* a, const Object* b) override {
    return a == b || fail(a, b, "different free variables (free variables are not mapped)");
  }

  const StructuralEqualResult& result() const { return result_; }
  /// Reports a difference found outside the walk (a missing module function).
  bool report(std::string lhs, std::string rhs, std::string reason = {}) {
    if (!result_.equal) return false;
    result_.equal = false;
    if (!record_) return false;
    result_.path = render_path();
    result_.lhs = clip(std::move(lhs));
    result_.rhs = clip(std::move(rhs));
    result_.reason = std::move(reason);
    return false;
  }

 private:
  struct Step {
    std::string_view field;
    int64_t index;
  };

  void report_conflict(const Object* a, const Object* b, std::string reason) {
    if (!record_) {
      report({}, {});
    } else {
      report(render(a), render(b), std::move(reason));
    }
  }

  std::string render_path() const {
    std::string out = root_;
    for (const Step& s : path_) {
      if (!s.field.empty()) {
        if (!out.empty()) out += '.';
        out += s.field;
      }
      if (s.index >= 0) out += "[" + std::to_string(s.index) + "]";
    }
    return out.empty() ? "<root>" : out;
  }

  bool record_;
  std::string root_;
  std::vector<Step> path_;
  std::unordered_map<const Object*, const Object*> l2r_;
  std::unordered_map<const Object*, const Object*> r2l_;
  StructuralEqualResult result_;
};

StructuralEqualResult compare_objects(const Ref<Object>& a, const Ref<Object>& b,
                                      bool map_free_vars, bool record) {
  if (a.same_as(b)) return {};
  EqualReducer r(map_free_vars, record);
  Walker(r).object(a.get(), b.get());
  return r.result();
}

}  // namespace

/// The module's vdevice list with every field, as compared and hashed.
std::string vdevices_text(const IRModule& mod) {
  std::string s;
  for (const VDevice& d : mod.vdevices())
    s += "I.vdevice(\"" + d.target + "\", " + std::to_string(d.device_id) + ", \"" +
         d.memory_scope + "\")";
  return s;
}

namespace {

StructuralEqualResult compare_modules(const IRModule& a, const IRModule& b, bool record) {
  for (const IRModule::Entry& ea : a.functions()) {
    const std::string& name = ea.gv->name;
    BaseFunc fb = b.find(name);
    EqualReducer r(/*map_free_vars=*/true, record, name);
    if (!fb.defined()) {
      r.report(render(ea.func.get()), "(missing)", "function only in the left module");
      return r.result();
    }
    // Each function is a scope of its own: variables never cross functions.
    if (!ea.func.same_as(fb) && !Walker(r).object(ea.func.get(), fb.get())) return r.result();
  }
  for (const IRModule::Entry& eb : b.functions()) {
    if (a.contains(eb.gv->name)) continue;
    EqualReducer r(/*map_free_vars=*/true, record, eb.gv->name);
    r.report("(missing)", render(eb.func.get()), "function only in the right module");
    return r.result();
  }
  EqualReducer r(/*map_free_vars=*/true, record, "module");
  Walker w(r);
  w.field("attrs", [&] { return w.attrs(a.attrs(), b.attrs()); }) &&
      w.field("vdevice", [&] { return r.leaf(vdevices_text(a), vdevices_text(b)); });
  return r.result();
}

}  // namespace
}  // namespace sequal

std::string StructuralEqualResult::to_string() const {
  if (equal) return "equal";
  std::string out = "at " + path + ": " + lhs + " vs " + rhs;
  if (!reason.empty()) out += " (" + reason + ")";
  return out;
}

bool structural_equal(const Ref<Object>& a, const Ref<Object>& b, bool map_free_vars) {
  return sequal::compare_objects(a, b, map_free_vars, /*record=*/false).equal;
}

bool structural_equal(const IRModule& a, const IRModule& b) {
  return sequal::compare_modules(a, b, /*record=*/false).equal;
}

StructuralEqualResult structural_compare(const Ref<Object>& a, const Ref<Object>& b,
                                         bool map_free_vars) {
  return sequal::compare_objects(a, b, map_free_vars, /*record=*/true);
}

StructuralEqualResult structural_compare(const IRModule& a, const IRModule& b) {
  return sequal::compare_modules(a, b, /*record=*/true);
}

std::optional<std::string> structural_diff(const Ref<Object>& a, const Ref<Object>& b,
                                           bool map_free_vars) {
  StructuralEqualResult r = structural_compare(a, b, map_free_vars);
  if (r.equal) return std::nullopt;
  return r.to_string();
}

std::optional<std::string> structural_diff(const IRModule& a, const IRModule& b) {
  StructuralEqualResult r = structural_compare(a, b);
  if (r.equal) return std::nullopt;
  return r.to_string();
}

void assert_structural_equal(const Ref<Object>& a, const Ref<Object>& b, bool map_free_vars) {
  StructuralEqualResult r = structural_compare(a, b, map_free_vars);
  if (!r.equal) RX_THROW() << "structurally different " << r.to_string();
}

void assert_structural_equal(const IRModule& a, const IRModule& b) {
  StructuralEqualResult r = structural_compare(a, b);
  if (!r.equal) RX_THROW() << "structurally different " << r.to_string();
}

}  // namespace relax
