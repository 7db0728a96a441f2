// The compile API (DESIGN.md §5, §8): one way from a model to a VM executable. relax::build(),
// every relax-driver command (compile, run, opt, pipeline) and relax-conformance go through it,
// so every instrument works everywhere.
//
//   relax::CompileOptions o;
//   o.input = "model.onnx";            // or o.module = parse_module(text)
//   relax::CompileResult r = relax::compile(o);   // default pipeline, LLVM for the host CPU
//   r.executable->save_to_file("model.rxe");
//
// The stages: import (a .rx file by the core parser, any other file by the frontend
// registered for its extension), the pipeline (a built-in name — "default", the optimising
// pipeline, or "o0", the minimum build —, a YAML file, or a one-line pipeline; the passes of
// the minimum build it lacks are appended), then codegen (the target's kernel library and the
// VM bytecode). Plugins are loaded on demand: the ones a pipeline names, the one providing a
// pass it uses, the frontend of the input's extension and the backend of the target.
#pragma once

#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "relax/ir/module.h"
#include "relax/runtime/executable.h"
#include "relax/support/trace.h"
#include "relax/transform/frontend.h"
#include "relax/transform/pass.h"
#include "relax/transform/pipeline.h"

namespace relax {

namespace transform {
class PluginManager;
}

/// Adds every core pass to `registry`: the transform area's (relax/transform/core_passes.h)
/// and the VM lowering passes (relax/vm/passes.h). Throws when one is already there.
void register_core_passes(transform::PassRegistry& registry);

/// A registry holding the core passes (a fresh one per call).
transform::PassRegistry make_core_registry();

/// The names of the pipelines built into the core (config/pipelines/*.yaml at build time):
/// "default" (the optimising pipeline) and "o0" (the minimum build), sorted.
std::vector<std::string> builtin_pipeline_names();
/// The YAML text of built-in pipeline `name`, or nullopt.
std::optional<std::string_view> builtin_pipeline_text(std::string_view name);

/// The pipeline compile() uses when none is given.
inline constexpr const char* kDefaultPipeline = "default";
/// The kernel target compile() uses when neither the options nor the pipeline name one.
inline constexpr const char* kDefaultTarget = "llvm";
/// The host target of a GPU target when neither the options nor the pipeline name one
/// (tir-interp,gpu=1 has the interpreter itself, "tir-interp", as its host).
inline constexpr const char* kDefaultHost = "llvm";

/// What to compile, how, and what to report.
struct CompileOptions {
  // ---- Input: `module` when given, else the file `input`.
  std::optional<IRModule> module;
  std::string input;
  /// Options for the frontend reading `input` (e.g. ONNX "value.NAME=FILE").
  transform::FrontendOptions frontend_options;

  // ---- Pipeline and target.
  /// A built-in name ("default", "o0"), a YAML file (*.yaml, *.yml) or a one-line pipeline
  /// ("normalize,fuse-ops,fuse-tir"). Empty: "default".
  std::string pipeline;
  /// The kernel target ("llvm", "llvm,mcpu=skylake-avx512", "tir-interp"). Empty: the
  /// pipeline's `target:`, else "llvm". Resolved in the session's target kinds and validated
  /// before any pass runs (relax/target/targets.h).
  std::string target;
  /// The host target, for what a GPU target leaves to the CPU; validated (a CPU target) and
  /// recorded in CompileResult::host. Empty: the pipeline's `host:`, else, for a GPU target,
  /// "llvm" ("tir-interp" for tir-interp,gpu=1), else none.
  std::string host;
  /// NAME=BOUND: an upper bound of symbolic variable NAME for every Relax function
  /// (tir_var_upper_bound; the memory planner plans at the bound).
  std::vector<std::string> upper_bounds;
  /// Stop after the passes: no executable (relax-driver opt).
  bool passes_only = false;
  /// With passes_only: stop after the first pass of this name (relax-driver graph --after);
  /// a name the pipeline does not run is an error listing the passes it runs.
  std::string stop_after;
  /// The executable runs in this process: when the target is not given and resolves to
  /// "llvm", the LLVM backend compiles for its JIT ("llvm,jit=1"; relax-driver run).
  bool jit = false;

  // ---- Instruments (each also settable from the pipeline's `instruments:`).
  bool time_passes = false;  ///< time every pass and stage; CompileResult::report_timing
  std::optional<bool> verify_each;  ///< unset: the pipeline's, else the build type's default
  std::vector<std::string> dump_ir_before;  ///< pass names or "all"
  std::vector<std::string> dump_ir_after;
  std::string dump_dir;    ///< empty: dumps go to `log`
  bool dump_constants = false;  ///< IR dumps print large constants in full (else elided)
  std::string reproducer;  ///< where a failing pass writes its input; empty: no reproducer
  bool stats = false;      ///< kernel launches and memory plan per function: CompileResult::stats
  /// Where to record a trace event per stage and per pass (relax-driver --trace); null: none.
  /// Not owned.
  trace::Recorder* trace = nullptr;
  /// Called as each stage starts ("import m.onnx", "pass 3/31 fuse-ops", "codegen llvm (42
  /// kernels)", "vm codegen"), for a progress line; empty: none.
  std::function<void(const std::string& stage)> progress;
  int jobs = 0;            ///< threads for function-level passes; 0: every core

  // ---- Plugins.
  std::vector<std::string> plugins;      ///< loaded first (paths or short names); failure throws
  std::vector<std::string> plugin_dirs;  ///< searched before RELAX_PLUGIN_PATH
  /// Load the plugin providing a pass the pipeline names but no loaded plugin has (default).
  bool plugins_on_demand = true;

  /// Where IR dumps (without dump_dir) go; null: std::cerr.
  std::ostream* log = nullptr;
};

/// The time of one stage of a compile.
struct StageTime {
  std::string stage;  ///< "import", "pass fuse-ops", "codegen llvm (42 kernels)", "vm codegen"
  double ms = 0;
  double start_us = 0;  ///< trace::now_us() at its start
};

/// What compile() produced.
struct CompileResult {
  IRModule lowered;                     ///< the module after the pipeline
  Ref<runtime::Executable> executable;  ///< null with passes_only
  std::string target;                   ///< the kernel target used ("llvm")
  std::string host;                     ///< the host target; empty for a CPU target without one
  std::string pipeline;                 ///< the passes run, as one line
  std::vector<StageTime> stages;        ///< with time_passes or a trace: every stage in order
  bool time_passes = false;             ///< the options or the pipeline asked for the table
  double total_ms = 0;                  ///< wall time of compile()
  std::string stats;                    ///< with stats: one line per Relax function
  /// Warnings of the build (a GPU kernel left on a single thread, naming it); the driver
  /// prints them on stderr.
  std::vector<std::string> warnings;
  /// The timing table (stages, slowest passes first, total) for time_passes.
  void report_timing(std::ostream& os) const;
};

/// A compiler session: a pass registry with the core passes and a plugin manager, kept across
/// compiles (a test runner compiling many models loads each plugin once).
class Compiler {
 public:
  explicit Compiler(const std::vector<std::string>& plugin_dirs = {});
  ~Compiler();
  Compiler(const Compiler&) = delete;
  Compiler& operator=(const Compiler&) = delete;

  transform::PassRegistry& registry() { return *registry_; }
  transform::PluginManager& plugins() { return *plugins_; }

  /// Loads a plugin by path or short name; throws relax::Error naming it when it fails.
  void load_plugin(const std::string& path_or_name);

  /// The pipeline `spec` names (see CompileOptions::pipeline; empty: "default"), validated,
  /// loading the plugins it needs.
  transform::Pipeline pipeline(const std::string& spec);

  /// Reads a module: .rx (or "-", stdin) by the parser, any other file by its frontend.
  IRModule import(const std::string& path, const transform::FrontendOptions& options = {});

  /// Compiles as the options say (see the file comment). Throws relax::Error for bad input
  /// and programs the build does not support; a failing pass writes the reproducer first.
  CompileResult compile(const CompileOptions& options);

 private:
  std::unique_ptr<transform::PassRegistry> registry_;
  std::unique_ptr<transform::PluginManager> plugins_;
};

/// compile() in a fresh Compiler session.
CompileResult compile(const CompileOptions& options);

/// `compile --stats`: per Relax function of a lowered module, its kernel launches (shape
/// computations apart) and the memory plan's statistics when the planner recorded them.
std::string compile_stats(const IRModule& lowered);

/// Adds NAME=BOUND items to the tir_var_upper_bound attribute of every Relax function of
/// `mod` (replacing an entry of the same name). Throws relax::Error for a malformed item.
void set_upper_bounds(IRModule& mod, const std::vector<std::string>& bounds);

}  // namespace relax
