// The LLVM backend compiles structurally equal kernels once (llvm_build.h): a model's repeated
// layers give one kernel per call site, equal up to variable names and their global symbol.
// The shared object must export every name, the equal ones at one address, and each must run
// correctly, in the shared-object and the JIT formats; kernels that differ in anything else (a
// constant) must stay apart.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "llvm_test_util.h"
#include "relax/runtime/registry.h"
#include "relax/op/compute.h"
#include "relax/kernel/lower.h"

namespace relax::tir {
namespace {

constexpr DataType kF32 = DataType::Float(32);

class LLVMKernelDedup : public LLVMPluginTest {};

/// C[i] = A[i] * B[i] + c, built afresh (new variables) on every call, named `symbol`.
Ref<PrimFunc> scaled_add(double c, const std::string& symbol) {
  Ref<Var> n = var("n");
  te::Tensor A = te::placeholder({n}, kF32, "A");
  te::Tensor B = te::placeholder({n}, kF32, "B");
  te::Tensor C = te::compute(
      {n}, [&](const auto& i) { return A(i[0]) * B(i[0]) + float_imm(c); }, "C");
  Ref<PrimFunc> f = lower(te::create_prim_func({A, B, C}));
  return make_ref<PrimFunc>(f->params, f->body, f->buffer_map,
                            with_attr(f->attrs, kAttrGlobalSymbol, symbol), f->ret_type);
}

/// The raw library bytes relax.backend.llvm.build returns for `kernels`.
std::string build_bytes(const std::vector<std::pair<std::string, Ref<PrimFunc>>>& kernels,
                        const std::string& options = "") {
  std::vector<runtime::Value> args{runtime::Value(options)};
  for (const auto& [name, f] : kernels) {
    args.emplace_back(name);
    args.push_back(runtime::Value::from_object(f));
  }
  return runtime::Registry::get("relax.backend.llvm.build")(args).as_tuple()[1].as_string();
}

std::vector<std::pair<std::string, Ref<PrimFunc>>> three_kernels() {
  return {{"first", scaled_add(1.0, "first")},
          {"other", scaled_add(2.0, "other")},
          {"second", scaled_add(1.0, "second")}};
}

TEST_F(LLVMKernelDedup, EqualKernelsShareOneFunctionInTheSharedObject) {
  std::string bytes = build_bytes(three_kernels());
  std::string path = ::testing::TempDir() + "relax_dedup_" + std::to_string(::getpid()) + ".so";
  {
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), std::streamsize(bytes.size()));
  }
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr) << dlerror();
  void* first = dlsym(lib, "__rx_kernel_first");
  void* second = dlsym(lib, "__rx_kernel_second");
  void* other = dlsym(lib, "__rx_kernel_other");
  ASSERT_NE(first, nullptr);
  ASSERT_NE(other, nullptr);
  EXPECT_EQ(first, second) << "structurally equal kernels should share their code";
  EXPECT_NE(first, other) << "kernels differing in a constant must not be merged";
  dlclose(lib);
  std::remove(path.c_str());
}

TEST_F(LLVMKernelDedup, EveryNameRunsCorrectlyInBothFormats) {
  for (const std::string options : {"", "jit=1"}) {
    SCOPED_TRACE(options);
    auto kernels = three_kernels();
    runtime::Module m = build(kernels, options);
    for (const auto& [name, f] : kernels) {
      SCOPED_TRACE(name);
      for (int64_t n : {1, 13, 100}) {
        expect_matches_interpreter(m, name, f,
                                   {random_array({n}, kF32, 1), random_array({n}, kF32, 2),
                                    runtime::NDArray::empty({n}, kF32)});
      }
    }
  }
}

}  // namespace
}  // namespace relax::tir
