// relax-driver: parse, optimise, compile, run and print Relax modules; inspect executables;
// list passes and plugins; check pipelines.
//
//   relax-driver compile FILE.rx [-p PIPELINE.yaml | --passes LINE] [--target T] -o OUT.rxe
//                [--specialize NAME=FILE ...]   (a model input's value, where one is needed)
//   relax-driver run FILE.rxe|FILE.rx [--func F] [--input NAME=FILE.npy|.pb ...] [--dim n=4]
//                [--output-dir DIR] [--repeat N] [--seed S] [--target T]
//   relax-driver run DIR [--check [--rtol R] [--atol A]]   (DIR: model.onnx + test_data_set_N/)
//                [--executable FILE.rxe]   (run a compiled model on DIR's data sets)
//   run, either form: [--warmup W] [--max-seconds S] [--json]   (for bench/compare.sh)
//                     [--profile [--profile-top N]]   (time per kernel/builtin)
//   relax-driver inspect FILE.rxe
//   relax-driver print FILE [-o OUT]
//   relax-driver opt FILE (--passes=LINE | --pipeline=FILE) [-o OUT] [--jobs N]
//                [--time-passes] [--dump-ir-before=P,..] [--dump-ir-after=P,..|all]
//                [--dump-dir DIR] [--verify-each | --no-verify-each] [--reproducer PATH]
//   relax-driver passes | plugins | pipeline (FILE | --passes=LINE)
//   every command: --plugin PATH|NAME (repeatable), --plugin-dir DIR (repeatable), --help
//
// Exit codes: 0 ok, 1 user error (bad arguments, bad input, a pass rejecting its input),
// 2 internal error (a bug in Relax or in a plugin). A plugin that cannot be loaded is
// reported and skipped; the command goes on.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <set>
#include <sstream>

#include "relax/target/compile.h"
#include "relax/transform/instruments.h"
#include "relax/transform/pipeline.h"
#include "relax/transform/plugin.h"
#include "exec_commands.h"
#include "text_commands.h"

namespace relax::driver {
namespace {

using namespace relax::transform;

constexpr int kOk = 0;
constexpr int kUserError = 1;
constexpr int kInternalError = 2;

struct Options {
  std::vector<std::string> plugins;
  std::vector<std::string> plugin_dirs;
  std::string file;
  std::string output;
  std::string passes;
  std::string pipeline_file;
  int jobs = 0;
  bool time_passes = false;
  std::vector<std::string> dump_before;
  std::vector<std::string> dump_after;
  std::string dump_dir;
  bool verify_each = false;
  bool no_verify_each = false;
  std::string reproducer;
  CompileOptions compile;
  RunOptions run;
};

std::vector<std::string> split_commas(const std::vector<std::string>& items) {
  std::vector<std::string> out;
  for (const auto& item : items) {
    std::stringstream ss(item);
    for (std::string s; std::getline(ss, s, ',');)
      if (!s.empty()) out.push_back(s);
  }
  return out;
}

void warn(const std::string& msg) { std::cerr << "relax-driver: warning: " << msg << "\n"; }

/// Loads the plugins named on the command line; refusals are reported and skipped.
void load_plugins(PluginManager& plugins, const Options& opt) {
  for (const auto& dir : opt.plugin_dirs) plugins.add_search_dir(dir);
  for (const auto& p : opt.plugins) {
    try {
      plugins.load(p);
    } catch (const Error& e) {
      warn(e.message());
    }
  }
}

Pipeline read_pipeline(const Options& opt, PassRegistry& registry, PluginManager& plugins) {
  RX_CHECK(opt.passes.empty() || opt.pipeline_file.empty())
      << "give --passes or --pipeline, not both";
  if (!opt.pipeline_file.empty()) return load_pipeline_file(opt.pipeline_file, registry, &plugins);
  RX_CHECK(!opt.passes.empty()) << "no pipeline: give --passes=LINE or --pipeline=FILE";
  return parse_pipeline_line(opt.passes, registry);
}

int cmd_passes(const PassRegistry& registry) {
  for (const auto& reg : registry.list()) {
    const PassInfo& info = reg->info;
    std::cout << info.name << " (" << to_string(info.granularity);
    if (!reg->plugin.empty()) std::cout << "; plugin " << reg->plugin;
    std::cout << ")\n    " << info.summary << "\n";
    for (const auto& o : info.options) {
      std::cout << "    " << o.name << ": " << to_string(o.type) << " = "
                << to_string(o.default_value);
      if (!o.help.empty()) std::cout << "  -- " << o.help;
      std::cout << "\n";
    }
  }
  return kOk;
}

int cmd_plugins(const PluginManager& plugins) {
  if (plugins.loaded().empty()) std::cout << "no plugins loaded\n";
  for (const auto& p : plugins.loaded()) {
    std::cout << p->name << " " << p->version << " (ABI " << p->abi_major << "." << p->abi_minor
              << ", SDK " << p->sdk_version << ") from " << p->path << "\n";
    std::cout << "    passes: " << join_names(p->passes) << "\n";
  }
  std::cout << "search path: " << join_names(plugins.search_dirs()) << "\n";
  return kOk;
}

/// The pipeline of compile/run: --pipeline FILE, --passes LINE, or none (the minimum build).
Pipeline exec_pipeline(const Options& opt, PassRegistry& registry, PluginManager& plugins) {
  if (opt.passes.empty() && opt.pipeline_file.empty()) return Pipeline{};
  return read_pipeline(opt, registry, plugins);
}

int cmd_pipeline(const Options& opt, PassRegistry& registry, PluginManager& plugins) {
  Options o = opt;
  if (!o.file.empty()) o.pipeline_file = o.file;
  Pipeline p = read_pipeline(o, registry, plugins);
  std::cout << p.to_yaml();
  std::cout << "# one line: " << p.to_line() << "\n";
  return kOk;
}

int cmd_print(const Options& opt, PluginManager& plugins) {
  write_text(opt.output, print_module_text(read_module(opt.file, &plugins)));
  return kOk;
}

std::string default_reproducer_path() {
  auto dir = std::filesystem::temp_directory_path();
  return (dir / ("relax-reproducer-" + std::to_string(::getpid()) + ".rx")).string();
}

int cmd_opt(const Options& opt, PassRegistry& registry, PluginManager& plugins) {
  Pipeline pipeline = read_pipeline(opt, registry, plugins);
  std::vector<Pass> passes = pipeline.build(registry);

  PassContext ctx;
  ctx.set_jobs(opt.jobs);
  std::shared_ptr<TimingInstrument> timing;
  if (opt.time_passes || pipeline.instruments.time_passes) {
    timing = std::make_shared<TimingInstrument>();
    ctx.add_instrument(timing);
  }
  IRDumpInstrument::Options dump;
  for (const auto& n : split_commas(opt.dump_before)) dump.before.insert(n);
  for (const auto& n : split_commas(opt.dump_after)) dump.after.insert(n);
  for (const auto& n : pipeline.instruments.dump_ir_before) dump.before.insert(n);
  for (const auto& n : pipeline.instruments.dump_ir_after) dump.after.insert(n);
  for (const auto* names : {&dump.before, &dump.after}) {
    for (const auto& n : *names) {
      RX_CHECK(n == "all" || registry.contains(n))
          << "unknown pass '" << n << "' to dump around; valid passes: all, "
          << join_names(registry.names());
    }
  }
  dump.directory = !opt.dump_dir.empty() ? opt.dump_dir : pipeline.instruments.dump_dir;
  dump.stream = &std::cerr;
  if (!dump.before.empty() || !dump.after.empty())
    ctx.add_instrument(std::make_shared<IRDumpInstrument>(dump));
  bool verify = pipeline.instruments.verify_each.value_or(kVerifyEachByDefault);
  if (opt.verify_each) verify = true;
  if (opt.no_verify_each) verify = false;
  if (verify) ctx.add_instrument(std::make_shared<VerifyInstrument>());
  auto repro = std::make_shared<ReproducerInstrument>(
      opt.reproducer.empty() ? default_reproducer_path() : opt.reproducer);
  ctx.add_instrument(repro);

  IRModule mod = read_module(opt.file, &plugins);
  try {
    mod = run_passes(passes, std::move(mod), ctx);
  } catch (...) {
    if (timing) timing->report(std::cerr);
    if (repro->written()) {
      std::cerr << "relax-driver: note: reproducer written to " << repro->path() << "\n";
    }
    throw;
  }
  if (timing) timing->report(std::cerr);
  write_text(opt.output, print_module_text(mod));
  return kOk;
}

int run(int argc, char** argv) {
  CLI::App app{"relax-driver: parse, optimise, compile and run Relax modules"};
  app.require_subcommand(1);
  app.fallthrough();
  Options opt;
  app.add_option("--plugin", opt.plugins, "load a plugin (a path, or a short name searched for)")
      ->type_name("PATH|NAME");
  app.add_option("--plugin-dir", opt.plugin_dirs, "search DIR for plugins named by short name")
      ->type_name("DIR");

  auto* print = app.add_subcommand("print", "parse a .rx file and print it");
  print->add_option("file", opt.file, "the module (- for stdin)")->required();
  print->add_option("-o,--output", opt.output, "write here instead of stdout");

  auto* optc = app.add_subcommand("opt", "run a pipeline over a .rx file and print the result");
  optc->add_option("file", opt.file, "the module (- for stdin)")->required();
  auto* passes_opt = optc->add_option("--passes", opt.passes, "one-line pipeline: a,b{opt=v},c");
  auto* pipeline_opt = optc->add_option("--pipeline", opt.pipeline_file, "YAML pipeline file");
  passes_opt->excludes(pipeline_opt);
  optc->add_option("-o,--output", opt.output, "write here instead of stdout");
  optc->add_option("-j,--jobs", opt.jobs, "threads for function-level passes (0: all cores)")
      ->check(CLI::NonNegativeNumber);
  optc->add_flag("--time-passes", opt.time_passes, "report the time of each pass on stderr");
  optc->add_option("--dump-ir-before", opt.dump_before, "dump the IR before these passes (or all)")
      ->delimiter(',');
  optc->add_option("--dump-ir-after", opt.dump_after, "dump the IR after these passes (or all)")
      ->delimiter(',');
  optc->add_option("--dump-dir", opt.dump_dir, "write IR dumps to files in DIR instead of stderr");
  auto* ve =
      optc->add_flag("--verify-each", opt.verify_each, "check well-formedness after every pass");
  auto* nve =
      optc->add_flag("--no-verify-each", opt.no_verify_each, "do not check after every pass");
  ve->excludes(nve);
  optc->add_option(
      "--reproducer", opt.reproducer,
      "where to write the reproducer when a pass fails (default: a file in the temp dir)");

  auto* compile = app.add_subcommand("compile", "compile a .rx module into a VM executable (.rxe)");
  compile->add_option("file", opt.compile.input, "the module (.rx)")->required();
  auto* c_passes = compile->add_option("--passes", opt.passes, "one-line pipeline run first");
  auto* c_pipeline =
      compile->add_option("-p,--pipeline", opt.pipeline_file, "YAML pipeline run first");
  c_passes->excludes(c_pipeline);
  compile->add_option("--target", opt.compile.target,
                      "kernel target: llvm[,mcpu=CPU,opt-level=N], tir-interp (default: the "
                      "pipeline's, else llvm)");
  compile->add_option("-o,--output", opt.compile.output, "the executable to write")->required();
  compile->add_flag("--time-passes", opt.compile.time_passes, "report pass and compile times");
  compile->add_flag("--verify-each", opt.compile.verify_each, "check the IR after every pass");
  compile->add_flag("--stats", opt.compile.stats,
                    "print kernel launches and the memory plan's statistics per function");
  compile->add_option("--upper-bound", opt.compile.upper_bounds,
                      "NAME=BOUND: an upper bound of symbolic variable NAME (tir_var_upper_bound "
                      "of every function); memory is planned, and --stats computed, at the bound")
      ->delimiter(',');
  compile->add_option("--specialize", opt.compile.specialize,
                      "NAME=FILE (.npy or .pb): compile a model for this value of input NAME "
                      "where a static value is needed (axes, k, pads...); checked at run time")
      ->type_name("NAME=FILE");

  auto* runc = app.add_subcommand("run", "run a function of an executable (or of a .rx, JIT)");
  runc->add_option("file", opt.run.input,
                   "an executable (.rxe), a module (.rx, .onnx), or an ONNX test directory "
                   "(model.onnx + test_data_set_N/input_K.pb)")
      ->required();
  runc->add_option("--func", opt.run.func, "the function to run (default main)");
  runc->add_option("-i,--input", opt.run.inputs,
                   "NAME=FILE (.npy or .pb), or FILE for the next parameter; random data for "
                   "parameters not given (fixed seed)");
  runc->add_option("--dim", opt.run.dims, "NAME=VALUE: a symbolic dimension of random inputs")
      ->delimiter(',');
  runc->add_option("--output-dir", opt.run.output_dir, "write outputs as output_<i>.npy here");
  runc->add_option("--repeat", opt.run.repeat, "run N times and report the latency")
      ->check(CLI::PositiveNumber);
  runc->add_option("--seed", opt.run.seed, "seed of the random inputs");
  runc->add_option("--print-limit", opt.run.print_limit, "elements printed per output");
  runc->add_option("--target", opt.run.target, "target for a .rx input (default llvm,jit=1)");
  runc->add_flag("--check", opt.run.check,
                 "test directory: compare every output with test_data_set_N/output_K.pb; exit 1 "
                 "on a mismatch");
  runc->add_option("--rtol", opt.run.rtol, "--check: relative tolerance (default 1e-3)");
  runc->add_option("--atol", opt.run.atol, "--check: absolute tolerance (default 1e-4)");
  runc->add_option("--warmup", opt.run.warmup, "untimed runs before the timed ones (default 0)")
      ->check(CLI::NonNegativeNumber);
  runc->add_option("--max-seconds", opt.run.max_seconds,
                   "time budget: warm-up stops after a quarter of it, the timed runs after all of "
                   "it (at least one run each)")
      ->check(CLI::NonNegativeNumber);
  runc->add_flag("--profile", opt.run.profile,
                 "time every kernel and builtin call and print the slowest (per run, to stderr)");
  runc->add_option("--profile-top", opt.run.profile_top,
                   "--profile: how many functions to print (default 25, 0: all)")
      ->check(CLI::NonNegativeNumber);
  runc->add_flag("--json", opt.run.json,
                 "print the latency (and with --check the largest abs error) as one JSON line "
                 "instead of the latency line");
  runc->add_option("--executable", opt.run.executable,
                   "test directory: run this compiled executable (.rxe) on its data sets instead "
                   "of compiling model.onnx")
      ->type_name("FILE.rxe");
  auto* r_passes = runc->add_option("--passes", opt.passes, "one-line pipeline for a .rx input");
  auto* r_pipeline = runc->add_option("-p,--pipeline", opt.pipeline_file, "YAML pipeline for .rx");
  r_passes->excludes(r_pipeline);

  std::string inspect_file;
  auto* inspect = app.add_subcommand("inspect", "show an executable: functions, kernels, "
                                                "constants and bytecode");
  inspect->add_option("file", inspect_file, "the executable (.rxe)")->required();

  auto* passes = app.add_subcommand("passes", "list every registered pass with its options");
  auto* plugins_cmd =
      app.add_subcommand("plugins", "list the loaded plugins and what they registered");
  auto* pipeline =
      app.add_subcommand("pipeline", "print the effective pipeline with every default filled in");
  pipeline->add_option("file", opt.file, "YAML pipeline file");
  pipeline->add_option("--passes", opt.passes, "a one-line pipeline instead of a file");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kOk : kUserError;
  }

  PassRegistry registry;
  register_core_passes(registry);
  PluginManager plugins(registry);
  try {
    load_plugins(plugins, opt);
    if (*print) return cmd_print(opt, plugins);
    if (*optc) return cmd_opt(opt, registry, plugins);
    if (*compile)
      return cmd_compile(opt.compile, exec_pipeline(opt, registry, plugins), registry, plugins);
    if (*runc) return cmd_run(opt.run, exec_pipeline(opt, registry, plugins), registry, plugins);
    if (*inspect) return cmd_inspect(inspect_file);
    if (*passes) return cmd_passes(registry);
    if (*plugins_cmd) return cmd_plugins(plugins);
    if (*pipeline) return cmd_pipeline(opt, registry, plugins);
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
