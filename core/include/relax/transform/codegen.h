// BYOC codegens (library offload, docs/sdk.md): a plugin registers a codegen under a name; the
// core pass `run-codegen` hands it every function whose attribute `Codegen` is that name
// (fuse-ops-by-pattern{annotate-codegen=true} makes them from patterns named "<codegen>.<op>")
// and replaces each call of such a function by `R.call_dps_packed(symbol, args, ret)` to the
// symbol the codegen returns. A codegen may also return a kernel library (format + bytes): the
// compile step puts it into the executable beside the target's library, so the VM loads it
// through the loader its runtime plugin registers for that format (runtime/module.h) and
// resolves the symbols there first. Functions of a codegen nobody registered are left alone:
// the rest of the pipeline compiles them as usual.
//
// The table is process-wide (like frontends), filled from one thread at start-up or plugin
// loading; lookups from many threads are then safe.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "relax/ir/expr.h"
#include "relax/ir/module.h"

namespace relax::transform {

/// One function claimed by a codegen: its global name in the module and the function (attribute
/// `Codegen` = the codegen's name; its body usually calls one `Composite` function, whose
/// attribute `Composite` is the pattern name, e.g. "accel.conv2d_bias_relu").
struct ClaimedFunction {
  std::string name;
  Ref<Function> func;
};

/// What a codegen returns for the functions it was given.
struct CodegenOutput {
  /// The packed-function symbol replacing each function, in the order given (one per function;
  /// several may share one). Called in destination-passing style: inputs, then the output.
  std::vector<std::string> symbols;
  /// A kernel library holding the symbols, or empty when they come from elsewhere (a runtime
  /// plugin registering global packed functions).
  std::string library_format;
  std::vector<uint8_t> library;
};

/// A codegen: (the functions it claims, the module) -> symbols and an optional library. Throws
/// relax::Error naming the function it cannot compile.
using CodegenFn =
    std::function<CodegenOutput(const std::vector<ClaimedFunction>&, const IRModule&)>;

struct Codegen {
  std::string name;  ///< the `Codegen` attribute value it claims ("accel")
  std::string help;  ///< one line
  CodegenFn run;
  std::string plugin;  ///< the plugin that registered it; empty for the core
};

/// Registers a codegen; replaces one of the same name from the same plugin (a plugin scanned,
/// then loaded), throws relax::Error when another plugin registered the name.
void register_codegen(Codegen codegen);
/// Removes a codegen (undoing a failed plugin registration); false when absent.
bool remove_codegen(const std::string& name);
/// The codegen named `name`, or nullopt.
std::optional<Codegen> find_codegen(const std::string& name);
/// Every codegen name, sorted.
std::vector<std::string> list_codegens();

/// The module attribute listing the libraries run-codegen produced, as pairs of strings
/// (format, bytes as lowercase hex); compile() adds each to the executable.
inline constexpr const char* kExternalLibrariesAttr = "external_libraries";
/// The module attribute recording where each claimed function went: "function -> codegen:symbol".
inline constexpr const char* kOffloadedAttr = "offloaded_functions";

/// The libraries of kExternalLibrariesAttr: (format, bytes) pairs.
std::vector<std::pair<std::string, std::vector<uint8_t>>> external_libraries(const IRModule& mod);

}  // namespace relax::transform
