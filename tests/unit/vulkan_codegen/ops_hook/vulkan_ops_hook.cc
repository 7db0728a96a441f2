// The hook of vulkan_ops_hook.h (compiled without the forced include): each kernel of the
// program through compile_kernel (emit + validate) with the vulkan target's default features
// (RELAX_VULKAN_FEATURES="float16=1,int64=0" changes them). A kernel refused for float64 (off
// by default) is expected: it is compiled again with float64 on, which must succeed. Any other
// failure is a test failure naming the kernel and the error. With RELAX_VULKAN_OP_REPORT=<file>
// each kernel appends "<kernel> ok|float64-only|FAIL <first line of the error>".
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "relax/kernel/gpu_lower.h"
#include "spirv_codegen.h"

namespace relax::tir {

namespace {

vulkan::SpirvFeatures features_from_env() {
  vulkan::SpirvFeatures f;
  const char* env = std::getenv("RELAX_VULKAN_FEATURES");
  std::string s = env ? env : "";
  auto has = [&](const std::string& kv) { return s.find(kv) != std::string::npos; };
  for (auto [name, field] : {std::pair{"float16", &f.float16}, {"float64", &f.float64},
                             {"int8", &f.int8}, {"int16", &f.int16}, {"int64", &f.int64},
                             {"storage8", &f.storage8}, {"storage16", &f.storage16}}) {
    if (has(std::string(name) + "=1")) *field = true;
    if (has(std::string(name) + "=0")) *field = false;
  }
  return f;
}

std::string try_compile(const GpuKernel& k, const vulkan::SpirvFeatures& f) {
  try {
    vulkan::compile_kernel(k, f);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace

void vulkan_run_gpu_program_hook(const GpuProgram& program, const std::vector<InterpArg>& args) {
  vulkan::SpirvFeatures features = features_from_env();
  for (const GpuKernel& k : program.kernels) {
    std::string error = try_compile(k, features), status = "ok";
    if (error.find("needs the device feature 'float64'") != std::string::npos) {
      vulkan::SpirvFeatures with64 = features;
      with64.float64 = true;
      error = try_compile(k, with64);
      status = "float64-only";
    }
    if (!error.empty()) status = "FAIL " + error.substr(0, error.find('\n'));
    if (const char* path = std::getenv("RELAX_VULKAN_OP_REPORT")) {
      if (FILE* f = std::fopen(path, "a")) {
        std::fprintf(f, "%s %s\n", k.name.c_str(), status.c_str());
        std::fclose(f);
      }
    }
    if (!error.empty()) ADD_FAILURE() << "vulkan codegen: " << error;
  }
  run_gpu_program(program, args);
}

}  // namespace relax::tir
