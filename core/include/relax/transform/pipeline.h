// Pipelines: a list of passes with options, the plugins they need, the target and the
// instruments to run with (DESIGN.md §5).
//
// Two spellings of the same object:
//   one line   normalize,fuse-ops{max-depth=8},fuse-tir
//   YAML       plugins: [fusion]
//              target: llvm          (or a map: {kind: llvm, mcpu: skylake})
//              host: llvm            (the host of a GPU target)
//              passes:
//                - normalize
//                - fuse-ops: {max-depth: 8}
//                - fuse-tir
//              instruments: {time-passes: true, verify-each: true, dump-ir-after: [fuse-ops]}
// The one-line form holds only the passes. Parsing either against a PassRegistry validates
// every name and option and fills in the defaults, so YAML -> Pipeline -> one line -> Pipeline
// gives back the same passes. Errors are relax::Errors at the YAML line (or the column of the
// line) that list the valid choices.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "relax/transform/pass_context.h"

namespace relax::transform {

class PluginManager;

/// One pass of a pipeline: a name and its options (after validation: every option, in
/// declaration order).
struct PassSpec {
  std::string name;
  /// Before resolve_pass_spec, values written in text are strings to be parsed by type.
  std::vector<std::pair<std::string, OptionValue>> options;
  SourceSpan span;                       ///< where it was written; not compared
  std::vector<SourceSpan> option_spans;  ///< per option, when known; not compared

  bool operator==(const PassSpec& o) const { return name == o.name && options == o.options; }
  /// "name" or "name{a=1,b=x}".
  std::string to_string() const;
};

/// The instruments a pipeline file asks for.
struct InstrumentSpec {
  bool time_passes = false;
  std::optional<bool> verify_each;  ///< unset: the build's default
  std::vector<std::string> dump_ir_before;
  std::vector<std::string> dump_ir_after;
  std::string dump_dir;  ///< empty: dumps go to stderr
  bool operator==(const InstrumentSpec&) const = default;
};

struct Pipeline {
  std::vector<std::string> plugins;  ///< short names or paths
  /// The kernel target, "kind[,key=value]*" (target_kind.h); empty: none given.
  std::string target;
  /// The host target of a GPU target; empty: none given.
  std::string host;
  std::vector<PassSpec> passes;
  InstrumentSpec instruments;

  bool operator==(const Pipeline& o) const {
    return plugins == o.plugins && target == o.target && host == o.host && passes == o.passes &&
           instruments == o.instruments;
  }
  /// The one-line form of the passes.
  std::string to_line() const;
  /// The YAML form (every field written, every option of every pass).
  std::string to_yaml() const;
  /// Pass instances for a registry; throws relax::Error as the parsers do.
  std::vector<Pass> build(const PassRegistry& registry) const;
};

/// Splits a one-line pipeline into specs without validating names (syntax errors only).
std::vector<PassSpec> parse_pipeline_line_syntax(const std::string& line);
/// Parses and validates a one-line pipeline; options are filled with their defaults.
Pipeline parse_pipeline_line(const std::string& line, const PassRegistry& registry);

/// Parses a YAML pipeline. `plugins`, when given, loads the plugins the file names before its
/// passes are validated (a plugin that cannot be loaded is an error at its line).
/// `file` names the source in messages.
Pipeline parse_pipeline_yaml(const std::string& text, const std::string& file,
                             PassRegistry& registry, PluginManager* plugins = nullptr);
/// Reads and parses a YAML pipeline file.
Pipeline load_pipeline_file(const std::string& path, PassRegistry& registry,
                            PluginManager* plugins = nullptr);

/// Validates `spec` against the registry and fills its defaults; throws relax::Error at
/// `spec.span` for an unknown pass or option or a wrongly typed value.
PassSpec resolve_pass_spec(const PassSpec& spec, const PassRegistry& registry);

}  // namespace relax::transform
