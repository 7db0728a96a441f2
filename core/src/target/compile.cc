// The compile API (relax/target/compile.h): a Compiler session, pipelines by name, file or
// line, the instruments, and the stages import -> passes -> codegen.
#include "relax/target/compile.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <type_traits>

#include "gpu_compile.h"
#include "relax/support/diagnostic.h"
#include "relax/support/progress.h"
#include "relax/target/build.h"
#include "relax/target/target.h"
#include "relax/target/targets.h"
#include "relax/text/parser.h"
#include "relax/transform/codegen.h"
#include "relax/transform/core_passes.h"
#include "relax/transform/instruments.h"
#include "relax/transform/plugin.h"
#include "relax/vm/codegen.h"
#include "relax/vm/passes.h"
#include "relax/vm/vm_ops.h"

namespace relax {

namespace detail {
// Generated from config/pipelines/*.yaml (core/embed_pipelines.cmake).
extern const std::pair<std::string_view, std::string_view> kBuiltinPipelines[];
extern const int kNumBuiltinPipelines;
}  // namespace detail

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// The pipeline's passes, then the passes of the minimum build it does not contain; run-codegen
/// (BYOC offload, relax/transform/codegen.h) goes before the first legalize-ops and lambda-lift
/// first (after a leading normalize) when absent.
std::vector<transform::Pass> complete_pipeline(const transform::Pipeline& pipeline,
                                               const transform::PassRegistry& registry) {
  std::vector<transform::Pass> passes = pipeline.build(registry);
  auto has = [&](const std::string& name) {
    return std::any_of(pipeline.passes.begin(), pipeline.passes.end(),
                       [&](const transform::PassSpec& s) { return s.name == name; });
  };
  if (!has("run-codegen")) {
    auto legalize = std::find_if(passes.begin(), passes.end(), [](const transform::Pass& p) {
      return p.info().name == "legalize-ops";
    });
    passes.insert(legalize, registry.create("run-codegen"));
  }
  // lambda-lift goes first (after a leading normalize): the passes after it, and the VM
  // lowering, expect no local functions.
  if (!has("lambda-lift")) {
    bool after_normalize = !passes.empty() && passes.front().info().name == "normalize";
    passes.insert(passes.begin() + (after_normalize ? 1 : 0), registry.create("lambda-lift"));
  }
  for (const std::string& name : vm::minimum_build_passes()) {
    if (!has(name) && name != "lambda-lift") passes.push_back(registry.create(name));
  }
  return passes;
}

/// Every stage timed: passes through the timing instrument, the rest by compile() itself.
struct StageClock {
  bool on = false;
  std::vector<StageTime>* out = nullptr;
  const std::function<void(const std::string&)>* progress = nullptr;
  template <class F>
  auto run(const std::string& stage, F&& f) {
    if (progress && *progress) (*progress)(stage);
    Clock::time_point start = Clock::now();
    double start_us = trace::now_us();
    if constexpr (std::is_void_v<decltype(f())>) {
      f();
      if (on) out->push_back({stage, ms_since(start), start_us});
    } else {
      auto r = f();
      if (on) out->push_back({stage, ms_since(start), start_us});
      return r;
    }
  }
};

/// Reports "pass i/n name" before each pass.
class ProgressInstrument : public transform::PassInstrument {
 public:
  explicit ProgressInstrument(std::function<void(const std::string&)> report)
      : report_(std::move(report)) {}
  std::string name() const override { return "progress"; }
  void begin_pipeline(const std::vector<transform::Pass>& passes, const IRModule&) override {
    total_ = passes.size();
    done_ = 0;
  }
  void before_pass(const transform::Pass& pass, const IRModule&) override {
    report_("pass " + std::to_string(++done_) + "/" + std::to_string(total_) + " " + pass.name());
  }

 private:
  std::function<void(const std::string&)> report_;
  size_t total_ = 0, done_ = 0;
};

}  // namespace

void register_core_passes(transform::PassRegistry& registry) {
  transform::register_transform_passes(registry);
  vm::register_vm_passes(registry);
  target::register_gpu_passes(registry);
  register_core_target_kinds(registry.target_kinds());
}

transform::PassRegistry make_core_registry() {
  transform::PassRegistry registry;
  register_core_passes(registry);
  return registry;
}

std::vector<std::string> builtin_pipeline_names() {
  std::vector<std::string> names;
  for (int i = 0; i < detail::kNumBuiltinPipelines; ++i)
    names.emplace_back(detail::kBuiltinPipelines[i].first);
  std::sort(names.begin(), names.end());
  return names;
}

std::optional<std::string_view> builtin_pipeline_text(std::string_view name) {
  for (int i = 0; i < detail::kNumBuiltinPipelines; ++i)
    if (detail::kBuiltinPipelines[i].first == name) return detail::kBuiltinPipelines[i].second;
  return std::nullopt;
}

// ---- Compiler.

Compiler::Compiler(const std::vector<std::string>& plugin_dirs)
    : registry_(std::make_unique<transform::PassRegistry>()) {
  register_core_passes(*registry_);
  plugins_ = std::make_unique<transform::PluginManager>(*registry_);
  for (const std::string& dir : plugin_dirs) plugins_->add_search_dir(dir);
}

Compiler::~Compiler() = default;

void Compiler::load_plugin(const std::string& path_or_name) { plugins_->load(path_or_name); }

transform::Pipeline Compiler::pipeline(const std::string& spec_in) {
  std::string spec = spec_in.empty() ? kDefaultPipeline : spec_in;
  if (std::optional<std::string_view> text = builtin_pipeline_text(spec)) {
    return transform::parse_pipeline_yaml(std::string(*text), "built-in pipeline '" + spec + "'",
                                          *registry_, plugins_.get());
  }
  std::error_code ec;
  bool is_file = ends_with(spec, ".yaml") || ends_with(spec, ".yml") ||
                 std::filesystem::is_regular_file(spec, ec);
  if (is_file) {
    RX_CHECK(std::filesystem::is_regular_file(spec, ec))
        << "cannot read the pipeline file '" << spec
        << "'; a pipeline is a built-in name (" << transform::join_names(builtin_pipeline_names())
        << "), a YAML file or a one-line pass list";
    return transform::load_pipeline_file(spec, *registry_, plugins_.get());
  }
  return transform::parse_pipeline_line(spec, *registry_);
}

IRModule Compiler::import(const std::string& path, const transform::FrontendOptions& options) {
  if (path == "-") {
    std::stringstream ss;
    ss << std::cin.rdbuf();
    return parse_module(ss.str(), "<stdin>");
  }
  std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".rx" || ext == ".py") return parse_module_file(path);
  return transform::find_frontend_for(path, *plugins_).import(path, options);
}

CompileResult Compiler::compile(const CompileOptions& options) {
  Clock::time_point start = Clock::now();
  double start_us = trace::now_us();
  CompileResult result;
  plugins_->set_on_demand(options.plugins_on_demand);
  std::vector<std::string> dirs = plugins_->search_dirs();
  for (const std::string& dir : options.plugin_dirs)
    if (std::find(dirs.begin(), dirs.end(), dir) == dirs.end()) plugins_->add_search_dir(dir);
  for (const std::string& p : options.plugins) plugins_->load(p);

  transform::Pipeline pipeline = this->pipeline(options.pipeline);
  const transform::InstrumentSpec& wanted = pipeline.instruments;
  result.time_passes = options.time_passes || wanted.time_passes;
  StageClock clock{result.time_passes || options.trace != nullptr, &result.stages,
                   &options.progress};
  // Backends count the kernels they finish ("codegen llvm: kernels 12/42").
  progress::ReporterScope progress_scope(options.progress);

  result.target = !options.target.empty()  ? options.target
                  : !pipeline.target.empty() ? pipeline.target
                                             : kDefaultTarget;
  Target target = Target::parse(result.target);
  if (options.jit && options.target.empty() && target.kind == "llvm" && !target.attr("jit")) {
    target.attrs.emplace_back("jit", "1");
    result.target = target.str();
  }
  // Validated before any pass runs, so that a bad attribute fails fast listing the valid ones.
  // Only opt (passes_only) with the pipeline's target may skip it: nothing is built for it.
  bool gpu = false;
  Target host_target;
  if (!options.passes_only || !options.target.empty()) {
    target = resolve_target(result.target, *plugins_);
    gpu = transform::is_gpu(target, find_target_kind(target.kind, *plugins_));
    result.host = !options.host.empty() ? options.host : pipeline.host;
    if (result.host.empty() && gpu)
      result.host = target.kind == kTirInterpTarget ? kTirInterpTarget : kDefaultHost;
    if (!result.host.empty()) {
      Target host = host_target = resolve_target(result.host, *plugins_);
      RX_CHECK(!transform::is_gpu(host, find_target_kind(host.kind, *plugins_)))
          << "host target \"" << result.host
          << "\" is a GPU target; the host target compiles for the CPU";
    }
  }

  IRModule mod;
  if (options.module) {
    mod = *options.module;
  } else {
    RX_CHECK(!options.input.empty()) << "compile: no input: give a module or a file";
    mod = clock.run("import " + std::filesystem::path(options.input).filename().string(),
                    [&] { return import(options.input, options.frontend_options); });
  }
  set_upper_bounds(mod, options.upper_bounds);
  if (gpu) mod = target::add_gpu_vdevices(std::move(mod), target, host_target);

  std::vector<transform::Pass> passes =
      options.passes_only ? pipeline.build(*registry_) : complete_pipeline(pipeline, *registry_);
  if (gpu) passes = target::with_gpu_passes(std::move(passes), *registry_, mod, target);
  if (!options.stop_after.empty()) {
    RX_CHECK(options.passes_only) << "stop_after needs passes_only";
    auto it = std::find_if(passes.begin(), passes.end(), [&](const transform::Pass& p) {
      return p.name() == options.stop_after;
    });
    if (it == passes.end()) {
      std::vector<std::string> names;
      for (const transform::Pass& p : passes) names.push_back(p.name());
      RX_THROW() << "--after " << options.stop_after << ": the pipeline does not run this pass; it runs "
                 << transform::join_names(names);
    }
    passes.erase(it + 1, passes.end());
  }
  result.pipeline = transform::Sequential(passes).to_string();

  transform::PassContext ctx;
  ctx.set_jobs(options.jobs);
  if (options.progress) ctx.add_instrument(std::make_shared<ProgressInstrument>(options.progress));
  std::shared_ptr<transform::TimingInstrument> timing;
  if (clock.on) {
    timing = std::make_shared<transform::TimingInstrument>();
    ctx.add_instrument(timing);
  }
  transform::IRDumpInstrument::Options dump;
  for (const auto* names : {&options.dump_ir_before, &wanted.dump_ir_before})
    dump.before.insert(names->begin(), names->end());
  for (const auto* names : {&options.dump_ir_after, &wanted.dump_ir_after})
    dump.after.insert(names->begin(), names->end());
  for (const auto* names : {&dump.before, &dump.after}) {
    for (const std::string& n : *names) {
      RX_CHECK(n == "all" || registry_->find_or_provide(n))
          << "unknown pass '" << n << "' to dump around; valid passes: all, "
          << transform::join_names(registry_->names());
    }
  }
  dump.directory = !options.dump_dir.empty() ? options.dump_dir : wanted.dump_dir;
  dump.stream = options.log ? options.log : &std::cerr;
  dump.show_constants = options.dump_constants;
  if (!dump.before.empty() || !dump.after.empty())
    ctx.add_instrument(std::make_shared<transform::IRDumpInstrument>(dump));
  if (options.verify_each.value_or(wanted.verify_each.value_or(transform::kVerifyEachByDefault)))
    ctx.add_instrument(std::make_shared<transform::VerifyInstrument>());
  if (!options.reproducer.empty())
    ctx.add_instrument(std::make_shared<transform::ReproducerInstrument>(options.reproducer));

  double passes_start_us = trace::now_us();
  Clock::time_point passes_start = Clock::now();
  result.lowered = transform::run_passes(passes, std::move(mod), ctx);
  if (timing) {
    // What is not a stage of its own: the set-up before the passes (pipeline, plugins, targets;
    // the import excluded) and the instruments run around the passes (verify-each, dumps).
    double before = std::chrono::duration<double, std::milli>(passes_start - start).count();
    for (const StageTime& s : result.stages) before -= s.ms;
    result.stages.insert(result.stages.begin(),
                         {"set-up (pipeline, plugins, targets)", std::max(0.0, before), start_us});
    double passes_ms = ms_since(passes_start), in_passes = 0;
    for (const auto& e : timing->entries()) {
      result.stages.push_back({"pass " + e.pass, e.ms, e.start_us});
      in_passes += e.ms;
    }
    result.stages.push_back({"instruments (verify-each, IR dumps)",
                             std::max(0.0, passes_ms - in_passes), passes_start_us});
  }
  if (options.stats) {
    result.stats = compile_stats(result.lowered);
    // Where BYOC codegens sent functions (run-codegen).
    const AttrValue* off =
        result.lowered.attrs().defined() ? result.lowered.attrs()->find(transform::kOffloadedAttr) : nullptr;
    if (off)
      for (const std::string& line : std::get<std::vector<std::string>>(*off))
        result.stats += "offload: " + line + "\n";
  }

  if (!options.passes_only) {
    vm::register_vm_ops();
    size_t kernels = 0;
    for (const IRModule::Entry& e : result.lowered.functions())
      kernels += e.func.is<tir::PrimFunc>() ? 1 : 0;
    std::vector<runtime::Library> libraries;
    target::GpuBuildReport gpu_report;
    if (gpu) {
      libraries = clock.run(
          "codegen " + target.kind + " + host " + host_target.kind + " (" +
              std::to_string(kernels) + " kernels)",
          [&] {
            return target::build_device_libraries(result.lowered, target, host_target,
                                                  *plugins_, gpu_report);
          });
      result.warnings = gpu_report.warnings;
      if (options.stats) result.stats += gpu_report.summary() + "\n";
    } else {
      libraries.push_back(clock.run(
          "codegen " + target.kind + " (" + std::to_string(kernels) + " kernels)",
          [&] { return build_kernel_library(result.lowered, target, *plugins_); }));
    }
    // Libraries of BYOC codegens (run-codegen), on the host: the VM resolves their symbols.
    for (auto& [format, bytes] : transform::external_libraries(result.lowered))
      libraries.push_back(runtime::Library{format, std::move(bytes), 0});
    result.executable = clock.run("vm codegen", [&] {
      return gpu ? vm::vm_codegen(result.lowered, std::move(libraries),
                                  target::device_resolver(*plugins_))
                 : vm::vm_codegen(result.lowered, std::move(libraries));
    });
  }
  result.total_ms = ms_since(start);
  if (options.trace) {
    for (const StageTime& s : result.stages) {
      // The two remainders are not one interval each: the compile event covers them.
      if (s.stage.rfind("set-up", 0) == 0 || s.stage.rfind("instruments", 0) == 0) continue;
      bool pass = s.stage.rfind("pass ", 0) == 0;
      trace::Event e;
      e.name = pass ? s.stage.substr(5) : s.stage;
      e.category = pass ? "pass" : s.stage.rfind("codegen", 0) == 0 ? "codegen" : "compile";
      e.start_us = s.start_us;
      e.dur_us = s.ms * 1000;
      e.tid = trace::thread_index();
      options.trace->add(std::move(e));
    }
    options.trace->complete("compile", "compile", start_us,
                            {{"target", result.target}, {"host", result.host}});
  }
  return result;
}

CompileResult compile(const CompileOptions& options) {
  Compiler compiler(options.plugin_dirs);
  return compiler.compile(options);
}

void CompileResult::report_timing(std::ostream& os) const {
  double sum = 0;
  os << "===- Compile timing report -===\n" << std::fixed << std::setprecision(2);
  for (const StageTime& s : stages) {
    sum += s.ms;
    os << "  " << std::setw(10) << s.ms << " ms  " << std::setw(5)
       << (total_ms > 0 ? 100.0 * s.ms / total_ms : 0.0) << "%  " << s.stage << "\n";
  }
  os << "  " << std::setw(10) << sum << " ms  in the stages above\n";
  os << "  " << std::setw(10) << total_ms << " ms  total compile time\n";
}

}  // namespace relax
