// Passes and the pass registry (DESIGN.md §5).
//
// A pass is IRModule -> IRModule. Everything else about it — name, summary, granularity and
// typed options (name, type, default, help) — is declared once, in a PassInfo given at
// registration; the driver's `passes` listing, option validation, the pipeline parsers and
// plugin loading all read that one declaration.
//
// The body of a pass matches its granularity:
//   module         ModuleTransform    the whole module at once
//   function       FunctionTransform  each Relax Function, concurrently (pass_context.h)
//   dataflow-block BlockTransform     each dataflow block of each function, functions concurrently
//   prim-func      PrimFuncTransform  each TIR PrimFunc, concurrently
// Function-, block- and prim-func bodies may run on several threads at once for different
// functions: they must not share mutable state. The result does not depend on the thread count.
//
// Registration is explicit (register_core_passes(), a plugin's register function); nothing
// relies on static initialisation.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "relax/ir/module.h"
#include "relax/support/diagnostic.h"
#include "relax/ir/prim_func.h"
#include "relax/transform/target_kind.h"

namespace relax::transform {

class PassContext;

/// What a pass transforms at a time.
enum class Granularity { kModule, kFunction, kDataflowBlock, kPrimFunc };
/// "module", "function", "dataflow-block", "prim-func".
const char* to_string(Granularity g);

/// The type of a pass option.
enum class OptionType { kBool, kInt, kFloat, kString };
/// "bool", "int", "float", "string".
const char* to_string(OptionType t);

/// An option value; its alternative matches the option's OptionType.
using OptionValue = std::variant<bool, int64_t, double, std::string>;
/// The one-line spelling: true/false, 8, 0.5, text (quoted when it holds a separator).
std::string to_string(const OptionValue& v);
/// The OptionType of a value.
OptionType type_of(const OptionValue& v);
/// Parses `text` as `type`; std::nullopt when it is not a valid spelling of that type.
std::optional<OptionValue> parse_option_value(OptionType type, const std::string& text);

/// One declared option of a pass.
struct PassOption {
  std::string name;
  OptionType type = OptionType::kString;
  OptionValue default_value = std::string();
  std::string help;
};

/// The declaration of a pass: everything but its body.
struct PassInfo {
  std::string name;     ///< kebab-case, unique in a registry
  std::string summary;  ///< one line
  Granularity granularity = Granularity::kModule;
  std::vector<PassOption> options;

  /// The option named `name`, or null.
  const PassOption* find_option(const std::string& name) const;
};

/// The option values of one pass instance: every declared option, in declaration order.
class PassOptions {
 public:
  PassOptions() = default;
  /// The defaults of `info`.
  explicit PassOptions(const PassInfo& info);

  /// Sets a declared option; throws relax::Error for an unknown name or a value of another type
  /// (an int is accepted for a float option).
  void set(const PassInfo& info, const std::string& name, OptionValue value);

  bool get_bool(const std::string& name) const;
  int64_t get_int(const std::string& name) const;
  double get_float(const std::string& name) const;
  const std::string& get_string(const std::string& name) const;
  /// The value named `name`; an internal error when the pass declares no such option.
  const OptionValue& get(const std::string& name) const;

  const std::vector<std::pair<std::string, OptionValue>>& values() const { return values_; }
  bool operator==(const PassOptions&) const = default;

 private:
  std::vector<std::pair<std::string, OptionValue>> values_;
};

/// What a unit-level body sees besides the unit itself.
struct PassArgs {
  const std::string& function_name;  ///< the module function being transformed
  const IRModule& module;            ///< the module before the pass
  const PassOptions& options;
  PassContext& context;
};

using ModuleTransform = std::function<IRModule(const IRModule&, const PassOptions&, PassContext&)>;
using FunctionTransform = std::function<Ref<Function>(const Ref<Function>&, const PassArgs&)>;
/// Gets a dataflow block (its children already visited) and returns its replacement (any block).
using BlockTransform = std::function<Block(const Block&, const PassArgs&)>;
using PrimFuncTransform =
    std::function<Ref<tir::PrimFunc>(const Ref<tir::PrimFunc>&, const PassArgs&)>;
using PassBody =
    std::variant<ModuleTransform, FunctionTransform, BlockTransform, PrimFuncTransform>;

/// A registered pass: its declaration and its body.
struct PassRegistration {
  PassInfo info;
  PassBody body;
  std::string plugin;  ///< the plugin that registered it; empty for the core
};

/// A pass instance: a registered pass with its option values. Cheap to copy.
class Pass {
 public:
  Pass(std::shared_ptr<const PassRegistration> reg, PassOptions options);

  const PassInfo& info() const { return reg_->info; }
  const std::string& name() const { return reg_->info.name; }
  const PassOptions& options() const { return options_; }
  /// "name" or "name{opt=value,...}" listing every option (defaults included).
  std::string to_string() const;

  /// Runs the pass alone, without instruments (see run_passes in pass_context.h for those).
  /// Unit-level passes run over the module's functions on ctx.jobs() threads.
  IRModule operator()(const IRModule& mod, PassContext& ctx) const;

 private:
  std::shared_ptr<const PassRegistration> reg_;
  PassOptions options_;
};

/// The session registry: pass names to their registrations, and the session's target kinds
/// (target_kind.h). Fill it from one thread (start-up, plugin loading); lookups from many
/// threads are then safe.
class PassRegistry {
 public:
  /// Adds a pass; throws relax::Error when the name is taken (naming both registrants) and an
  /// internal error when the body does not match the granularity or the declaration is bad
  /// (empty or non-kebab-case name, duplicate option, default of the wrong type).
  void add(PassInfo info, PassBody body, std::string plugin = {});
  /// Removes a pass (undoing a failed plugin registration); false when absent.
  bool remove(const std::string& name);

  /// The registration named `name`, or null.
  std::shared_ptr<const PassRegistration> find(const std::string& name) const;
  bool contains(const std::string& name) const { return find(name) != nullptr; }
  /// Every registration, sorted by name.
  std::vector<std::shared_ptr<const PassRegistration>> list() const;
  /// Every name, sorted.
  std::vector<std::string> names() const;

  /// Consulted when a lookup by name fails (find_or_provide): it may register the pass (a
  /// plugin manager loading the plugin that provides it, DESIGN.md §7) and returns a hint for
  /// the error message when the pass is still missing ("provided by plugin 'fusion' ...").
  using MissingHandler = std::function<std::string(const std::string& name)>;
  void set_missing_handler(MissingHandler handler) { missing_ = std::move(handler); }
  /// find(name); when absent, asks the missing handler once and looks again. `hint` (may be
  /// null) receives the handler's hint, empty when there is none.
  std::shared_ptr<const PassRegistration> find_or_provide(const std::string& name,
                                                          std::string* hint = nullptr) const;

  /// An instance of `name` with its default options; throws relax::Error listing the valid
  /// names when there is no such pass.
  Pass create(const std::string& name) const;
  /// An instance with `options` (name, value) set over the defaults; throws relax::Error for
  /// an unknown pass, an unknown option (listing the valid ones) or a value of the wrong type.
  Pass create(const std::string& name,
              const std::vector<std::pair<std::string, OptionValue>>& options) const;

  /// The target kinds of the session: the core's (register_core_passes) and the plugins'
  /// (PluginRegistrar::add_target_kind).
  TargetKindRegistry& target_kinds() { return target_kinds_; }
  const TargetKindRegistry& target_kinds() const { return target_kinds_; }

 private:
  std::vector<std::shared_ptr<const PassRegistration>> passes_;  // sorted by name
  MissingHandler missing_;
  TargetKindRegistry target_kinds_;
};

/// "a, b, c": for messages listing the valid choices.
std::string join_names(const std::vector<std::string>& names);

}  // namespace relax::transform
