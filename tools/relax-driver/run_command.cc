// relax-driver run: run a function of an executable, or of a model compiled in process (the
// LLVM JIT by default), on given or random inputs or on an ONNX test directory's data sets;
// report outputs, latency, and with --check the comparison with the references. With --json
// stdout carries the JSON line alone, for scripts; everything else goes to stderr.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <iostream>

#include "common/compare.h"
#include "common/devices.h"
#include "common/inputs.h"
#include "common/outputs.h"
#include "common/test_dir.h"
#include "driver.h"
#include "progress.h"
#include "relax/runtime/vm.h"
#include "relax/support/diagnostic.h"
#include "relax/target/build.h"
#include "relax/target/devices.h"

namespace relax::driver {

namespace {

using runtime::Value;

/// Runs `func` `warmup` times untimed, then `repeat` times, appending each timed run's time
/// (ms) to `times`. With a budget (`max_seconds` > 0) the warm-up stops once it has taken a
/// quarter of it and the timed runs once they have taken all of it, after one run each.
Value invoke_timed(runtime::VirtualMachine& vm, const std::string& func,
                   const std::vector<Value>& args, int warmup, int repeat, double max_seconds,
                   std::vector<double>& times, ProgressLine& progress) {
  using Clock = std::chrono::steady_clock;
  auto seconds_since = [](Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  };
  auto begin = Clock::now();
  for (int w = 0; w < warmup; ++w) {
    progress.show("warm-up " + std::to_string(w + 1) + "/" + std::to_string(warmup));
    vm.invoke(func, args);
    if (max_seconds > 0 && seconds_since(begin) > max_seconds / 4) break;
  }
  Value result;
  begin = Clock::now();
  for (int r = 0; r < repeat; ++r) {
    progress.show("run " + std::to_string(r + 1) + "/" + std::to_string(repeat));
    auto start = Clock::now();
    result = vm.invoke(func, args);
    times.push_back(seconds_since(start) * 1e3);
    if (max_seconds > 0 && seconds_since(begin) > max_seconds) break;
  }
  progress.clear();
  return result;
}

/// `run --profile`: the `top` slowest packed functions (0: all), per run (warm-up runs
/// included), with their share of the summed call time, on `os`.
void print_profile(const runtime::VirtualMachine& vm, int top, std::ostream& os) {
  std::vector<runtime::CallProfile> calls = vm.profile();
  int64_t runs = std::max<int64_t>(1, vm.profiled_runs());
  double total = 0;
  for (const runtime::CallProfile& c : calls) total += c.seconds;
  size_t shown = top == 0 ? calls.size() : std::min(calls.size(), size_t(top));
  os << std::fixed << std::setprecision(3) << "profile: " << calls.size()
     << " functions called, " << total * 1e3 / double(runs) << " ms per run in calls (over "
     << runs << " runs)\n";
  os << "  " << std::setw(10) << "ms/run" << std::setw(7) << "%" << std::setw(11) << "calls/run"
     << "  name\n";
  for (size_t i = 0; i < shown; ++i) {
    const runtime::CallProfile& c = calls[i];
    os << "  " << std::setw(10) << c.seconds * 1e3 / double(runs) << std::setw(7)
       << std::setprecision(1) << (total > 0 ? 100 * c.seconds / total : 0.0) << std::setw(11)
       << double(c.calls) / double(runs) << "  " << c.name << "\n"
       << std::setprecision(3);
  }
  if (shown < calls.size()) os << "  ... " << calls.size() - shown << " more\n";
}

/// `run --json` keeps stdout for the JSON line: while this lives, whatever else is written to
/// std::cout (the program's R.print, a plugin) goes to stderr. The JSON goes to stdout_buf().
class StdoutToStderr {
 public:
  explicit StdoutToStderr(bool active) : saved_(std::cout.rdbuf()) {
    if (!active) return;
    std::cout.flush();
    std::cout.rdbuf(std::cerr.rdbuf());
  }
  ~StdoutToStderr() { std::cout.rdbuf(saved_); }
  StdoutToStderr(const StdoutToStderr&) = delete;
  StdoutToStderr& operator=(const StdoutToStderr&) = delete;
  std::streambuf* stdout_buf() const { return saved_; }

 private:
  std::streambuf* saved_;
};

}  // namespace

int cmd_run(Compiler& compiler, const RunCommand& opt) {
  StdoutToStderr redirect(opt.json);
  std::ostream json(redirect.stdout_buf());
  // Outputs, verdicts and the summary: stdout, or stderr beside --json.
  std::ostream& text = opt.json ? std::cerr : std::cout;
  RX_CHECK(opt.repeat >= 1) << "--repeat must be at least 1, got " << opt.repeat;
  // With --executable the model itself is not needed: test data sets alone make a test
  // directory (a deployment copies the .rxe and the data, not the model).
  bool test_dir = tools::is_onnx_test_dir(opt.input) ||
                  (!opt.executable.empty() && std::filesystem::is_directory(opt.input) &&
                   !tools::find_test_data_sets(opt.input).empty());
  RX_CHECK(test_dir || !std::filesystem::is_directory(opt.input))
      << "run: " << opt.input
      << " is a directory without model.onnx; expected the ONNX test layout (model.onnx and "
         "test_data_set_N/input_K.pb)";
  std::vector<tools::TestDataSet> sets;
  if (test_dir) sets = tools::find_test_data_sets(opt.input);
  RX_CHECK(!opt.check || !sets.empty())
      << "run --check: " << opt.input
      << (test_dir ? " has no test_data_set_N directories to compare with"
                   : " is not a test directory (model.onnx and test_data_set_N/output_K.pb)");
  RX_CHECK(sets.empty() || opt.inputs.empty())
      << "run: --input cannot be combined with the test data sets of " << opt.input
      << " (their input_K.pb files are the inputs)";
  RX_CHECK(opt.executable.empty() || test_dir)
      << "run --executable " << opt.executable
      << ": only with a test directory (model.onnx and test_data_set_N/), got " << opt.input;
  std::string model = !test_dir                 ? opt.input
                      : !opt.executable.empty() ? opt.executable
                                                : (std::filesystem::path(opt.input) / "model.onnx").string();

  Ref<runtime::Executable> exec;
  trace::Recorder recorder;
  trace::Recorder* tracer = opt.pipeline.trace.empty() ? nullptr : &recorder;
  // An executable runs as it is; anything else (.rx, a model a frontend reads) is compiled in
  // process, by default for the LLVM JIT.
  bool is_exe = model.size() >= 4 && model.compare(model.size() - 4, 4, ".rxe") == 0;
  if (!is_exe) {
    CompileOptions options = to_compile_options(opt.pipeline, "");
    options.input = model;
    // A model is specialised on the small integer inputs given (the first data set's of a
    // test directory), where its importer needs static values; guards check them at run time.
    bool is_rx = model.size() >= 3 && model.compare(model.size() - 3, 3, ".rx") == 0;
    if (!is_rx) {
      for (const auto& [k, v] : tools::input_value_options(sets.empty() ? opt.inputs : sets[0].inputs))
        options.frontend_options.emplace(k, v);
    }
    options.jit = true;  // run in this process
    options.trace = tracer;
    exec = run_compile(compiler, options, opt.pipeline.quiet).executable;
  } else {
    double load_start = trace::now_us();
    exec = runtime::Executable::load_from_file(model);
    if (tracer) tracer->complete("load " + model, "compile", load_start);
  }
  target::register_tir_interp_loader();  // core's kernel library format; backends' come as plugins
  target::register_interp_gpu_device();   // the interpreter's GPU device ("tir-interp,gpu=1")
  int64_t index = exec->find_function(opt.func);
  RX_CHECK(index >= 0 && exec->functions[size_t(index)].kind == runtime::FunctionKind::kBytecode)
      << "the executable has no function named " << opt.func;
  const runtime::FunctionInfo& f = exec->functions[size_t(index)];
  runtime::VMOptions vm_options;
  vm_options.profile = opt.profile;
  vm_options.trace = tracer;
  // The executable's devices; arguments go to their parameters' devices and results come back
  // to the host, so the caller deals in host tensors only.
  auto vm = runtime::VirtualMachine::create(exec, {}, vm_options);

  std::vector<double> times;
  ProgressLine progress(opt.pipeline.quiet || opt.json);
  int mismatched_sets = 0;
  double max_err = 0;  // --check --json: over every output of every data set
  if (sets.empty()) {
    Value result = tools::to_host(invoke_timed(
        *vm, opt.func,
        tools::to_param_devices(*vm, f, tools::make_inputs({opt.inputs, opt.dims, opt.seed}, f)),
        opt.warmup, opt.repeat, opt.max_seconds, times, progress));
    tools::report_outputs(result, "", opt.output_dir, opt.print_limit, text);
  }
  for (const tools::TestDataSet& set : sets) {
    std::string name = std::filesystem::path(set.dir).filename().string();
    Value result = tools::to_host(
        invoke_timed(*vm, opt.func,
                     tools::to_param_devices(*vm, f, tools::load_test_inputs(set, f)),
                     opt.warmup, opt.repeat, opt.max_seconds, times, progress));
    std::string dir =
        opt.output_dir.empty() ? "" : (std::filesystem::path(opt.output_dir) / name).string();
    // With --check the verdicts replace the printed values.
    tools::report_outputs(result, name + " ", dir, opt.check ? -1 : opt.print_limit, text);
    if (opt.check && !tools::check_outputs(result, set, opt.rtol, opt.atol, text))
      ++mismatched_sets;
    if (opt.check && opt.json) {
      double err = tools::max_abs_error(result, set);
      max_err = std::isnan(err) ? err : std::max(max_err, err);  // NaN sticks
    }
  }
  // The first run includes one-time costs (first touches, lazy allocations): without warm-up
  // runs it is reported apart from the steady ones.
  std::vector<double> steady(times.begin() + (opt.warmup > 0 ? 0 : 1), times.end());
  std::sort(steady.begin(), steady.end());
  double mean = 0;
  for (double t : steady) mean += t;
  mean /= double(std::max<size_t>(1, steady.size()));
  if (opt.json) {
    // One line for scripts (bench/compare.sh); NaN (outputs that do not line up) is null.
    json << std::fixed << std::setprecision(3) << "{\"first_ms\":" << times[0]
         << ",\"warmup\":" << opt.warmup << ",\"runs\":" << steady.size();
    if (!steady.empty())
      json << ",\"median_ms\":" << steady[steady.size() / 2] << ",\"min_ms\":" << steady.front()
           << ",\"mean_ms\":" << mean;
    if (opt.check) {
      json << ",\"match\":" << (mismatched_sets == 0 ? "true" : "false") << ",\"max_abs_err\":";
      if (!std::isfinite(max_err))
        json << "null";
      else
        json << std::scientific << std::setprecision(3) << max_err;
    }
    json << "}" << std::endl;
  } else {
    std::cout << std::fixed << std::setprecision(3) << "latency: ";
    if (opt.warmup > 0) std::cout << "after " << opt.warmup << " warm-up runs";
    else std::cout << "first " << times[0] << " ms";
    if (!steady.empty())
      std::cout << "; over " << steady.size() << (opt.warmup > 0 ? "" : " more") << " runs: mean "
                << mean << " ms, median " << steady[steady.size() / 2] << " ms, min "
                << steady.front() << " ms";
    std::cout << "\n";
  }
  if (opt.profile) print_profile(*vm, opt.profile_top, std::cerr);
  if (tracer) recorder.write_file(opt.pipeline.trace);
  if (opt.check) {
    text << "check: " << (sets.size() - size_t(mismatched_sets)) << " of " << sets.size()
         << " test data sets match (rtol " << std::defaultfloat << opt.rtol << ", atol " << opt.atol
         << ")\n";
    if (mismatched_sets > 0) return 1;
  }
  return 0;
}

}  // namespace relax::driver
