// relax-driver's commands, one file each, over the compile API (relax/target/compile.h) and
// tools/common (inputs, test directories, comparison). main.cc parses the command line into
// the option structs below and calls one command.
//
// Exit codes: 0 ok, 1 user error (bad arguments, bad input, a plugin that cannot be loaded, a
// pass rejecting its input), 2 internal error (a bug in Relax or in a plugin).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "relax/target/compile.h"

namespace relax::driver {

constexpr int kOk = 0;
constexpr int kUserError = 1;
constexpr int kInternalError = 2;

/// The options every compiling command (compile, run, opt) shares; to_compile_options() turns
/// them into relax::CompileOptions.
struct PipelineOptions {
  std::string pipeline;  ///< -p: a built-in name, a YAML file or a one-line pipeline
  std::string passes;    ///< --passes: a one-line pipeline
  bool o0 = false;       ///< -O0: the minimum build
  std::string target;
  std::string host;
  int jobs = 0;
  bool time_passes = false;
  bool verify_each = false;
  bool no_verify_each = false;
  std::vector<std::string> dump_before;
  std::vector<std::string> dump_after;
  std::string dump_dir;
  bool show_constants = false;  ///< IR dumps print large constants in full
  std::string reproducer;  ///< empty: a file in the temp directory
  bool stats = false;
  std::vector<std::string> upper_bounds;
  std::vector<std::string> specialize;  ///< NAME=FILE
  std::string trace;  ///< --trace FILE: Chrome trace JSON of the compile (and of the run)
  bool quiet = false;  ///< --quiet: no progress line on a terminal
};

struct CompileCommand {
  std::string input;
  std::string output;
  PipelineOptions pipeline;
};

struct RunCommand {
  std::string input;  ///< .rxe, a model compiled in process (JIT), or an ONNX test directory
  std::string func = "main";
  std::vector<std::string> inputs;  ///< NAME=FILE or FILE (in parameter order)
  std::vector<std::string> dims;    ///< NAME=VALUE for symbolic dims of random inputs
  std::string output_dir;
  int repeat = 1;
  uint32_t seed = 0;
  int print_limit = 8;
  bool check = false;
  double rtol = 1e-3;
  double atol = 1e-4;
  int warmup = 0;
  double max_seconds = 0;
  bool json = false;
  bool profile = false;
  int profile_top = 25;
  std::string executable;  ///< DIR input: run this .rxe instead of compiling model.onnx
  PipelineOptions pipeline;
};

/// The compile options of `p` for `compiler`'s commands; `default_target` applies when neither
/// --target nor the pipeline names one.
CompileOptions to_compile_options(const PipelineOptions& p, const std::string& default_target);
/// Compiles with the reproducer and the timing report handled as every command does.
CompileResult run_compile(Compiler& compiler, const CompileOptions& options, bool quiet = false);

int cmd_compile(Compiler& compiler, const CompileCommand& cmd);
int cmd_run(Compiler& compiler, const RunCommand& cmd);
int cmd_inspect(const std::string& path);
/// Prints the model; large constants elided (R.const_elided) unless `show_constants`.
int cmd_print(Compiler& compiler, const std::string& file, const std::string& output,
              bool show_constants);
/// The dataflow graph of the model's Relax functions (or `function`) in Graphviz DOT, after the
/// pipeline when one is given (-p, --passes, -O0), else as imported.
int cmd_graph(Compiler& compiler, const std::string& file, const std::string& output,
              const std::string& function, const std::string& after, const PipelineOptions& p);
int cmd_opt(Compiler& compiler, const std::string& file, const std::string& output,
            const PipelineOptions& p);
int cmd_pipeline(Compiler& compiler, const std::string& file, const PipelineOptions& p);
int cmd_passes(Compiler& compiler);
int cmd_plugins(Compiler& compiler);
int cmd_targets(Compiler& compiler);
int cmd_frontends(Compiler& compiler);
/// The devices each runtime plugin on the search path sees, with their limits (devices_command.cc).
int cmd_devices(Compiler& compiler);

/// Writes `text` to `path` ("" or "-": stdout), ending with a newline.
void write_text(const std::string& path, const std::string& text);

}  // namespace relax::driver
