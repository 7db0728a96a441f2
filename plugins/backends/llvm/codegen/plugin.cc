// The LLVM codegen plugin (librelax-llvm.so): registers the target kind "llvm" (its attribute
// schema: what BuildOptions::parse reads) through the registrar, and the backend's build
// functions as global packed functions, the way the compiler's target layer and tests reach a
// backend without linking it:
//   relax.backend.llvm.build(options: str, name0: str, func0: PrimFunc, name1, func1, ...)
//       -> (format: str, bytes: str)     the "llvm-so" library holding the kernels, or with
//                                        jit=1 the "llvm-bc" bitcode of one module
//                                        holding them
//   relax.backend.llvm.emit_ir(options: str, name: str, func: PrimFunc) -> str
//       the optimised LLVM IR of one kernel (for dumps and tests)
//   relax.backend.llvm.host_cpu() -> str
//   relax.backend.llvm.default_schedule(func: PrimFunc[, options: str]) -> PrimFunc
//       the function with the default CPU schedule applied (schedule_rules.h), as build() does
//       with the same options (their schedule knobs: mr, nr, kc, ...)
// `options` is the target's attribute string ("mcpu=skylake,opt-level=3"; see
// BuildOptions::parse). The module loader for "llvm-so" lives in librelax-llvm-runtime.so;
// the loader for "llvm-bc" (the in-process JIT, llvm_jit.cc) is registered here, since it needs
// LLVM.
#include "relax/sdk/plugin.h"

#include "llvm_build.h"
#include "relax/runtime/registry.h"
#include "schedule_rules.h"

namespace relax::llvm_backend {
namespace {

using runtime::Args;
using runtime::Value;

std::vector<Kernel> kernels_of(const char* fn, Args args, size_t first) {
  RX_CHECK((args.size() - first) % 2 == 0)
      << fn << ": expected (options, name, PrimFunc, name, PrimFunc, ...), got " << args.size()
      << " arguments";
  std::vector<Kernel> kernels;
  for (size_t i = first; i < args.size(); i += 2) {
    Ref<tir::PrimFunc> f = args[i + 1].as_object_of<tir::PrimFunc>();
    RX_CHECK(f.defined()) << fn << ": argument " << i + 1 << " should be a PrimFunc, got "
                          << args[i + 1].describe();
    kernels.emplace_back(args[i].as_string(), f);
  }
  return kernels;
}

/// The "llvm" target kind: the host CPU (or the one mcpu/mtriple name). Its attributes are the
/// keys BuildOptions::parse reads, with BuildOptions' defaults; the backend still checks their
/// ranges. Schedule rules "cpu": the default CPU rules (schedule_rules.h), which the backend
/// applies to unscheduled kernels at build time.
transform::TargetKind llvm_target_kind() {
  using transform::TargetAttrType;
  transform::TargetKind k;
  k.name = "llvm";
  k.device_type = transform::kDeviceCPU;
  k.device_name = "cpu";
  k.gpu = false;
  k.help = "native CPU code through LLVM (a shared object, or in-process JIT with jit=1)";
  k.build_function = "relax.backend.llvm.build";
  k.schedule_rules = "cpu";
  CpuScheduleOptions d = cpu_schedule_options_for(256), w = cpu_schedule_options_for(512);
  auto num = [](int64_t v) { return std::to_string(v); };
  k.attrs = {
      {"mcpu", TargetAttrType::kString, "",
       "target CPU (skylake-avx512, znver3, ...); default: the host CPU and its features"},
      {"mtriple", TargetAttrType::kString, "", "target triple; default: the host's"},
      {"opt-level", TargetAttrType::kInt, "3", "LLVM optimisation level, 0 to 3"},
      {"jit", TargetAttrType::kBool, "0",
       "1: bitcode compiled in process by ORC LLJIT (relax-driver run) instead of a .so"},
      {"linker", TargetAttrType::kString, "",
       "C compiler driver linking the shared object; default: $RELAX_LLVM_CC, else cc"},
      {"num-threads", TargetAttrType::kInt, "0",
       "kernels compiled at once, 0 to 1024; 0: every core"},
      {"schedule", TargetAttrType::kString, "default",
       "default: apply the default CPU schedule to unscheduled kernels; none: compile the "
       "loops as they are"},
      // The register tile's knobs have no fixed default: a build sizes those left out for
      // the target's ISA (BuildOptions::schedule_for).
      {"vector-bits", TargetAttrType::kInt, "",
       "vector register width in bits (8 to 2048) the schedule vectorises for; default: the "
       "target's (512 with AVX-512, 256 with AVX2, else 128)"},
      {"tile", TargetAttrType::kInt, num(d.tile),
       "tile edge of the tiled reduction rule (1 to 2^20)"},
      {"register-blocking", TargetAttrType::kBool, d.register_blocking ? "1" : "0",
       "the register-blocked rule for matmul and conv2d; 0: the tiled rule"},
      {"mr", TargetAttrType::kInt, "",
       "rows of the register tile (1 to 16); default: sized for the vector width (" +
           num(d.mr) + " at 256 bits, " + num(w.mr) + " at 512)"},
      {"nr", TargetAttrType::kInt, "",
       "columns of the register tile, a multiple of the vector lanes (1 to 64); default: " +
           num(d.nr) + " at 256 bits, " + num(w.nr) + " at 512"},
      {"mc", TargetAttrType::kInt, "",
       "rows of a parallel task's row block (1 to 2^20); default: " + num(d.mc) +
           " at 256 bits, " + num(w.mc) + " at 512"},
      {"kc", TargetAttrType::kInt, "",
       "length of the chunks of the first reduce axis (1 to 2^20); default: " + num(d.kc) +
           " at 256 bits, " + num(w.kc) + " at 512"},
  };
  return k;
}

void register_llvm(transform::PluginRegistrar& registrar) {
  registrar.add_target_kind(llvm_target_kind());
  runtime::Registry::register_func(
      "relax.backend.llvm.build",
      [](Args args) -> Value {
        runtime::check_num_args("relax.backend.llvm.build", args, 1, SIZE_MAX);
        BuildOptions options = BuildOptions::parse(args[0].as_string());
        std::vector<Kernel> kernels = kernels_of("relax.backend.llvm.build", args, 1);
        std::vector<uint8_t> bytes =
            options.jit ? build_bitcode(kernels, options) : build(kernels, options);
        const char* format = options.jit ? kJITLibraryFormat : kLibraryFormat;
        return runtime::Tuple({Value(format), Value(std::string(bytes.begin(), bytes.end()))});
      },
      true);
  runtime::Registry::register_func(
      "relax.backend.llvm.emit_ir",
      [](Args args) -> Value {
        runtime::check_num_args("relax.backend.llvm.emit_ir", args, 3);
        BuildOptions options = BuildOptions::parse(args[0].as_string());
        return Value(emit_llvm_ir(kernels_of("relax.backend.llvm.emit_ir", args, 1)[0], options));
      },
      true);
  runtime::Registry::register_func(
      "relax.backend.llvm.host_cpu", [](Args) -> Value { return Value(host_cpu_name()); }, true);
  register_jit_loader();
  runtime::Registry::register_func(
      "relax.backend.llvm.default_schedule",
      [](Args args) -> Value {
        runtime::check_num_args("relax.backend.llvm.default_schedule", args, 1, 2);
        Ref<tir::PrimFunc> f = args[0].as_object_of<tir::PrimFunc>();
        RX_CHECK(f.defined()) << "relax.backend.llvm.default_schedule: argument 0 should be a "
                              << "PrimFunc, got " << args[0].describe();
        BuildOptions options = BuildOptions::parse(args.size() > 1 ? args[1].as_string() : "");
        return Value::from_object(apply_default_cpu_schedule(f, options.schedule_options));
      },
      true);
}

}  // namespace
}  // namespace relax::llvm_backend

RELAX_PLUGIN("llvm", "0.1.0", relax::llvm_backend::register_llvm)
