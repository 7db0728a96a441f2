// The Vulkan codegen plugin (librelax-vulkan.so): registers the target kind "vulkan" (its
// attribute schema: limits every Vulkan device meets by default, and the optional features the
// code may use) and the build functions, as global packed functions:
//   relax.backend.vulkan.build(attrs: str, name0: str, func0: PrimFunc, ...)
//       -> (format: "spirv", bytes: str)   the GPU kernel library (gpu_common/launch_table.h)
//                                          of the scheduled, thread-bound PrimFuncs: each
//                                          lowered with tir::lower_for_gpu, each kernel one
//                                          validated SPIR-V module (spirv_codegen.h)
//   relax.backend.vulkan.emit_spirv(attrs: str, name: str, func: PrimFunc) -> str
//       the disassembly of every kernel of one scheduled PrimFunc, validated (for dumps and
//       tests)
// `attrs` is the validated attribute string of the target ("int64=1,float16=0,...").
#include <algorithm>
#include <cstring>
#include <sstream>

#include "relax/kernel/gpu_lower.h"
#include "relax/runtime/registry.h"
#include "relax/sdk/plugin.h"
#include "relax/target/targets.h"
#include "spirv_codegen.h"
#include "launch_encode.h"

namespace relax::vulkan {
namespace {

using runtime::Args;
using runtime::Value;

transform::TargetKind vulkan_target_kind() {
  using transform::TargetAttrType;
  transform::TargetKind k;
  k.name = "vulkan";
  k.device_type = transform::kDeviceVulkan;
  k.device_name = "vulkan";
  k.gpu = true;
  k.help = "any Vulkan GPU: SPIR-V 1.3 compute shaders (run by librelax-vulkan-runtime.so)";
  k.build_function = "relax.backend.vulkan.build";
  k.schedule_rules = "gpu";
  k.attrs = {
      {"max-threads-per-block", TargetAttrType::kInt, "256",
       "threads in one workgroup (256 runs on every vendor)"},
      {"max-shared-memory-bytes", TargetAttrType::kInt, "16384",
       "workgroup memory of one workgroup, in bytes (Vulkan guarantees 16384)"},
      {"max-grid", TargetAttrType::kIntList, "65535x65535x65535",
       "workgroups per dispatch dimension, x, y and z"},
      {"max-block", TargetAttrType::kIntList, "1024x1024x64",
       "threads per workgroup dimension, x, y and z"},
      {"subgroup-size", TargetAttrType::kInt, "32", "threads of one subgroup"},
      {"buffer-alignment", TargetAttrType::kInt, "64",
       "alignment of the buffers the runtime allocates, in bytes"},
      {"float16", TargetAttrType::kBool, "0",
       "float16 arithmetic (shaderFloat16); 0: float16 is stored as 16 bits, computed in float32"},
      {"float64", TargetAttrType::kBool, "0", "float64 (shaderFloat64)"},
      {"int8", TargetAttrType::kBool, "1", "8-bit integer arithmetic (shaderInt8)"},
      {"int16", TargetAttrType::kBool, "1", "16-bit integer arithmetic (shaderInt16)"},
      {"int64", TargetAttrType::kBool, "1",
       "64-bit integers (shaderInt64); 0: int64 index arithmetic in 32 bits (buffers below "
       "2^31 elements), int64 buffers refused"},
      {"storage8", TargetAttrType::kBool, "1",
       "8-bit storage-buffer access (int8, uint8 and bool buffers)"},
      {"storage16", TargetAttrType::kBool, "1",
       "16-bit storage-buffer access (float16, bfloat16 and int16 buffers)"},
  };
  return k;
}

Target target_of(const std::string& attrs) {
  return Target::parse(attrs.empty() ? std::string("vulkan") : "vulkan," + attrs);
}

SpirvFeatures features_of(const Target& t) {
  SpirvFeatures f;
  auto flag = [&](const char* name, bool& field) {
    if (std::optional<std::string> v = t.attr(name)) field = *v == "1" || *v == "true";
  };
  flag("float16", f.float16);
  flag("float64", f.float64);
  flag("int8", f.int8);
  flag("int16", f.int16);
  flag("int64", f.int64);
  flag("storage8", f.storage8);
  flag("storage16", f.storage16);
  return f;
}

std::vector<std::pair<std::string, Ref<tir::PrimFunc>>> funcs_of(const char* fn, Args args) {
  RX_CHECK(args.size() >= 1 && (args.size() - 1) % 2 == 0)
      << fn << ": expected (attrs, name, PrimFunc, name, PrimFunc, ...), got " << args.size()
      << " arguments";
  std::vector<std::pair<std::string, Ref<tir::PrimFunc>>> funcs;
  for (size_t i = 1; i < args.size(); i += 2) {
    Ref<tir::PrimFunc> f = args[i + 1].as_object_of<tir::PrimFunc>();
    RX_CHECK(f.defined()) << fn << ": argument " << i + 1 << " should be a PrimFunc, got "
                          << args[i + 1].describe();
    funcs.emplace_back(args[i].as_string(), f);
  }
  return funcs;
}

/// The kernel library (gpu::build_library): each kernel one validated SPIR-V module whose
/// parameter block matches what the launch table passes.
gpu::Library build_spirv_library(
    const std::vector<std::pair<std::string, Ref<tir::PrimFunc>>>& funcs,
    const tir::GpuLimits& limits, const SpirvFeatures& features) {
  return gpu::build_library(
      "spirv", funcs, limits,
      [&](const tir::GpuKernel& k, gpu::KernelInfo& info, gpu::Library& lib) {
        SpirvKernel code = compile_kernel(k, features);
        RX_ICHECK(info.scalar_dtypes.size() == code.scalar_dtypes.size() &&
                  info.buffer_dtypes.size() == code.buffer_dtypes.size())
            << "vulkan: kernel " << k.name << ": the launch table passes "
            << info.buffer_dtypes.size() << " buffers and " << info.scalar_dtypes.size()
            << " scalars, the SPIR-V reads " << code.buffer_dtypes.size() << " and "
            << code.scalar_dtypes.size();
        info.code.resize(code.words.size() * 4);
        std::memcpy(info.code.data(), code.words.data(), info.code.size());
        for (const std::string& r : code.requirements) lib.requirements[r] = "1";
      });
}

Value build(Args args) {
  auto funcs = funcs_of("relax.backend.vulkan.build", args);
  Target target = target_of(args[0].as_string());
  tir::GpuLimits limits = gpu_limits(target);
  SpirvFeatures features = features_of(target);
  std::vector<uint8_t> bytes = gpu::serialize(build_spirv_library(funcs, limits, features));
  return runtime::Tuple({Value("spirv"), Value(std::string(bytes.begin(), bytes.end()))});
}

Value emit(Args args) {
  runtime::check_num_args("relax.backend.vulkan.emit_spirv", args, 3);
  auto funcs = funcs_of("relax.backend.vulkan.emit_spirv", args);
  Target target = target_of(args[0].as_string());
  tir::GpuProgram program = tir::lower_for_gpu(funcs[0].second, gpu_limits(target), funcs[0].first);
  SpirvFeatures features = features_of(target);
  std::ostringstream os;
  for (const tir::GpuKernel& k : program.kernels)
    os << "; kernel " << k.name << "\n" << disassemble(compile_kernel(k, features).words);
  return Value(os.str());
}

void register_vulkan(transform::PluginRegistrar& registrar) {
  registrar.add_target_kind(vulkan_target_kind());
  runtime::Registry::register_func("relax.backend.vulkan.build", build, true);
  runtime::Registry::register_func("relax.backend.vulkan.emit_spirv", emit, true);
}

}  // namespace
}  // namespace relax::vulkan

RELAX_PLUGIN("vulkan", "0.1.0", relax::vulkan::register_vulkan)
