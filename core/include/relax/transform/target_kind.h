// Targets and target kinds: what kernels are compiled for, and the registered schema of each
// kind of target (issue 17, "targets are registered objects").
//
// A target is written as a kind and attributes:
//   Target t = Target::parse("llvm,mcpu=skylake-avx512,opt-level=2");
//   t.kind == "llvm"; t.attr("mcpu") == "skylake-avx512"; t.attr_string() == "mcpu=...,opt-level=2"
// A target kind is registered once per session (transform::PassRegistry::target_kinds()): the
// core registers "tir-interp" (relax/target/targets.h), a backend plugin registers its kinds
// through PluginRegistrar::add_target_kind. The kind declares its DLPack device, whether it is a
// GPU, the packed function that builds its kernel library, which of the core's default schedule
// rules apply, and the schema of its attributes (name, type, default, help), which
// validate_target() checks every target against before anything is compiled for it.
//
// Attribute values are text; their spelling by type:
//   int          a decimal int64: "1024", "-1"
//   bool         0, 1, true or false; validation normalises it to 0 or 1. A bare key ("jit")
//                parses as key=1.
//   string       any text without ','
//   int list     ints separated by 'x': "2147483647x65535x65535" (x, y, z for grid limits)
//   string list  strings separated by ':': "float32:float16"
// The YAML map form of a pipeline's target writes a list as a sequence
// ([2147483647, 65535, 65535]); it is joined into this spelling.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace relax {

/// A target as written: its kind and its attributes in the order given.
struct Target {
  std::string kind;
  std::vector<std::pair<std::string, std::string>> attrs;

  /// Parses "kind[,key=value]*"; a bare key means "key=1". Throws relax::Error on an empty
  /// kind, an empty key or a repeated key, naming the text.
  static Target parse(std::string_view text);
  /// The attributes as "key=value,key=value" (empty when none).
  std::string attr_string() const;
  /// "kind[,attrs]": parse(str()) == *this.
  std::string str() const;
  std::optional<std::string> attr(std::string_view key) const;
  friend bool operator==(const Target&, const Target&) = default;
};

}  // namespace relax

namespace relax::transform {

/// The type of a target attribute (spellings: see the file comment).
enum class TargetAttrType { kInt, kBool, kString, kIntList, kStringList };
/// "int", "bool", "string", "int list", "string list".
const char* to_string(TargetAttrType t);

/// One declared attribute of a target kind.
struct TargetAttrSpec {
  std::string name;  ///< kebab-case, unique in its kind
  TargetAttrType type = TargetAttrType::kString;
  std::string default_value;  ///< text form; empty: no default (absent unless given)
  std::string help;
};

/// DLPack device types (dlpack.h) a target kind names.
inline constexpr int kDeviceCPU = 1;
inline constexpr int kDeviceOpenCL = 4;
inline constexpr int kDeviceVulkan = 7;
inline constexpr int kDeviceExtDev = 12;
/// "cpu", "opencl", "vulkan", "ext_dev", or "device N".
std::string device_type_name(int device_type);

/// A registered kind of target.
struct TargetKind {
  std::string name;              ///< "llvm", "tir-interp", "vulkan"
  int device_type = kDeviceCPU;  ///< DLPack device type of the kernels it builds
  std::string device_name;       ///< "cpu", "vulkan", ...
  bool gpu = false;              ///< its kernels run on a GPU (see also is_gpu())
  std::vector<TargetAttrSpec> attrs;
  std::string help;  ///< one line
  /// The packed function building its kernel library ("relax.backend.llvm.build"):
  ///   (attrs: str, name0: str, func0: PrimFunc, ...) -> Tuple(format: str, bytes: str)
  /// with the validated attribute string. Empty for a kind the core builds itself (tir-interp).
  std::string build_function;
  /// Which of the core's default schedule rules apply before its build: "cpu", "gpu" or "none"
  /// (the backend schedules, or nothing is scheduled).
  std::string schedule_rules = "none";
  std::string plugin;  ///< the plugin that registered it; empty for the core

  /// The attribute named `name`, or null.
  const TargetAttrSpec* find_attr(std::string_view name) const;
  /// The attribute names in declaration order.
  std::vector<std::string> attr_names() const;
};

/// The target kinds of a session, by name. Fill it from one thread (start-up, plugin loading);
/// lookups from many threads are then safe.
class TargetKindRegistry {
 public:
  /// Adds a kind; throws relax::Error when the name is taken (naming both registrants) and an
  /// internal error when the declaration is bad (empty name, duplicate or empty attribute
  /// name, a default that does not parse as its type, schedule_rules not cpu/gpu/none).
  void add(TargetKind kind);
  /// Removes a kind (undoing a failed plugin registration); false when absent.
  bool remove(const std::string& name);
  /// The kind named `name`, or null. The pointer stays valid until that kind is removed.
  const TargetKind* find(std::string_view name) const;
  /// Every kind, sorted by name.
  std::vector<const TargetKind*> kinds() const;
  /// Every name, sorted.
  std::vector<std::string> names() const;

 private:
  std::vector<std::unique_ptr<TargetKind>> kinds_;  // sorted by name
};

/// Whether `text` spells a value of `type`; the normalised spelling (bools as 0/1), or
/// std::nullopt when it does not.
std::optional<std::string> normalize_target_attr(TargetAttrType type, std::string_view text);
/// An int attribute's value; nullopt unless `text` is a decimal int64.
std::optional<int64_t> parse_target_int(std::string_view text);
/// An int list attribute's value ("1024x1024x64"); nullopt unless every item is an int.
std::optional<std::vector<int64_t>> parse_target_int_list(std::string_view text);

/// `t` checked against `kind`'s schema: every attribute known and of its type (bools normalised
/// to 0/1), the defaults filled in, the attributes in declaration order. Throws relax::Error
/// for an unknown attribute (listing the valid ones) or a badly typed value (naming the
/// attribute, the value and the type expected), and internally when t.kind != kind.name.
Target validate_target(const Target& t, const TargetKind& kind);

/// Whether `t` compiles for a GPU: kind.gpu, or the attribute gpu=1 where the kind declares a
/// `gpu` attribute (tir-interp,gpu=1 runs the GPU path in the interpreter).
bool is_gpu(const Target& t, const TargetKind& kind);

}  // namespace relax::transform
