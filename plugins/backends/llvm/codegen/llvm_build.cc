// Building a library: a target machine for the host (or -mcpu), one LLVM module per kernel
// compiled concurrently (each in its own LLVMContext), the -O3 module pipeline of the new pass
// manager, object emission, and the link into one shared object with the system C compiler
// driver; or, in JIT mode, the link of the optimised kernel modules into one bitcode module.
// See llvm_build.h.
#include "llvm_build.h"

#include <fcntl.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/Analysis/TargetTransformInfo.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/Timer.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/Host.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <iomanip>
#include <iostream>
#include <unordered_map>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>

#include "../cpu_features.h"
#include "codegen_llvm.h"
#include "relax/ir/structural_equal.h"
#include "relax/support/diagnostic.h"
#include "relax/support/progress.h"
#include "relax/kernel/lower.h"
#include "schedule_rules.h"

extern char** environ;

namespace relax::llvm_backend {

namespace {

void init_llvm() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    // RELAX_LLVM_OPTIONS="-time-passes -misched=..." passes options to LLVM, as llc would take
    // them: for experiments with the code generator, never needed to build.
    if (const char* env = std::getenv("RELAX_LLVM_OPTIONS")) {
      std::vector<std::string> words{"relax-llvm"};
      std::stringstream ss(env);
      for (std::string w; ss >> w;) words.push_back(w);
      std::vector<const char*> argv;
      for (const auto& w : words) argv.push_back(w.c_str());
      llvm::cl::ParseCommandLineOptions(int(argv.size()), argv.data(), "", &llvm::errs());
    }
  });
}

/// An mcpu LLVM does not know, or one that cannot run code for `triple` (i386 for x86-64),
/// would end in an LLVM fatal error (an abort): refuse it here, naming it.
void check_cpu(const llvm::Target& target, const std::string& triple, const std::string& cpu) {
  std::unique_ptr<llvm::MCSubtargetInfo> sti(target.createMCSubtargetInfo(triple, cpu, ""));
  RX_CHECK(sti) << "llvm backend: cannot describe CPU '" << cpu << "' for triple '" << triple << "'";
  RX_CHECK(sti->isCPUStringValid(cpu))
      << "llvm backend: unknown mcpu '" << cpu << "' for triple '" << triple
      << "' (`llc-15 -mcpu=help` lists the known CPUs; leave mcpu out for the host CPU)";
  if (llvm::Triple(triple).getArch() == llvm::Triple::x86_64 && !sti->checkFeatures("+64bit")) {
    RX_THROW() << "llvm backend: mcpu '" << cpu << "' cannot run 64-bit code, which triple '"
               << triple << "' needs";
  }
}

std::unique_ptr<llvm::TargetMachine> make_target_machine(const BuildOptions& options) {
  init_llvm();
  std::string triple = options.mtriple.empty() ? llvm::sys::getDefaultTargetTriple() : options.mtriple;
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, error);
  RX_CHECK(target) << "llvm backend: no target for triple '" << triple << "': " << error;
  std::string cpu = options.mcpu;
  std::string features;
  if (!cpu.empty()) check_cpu(*target, triple, cpu);
  if (cpu.empty()) {
    cpu = llvm::sys::getHostCPUName().str();
    llvm::StringMap<bool> host;
    if (llvm::sys::getHostCPUFeatures(host)) {
      std::vector<std::string> fs;
      for (const auto& kv : host) fs.push_back((kv.second ? "+" : "-") + kv.getKey().str());
      std::sort(fs.begin(), fs.end());
      for (const auto& f : fs) features += (features.empty() ? "" : ",") + f;
    }
  }
  llvm::TargetOptions to;
  auto level = options.opt_level >= 3   ? llvm::CodeGenOpt::Aggressive
               : options.opt_level == 0 ? llvm::CodeGenOpt::None
                                        : llvm::CodeGenOpt::Default;
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      triple, cpu, features, to, llvm::Reloc::PIC_, llvm::None, level));
  RX_CHECK(tm) << "llvm backend: cannot create a target machine for " << triple << " / " << cpu;
  return tm;
}

/// The vector width the target machine's ISA offers for the schedule: 512 with AVX-512F,
/// 256 with AVX2, else 128 (SSE, NEON, and any target the schedule does not know).
int isa_vector_bits(const llvm::TargetMachine& tm) {
  const llvm::MCSubtargetInfo* sti = tm.getMCSubtargetInfo();
  if (tm.getTargetTriple().isX86()) {
    if (sti->checkFeatures("+avx512f")) return 512;
    if (sti->checkFeatures("+avx2")) return 256;
  }
  return 128;
}

/// `options` with the schedule knobs the target string leaves out sized for `tm`'s ISA (a
/// given vector-bits has sized them already, in BuildOptions::parse).
BuildOptions for_isa(BuildOptions options, const llvm::TargetMachine& tm) {
  if (!std::count(options.schedule_keys.begin(), options.schedule_keys.end(), "vector-bits"))
    options.schedule_options = options.schedule_for(isa_vector_bits(tm));
  return options;
}

void optimize(llvm::Module& module, llvm::TargetMachine& tm, int opt_level) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions pto;
  pto.LoopVectorization = opt_level >= 2;
  pto.SLPVectorization = opt_level >= 2;
  llvm::PassBuilder pb(&tm, pto);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::OptimizationLevel level = opt_level >= 3   ? llvm::OptimizationLevel::O3
                                  : opt_level == 2 ? llvm::OptimizationLevel::O2
                                  : opt_level == 1 ? llvm::OptimizationLevel::O1
                                                   : llvm::OptimizationLevel::O0;
  llvm::ModulePassManager mpm = opt_level == 0 ? pb.buildO0DefaultPipeline(level)
                                               : pb.buildPerModuleDefaultPipeline(level);
  mpm.run(module, mam);
}

/// Where build time goes, summed over the compiling threads (RELAX_LLVM_TIME=1 prints it).
struct PhaseTimes {
  enum Phase { kSchedule, kCodegen, kOptimize, kEmit, kLink, kCount };
  std::atomic<int64_t> ns[kCount] = {};
  std::mutex mutex;
  std::vector<std::pair<double, std::string>> per_kernel;  ///< seconds, kernel

  void kernel_done(const std::string& name, std::chrono::steady_clock::time_point start) {
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::lock_guard<std::mutex> lock(mutex);
    per_kernel.emplace_back(s, name);
  }

  /// Adds the time since `start` to `phase` and restarts `start`.
  void lap(Phase phase, std::chrono::steady_clock::time_point& start) {
    auto now = std::chrono::steady_clock::now();
    ns[phase] += std::chrono::duration_cast<std::chrono::nanoseconds>(now - start).count();
    start = now;
  }
  static bool enabled() {
    const char* env = std::getenv("RELAX_LLVM_TIME");
    return env && *env && std::string(env) != "0";
  }
  void report(size_t kernels, size_t unique, double wall_s) {
    static const char* names[kCount] = {"schedule+lower", "IR generation", "optimisation",
                                        "object emission", "link"};
    std::cerr << "llvm backend: " << kernels << " kernels, " << unique
              << " distinct compiled; wall " << std::fixed << std::setprecision(2) << wall_s
              << " s; summed over threads:";
    for (int p = 0; p < kCount; ++p) std::cerr << " " << names[p] << " " << double(ns[p]) / 1e9 << " s;";
    std::sort(per_kernel.rbegin(), per_kernel.rend());
    std::cerr << "\nllvm backend: slowest kernels:";
    for (size_t i = 0; i < std::min<size_t>(8, per_kernel.size()); ++i)
      std::cerr << " " << per_kernel[i].second << " " << per_kernel[i].first << " s;";
    std::cerr << "\n";
    llvm::TimerGroup::printAll(llvm::errs());  // LLVM's own, with RELAX_LLVM_OPTIONS=-time-passes
  }
};

/// A module for `triple`/`tm` holding the kernel, verified and optimised.
std::unique_ptr<llvm::Module> compile_kernel(llvm::LLVMContext& ctx, const Kernel& kernel,
                                             llvm::TargetMachine& tm, int opt_level,
                                             bool default_schedule = true,
                                             const CpuScheduleOptions& schedule_options = {},
                                             PhaseTimes* times = nullptr) {
  auto start = std::chrono::steady_clock::now();
  auto module = std::make_unique<llvm::Module>(kernel.first, ctx);
  module->setTargetTriple(tm.getTargetTriple().str());
  module->setDataLayout(tm.createDataLayout());
  Ref<tir::PrimFunc> func = kernel.second;
  RX_CHECK(func.defined()) << "llvm backend: kernel '" << kernel.first << "' is null";
  if (default_schedule) func = apply_default_cpu_schedule(func, schedule_options);
  if (!tir::verify_lowered(func).empty()) func = tir::lower(func);
  if (times) times->lap(PhaseTimes::kSchedule, start);
  CodeGenLLVM cg(ctx, *module);
  cg.add_function(kernel.first, func);
  if (times) times->lap(PhaseTimes::kCodegen, start);
  optimize(*module, tm, opt_level);
  if (times) times->lap(PhaseTimes::kOptimize, start);
  // RELAX_LLVM_DUMP=DIR: the scheduled TIR (DIR/NAME.tir) and the optimised IR (DIR/NAME.ll)
  // of every kernel, for looking at what the schedule rules and LLVM made of it.
  if (const char* dir = std::getenv("RELAX_LLVM_DUMP"); dir && *dir) {
    std::ofstream(std::string(dir) + "/" + kernel.first + ".tir") << tir::to_string(func);
    std::error_code ec;
    llvm::raw_fd_ostream ll(std::string(dir) + "/" + kernel.first + ".ll", ec);
    if (!ec) module->print(ll, nullptr);
  }
  return module;
}

/// Exports the code of kernel `name` in `module` under each of `aliases` too (kernels
/// structurally equal to it: see KernelGroup).
void add_aliases(llvm::Module& module, const std::string& name,
                 const std::vector<std::string>& aliases) {
  llvm::Function* f = module.getFunction(kKernelSymbolPrefix + name);
  RX_ICHECK(f) << "llvm backend: kernel '" << name << "' is missing from its module";
  for (const std::string& alias : aliases)
    llvm::GlobalAlias::create(f->getValueType(), f->getAddressSpace(),
                              llvm::GlobalValue::ExternalLinkage, kKernelSymbolPrefix + alias, f,
                              &module);
}

std::vector<char> emit_object(llvm::Module& module, llvm::TargetMachine& tm) {
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  pm.add(new llvm::TargetLibraryInfoWrapperPass(llvm::Triple(module.getTargetTriple())));
  RX_CHECK(!tm.addPassesToEmitFile(pm, os, nullptr, llvm::CGFT_ObjectFile))
      << "llvm backend: the target cannot emit object files";
  pm.run(module);
  return std::vector<char>(buffer.begin(), buffer.end());
}

/// The module that defines what every kernel refers to: the error-reporting and the
/// parallel-launch pointers (null until the loader sets them).
std::unique_ptr<llvm::Module> support_module(llvm::LLVMContext& ctx, llvm::TargetMachine& tm) {
  auto module = std::make_unique<llvm::Module>("relax_support", ctx);
  module->setTargetTriple(tm.getTargetTriple().str());
  module->setDataLayout(tm.createDataLayout());
  auto* ptr = llvm::PointerType::getUnqual(ctx);
  for (const char* name : {kSetLastErrorSymbol, kParallelForSymbol})
    new llvm::GlobalVariable(*module, ptr, false, llvm::GlobalValue::ExternalLinkage,
                             llvm::ConstantPointerNull::get(ptr), name);
  // The CPU features the kernels may use, for the loader to check (cpu_features.h).
  std::string features;
  if (tm.getTargetTriple().getArch() == llvm::Triple::x86_64)
    for (const char* f : llvm_cpu::kFeatures)
      if (tm.getMCSubtargetInfo()->checkFeatures(std::string("+") + f))
        features += (features.empty() ? "" : ",") + std::string(f);
  llvm::Constant* text = llvm::ConstantDataArray::getString(ctx, features, true);
  new llvm::GlobalVariable(*module, text->getType(), true, llvm::GlobalValue::ExternalLinkage,
                           text, llvm_cpu::kFeaturesSymbol);
  return module;
}

std::vector<char> support_object(llvm::TargetMachine& tm) {
  llvm::LLVMContext ctx;
  return emit_object(*support_module(ctx, tm), tm);
}

void check_unique_names(const std::vector<Kernel>& kernels) {
  std::vector<std::string> names;
  for (const auto& k : kernels) names.push_back(k.first);
  std::sort(names.begin(), names.end());
  auto dup = std::adjacent_find(names.begin(), names.end());
  RX_CHECK(dup == names.end()) << "llvm backend: two kernels are named '" << *dup << "'";
}

/// Kernels whose PrimFuncs are structurally equal (same body, buffers and attributes up to
/// variable renaming; the global symbol aside) compile once: models repeat layers (BERT's 12
/// encoder layers, ResNet's blocks) and get one fused kernel per call site. The first kernel of
/// each group is compiled; the others are exported as aliases of its symbol. A kernel's error
/// messages then name the group's first kernel, whose code it runs.
struct KernelGroup {
  Kernel kernel;
  std::vector<std::string> aliases;
};

/// `func` without the attribute naming its symbol, for comparing what kernels compute.
Ref<tir::PrimFunc> without_symbol(const Ref<tir::PrimFunc>& func) {
  if (!func.defined() || !func->attrs.defined() || !func->attrs->has(tir::kAttrGlobalSymbol))
    return func;
  std::vector<std::pair<std::string, AttrValue>> fields;
  for (const auto& kv : func->attrs->fields)
    if (kv.first != tir::kAttrGlobalSymbol) fields.push_back(kv);
  return make_ref<tir::PrimFunc>(func->params, func->body, func->buffer_map,
                                 make_attrs(std::move(fields)), func->ret_type);
}

/// The kernels grouped by structural equality, in the order of their first kernels.
std::vector<KernelGroup> group_kernels(const std::vector<Kernel>& kernels) {
  std::vector<KernelGroup> groups;
  std::vector<Ref<tir::PrimFunc>> keys;
  std::unordered_map<size_t, std::vector<size_t>> by_hash;
  for (const Kernel& k : kernels) {
    Ref<tir::PrimFunc> key = without_symbol(k.second);
    size_t hash = key.defined() ? structural_hash(key, false) : 0;
    std::vector<size_t>& candidates = by_hash[hash];
    auto same = std::find_if(candidates.begin(), candidates.end(), [&](size_t g) {
      return key.defined() && keys[g].defined() && structural_equal(keys[g], key, false);
    });
    if (same != candidates.end()) {
      groups[*same].aliases.push_back(k.first);
      continue;
    }
    candidates.push_back(groups.size());
    groups.push_back({k, {}});
    keys.push_back(key);
  }
  return groups;
}

/// Compiles every group's kernel (concurrently, each in its own LLVMContext), adds its
/// aliases, and hands each optimised module to `finish`, whose results come back in group
/// order; rethrows the first failing kernel's error, in that order.
template <class F>
std::vector<std::vector<char>> compile_kernels(const std::vector<KernelGroup>& kernels,
                                               const BuildOptions& options, F finish,
                                               PhaseTimes* times = nullptr) {
  std::vector<std::vector<char>> objects(kernels.size());
  std::vector<std::exception_ptr> errors(kernels.size());
  std::atomic<size_t> next{0};
  auto worker = [&] {
    // TargetMachine is not thread-safe to share: one per worker.
    std::unique_ptr<llvm::TargetMachine> tm;
    for (size_t i = next++; i < kernels.size(); i = next++) {
      try {
        if (!tm) tm = make_target_machine(options);
        llvm::LLVMContext ctx;
        const Kernel& kernel = kernels[i].kernel;
        auto kernel_start = std::chrono::steady_clock::now();
        auto module = compile_kernel(ctx, kernel, *tm, options.opt_level,
                                     options.default_schedule, options.schedule_options, times);
        add_aliases(*module, kernel.first, kernels[i].aliases);
        auto start = std::chrono::steady_clock::now();
        objects[i] = finish(*module, *tm);
        if (times) times->lap(PhaseTimes::kEmit, start);
        if (times) times->kernel_done(kernel.first, kernel_start);
        // The progress counts functions: this one and those sharing its code.
        for (size_t a = 0; a <= kernels[i].aliases.size(); ++a) progress::item_done();
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  size_t hw = std::max(1u, std::thread::hardware_concurrency());
  size_t n_threads =
      std::min(kernels.size(), options.num_threads > 0 ? size_t(options.num_threads) : hw);
  std::vector<std::thread> threads;
  for (size_t t = 1; t < n_threads; ++t) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);  // the first failing kernel, in order
  return objects;
}

/// A private temporary directory, removed with everything in it on destruction.
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/relax-llvm-XXXXXX";
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    RX_CHECK(mkdtemp(buf.data())) << "llvm backend: cannot create a temporary directory in "
                                  << pattern << ": " << std::strerror(errno);
    path_ = buf.data();
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

void write_file(const std::string& path, const char* data, size_t size) {
  std::ofstream out(path, std::ios::binary);
  out.write(data, std::streamsize(size));
  RX_CHECK(out.good()) << "llvm backend: cannot write " << path;
}

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  RX_CHECK(in.good()) << "llvm backend: cannot read " << path;
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

/// Runs `argv` with stdout and stderr to `log`; returns the exit status (or -1).
int run_process(const std::vector<std::string>& argv, const std::string& log) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return -1000 - rc;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string linker_of(const BuildOptions& options) {
  if (!options.linker.empty()) return options.linker;
  const char* env = std::getenv("RELAX_LLVM_CC");
  return env && *env ? env : "cc";
}

}  // namespace

std::string host_cpu_name() { return llvm::sys::getHostCPUName().str(); }

std::string emit_llvm_ir(const Kernel& kernel, const BuildOptions& given) {
  auto tm = make_target_machine(given);
  BuildOptions options = for_isa(given, *tm);
  llvm::LLVMContext ctx;
  auto module = compile_kernel(ctx, kernel, *tm, options.opt_level, options.default_schedule,
                               options.schedule_options);
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os, nullptr);
  return os.str();
}

std::vector<uint8_t> build_bitcode(const std::vector<Kernel>& kernels,
                                   const BuildOptions& given) {
  check_unique_names(kernels);
  auto wall = std::chrono::steady_clock::now();
  auto probe = make_target_machine(given);  // fail early on a bad target
  BuildOptions options = for_isa(given, *probe);
  std::vector<KernelGroup> groups = group_kernels(kernels);
  PhaseTimes times;
  // The link needs one context: the kernels travel to it as bitcode.
  std::vector<std::vector<char>> parts = compile_kernels(
      groups, options,
      [](llvm::Module& module, llvm::TargetMachine&) {
        llvm::SmallVector<char, 0> buffer;
        llvm::raw_svector_ostream os(buffer);
        llvm::WriteBitcodeToFile(module, os);
        return std::vector<char>(buffer.begin(), buffer.end());
      },
      &times);
  auto start = std::chrono::steady_clock::now();
  llvm::LLVMContext ctx;
  std::unique_ptr<llvm::Module> linked = support_module(ctx, *probe);
  llvm::Linker linker(*linked);
  for (size_t i = 0; i < parts.size(); ++i) {
    const std::string& name = groups[i].kernel.first;
    llvm::MemoryBufferRef ref(llvm::StringRef(parts[i].data(), parts[i].size()), name);
    llvm::Expected<std::unique_ptr<llvm::Module>> m = llvm::parseBitcodeFile(ref, ctx);
    RX_ICHECK(static_cast<bool>(m)) << "llvm backend: kernel '" << name
                                    << "': cannot read back its bitcode: "
                                    << llvm::toString(m.takeError());
    RX_CHECK(!linker.linkInModule(std::move(*m)))
        << "llvm backend: cannot link kernel '" << name << "' into the JIT module";
  }
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::WriteBitcodeToFile(*linked, os);
  times.lap(PhaseTimes::kLink, start);
  if (PhaseTimes::enabled())
    times.report(kernels.size(), groups.size(),
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - wall).count());
  return std::vector<uint8_t>(buffer.begin(), buffer.end());
}

std::vector<uint8_t> build(const std::vector<Kernel>& kernels, const BuildOptions& given) {
  check_unique_names(kernels);
  auto wall = std::chrono::steady_clock::now();
  auto probe = make_target_machine(given);  // fail early on a bad target
  BuildOptions options = for_isa(given, *probe);
  std::vector<KernelGroup> groups = group_kernels(kernels);
  PhaseTimes times;
  std::vector<std::vector<char>> objects = compile_kernels(
      groups, options,
      [](llvm::Module& module, llvm::TargetMachine& tm) { return emit_object(module, tm); },
      &times);
  auto start = std::chrono::steady_clock::now();

  TempDir dir;
  std::vector<std::string> argv{linker_of(options), "-shared", "-o", dir.path() + "/kernels.so"};
  std::vector<char> support = support_object(*probe);
  write_file(dir.path() + "/support.o", support.data(), support.size());
  argv.push_back(dir.path() + "/support.o");
  for (size_t i = 0; i < objects.size(); ++i) {
    std::string path = dir.path() + "/k" + std::to_string(i) + ".o";
    write_file(path, objects[i].data(), objects[i].size());
    argv.push_back(path);
  }
  argv.push_back("-lm");
  std::string log = dir.path() + "/link.log";
  int rc = run_process(argv, log);
  if (rc != 0) {
    std::vector<uint8_t> out = std::filesystem::exists(log) ? read_file(log) : std::vector<uint8_t>{};
    std::string cmd;
    for (const auto& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
    RX_THROW() << "llvm backend: linking the kernels failed ("
               << (rc <= -1000 ? "cannot run '" + argv[0] + "'" : "exit status " + std::to_string(rc))
               << "; set RELAX_LLVM_CC or the linker option to a C compiler driver): " << cmd
               << "\n" << std::string(out.begin(), out.end());
  }
  std::vector<uint8_t> library = read_file(dir.path() + "/kernels.so");
  times.lap(PhaseTimes::kLink, start);
  if (PhaseTimes::enabled())
    times.report(kernels.size(), groups.size(),
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - wall).count());
  return library;
}

}  // namespace relax::llvm_backend
