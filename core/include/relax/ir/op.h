// The operator registry. Every op is registered once, with typed attributes that passes read
// directly (no string-keyed attribute maps): its arguments, its call attributes, struct-info
// inference, purity, the op-pattern kind fusion reads, and (from the op library) its
// legalisation to TIR.
//
// Registration is explicit: the core's ops are registered the first time the registry is
// used; plugins call OpRegistry::global().register_op() from their register function.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "relax/ir/expr.h"

namespace relax {

class BlockBuilder;

/// How an op's computation composes, for fusion (the TVM/Relay pattern kinds, in their order:
/// a larger kind is harder to fuse into).
enum class OpPattern : int {
  kElemWise = 0,
  kBroadcast = 1,
  kInjective = 2,
  kCommReduce = 3,
  kOutEWiseFusable = 4,
  kTuple = 7,
  kOpaque = 8,
};
const char* op_pattern_name(OpPattern p);

/// One call attribute an op accepts.
struct AttrSpec {
  enum class Kind { kBool, kInt, kFloat, kString, kDType, kInts, kFloats, kStrings, kPrimExprs, kObject };
  std::string name;
  Kind kind;
  /// Default value; std::monostate means "required" unless `optional` is set.
  AttrValue default_value;
  bool optional = false;
  std::string help;
};
const char* attr_kind_name(AttrSpec::Kind kind);
/// True when `value` is acceptable for an attribute of `kind` (what OpInfo::check_call
/// requires), so that a parser can reject a bad value where it is written.
bool attr_value_fits(AttrSpec::Kind kind, const AttrValue& value);

/// Infers the struct info of a call whose arguments are normalised. Throws relax::Error for
/// ill-typed calls, naming the op, the argument and what was expected.
using InferStructInfo = std::function<StructInfo(const Call& call, BlockBuilder& ctx)>;
/// Rewrites a call into lower-level Relax (usually a call_tir of a generated PrimFunc).
using Legalize = std::function<Expr(BlockBuilder& ctx, const Call& call)>;

/// A registry entry.
struct OpInfo {
  std::string name;
  std::string summary;
  /// Argument names; with `variadic`, the last one repeats.
  std::vector<std::string> arg_names;
  bool variadic = false;
  std::vector<AttrSpec> attrs;
  InferStructInfo infer;
  bool pure = true;
  OpPattern pattern = OpPattern::kOpaque;
  Legalize legalize;
  /// The interned op node.
  Ref<Op> op;

  /// Checks `call`'s argument count and attributes against this entry; throws relax::Error.
  void check_call(const Call& call) const;
};

class OpRegistry {
 public:
  /// The process-wide registry (core ops registered on first use).
  static OpRegistry& global();

  /// Registers a new op; an InternalError if the name is taken. The returned entry may be
  /// filled in until the first call that uses it.
  OpInfo& register_op(const std::string& name);
  /// The entry for `name`, or null.
  OpInfo* find(std::string_view name);
  /// Every registered name, sorted.
  std::vector<std::string> names() const;

 private:
  OpRegistry() = default;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::unique_ptr<OpInfo>> ops_;
};

/// The op node for `name`; throws relax::Error naming the op (and close matches) when unknown.
const Ref<Op>& get_op(std::string_view name);
/// A call of the op `name`, not yet normalised.
Expr call_op(std::string_view name, std::vector<Expr> args, Attrs attrs = {}, std::vector<StructInfo> sinfo_args = {});

/// Registers the core's ops (called once by OpRegistry::global()).
void register_core_ops(OpRegistry& registry);

}  // namespace relax
