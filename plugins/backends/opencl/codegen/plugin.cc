// The OpenCL codegen plugin (librelax-opencl.so): registers the target kind "opencl" (its
// attribute schema: the GPU limits gpu_limits() reads, with OpenCL 1.2's guaranteed minimums
// as defaults, and the fp16 / fp64 extensions) and the backend's packed functions:
//   relax.backend.opencl.build(attrs: str, name0: str, func0: PrimFunc, ...)
//       -> (format: str, bytes: str)    the "opencl-c" kernel library (gpu_common's container:
//                                       launch tables, kernels, the program source as
//                                       module_code)
//   relax.backend.opencl.source(attrs: str, name0: str, func0: PrimFunc, ...) -> str
//       the OpenCL C program of the same functions (for dumps and tests)
// The functions arrive scheduled and thread-bound (schedule_rules "gpu"); both lower them with
// tir::lower_for_gpu. This plugin never loads an OpenCL driver (the runtime half does).
#include "relax/sdk/plugin.h"

#include "opencl_codegen.h"
#include "relax/runtime/registry.h"
#include "launch_encode.h"

namespace relax::opencl {
namespace {

using runtime::Args;
using runtime::Value;

std::vector<std::pair<std::string, Ref<tir::PrimFunc>>> funcs_of(const char* fn, Args args) {
  RX_CHECK(args.size() >= 1 && (args.size() - 1) % 2 == 0)
      << fn << ": expected (attrs, name, PrimFunc, name, PrimFunc, ...), got " << args.size()
      << " arguments";
  std::vector<std::pair<std::string, Ref<tir::PrimFunc>>> out;
  for (size_t i = 1; i < args.size(); i += 2) {
    Ref<tir::PrimFunc> f = args[i + 1].as_object_of<tir::PrimFunc>();
    RX_CHECK(f.defined()) << fn << ": argument " << i + 1 << " should be a PrimFunc, got "
                          << args[i + 1].describe();
    out.emplace_back(args[i].as_string(), f);
  }
  return out;
}

transform::TargetKind opencl_target_kind() {
  using transform::TargetAttrType;
  transform::TargetKind k;
  k.name = "opencl";
  k.device_type = 4;  // kDLOpenCL
  k.device_name = "opencl";
  k.gpu = true;
  k.help = "OpenCL C 1.2 kernels for any OpenCL device (GPUs, CPUs through PoCL, ...)";
  k.build_function = "relax.backend.opencl.build";
  k.schedule_rules = "gpu";
  k.attrs = {
      {"max-threads-per-block", TargetAttrType::kInt, "256",
       "work-items in one work-group (OpenCL guarantees 1; most devices take 256)"},
      {"max-shared-memory-bytes", TargetAttrType::kInt, "16384",
       "__local memory of one work-group in bytes (OpenCL 1.2 guarantees 16 KiB)"},
      {"max-grid", TargetAttrType::kIntList, "2147483647x65535x65535",
       "work-groups per dimension, x, y and z"},
      {"max-block", TargetAttrType::kIntList, "256x256x64",
       "work-items per work-group dimension, x, y and z"},
      {"subgroup-size", TargetAttrType::kInt, "32", "work-items that run in lockstep"},
      {"buffer-alignment", TargetAttrType::kInt, "128",
       "alignment of the buffers the runtime allocates, in bytes"},
      {"fp16", TargetAttrType::kBool, "0",
       "1: float16 arithmetic in half (cl_khr_fp16); 0: float16 stored as half, computed in "
       "float"},
      {"fp64", TargetAttrType::kBool, "1",
       "1: float64 kernels use double (cl_khr_fp64, checked by the runtime); 0: float64 is an "
       "error at compile time"},
  };
  return k;
}


void register_opencl(transform::PluginRegistrar& registrar) {
  registrar.add_target_kind(opencl_target_kind());
  runtime::Registry::register_func(
      "relax.backend.opencl.build",
      [](Args args) -> Value {
        auto funcs = funcs_of("relax.backend.opencl.build", args);
        tir::GpuLimits limits;
        CodegenOptions options;
        parse_target_attrs(args[0].as_string(), &limits, &options);
        std::vector<uint8_t> bytes =
            gpu::serialize(build_opencl_library(funcs, limits, options));
        return runtime::Tuple(
            {Value(kLibraryFormat), Value(std::string(bytes.begin(), bytes.end()))});
      },
      true);
  runtime::Registry::register_func(
      "relax.backend.opencl.source",
      [](Args args) -> Value {
        auto funcs = funcs_of("relax.backend.opencl.source", args);
        tir::GpuLimits limits;
        CodegenOptions options;
        parse_target_attrs(args[0].as_string(), &limits, &options);
        return Value(program_source(funcs, limits, options));
      },
      true);
}

}  // namespace
}  // namespace relax::opencl

RELAX_PLUGIN("opencl", "0.1.0", relax::opencl::register_opencl)
