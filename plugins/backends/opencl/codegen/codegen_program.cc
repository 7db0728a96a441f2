// Whole programs of the OpenCL code generator (opencl_codegen.h): target attributes and the
// kernel library (one OpenCL C program) of a set of functions.
#include <algorithm>
#include <sstream>

#include "codegen_internal.h"
#include "launch_encode.h"
#include "relax/support/diagnostic.h"
#include "relax/target/targets.h"
#include "relax/tir/intrin.h"

namespace relax::opencl {

using namespace relax::tir;
using tir::Buffer;
using tir::Call;
using tir::Evaluate;
using tir::Let;
using tir::PrimFunc;
using tir::Var;

void parse_target_attrs(const std::string& attrs, GpuLimits* limits, CodegenOptions* options) {
  Target t = Target::parse(attrs.empty() ? "opencl" : "opencl," + attrs);
  if (limits) *limits = gpu_limits(t);
  auto flag = [&](const char* name, bool dflt) {
    std::optional<std::string> v = t.attr(name);
    if (!v) return dflt;
    RX_CHECK(*v == "0" || *v == "1" || *v == "true" || *v == "false")
        << "target \"" << t.str() << "\": attribute " << name << "=" << *v
        << ": expected a bool (0 or 1)";
    return *v == "1" || *v == "true";
  };
  if (options) {
    options->fp16 = flag("fp16", false);
    options->fp64 = flag("fp64", true);
  }
}

gpu::Library build_opencl_library(
    const std::vector<std::pair<std::string, Ref<PrimFunc>>>& funcs, const GpuLimits& limits,
    const CodegenOptions& options) {
  std::string kernels;
  KernelFeatures used;
  gpu::Library lib = gpu::build_library(
      kLibraryFormat, funcs, limits,
      [&](const GpuKernel& k, gpu::KernelInfo& info, gpu::Library&) {
        info.name = cl_identifier(k.name);
        KernelFeatures kf;
        kernels += "\n" + kernel_source(k, options, &kf);
        used.fp16 |= kf.fp16;
        used.fp64 |= kf.fp64;
      });
  std::string source = prelude(enabled_options(options, used)) + kernels;
  lib.module_code.assign(source.begin(), source.end());
  if (used.fp16 && options.fp16) lib.requirements["float16"] = "1";
  if (used.fp64) lib.requirements["float64"] = "1";
  return lib;
}

std::string program_source(const std::vector<std::pair<std::string, Ref<PrimFunc>>>& funcs,
                           const GpuLimits& limits, const CodegenOptions& options) {
  gpu::Library lib = build_opencl_library(funcs, limits, options);
  return std::string(lib.module_code.begin(), lib.module_code.end());
}

CodegenOptions enabled_options(const CodegenOptions& options, const KernelFeatures& used) {
  CodegenOptions o = options;
  o.fp16 = options.fp16 && used.fp16;
  o.fp64 = options.fp64 && used.fp64;
  return o;
}

}  // namespace relax::opencl
