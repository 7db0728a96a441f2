// Helpers shared by the LLVM backend tests: a fixture that loads the backend plugins (and
// skips without them), compiling kernels into a loaded library, random inputs, and running a
// compiled kernel beside tir::interpret.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "../../common/tensor_compare.h"
#include "relax/kernel/interpreter.h"
#include "relax/runtime/module.h"
#include "relax/runtime/registry.h"
#include "relax/tir/intrin.h"
#include "relax/transform/plugin.h"

namespace relax::tir {

/// A fixture for tests of the LLVM backend: the codegen and runtime plugins are loaded once
/// per process; every test is skipped when the build has no LLVM backend.
class LLVMPluginTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
#ifdef RELAX_HAVE_LLVM_BACKEND
    static transform::PassRegistry registry;
    static transform::PluginManager plugins(registry);
    static bool loaded = [] {
      plugins.load_path(std::string(RELAX_PLUGIN_DIR) + "/librelax-llvm.so");
      plugins.load_path(std::string(RELAX_PLUGIN_DIR) + "/librelax-llvm-runtime.so");
      return true;
    }();
    (void)loaded;
#endif
  }
  void SetUp() override {
#ifndef RELAX_HAVE_LLVM_BACKEND
    GTEST_SKIP() << "built without the LLVM backend";
#endif
  }

  /// Compiles the kernels into one library (relax.backend.llvm.build) and loads it.
  static runtime::Module build(const std::vector<std::pair<std::string, Ref<PrimFunc>>>& kernels,
                               const std::string& options = "") {
    std::vector<runtime::Value> args{runtime::Value(options)};
    for (const auto& [name, f] : kernels) {
      args.emplace_back(name);
      args.push_back(runtime::Value::from_object(f));
    }
    runtime::PackedFunc build = runtime::Registry::get("relax.backend.llvm.build");
    EXPECT_TRUE(build.defined());
    runtime::Tuple lib = build(args).as_tuple();
    const std::string& bytes = lib[1].as_string();
    return runtime::load_module(lib[0].as_string(),
                                {reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()});
  }
};

/// Random contents for a buffer of `dtype`: floats in [-2, 2), integers over the whole range of
/// narrow types and in [-1000, 1000) for wide ones.
inline runtime::NDArray random_array(const std::vector<int64_t>& shape, DataType dtype,
                                     uint32_t seed) {
  runtime::NDArray a = runtime::NDArray::empty(shape, dtype);
  std::mt19937 gen(seed);
  int64_t n = a.numel();
  for (int64_t i = 0; i < n; ++i) {
    if (dtype == DataType::Float(32)) {
      a.data_as<float>()[i] = std::uniform_real_distribution<float>(-2, 2)(gen);
    } else if (dtype == DataType::Float(16)) {
      a.data_as<uint16_t>()[i] = float_to_half(std::uniform_real_distribution<float>(-2, 2)(gen));
    } else if (dtype == DataType::Int(8)) {
      a.data_as<int8_t>()[i] = int8_t(std::uniform_int_distribution<int>(-128, 127)(gen));
    } else if (dtype == DataType::Int(32)) {
      a.data_as<int32_t>()[i] = std::uniform_int_distribution<int32_t>(-1000, 999)(gen);
    } else {
      ADD_FAILURE() << "random_array: unsupported dtype " << dtype.to_string();
    }
  }
  return a;
}

/// Runs `name` from `module` and `f` in the interpreter on copies of `args`; every buffer
/// argument must agree afterwards (floats within rtol = atol = `tol`, integers exactly).
/// Returns the compiled kernel's buffers; stops at the first argument that differs.
inline std::vector<runtime::NDArray> expect_matches_interpreter(
    const runtime::Module& module, const std::string& name, const Ref<PrimFunc>& f,
    const std::vector<runtime::Value>& args, double tol = 1e-5) {
  std::vector<InterpArg> interp_args;
  std::vector<runtime::Value> compiled_args;
  for (const runtime::Value& v : args) {
    if (v.is(runtime::ValueKind::kTensor)) {
      interp_args.emplace_back(v.as_tensor().copy());
      compiled_args.emplace_back(v.as_tensor().copy());
    } else {
      interp_args.emplace_back(v.as_int());
      compiled_args.push_back(v);
    }
  }
  interpret(f, interp_args);
  runtime::PackedFunc kernel = module->get_function(name);
  EXPECT_TRUE(kernel.defined()) << name;
  if (!kernel.defined()) return {};
  kernel(compiled_args);
  std::vector<runtime::NDArray> outs;
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i].is(runtime::ValueKind::kTensor)) continue;
    runtime::NDArray got = compiled_args[i].as_tensor();
    outs.push_back(got);
    EXPECT_TRUE(
        relax::test::tensors_close(got, std::get<runtime::NDArray>(interp_args[i]), tol, tol))
        << name << ": argument " << i;
    if (::testing::Test::HasFailure()) return outs;
  }
  return outs;
}

}  // namespace relax::tir
