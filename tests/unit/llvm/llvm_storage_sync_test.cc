// The LLVM (CPU) backend refuses the GPU workgroup barrier T.tvm_storage_sync with an error
// naming the kernel, instead of crashing or dropping it.
#include <gtest/gtest.h>

#include "../../common/error_of.h"
#include "llvm_test_util.h"
#include "relax/kernel/lower.h"
#include "relax/tir/intrin.h"

namespace relax::tir {
namespace {

using LLVMStorageSync = LLVMPluginTest;

TEST_F(LLVMStorageSync, BarrierIsRejectedNamingTheKernel) {
  Ref<Buffer> a = decl_buffer({int_imm(4)}, DataType::Float(32), "A");
  Stmt body = serial_for("i", int_imm(4), [&](const Ref<Var>& i) {
    return seq_stmt({buffer_store(a, buffer_load(a, {i}) + float_imm(1), {i}),
                     make_ref<Evaluate>(storage_sync())});
  });
  Ref<PrimFunc> f = lower(make_prim_func({a}, body));
  std::string e = relax::test::error_of([&] { build({{"synced", f}}); });
  EXPECT_NE(e.find("kernel 'synced'"), std::string::npos) << e;
  EXPECT_NE(e.find("T.tvm_storage_sync(\"shared\") is a GPU workgroup barrier"), std::string::npos)
      << e;
}

}  // namespace
}  // namespace relax::tir
