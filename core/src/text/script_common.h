// Pieces the script printer and parser share: the literal conventions (an unsuffixed integer
// is int64, an unsuffixed float is float32), number and string spelling, the name table that
// keeps printed names unique, and the inference of a block's read/write regions (used by the
// parser when T.reads/T.writes are omitted, and by the printer to know when it may omit them).
// Internal to core/src/text.
#pragma once

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "relax/kernel/block_regions.h"
#include "relax/tir/stmt.h"

namespace relax::script {

using tir::infer_block_regions;

/// The dtype of an integer literal written without T.<dtype>(...).
inline constexpr DataType kDefaultInt = DataType::Int(64);
/// The dtype of a float literal written without T.<dtype>(...).
inline constexpr DataType kDefaultFloat = DataType::Float(32);

/// Shortest text that reads back as the same double ("1.0", "0.1", "1e-05"); nan/inf as
/// "nan", "inf", "-inf".
std::string format_float(double v);
/// As format_float, shortest for a float32 value.
std::string format_float32(float v);
/// A Python string literal with escapes: "\"a\\nb\"".
std::string quote(const std::string& s);

/// Unique, valid names for printed objects. Reserved words (R, T, I, cls, metadata, Python
/// keywords) are never handed out.
class NameTable {
 public:
  NameTable();
  /// Assigns a name to `obj` from `hint` ("x", then "x_1", ...); returns the existing one if any.
  const std::string& define(const Object* obj, const std::string& hint);
  /// The name of `obj`, or null.
  const std::string* find(const Object* obj) const;
  /// Marks a name as taken without an object (module function names, for example).
  void reserve(const std::string& name) { used_.insert(name); }
  /// Names `obj` by an exact expression (a buffer parameter's data var prints as `A.data`).
  void alias(const Object* obj, std::string text) { names_.emplace(obj, std::move(text)); }

 private:
  std::unordered_map<const Object*, std::string> names_;
  std::unordered_set<std::string> used_;
};

/// Default result dtype of intrinsic `op` applied to `args` (what `T.exp(x)` gets without dtype=).
DataType intrinsic_default_dtype(tir::Intrinsic op, const std::vector<tir::PrimExpr>& args);

}  // namespace relax::script
