// Targets: what kernels are compiled for, written as a kind and attributes.
//
//   Target t = Target::parse("llvm,mcpu=skylake-avx512,opt-level=2");
//   t.kind == "llvm"; t.attr("mcpu") == "skylake-avx512"; t.attr_string() == "mcpu=...,opt-level=2"
//
// The kind names a backend. "tir-interp" is core's (kernels run by the TIR reference
// interpreter); every other kind is provided by a backend plugin librelax-<kind>.so, which
// registers the global packed function `relax.backend.<kind>.build`:
//   (attrs: str, name0: str, func0: PrimFunc, name1, func1, ...) -> Tuple(format: str, bytes: str)
// It receives the module's PrimFuncs unscheduled and unlowered (it applies its own default
// schedules, lowers and compiles them) and returns one kernel library. The attributes are the
// backend's own ("mcpu", "jit", ...): core passes them through unread.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace relax {

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

/// The packed function a backend of `kind` registers to build kernel libraries.
std::string backend_build_function(std::string_view kind);

}  // namespace relax
