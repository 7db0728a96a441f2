// Attributes of calls, functions and modules: an ordered list of named values.
//
// Each op declares the attributes it takes (name, kind, default) in its registry entry
// (ir/op.h), so the parser and the builder validate them; inference reads them through the
// typed getters below. Attribute order is the declaration order and is what the printer writes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "relax/support/dtype.h"
#include "relax/support/kinds.h"
#include "relax/support/object.h"
#include "relax/tir/expr.h"

namespace relax {

/// One attribute value.
using AttrValue = std::variant<std::monostate, bool, int64_t, double, std::string, DataType,
                               std::vector<int64_t>, std::vector<double>, std::vector<std::string>,
                               std::vector<tir::PrimExpr>, Ref<Object>>;

/// A short readable rendering of an attribute value (for messages and the printer).
std::string to_string(const AttrValue& value);

/// Named attribute values, in order. Immutable; `with` returns a modified copy.
struct AttrsNode : Object {
  static constexpr uint32_t kKind = kMiscKindBase + 1;
  const std::vector<std::pair<std::string, AttrValue>> fields;

  explicit AttrsNode(std::vector<std::pair<std::string, AttrValue>> fields)
      : Object(kKind), fields(std::move(fields)) {}

  /// The value named `key`, or null.
  const AttrValue* find(std::string_view key) const;
  bool has(std::string_view key) const { return find(key) != nullptr; }
};
using Attrs = Ref<AttrsNode>;

/// Builds attributes from name/value pairs.
Attrs make_attrs(std::vector<std::pair<std::string, AttrValue>> fields);
/// `attrs` with `key` set to `value` (added at the end when absent). `attrs` may be null.
Attrs with_attr(const Attrs& attrs, const std::string& key, AttrValue value);

// Typed getters. Each throws relax::Error naming the key and the expected kind when the value
// is present with another kind; the default is returned when `attrs` is null or lacks `key`.
int64_t get_int(const Attrs& attrs, std::string_view key, int64_t dflt);
double get_float(const Attrs& attrs, std::string_view key, double dflt);
bool get_bool(const Attrs& attrs, std::string_view key, bool dflt);
std::string get_string(const Attrs& attrs, std::string_view key, const std::string& dflt);
DataType get_dtype(const Attrs& attrs, std::string_view key, DataType dflt);
std::vector<int64_t> get_ints(const Attrs& attrs, std::string_view key, const std::vector<int64_t>& dflt);
/// An integer list that may also be absent (std::nullopt), e.g. an optional `axis` list.
std::optional<std::vector<int64_t>> get_opt_ints(const Attrs& attrs, std::string_view key);
std::vector<tir::PrimExpr> get_prim_exprs(const Attrs& attrs, std::string_view key);

}  // namespace relax
