// relax-driver run: run a function of an executable, or of a model compiled in process (the
// LLVM JIT by default), on given or random inputs or on an ONNX test directory's data sets;
// report outputs, latency, and with --check the comparison with the references. With --json
// stdout carries the JSON line alone, for scripts; everything else goes to stderr.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <thread>

#include "common/compare.h"
#include "common/devices.h"
#include "common/fma_peak.h"
#include "common/inputs.h"
#include "common/outputs.h"
#include "common/test_dir.h"
#include "driver.h"
#include "progress.h"
#include "relax/arith/analyzer.h"
#include "relax/ir/prim_func.h"
#include "relax/runtime/vm.h"
#include "relax/support/diagnostic.h"
#include "relax/target/build.h"
#include "relax/target/devices.h"
#include "relax/tir/expr_functor.h"
#include "relax/tir/stmt_functor.h"

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
  // --profile counts the timed runs only: a warm-up run holds one-time costs (a GPU driver's
  // pipeline builds, constant uploads, first-touch page faults).
  if (warmup > 0) vm.reset_profile();
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

/// The floating-point work of a kernel: 2 x the iterations of each of its reduction blocks (a
/// multiply-add each: matmul, convolution, pooling; elementwise blocks do not count), in the
/// kernel's symbolic sizes.
tir::PrimExpr reduction_flops(const tir::PrimFunc& f) {
  struct Counter : tir::StmtExprVisitor {
    std::vector<tir::PrimExpr> extents;
    tir::PrimExpr total = tir::int_imm(0);
    using tir::StmtExprVisitor::visit_;
    void visit_(const tir::For* op) override {
      extents.push_back(op->extent);
      tir::StmtExprVisitor::visit_(op);
      extents.pop_back();
    }
    void visit_(const tir::BlockRealize* op) override {
      bool reduce = false;
      for (const auto& iv : op->block->iter_vars) reduce |= iv->type == tir::IterVarType::kReduce;
      if (reduce) {
        tir::PrimExpr n = tir::int_imm(2);
        for (const tir::PrimExpr& e : extents) n = n * e;
        total = total + n;
      }
      tir::StmtExprVisitor::visit_(op);
    }
  } counter;
  counter.visit_stmt(f.body);
  return counter.total;
}

/// What the profile knows of the kernels of a model compiled in process: each kernel's work
/// (reduction_flops) and the values of the symbolic sizes of `func`'s parameters in the last
/// run (by name: the kernels name their sizes as the model's signature does).
struct KernelWork {
  std::map<std::string, tir::PrimExpr> flops;
  std::map<std::string, int64_t> sizes;

  KernelWork(const IRModule& lowered, const std::string& func, const std::vector<Value>& args) {
    for (const IRModule::Entry& e : lowered.functions())
      if (auto* f = e.func.as<tir::PrimFunc>()) flops.emplace(e.gv->name, reduction_flops(*f));
    auto* main = lowered.find(func).as<Function>();
    if (!main) return;
    for (size_t i = 0; i < main->params.size() && i < args.size(); ++i) {
      const TensorStructInfo* t = tensor_info(main->params[i]);
      if (!t || !t->shape || !args[i].is(runtime::ValueKind::kTensor)) continue;
      std::vector<int64_t> shape = args[i].as_tensor().shape();
      for (size_t d = 0; d < t->shape->size() && d < shape.size(); ++d)
        if (auto* v = (*t->shape)[d].as<tir::Var>()) sizes.emplace(v->name, shape[d]);
    }
  }

  /// The FLOPs of one call of `kernel`; -1 when unknown (not a kernel of the module, or a size
  /// the parameters do not give).
  double of(const std::string& kernel) const {
    auto it = flops.find(kernel);
    if (it == flops.end()) return -1;
    tir::PrimExpr e = tir::substitute(it->second, [&](const tir::Var* v) -> tir::PrimExpr {
      auto s = sizes.find(v->name);
      return s == sizes.end() ? tir::PrimExpr() : tir::int_imm(s->second);
    });
    const int64_t* c = tir::as_const_int(arith::simplify(e));
    return c ? double(*c) : -1;
  }
};

/// The fp32 FMA peak of this machine in GFLOP/s for the threads the kernels run on
/// ($RELAX_NUM_THREADS, else every core), from one thread's best of five 20 ms loops in the
/// best ISA it has; 0 where unknown. Cores do not share FMA units.
double machine_peak_gflops(std::string* isa) {
  int lanes = tools::fma_best_lanes();
  double one = tools::fma_peak_gflops(lanes, 1, 0.02, 5);
  *isa = lanes == 16 ? "AVX-512" : lanes == 8 ? "AVX2" : "";
  int threads = int(std::thread::hardware_concurrency());
  if (const char* env = std::getenv("RELAX_NUM_THREADS"); env && std::atoi(env) > 0)
    threads = std::atoi(env);
  return one * std::max(1, threads);
}

/// Kernels below this share of the peak are flagged (when they do at least a MFLOP a call:
/// smaller ones are launch overhead).
constexpr double kLowEfficiency = 0.05;

/// `run --profile`: the `top` slowest packed functions (0: all), per timed run (the warm-up
/// runs are not counted), with their share of the summed call time, on `os`. With `work` (a model
/// compiled in process), each kernel's achieved GFLOP/s and share of the machine's peak, and
/// a flag on the kernels far below it.
void print_profile(const runtime::VirtualMachine& vm, int top, const KernelWork* work,
                   std::ostream& os) {
  std::vector<runtime::CallProfile> calls = vm.profile();
  int64_t runs = std::max<int64_t>(1, vm.profiled_runs());
  double total = 0;
  for (const runtime::CallProfile& c : calls) total += c.seconds;
  size_t shown = top == 0 ? calls.size() : std::min(calls.size(), size_t(top));
  std::string isa;
  double peak = work ? machine_peak_gflops(&isa) : 0;
  os << std::fixed << std::setprecision(3) << "profile: " << calls.size()
     << " functions called, " << total * 1e3 / double(runs) << " ms per run in calls (over "
     << runs << " runs)\n";
  if (peak > 0)
    os << std::setprecision(1) << "  peak: " << peak << " GFLOP/s (" << isa
       << " FMA loop, all threads); GFLOP/s counts 2 per multiply-add of reductions; '<<' "
       << "flags kernels below " << kLowEfficiency * 100 << "% of it\n"
       << std::setprecision(3);
  os << "  " << std::setw(10) << "ms/run" << std::setw(7) << "%" << std::setw(11) << "calls/run";
  if (work) os << std::setw(10) << "GFLOP/s" << std::setw(8) << "%peak";
  os << "  name\n";
  for (size_t i = 0; i < shown; ++i) {
    const runtime::CallProfile& c = calls[i];
    os << "  " << std::setw(10) << c.seconds * 1e3 / double(runs) << std::setw(7)
       << std::setprecision(1) << (total > 0 ? 100 * c.seconds / total : 0.0) << std::setw(11)
       << double(c.calls) / double(runs);
    bool low = false;
    if (work) {
      double flops = work->of(c.name);
      if (flops > 0 && c.seconds > 0) {
        double gflops = flops * double(c.calls) / c.seconds / 1e9;
        os << std::setw(10) << gflops << std::setw(8);
        if (peak > 0) os << 100 * gflops / peak;
        else os << "-";
        low = peak > 0 && flops >= 1e6 && gflops < kLowEfficiency * peak;
      } else {
        os << std::setw(10) << "-" << std::setw(8) << "-";
      }
    }
    os << "  " << c.name << (low ? "  <<" : "") << "\n" << std::setprecision(3);
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
  std::optional<IRModule> lowered;  // --profile of a model compiled here: the kernels' work
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
    CompileResult compiled = run_compile(compiler, options, opt.pipeline.quiet);
    exec = compiled.executable;
    if (opt.profile) lowered = std::move(compiled.lowered);
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
  std::vector<Value> last_args;  // the last run's arguments (their sizes, for --profile)
  if (sets.empty()) {
    last_args =
        tools::to_param_devices(*vm, f, tools::make_inputs({opt.inputs, opt.dims, opt.seed}, f));
    Value result = tools::to_host(invoke_timed(*vm, opt.func, last_args, opt.warmup, opt.repeat,
                                               opt.max_seconds, times, progress));
    tools::report_outputs(result, "", opt.output_dir, opt.print_limit, text);
  }
  for (const tools::TestDataSet& set : sets) {
    std::string name = std::filesystem::path(set.dir).filename().string();
    last_args = tools::to_param_devices(*vm, f, tools::load_test_inputs(set, f));
    Value result = tools::to_host(invoke_timed(*vm, opt.func, last_args, opt.warmup, opt.repeat,
                                               opt.max_seconds, times, progress));
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
  if (opt.profile) {
    std::optional<KernelWork> work;
    if (lowered) work.emplace(*lowered, opt.func, last_args);
    print_profile(*vm, opt.profile_top, work ? &*work : nullptr, std::cerr);
  }
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
