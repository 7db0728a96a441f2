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
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>

#include "codegen_llvm.h"
#include "relax/support/diagnostic.h"
#include "relax/tir/lower.h"
#include "schedule_rules.h"

extern char** environ;

namespace relax::llvm_backend {

namespace {

void init_llvm() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

std::unique_ptr<llvm::TargetMachine> make_target_machine(const BuildOptions& options) {
  init_llvm();
  std::string triple = options.mtriple.empty() ? llvm::sys::getDefaultTargetTriple() : options.mtriple;
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, error);
  RX_CHECK(target) << "llvm backend: no target for triple '" << triple << "': " << error;
  std::string cpu = options.mcpu;
  std::string features;
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

/// A module for `triple`/`tm` holding the kernel, verified and optimised.
std::unique_ptr<llvm::Module> compile_kernel(llvm::LLVMContext& ctx, const Kernel& kernel,
                                             llvm::TargetMachine& tm, int opt_level,
                                             bool default_schedule = true) {
  auto module = std::make_unique<llvm::Module>(kernel.first, ctx);
  module->setTargetTriple(tm.getTargetTriple().str());
  module->setDataLayout(tm.createDataLayout());
  Ref<tir::PrimFunc> func = kernel.second;
  RX_CHECK(func.defined()) << "llvm backend: kernel '" << kernel.first << "' is null";
  if (default_schedule) func = apply_default_cpu_schedule(func);
  if (!tir::verify_lowered(func).empty()) func = tir::lower(func);
  CodeGenLLVM cg(ctx, *module);
  cg.add_function(kernel.first, func);
  optimize(*module, tm, opt_level);
  return module;
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

/// Compiles every kernel (concurrently, each in its own LLVMContext) and hands each optimised
/// module to `finish`, whose results come back in kernel order; rethrows the first failing
/// kernel's error, in kernel order.
template <class F>
std::vector<std::vector<char>> compile_kernels(const std::vector<Kernel>& kernels,
                                               const BuildOptions& options, F finish) {
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
        auto module =
            compile_kernel(ctx, kernels[i], *tm, options.opt_level, options.default_schedule);
        objects[i] = finish(*module, *tm);
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

BuildOptions BuildOptions::parse(const std::string& text) {
  BuildOptions o;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.empty()) continue;
    auto eq = item.find('=');
    RX_CHECK(eq != std::string::npos) << "llvm target option '" << item << "' is not key=value";
    std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    auto as_int = [&](int lo, int hi) {
      char* end = nullptr;
      long v = std::strtol(value.c_str(), &end, 10);
      RX_CHECK(!value.empty() && *end == '\0' && v >= lo && v <= hi)
          << "llvm target option " << key << "=" << value << ": expected an integer in [" << lo
          << ", " << hi << "]";
      return int(v);
    };
    if (key == "mcpu") o.mcpu = value;
    else if (key == "mtriple") o.mtriple = value;
    else if (key == "opt-level") o.opt_level = as_int(0, 3);
    else if (key == "linker") o.linker = value;
    else if (key == "num-threads") o.num_threads = as_int(0, 1024);
    else if (key == "jit")
      o.jit = as_int(0, 1) == 1;
    else if (key == "schedule") {
      RX_CHECK(value == "default" || value == "none")
          << "llvm target option schedule=" << value << ": expected default or none";
      o.default_schedule = value == "default";
    } else
      RX_THROW() << "unknown llvm target option '" << key
                 << "'; valid: mcpu, mtriple, opt-level, linker, num-threads, schedule, jit";
  }
  return o;
}

std::string emit_llvm_ir(const Kernel& kernel, const BuildOptions& options) {
  auto tm = make_target_machine(options);
  llvm::LLVMContext ctx;
  auto module = compile_kernel(ctx, kernel, *tm, options.opt_level, options.default_schedule);
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os, nullptr);
  return os.str();
}

std::vector<uint8_t> build_bitcode(const std::vector<Kernel>& kernels,
                                   const BuildOptions& options) {
  check_unique_names(kernels);
  auto probe = make_target_machine(options);  // fail early on a bad target
  // The link needs one context: the kernels travel to it as bitcode.
  std::vector<std::vector<char>> parts =
      compile_kernels(kernels, options, [](llvm::Module& module, llvm::TargetMachine&) {
        llvm::SmallVector<char, 0> buffer;
        llvm::raw_svector_ostream os(buffer);
        llvm::WriteBitcodeToFile(module, os);
        return std::vector<char>(buffer.begin(), buffer.end());
      });
  llvm::LLVMContext ctx;
  std::unique_ptr<llvm::Module> linked = support_module(ctx, *probe);
  llvm::Linker linker(*linked);
  for (size_t i = 0; i < parts.size(); ++i) {
    llvm::MemoryBufferRef ref(llvm::StringRef(parts[i].data(), parts[i].size()), kernels[i].first);
    llvm::Expected<std::unique_ptr<llvm::Module>> m = llvm::parseBitcodeFile(ref, ctx);
    RX_ICHECK(static_cast<bool>(m))
        << "llvm backend: kernel '" << kernels[i].first
        << "': cannot read back its bitcode: " << llvm::toString(m.takeError());
    RX_CHECK(!linker.linkInModule(std::move(*m)))
        << "llvm backend: cannot link kernel '" << kernels[i].first << "' into the JIT module";
  }
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::WriteBitcodeToFile(*linked, os);
  return std::vector<uint8_t>(buffer.begin(), buffer.end());
}

std::vector<uint8_t> build(const std::vector<Kernel>& kernels, const BuildOptions& options) {
  check_unique_names(kernels);
  auto probe = make_target_machine(options);  // fail early on a bad target
  std::vector<std::vector<char>> objects = compile_kernels(
      kernels, options,
      [](llvm::Module& module, llvm::TargetMachine& tm) { return emit_object(module, tm); });

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
  return read_file(dir.path() + "/kernels.so");
}

}  // namespace relax::llvm_backend
