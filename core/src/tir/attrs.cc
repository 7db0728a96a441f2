#include "relax/tir/attrs.h"

#include <sstream>

#include "relax/support/diagnostic.h"

namespace relax {

const AttrValue* AttrsNode::find(std::string_view key) const {
  for (const auto& [k, v] : fields)
    if (k == key) return &v;
  return nullptr;
}

Attrs make_attrs(std::vector<std::pair<std::string, AttrValue>> fields) {
  return make_ref<AttrsNode>(std::move(fields));
}

Attrs with_attr(const Attrs& attrs, const std::string& key, AttrValue value) {
  std::vector<std::pair<std::string, AttrValue>> fields;
  if (attrs.defined()) fields = attrs->fields;
  for (auto& [k, v] : fields) {
    if (k == key) {
      v = std::move(value);
      return make_attrs(std::move(fields));
    }
  }
  fields.emplace_back(key, std::move(value));
  return make_attrs(std::move(fields));
}

namespace {
template <class T>
void join(std::ostream& os, const std::vector<T>& xs) {
  os << "[";
  for (size_t i = 0; i < xs.size(); ++i) {
    if (i) os << ", ";
    if constexpr (std::is_same_v<T, std::string>) {
      os << '"' << xs[i] << '"';
    } else if constexpr (std::is_same_v<T, tir::PrimExpr>) {
      os << tir::to_string(xs[i]);
    } else {
      os << xs[i];
    }
  }
  os << "]";
}

const char* kind_name(const AttrValue& v) {
  static const char* names[] = {"none",   "bool",         "int",         "float",        "string", "dtype",
                                "int list", "float list", "string list", "PrimExpr list", "object"};
  return names[v.index()];
}

template <class T>
const T* typed(const Attrs& attrs, std::string_view key, const char* expected) {
  if (!attrs.defined()) return nullptr;
  const AttrValue* v = attrs->find(key);
  if (!v || std::holds_alternative<std::monostate>(*v)) return nullptr;
  const T* p = std::get_if<T>(v);
  RX_CHECK(p != nullptr) << "attribute '" << key << "' should be " << expected << ", but it is " << kind_name(*v)
                         << " (" << to_string(*v) << ")";
  return p;
}
}  // namespace

std::string to_string(const AttrValue& value) {
  std::ostringstream os;
  std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          os << "None";
        } else if constexpr (std::is_same_v<T, bool>) {
          os << (v ? "True" : "False");
        } else if constexpr (std::is_same_v<T, std::string>) {
          os << '"' << v << '"';
        } else if constexpr (std::is_same_v<T, DataType>) {
          os << '"' << v.to_string() << '"';
        } else if constexpr (std::is_same_v<T, Ref<Object>>) {
          os << "<object>";
        } else if constexpr (std::is_same_v<T, int64_t> || std::is_same_v<T, double>) {
          os << v;
        } else {
          join(os, v);
        }
      },
      value);
  return os.str();
}

int64_t get_int(const Attrs& attrs, std::string_view key, int64_t dflt) {
  if (auto* b = attrs.defined() ? attrs->find(key) : nullptr; b && std::holds_alternative<bool>(*b)) return std::get<bool>(*b);
  auto* p = typed<int64_t>(attrs, key, "an integer");
  return p ? *p : dflt;
}
double get_float(const Attrs& attrs, std::string_view key, double dflt) {
  if (auto* i = attrs.defined() ? attrs->find(key) : nullptr; i && std::holds_alternative<int64_t>(*i))
    return double(std::get<int64_t>(*i));
  auto* p = typed<double>(attrs, key, "a float");
  return p ? *p : dflt;
}
bool get_bool(const Attrs& attrs, std::string_view key, bool dflt) {
  if (auto* i = attrs.defined() ? attrs->find(key) : nullptr; i && std::holds_alternative<int64_t>(*i))
    return std::get<int64_t>(*i) != 0;
  auto* p = typed<bool>(attrs, key, "a bool");
  return p ? *p : dflt;
}
std::string get_string(const Attrs& attrs, std::string_view key, const std::string& dflt) {
  auto* p = typed<std::string>(attrs, key, "a string");
  return p ? *p : dflt;
}
DataType get_dtype(const Attrs& attrs, std::string_view key, DataType dflt) {
  if (auto* s = attrs.defined() ? attrs->find(key) : nullptr; s && std::holds_alternative<std::string>(*s)) {
    auto t = DataType::parse(std::get<std::string>(*s));
    RX_CHECK(t.has_value()) << "attribute '" << key << "': '" << std::get<std::string>(*s) << "' is not a dtype";
    return *t;
  }
  auto* p = typed<DataType>(attrs, key, "a dtype");
  return p ? *p : dflt;
}
std::vector<int64_t> get_ints(const Attrs& attrs, std::string_view key, const std::vector<int64_t>& dflt) {
  auto v = get_opt_ints(attrs, key);
  return v ? *v : dflt;
}
std::optional<std::vector<int64_t>> get_opt_ints(const Attrs& attrs, std::string_view key) {
  if (auto* s = attrs.defined() ? attrs->find(key) : nullptr; s && std::holds_alternative<int64_t>(*s))
    return std::vector<int64_t>{std::get<int64_t>(*s)};
  auto* p = typed<std::vector<int64_t>>(attrs, key, "a list of integers");
  if (!p) return std::nullopt;
  return *p;
}
std::vector<tir::PrimExpr> get_prim_exprs(const Attrs& attrs, std::string_view key) {
  if (auto* s = attrs.defined() ? attrs->find(key) : nullptr; s && std::holds_alternative<std::vector<int64_t>>(*s)) {
    std::vector<tir::PrimExpr> out;
    for (int64_t v : std::get<std::vector<int64_t>>(*s)) out.push_back(tir::int_imm(v));
    return out;
  }
  auto* p = typed<std::vector<tir::PrimExpr>>(attrs, key, "a list of PrimExprs");
  return p ? *p : std::vector<tir::PrimExpr>{};
}

}  // namespace relax
