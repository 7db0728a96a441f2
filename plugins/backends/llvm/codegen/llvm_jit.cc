// The in-process JIT: the runtime module loader for the "llvm-bc" library format (what
// build_bitcode produces, llvm_build.h), registered by the codegen plugin because it needs
// LLVM. No file and no linker are involved.
//
// Loading parses the bitcode into a fresh LLVMContext, hands the module to an ORC LLJIT for the
// host (object code at -O3; the IR was already optimised by the build), lets the JIT resolve
// libm and libc calls (expf, malloc, ...) against the process, and then points the module's two
// function-pointer globals at the runtime: `__rx_set_last_error` at RxSetLastError and
// `__rx_parallel_for` at RxParallelFor — exactly what the "llvm-so" loader does after dlopen.
// The resulting Module looks kernels up as `__rx_kernel_<name>`; it owns the LLJIT, and every
// function taken from it holds a reference to the Module, so code is never freed under a
// caller.
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>

#include <memory>
#include <mutex>
#include <string>

#include "llvm_build.h"
#include "relax/runtime/c_abi.h"
#include "relax/runtime/module.h"
#include "relax/support/diagnostic.h"

namespace relax::llvm_backend {

namespace {

/// The message of an llvm::Error (consumed).
std::string message_of(llvm::Error error) { return llvm::toString(std::move(error)); }

class JITModule final : public runtime::ModuleObj {
 public:
  explicit JITModule(std::unique_ptr<llvm::orc::LLJIT> jit)
      : ModuleObj(kJITLibraryFormat), jit_(std::move(jit)) {}

  runtime::PackedFunc get_function(std::string_view name) const override {
    std::string symbol = std::string(kKernelSymbolPrefix) + std::string(name);
    llvm::Expected<llvm::orc::ExecutorAddr> addr = [&] {
      std::lock_guard lock(mu_);  // lookups materialise lazily; keep them one at a time
      return jit_->lookup(symbol);
    }();
    if (!addr) {
      llvm::consumeError(addr.takeError());
      return {};
    }
    runtime::PackedFunc inner =
        runtime::PackedFunc::from_c(std::string(name), addr->toPtr<RxPackedCFunc>(), nullptr);
    Ref<runtime::ModuleObj> keep_alive(this);
    return runtime::PackedFunc(std::string(name),
                               [inner, keep_alive](runtime::Args args) { return inner(args); });
  }

 private:
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  mutable std::mutex mu_;
};

void init_native_target() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

runtime::Module load_bitcode(std::span<const uint8_t> bytes) {
  const char* who = "llvm-bc loader";
  init_native_target();
  auto ctx = std::make_unique<llvm::LLVMContext>();
  llvm::MemoryBufferRef ref(
      llvm::StringRef(reinterpret_cast<const char*>(bytes.data()), bytes.size()), "relax-kernels");
  llvm::Expected<std::unique_ptr<llvm::Module>> module = llvm::parseBitcodeFile(ref, *ctx);
  RX_CHECK(static_cast<bool>(module))
      << who << ": the library is not valid LLVM bitcode (" << bytes.size()
      << " bytes): " << message_of(module.takeError());
  for (const char* name : {kSetLastErrorSymbol, kParallelForSymbol}) {
    llvm::GlobalVariable* g = (*module)->getGlobalVariable(name);
    RX_CHECK(g && !g->isDeclaration()) << who << ": the module does not define " << name
                                       << " (not built by the Relax LLVM backend?)";
  }

  llvm::Expected<llvm::orc::JITTargetMachineBuilder> jtmb =
      llvm::orc::JITTargetMachineBuilder::detectHost();
  RX_CHECK(static_cast<bool>(jtmb))
      << who << ": cannot describe the host: " << message_of(jtmb.takeError());
  jtmb->setCodeGenOptLevel(llvm::CodeGenOpt::Aggressive);
  llvm::Expected<std::unique_ptr<llvm::orc::LLJIT>> jit =
      llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(*jtmb)).create();
  RX_CHECK(static_cast<bool>(jit))
      << who << ": cannot create the JIT: " << message_of(jit.takeError());
  llvm::orc::LLJIT& j = **jit;

  // libm, libc: whatever the process has.
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      j.getDataLayout().getGlobalPrefix());
  RX_CHECK(static_cast<bool>(process))
      << who << ": cannot search the process for symbols: " << message_of(process.takeError());
  j.getMainJITDylib().addGenerator(std::move(*process));

  // The module's data layout must be the JIT's (a library built for another -mtriple).
  if ((*module)->getDataLayout() != j.getDataLayout()) {
    RX_THROW() << who << ": the module's data layout '"
               << (*module)->getDataLayout().getStringRepresentation() << "' is not the host's '"
               << j.getDataLayout().getStringRepresentation() << "' (built for another target?)";
  }
  if (llvm::Error e =
          j.addIRModule(llvm::orc::ThreadSafeModule(std::move(*module), std::move(ctx))))
    RX_THROW() << who << ": cannot add the module to the JIT: " << message_of(std::move(e));

  // Materialises the code; a kernel that refers to an unknown function fails here.
  using SetLastError = void (*)(const char*);
  llvm::Expected<llvm::orc::ExecutorAddr> set_error = j.lookup(kSetLastErrorSymbol);
  RX_CHECK(static_cast<bool>(set_error))
      << who << ": cannot compile the module: " << message_of(set_error.takeError());
  *set_error->toPtr<SetLastError*>() = &RxSetLastError;
  llvm::Expected<llvm::orc::ExecutorAddr> parallel = j.lookup(kParallelForSymbol);
  RX_CHECK(static_cast<bool>(parallel))
      << who << ": cannot compile the module: " << message_of(parallel.takeError());
  *parallel->toPtr<decltype(&RxParallelFor)*>() = &RxParallelFor;
  return make_ref<JITModule>(std::move(*jit));
}

}  // namespace

void register_jit_loader() { runtime::register_module_loader(kJITLibraryFormat, &load_bitcode); }

}  // namespace relax::llvm_backend
