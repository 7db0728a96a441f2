// The hook of vulkan_ops_hook.h (compiled without the forced include): each kernel of the
// program through compile_kernel (emit + validate) with the vulkan target's default features
// (RELAX_VULKAN_FEATURES="float16=1,int64=0" changes them). A kernel refused for float64 (off
// by default) is expected: it is compiled again with float64 on, which must succeed. Any other
// failure is a test failure naming the kernel and the error. With RELAX_VULKAN_OP_REPORT=<file>
// each kernel appends "<kernel> ok|float64-only|FAIL <first line of the error>".
// Where a Vulkan device is present (lavapipe here; RELAX_VULKAN_RUN=0 turns it off), the
// program also runs on it (runner/program_runner.h) and its outputs are compared with the
// interpreter's; the report gets "<first kernel> RAN", "SKIPPED <why>" or "DIFF <where>".
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "relax/kernel/gpu_lower.h"
#include "program_runner.h"
#include "relax/runtime/ndarray.h"
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
  vulkan::SpirvFeatures run_features = features;  // float64 on where a kernel needs it
  for (const GpuKernel& k : program.kernels) {
    std::string error = try_compile(k, features), status = "ok";
    if (error.find("needs the device feature 'float64'") != std::string::npos) {
      vulkan::SpirvFeatures with64 = features;
      with64.float64 = true;
      error = try_compile(k, with64);
      status = "float64-only";
      run_features.float64 = true;
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
  const char* run = std::getenv("RELAX_VULKAN_RUN");
  if ((run && std::string(run) == "0") || program.kernels.empty()) {
    run_gpu_program(program, args);
    return;
  }
  std::vector<InterpArg> on_device = vulkan::test::copy_args(args);
  std::string why, diff;
  try {
    why = vulkan::test::run_on_vulkan(program, on_device, run_features);
  } catch (const std::exception& e) {
    why = std::string("error ") + e.what();
  }
  run_gpu_program(program, args);
  if (why.empty()) {
    diff = vulkan::test::compare_args(on_device, args, 1e-4, 1e-5);
    if (!diff.empty()) ADD_FAILURE() << program.kernels[0].name << " on Vulkan: " << diff;
    if (!diff.empty() && std::getenv("RELAX_VULKAN_DEBUG")) {
      for (size_t i = 0; i < args.size(); ++i)
        if (auto* nd = std::get_if<runtime::NDArray>(&args[i])) {
          auto* dn = std::get_if<runtime::NDArray>(&on_device[i]);
          std::fprintf(stderr, "arg %zu %s bytes %zu:", i, nd->dtype().to_string().c_str(), nd->nbytes());
          for (size_t b = 0; b < nd->nbytes() && b < 64; ++b)
            std::fprintf(stderr, " %02x/%02x", static_cast<unsigned char*>(nd->data())[b], static_cast<unsigned char*>(dn->data())[b]);
          std::fprintf(stderr, "\n");
        }
      std::fprintf(stderr, "%s\n", to_string(program).c_str());
    }
  }
  if (const char* path = std::getenv("RELAX_VULKAN_OP_REPORT")) {
    if (FILE* f = std::fopen(path, "a")) {
      std::string status = !why.empty() ? "SKIPPED " + why.substr(0, why.find('\n'))
                           : diff.empty() ? "RAN" : "DIFF " + diff;
      std::fprintf(f, "%s %s\n", program.kernels[0].name.c_str(), status.c_str());
      std::fclose(f);
    }
  }
}

}  // namespace relax::tir
