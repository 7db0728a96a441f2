#include "relax/ir/op.h"

#include <algorithm>

#include "relax/support/diagnostic.h"

namespace relax {

const char* op_pattern_name(OpPattern p) {
  switch (p) {
    case OpPattern::kElemWise: return "elemwise";
    case OpPattern::kBroadcast: return "broadcast";
    case OpPattern::kInjective: return "injective";
    case OpPattern::kCommReduce: return "reduction";
    case OpPattern::kOutEWiseFusable: return "out-elemwise-fusable";
    case OpPattern::kTuple: return "tuple";
    case OpPattern::kOpaque: return "opaque";
  }
  return "unknown";
}

const char* attr_kind_name(AttrSpec::Kind kind) {
  switch (kind) {
    case AttrSpec::Kind::kBool: return "a bool";
    case AttrSpec::Kind::kInt: return "an integer";
    case AttrSpec::Kind::kFloat: return "a float";
    case AttrSpec::Kind::kString: return "a string";
    case AttrSpec::Kind::kDType: return "a dtype";
    case AttrSpec::Kind::kInts: return "a list of integers";
    case AttrSpec::Kind::kFloats: return "a list of floats";
    case AttrSpec::Kind::kStrings: return "a list of strings";
    case AttrSpec::Kind::kPrimExprs: return "a list of PrimExprs";
    case AttrSpec::Kind::kObject: return "an object";
  }
  return "a value";
}

bool attr_value_fits(AttrSpec::Kind kind, const AttrValue& v) {
  switch (kind) {
    case AttrSpec::Kind::kBool: return std::holds_alternative<bool>(v) || std::holds_alternative<int64_t>(v);
    case AttrSpec::Kind::kInt: return std::holds_alternative<int64_t>(v) || std::holds_alternative<bool>(v);
    case AttrSpec::Kind::kFloat: return std::holds_alternative<double>(v) || std::holds_alternative<int64_t>(v);
    case AttrSpec::Kind::kString: return std::holds_alternative<std::string>(v);
    case AttrSpec::Kind::kDType:
      return std::holds_alternative<DataType>(v) ||
             (std::holds_alternative<std::string>(v) && DataType::parse(std::get<std::string>(v)).has_value());
    case AttrSpec::Kind::kInts:
      return std::holds_alternative<std::vector<int64_t>>(v) || std::holds_alternative<int64_t>(v);
    case AttrSpec::Kind::kFloats: return std::holds_alternative<std::vector<double>>(v);
    case AttrSpec::Kind::kStrings: return std::holds_alternative<std::vector<std::string>>(v);
    case AttrSpec::Kind::kPrimExprs:
      return std::holds_alternative<std::vector<tir::PrimExpr>>(v) || std::holds_alternative<std::vector<int64_t>>(v);
    case AttrSpec::Kind::kObject: return std::holds_alternative<Ref<Object>>(v);
  }
  return false;
}

void OpInfo::check_call(const Call& call) const {
  size_t n = call.args.size();
  size_t fixed = variadic ? arg_names.size() - 1 : arg_names.size();
  if (variadic) {
    RX_CHECK(n >= fixed) << name << " takes at least " << fixed << " argument(s), got " << n;
  } else {
    RX_CHECK(n == fixed) << name << " takes " << fixed << " argument(s), got " << n;
  }
  if (call.attrs.defined()) {
    for (const auto& [key, value] : call.attrs->fields) {
      auto spec = std::find_if(attrs.begin(), attrs.end(), [&k = key](const AttrSpec& s) { return s.name == k; });
      if (spec == attrs.end()) {
        std::string valid;
        for (const auto& s : attrs) valid += (valid.empty() ? "" : ", ") + s.name;
        RX_THROW() << name << " has no attribute '" << key << "'; "
                   << (valid.empty() ? "it takes none" : "valid attributes: " + valid);
      }
      if (std::holds_alternative<std::monostate>(value)) {
        RX_CHECK(spec->optional) << name << ": attribute '" << key << "' cannot be None";
        continue;
      }
      RX_CHECK(attr_value_fits(spec->kind, value)) << name << ": attribute '" << key << "' should be "
                                              << attr_kind_name(spec->kind) << ", got " << to_string(value);
    }
  }
  for (const auto& s : attrs) {
    if (!s.optional && std::holds_alternative<std::monostate>(s.default_value)) {
      RX_CHECK(call.attrs.defined() && call.attrs->has(s.name))
          << name << ": attribute '" << s.name << "' is required (" << attr_kind_name(s.kind) << ")";
    }
  }
}

OpRegistry& OpRegistry::global() {
  static OpRegistry* registry = [] {
    auto* r = new OpRegistry();
    register_core_ops(*r);
    return r;
  }();
  return *registry;
}

OpInfo& OpRegistry::register_op(const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  RX_ICHECK(!ops_.count(name)) << "op '" << name << "' is registered twice";
  auto info = std::make_unique<OpInfo>();
  info->name = name;
  info->op = make_ref<Op>(name, info.get());
  OpInfo& ref = *info;
  ops_.emplace(name, std::move(info));
  return ref;
}

OpInfo* OpRegistry::find(std::string_view name) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = ops_.find(std::string(name));
  return it == ops_.end() ? nullptr : it->second.get();
}

std::vector<std::string> OpRegistry::names() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> out;
  for (const auto& [name, info] : ops_) out.push_back(name);
  std::sort(out.begin(), out.end());
  return out;
}

namespace {
/// Edit distance, for "did you mean" suggestions.
size_t distance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}
}  // namespace

const Ref<Op>& get_op(std::string_view name) {
  OpRegistry& reg = OpRegistry::global();
  if (OpInfo* info = reg.find(name)) return info->op;
  std::string best;
  size_t best_d = 4;
  for (const auto& n : reg.names()) {
    size_t d = distance(n, name);
    if (d < best_d) best_d = d, best = n;
  }
  RX_THROW() << "unknown op '" << name << "'" << (best.empty() ? "" : "; did you mean '" + best + "'?");
}

Expr call_op(std::string_view name, std::vector<Expr> args, Attrs attrs, std::vector<StructInfo> sinfo_args) {
  return make_ref<Call>(get_op(name), std::move(args), std::move(attrs), std::move(sinfo_args));
}

}  // namespace relax
