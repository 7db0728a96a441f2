// relax-driver: compile, run, optimise and print models; inspect executables; list the
// passes, plugins, targets and frontends available.
//
//   relax-driver compile MODEL [-p PIPELINE | --passes LINE | -O0] [--target T] -o OUT.rxe
//   relax-driver run MODEL|FILE.rxe|DIR [--input NAME=FILE ...] [--check] [...]
//   relax-driver opt MODEL [-p PIPELINE | --passes LINE] [-o OUT]
//   relax-driver print MODEL [-o OUT]
//   relax-driver inspect FILE.rxe
//   relax-driver passes | plugins | targets | frontends | devices
//   relax-driver pipeline [PIPELINE | --passes LINE]
//   relax-driver completion bash       (a bash completion script)
//   relax-driver --version
// MODEL is a .rx file or any file a frontend plugin reads (.onnx, ...). PIPELINE is a built-in
// name (default, o0), a YAML file or a one-line pass list; without one, compile and run use
// the optimising pipeline `default` (and -O0 the minimum build). Every compiling command takes
// the same instruments (--time-passes, --dump-ir-*, --verify-each, --reproducer, --stats).
// Every command: --plugin PATH|NAME (repeatable; a plugin that cannot be loaded is an error),
// --plugin-dir DIR; plugins on the search path are loaded on demand. A mistyped command or
// option is answered with the nearest names (suggest.cc); the help of each command ends with
// the environment variables it reads.
//
// Exit codes (driver.h): 0 ok, 1 user error, 2 internal error.
#include <CLI/CLI.hpp>
#include <iostream>

#include "cli.h"
#include "driver.h"
#include "relax/support/diagnostic.h"
#include "relax/transform/plugin.h"

namespace relax::driver {
namespace {

// The environment variables that change what a command does, for the help footers. They are
// read by the core and the plugins, not by the command line, so only the help can tell of them.
constexpr const char* kEnvPluginPath =
    "  RELAX_PLUGIN_PATH   directories (':'-separated) searched for plugins and kernel-library\n"
    "                      loaders, after --plugin-dir and before the build's or install's\n"
    "                      lib/relax/plugins\n";
constexpr const char* kEnvNumThreads =
    "  RELAX_NUM_THREADS   threads running the kernels' parallel loops in run (default: the\n"
    "                      hardware concurrency)\n";
constexpr const char* kEnvLLVM =
    "  RELAX_LLVM_CC       the command linking the llvm backend's kernel libraries (default cc)\n"
    "  RELAX_LLVM_DUMP     DIR: the llvm backend writes each kernel's TIR and LLVM IR there\n"
    "  RELAX_LLVM_TIME     1: the llvm backend reports its phases' times on stderr\n"
    "  RELAX_LLVM_OPTIONS  options for LLVM itself, as llc takes them (for experiments)\n";

constexpr const char* kEnvVulkan =
    "  RELAX_VULKAN_DEVICE  N: the Vulkan device to run on (as `devices` numbers them; default:\n"
    "                      discrete > integrated > virtual > CPU)\n"
    "  RELAX_VULKAN_VALIDATION  1: the Khronos validation layer, its errors fail the call\n"
    "  RELAX_CACHE_DIR     where the Vulkan pipeline cache lives (default ~/.cache/relax)\n";

/// "Environment:" and the variables given, for a help footer.
std::string env_footer(std::initializer_list<const char*> vars) {
  std::string s = "Environment:\n";
  for (const char* v : vars) s += v;
  return s;
}

/// The pipeline, target and instrument options of a compiling command.
void add_pipeline_options(CLI::App* cmd, PipelineOptions& p, bool with_target) {
  auto* pipeline = cmd->add_option(
      "-p,--pipeline", p.pipeline,
      "the pipeline: a built-in name (default, o0), a YAML file or a one-line pass list "
      "(default: default)");
  auto* passes = cmd->add_option("--passes", p.passes, "a one-line pipeline: a,b{opt=v},c");
  auto* level = cmd->add_option_function<int>(
      "-O", [&p](int level) { p.o0 = level == 0; },
      "optimisation level: -O0 is the minimum build (pipeline o0); others the default");
  pipeline->excludes(passes);
  level->excludes(pipeline)->excludes(passes);
  if (with_target) {
    cmd->add_option("--target", p.target,
                    "kernel target KIND[,ATTR=VALUE]* (`relax-driver targets` lists the kinds "
                    "and their attributes): llvm[,mcpu=CPU,opt-level=N], tir-interp (default: the "
                    "pipeline's, else llvm)");
    cmd->add_option("--host", p.host,
                    "host target for what a GPU target leaves to the CPU (default: the "
                    "pipeline's host, else llvm for a GPU target)");
  }
  cmd->add_option("-j,--jobs", p.jobs, "threads for function-level passes (0: all cores)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--time-passes", p.time_passes,
                "report the time of every stage and pass on stderr");
  cmd->add_flag("-q,--quiet", p.quiet,
                "no progress line (shown on a terminal only: stage, passes n/m, writing, runs)");
  cmd->add_option("--trace", p.trace,
                  "write a Chrome/Perfetto trace (JSON; open in ui.perfetto.dev or "
                  "chrome://tracing) of every stage and pass of the compile and, for run, of "
                  "every kernel and builtin call")
      ->type_name("FILE");
  cmd->add_option("--dump-ir-before", p.dump_before, "dump the IR before these passes (or all)")
      ->delimiter(',');
  cmd->add_option("--dump-ir-after", p.dump_after, "dump the IR after these passes (or all)")
      ->delimiter(',');
  cmd->add_option("--dump-dir", p.dump_dir, "write IR dumps to files in DIR instead of stderr");
  cmd->add_flag("--show-constants", p.show_constants,
                "IR dumps print every element of large constants (default: elided)");
  auto* ve = cmd->add_flag("--verify-each", p.verify_each, "check well-formedness after every pass");
  auto* nve = cmd->add_flag("--no-verify-each", p.no_verify_each, "do not check after every pass");
  ve->excludes(nve);
  cmd->add_option("--reproducer", p.reproducer,
                  "where a failing pass writes its input and pipeline (default: a file in the "
                  "temp dir)");
  cmd->add_flag("--stats", p.stats,
                "print kernel launches and the memory plan's statistics per function");
  cmd->add_option("--upper-bound", p.upper_bounds,
                  "NAME=BOUND: an upper bound of symbolic variable NAME (tir_var_upper_bound "
                  "of every function); memory is planned, and --stats computed, at the bound")
      ->delimiter(',');
  cmd->add_option("--specialize", p.specialize,
                  "NAME=FILE (.npy or .pb): compile a model for this value of input NAME "
                  "where a static value is needed (axes, k, pads...); checked at run time")
      ->type_name("NAME=FILE");
}

int run(int argc, char** argv) {
  CLI::App app{"relax-driver: compile, run, optimise and inspect models with Relax"};
  app.require_subcommand(1);
  app.fallthrough();
  app.set_version_flag("--version", version_text(),
                       "print the versions of Relax, the plugin ABI and LLVM, and the git "
                       "commit, and exit");
  std::vector<std::string> plugins, plugin_dirs;
  app.add_option("--plugin", plugins, "load a plugin (a path, or a short name searched for)")
      ->type_name("PATH|NAME");
  app.add_option("--plugin-dir", plugin_dirs, "search DIR for plugins first")->type_name("DIR");

  std::string file, output;
  CompileCommand compile_cmd;
  RunCommand run_cmd;
  PipelineOptions opt_pipeline;

  auto* print = app.add_subcommand("print", "read a model (.rx or any frontend's) and print it as Relax");
  print->add_option("file", file, "the model (.rx, .onnx, ...; - for .rx on stdin)")->required();
  print->add_option("-o,--output", output, "write here instead of stdout");
  bool show_constants = false;
  print->add_flag("--show-constants", show_constants,
                  "print every element of large constants (default: R.const_elided((shape), "
                  "dtype) placeholders in the metadata section; the text still parses, with "
                  "zero-filled constants)");
  print->footer(env_footer({kEnvPluginPath}));

  auto* optc = app.add_subcommand("opt", "run a pipeline over a model and print the result");
  optc->add_option("file", file, "the model (.rx, .onnx, ...; - for .rx on stdin)")->required();
  optc->add_option("-o,--output", output, "write here instead of stdout");
  add_pipeline_options(optc, opt_pipeline, false);
  optc->footer(env_footer({kEnvPluginPath}));

  auto* compile = app.add_subcommand("compile", "compile a model into a VM executable (.rxe)");
  compile->add_option("file", compile_cmd.input, "the model (.rx, .onnx, ...)")->required();
  compile->add_option("-o,--output", compile_cmd.output, "the executable to write")->required();
  add_pipeline_options(compile, compile_cmd.pipeline, true);
  compile->footer(env_footer({kEnvPluginPath, kEnvLLVM}));

  auto* runc = app.add_subcommand("run", "run a function of an executable (or of a .rx, JIT)");
  runc->add_option("file", run_cmd.input,
                   "an executable (.rxe), a module (.rx, .onnx), or an ONNX test directory "
                   "(model.onnx + test_data_set_N/input_K.pb)")
      ->required();
  runc->add_option("--func", run_cmd.func, "the function to run (default main)");
  runc->add_option("-i,--input", run_cmd.inputs,
                   "NAME=FILE (.npy or .pb), or FILE for the next parameter; random data for "
                   "parameters not given (fixed seed)");
  runc->add_option("--dim", run_cmd.dims, "NAME=VALUE: a symbolic dimension of random inputs")
      ->delimiter(',');
  runc->add_option("--output-dir", run_cmd.output_dir, "write outputs as output_<i>.npy here");
  runc->add_option("--repeat", run_cmd.repeat, "run N times and report the latency")
      ->check(CLI::PositiveNumber);
  runc->add_option("--seed", run_cmd.seed, "seed of the random inputs");
  runc->add_option("--print-limit", run_cmd.print_limit, "elements printed per output");
  runc->add_flag("--check", run_cmd.check,
                 "test directory: compare every output with test_data_set_N/output_K.pb; exit 1 "
                 "on a mismatch");
  runc->add_option("--rtol", run_cmd.rtol, "--check: relative tolerance (default 1e-3)");
  runc->add_option("--atol", run_cmd.atol, "--check: absolute tolerance (default 1e-4)");
  runc->add_option("--warmup", run_cmd.warmup, "untimed runs before the timed ones (default 0)")
      ->check(CLI::NonNegativeNumber);
  runc->add_option("--max-seconds", run_cmd.max_seconds,
                   "time budget: warm-up stops after a quarter of it, the timed runs after all of "
                   "it (at least one run each)")
      ->check(CLI::NonNegativeNumber);
  runc->add_flag("--profile", run_cmd.profile,
                 "time every kernel and builtin call and print the slowest (per timed run, "
                 "after --warmup; GPU kernels to their completion; to stderr)");
  runc->add_option("--profile-top", run_cmd.profile_top,
                   "--profile: how many functions to print (default 25, 0: all)")
      ->check(CLI::NonNegativeNumber);
  runc->add_flag("--json", run_cmd.json,
                 "print the latency (and with --check the largest abs error) as one JSON line "
                 "instead of the latency line");
  runc->add_option("--executable", run_cmd.executable,
                   "test directory: run this compiled executable (.rxe) on its data sets instead "
                   "of compiling model.onnx")
      ->type_name("FILE.rxe");
  add_pipeline_options(runc, run_cmd.pipeline, true);
  runc->footer(env_footer({kEnvPluginPath, kEnvNumThreads, kEnvLLVM}));

  std::string inspect_file;
  auto* inspect = app.add_subcommand("inspect", "show an executable: functions, kernels, "
                                                "constants and bytecode");
  inspect->add_option("file", inspect_file, "the executable (.rxe)")->required();

  std::string graph_function;
  PipelineOptions graph_pipeline;
  auto* graph = app.add_subcommand(
      "graph", "write a model's dataflow graph in Graphviz DOT (render: dot -Tsvg g.dot -o g.svg)");
  graph->add_option("file", file, "the model (.rx, .onnx, ...; - for .rx on stdin)")->required();
  graph->add_option("-o,--output", output,
                    "write here instead of stdout: FILE.dot, or FILE.svg / .png / .pdf rendered "
                    "with Graphviz's dot");
  graph->add_option("--function,--func", graph_function, "only this Relax function")
      ->type_name("NAME");
  std::string graph_after;
  graph->add_option("--after", graph_after,
                    "the graph after this pass of the pipeline (default pipeline unless -p, "
                    "--passes or -O0 is given)")
      ->type_name("PASS");
  add_pipeline_options(graph, graph_pipeline, false);
  graph->footer(env_footer({kEnvPluginPath}));

  auto* passes = app.add_subcommand("passes", "list every available pass (core and plugins) with its options");
  auto* plugins_cmd = app.add_subcommand(
      "plugins", "list every plugin on the search path: version, ABI, path, what it provides or why it is refused");
  auto* targets = app.add_subcommand("targets", "list the target kinds of the core and the plugins");
  auto* frontends =
      app.add_subcommand("frontends", "list the input formats of the core and the plugins");
  auto* devices = app.add_subcommand(
      "devices", "list the devices each runtime plugin sees, with their memory and limits");
  auto* pipeline =
      app.add_subcommand("pipeline", "print a pipeline with every default filled in");
  pipeline->add_option("pipeline", file, "a built-in name, a YAML file or a one-line pass list");
  PipelineOptions pipeline_opts;
  pipeline->add_option("--passes", pipeline_opts.passes, "a one-line pipeline");
  pipeline->add_option("-p", pipeline_opts.pipeline, "a built-in name or a YAML file");
  pipeline->add_option_function<int>("-O", [&](int l) { pipeline_opts.o0 = l == 0; },
                                     "-O0: the minimum build");
  for (CLI::App* list : {passes, plugins_cmd, targets, frontends, pipeline})
    list->footer(env_footer({kEnvPluginPath}));
  devices->footer(env_footer({kEnvPluginPath, kEnvVulkan}));

  std::string shell, completion_output;
  auto* completion = app.add_subcommand(
      "completion", "print a shell completion script of the commands and their options");
  completion->add_option("shell", shell, "the shell: bash")
      ->required()
      ->check(CLI::IsMember({"bash"}));
  completion->add_option("-o,--output", completion_output, "write here instead of stdout");
  // Set last: a command added after it would inherit it.
  app.footer(env_footer({kEnvPluginPath, kEnvNumThreads}) +
             "\nrelax-driver COMMAND --help shows what a command takes; relax-driver completion "
             "bash\nprints a bash completion script.");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // A misspelt word surfaces as whatever it leaves missing ("A subcommand is required"):
    // name the word and the nearest correct ones instead.
    if (e.get_exit_code() != 0) {
      if (std::string msg = unknown_argument_message(app); !msg.empty()) {
        std::cerr << "relax-driver: " << msg << "\n";
        return kUserError;
      }
    }
    int rc = app.exit(e);
    return rc == 0 ? kOk : kUserError;
  }

  try {
    // Needs no plugins: also run by the build, to write the installed script.
    if (*completion) {
      write_text(completion_output, bash_completion(app));
      return kOk;
    }
    Compiler compiler(plugin_dirs);
    for (const std::string& p : plugins) compiler.load_plugin(p);
    if (*print) return cmd_print(compiler, file, output, show_constants);
    if (*optc) return cmd_opt(compiler, file, output, opt_pipeline);
    if (*graph)
      return cmd_graph(compiler, file, output, graph_function, graph_after, graph_pipeline);
    if (*compile) return cmd_compile(compiler, compile_cmd);
    if (*runc) return cmd_run(compiler, run_cmd);
    if (*inspect) return cmd_inspect(inspect_file);
    if (*passes) return cmd_passes(compiler);
    if (*plugins_cmd) return cmd_plugins(compiler);
    if (*targets) return cmd_targets(compiler);
    if (*frontends) return cmd_frontends(compiler);
    if (*devices) return cmd_devices(compiler);
    if (*pipeline) return cmd_pipeline(compiler, file, pipeline_opts);
  } catch (const Error& e) {
    std::cerr << "relax-driver: " << e.what() << "\n";
    return kUserError;
  } catch (const InternalError& e) {
    std::cerr << "relax-driver: internal error: " << e.what() << "\n";
    return kInternalError;
  } catch (const std::exception& e) {
    std::cerr << "relax-driver: internal error: " << e.what() << "\n";
    return kInternalError;
  }
  return kUserError;
}

}  // namespace
}  // namespace relax::driver

int main(int argc, char** argv) {
  try {
    return relax::driver::run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "relax-driver: internal error: " << e.what() << "\n";
    return 2;
  }
}
