// relax-driver compile: a model (.rx, .onnx, any frontend's file) to an executable (.rxe),
// and the compile options every compiling command shares.
#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "driver.h"
#include "progress.h"
#include "relax/support/diagnostic.h"

namespace relax::driver {

namespace {

std::string default_reproducer_path() {
  auto dir = std::filesystem::temp_directory_path();
  return (dir / ("relax-reproducer-" + std::to_string(::getpid()) + ".rx")).string();
}

/// --specialize NAME=FILE -> the frontend option value.NAME=FILE.
transform::FrontendOptions specialize_options(const std::vector<std::string>& specs) {
  transform::FrontendOptions values;
  for (const std::string& spec : specs) {
    size_t eq = spec.find('=');
    RX_CHECK(eq != std::string::npos && eq > 0 && eq + 1 < spec.size())
        << "--specialize " << spec << ": expected NAME=FILE";
    values["value." + spec.substr(0, eq)] = spec.substr(eq + 1);
  }
  return values;
}

}  // namespace

CompileOptions to_compile_options(const PipelineOptions& p, const std::string& default_target) {
  int given = int(!p.pipeline.empty()) + int(!p.passes.empty()) + int(p.o0);
  RX_CHECK(given <= 1) << "give one of -p/--pipeline, --passes and -O0, not several";
  CompileOptions o;
  o.pipeline = p.o0 ? "o0" : !p.passes.empty() ? p.passes : p.pipeline;
  o.target = p.target.empty() ? default_target : p.target;
  o.host = p.host;
  o.jobs = p.jobs;
  o.time_passes = p.time_passes;
  if (p.verify_each) o.verify_each = true;
  if (p.no_verify_each) o.verify_each = false;
  for (const std::string& n : p.dump_before) o.dump_ir_before.push_back(n);
  for (const std::string& n : p.dump_after) o.dump_ir_after.push_back(n);
  o.dump_dir = p.dump_dir;
  o.dump_constants = p.show_constants;
  o.reproducer = p.reproducer.empty() ? default_reproducer_path() : p.reproducer;
  o.stats = p.stats;
  o.upper_bounds = p.upper_bounds;
  o.frontend_options = specialize_options(p.specialize);
  return o;
}

CompileResult run_compile(Compiler& compiler, const CompileOptions& options, bool quiet) {
  CompileResult result;
  ProgressLine progress(quiet);
  CompileOptions with_progress = options;
  if (progress.enabled())
    with_progress.progress = [&progress](const std::string& stage) { progress.show(stage); };
  try {
    result = compiler.compile(with_progress);
    progress.clear();
  } catch (...) {
    progress.clear();
    std::error_code ec;
    if (!options.reproducer.empty() && std::filesystem::exists(options.reproducer, ec))
      std::cerr << "relax-driver: note: reproducer written to " << options.reproducer << "\n";
    throw;
  }
  for (const std::string& w : result.warnings) std::cerr << "relax-driver: warning: " << w << "\n";
  if (!result.stats.empty()) std::cerr << result.stats;
  if (result.time_passes) result.report_timing(std::cerr);
  return result;
}

int cmd_compile(Compiler& compiler, const CompileCommand& cmd) {
  RX_CHECK(!cmd.output.empty()) << "compile: give the output executable with -o OUT.rxe";
  CompileOptions options = to_compile_options(cmd.pipeline, "");
  options.input = cmd.input;
  trace::Recorder recorder;
  if (!cmd.pipeline.trace.empty()) options.trace = &recorder;
  CompileResult result = run_compile(compiler, options, cmd.pipeline.quiet);
  double save_start = trace::now_us();
  {
    ProgressLine progress(cmd.pipeline.quiet);
    progress.show("writing " + cmd.output);
    result.executable->save_to_file(cmd.output);
  }
  if (options.trace) {
    recorder.complete("write " + std::filesystem::path(cmd.output).filename().string(), "compile",
                      save_start);
    recorder.write_file(cmd.pipeline.trace);
  }
  std::cerr << "relax-driver: wrote " << cmd.output << " (target " << result.target
            << (result.host.empty() ? "" : ", host " + result.host) << ")\n";
  return kOk;
}

}  // namespace relax::driver
