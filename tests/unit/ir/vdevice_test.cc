// The well-formed checker and R.to_vdevice's inference against the module's vdevice list.
#include <gtest/gtest.h>

#include "../../common/error_of.h"
#include "relax/ir/block_builder.h"
#include "relax/ir/well_formed.h"
#include "relax/op/op.h"

namespace relax {
namespace {

using test::error_of;

IRModule identity_module(const std::string& vdevice, std::vector<VDevice> devices) {
  auto x = make_ref<Var>("x", tensor_sinfo({tir::int_imm(4)}, DataType::Float(32), vdevice));
  IRModule mod;
  mod.set_vdevices(std::move(devices));
  BlockBuilder bb(mod);
  Expr body = bb.normalize(make_ref<SeqExpr>(std::vector<Block>{}, Expr(x)));
  auto f = make_ref<Function>(std::vector<Ref<Var>>{x}, body, x->struct_info);
  mod.add("main", f);
  return mod;
}

TEST(VDeviceWellFormed, RejectsAVDeviceThatNamesNoDevice) {
  std::vector<VDevice> devices = {{"llvm", 0, "global"}, {"tir-interp,gpu=1", 0, "global"}};
  EXPECT_TRUE(is_well_formed(identity_module("tir-interp", devices)));
  EXPECT_TRUE(is_well_formed(identity_module("llvm:0", devices)));
  IRModule bad = identity_module("tir-interp:1", devices);
  std::string msg = error_of([&] { check_well_formed(bad); });
  EXPECT_NE(msg.find("in function 'main'"), std::string::npos) << msg;
  EXPECT_NE(
      msg.find("vdevice \"tir-interp:1\" in the struct info of parameter 'x' names no device"),
      std::string::npos)
      << msg;
  EXPECT_NE(msg.find("llvm:0 = llvm, tir-interp:0 = tir-interp,gpu=1"), std::string::npos) << msg;
  // Without a list every vdevice string is unknown.
  EXPECT_FALSE(is_well_formed(identity_module("llvm", {})));
  EXPECT_TRUE(is_well_formed(identity_module("", {})));
}

TEST(VDeviceOp, ToVDeviceInfersTheNewDeviceAndChecksIt) {
  IRModule mod;
  mod.set_vdevices({{"llvm", 0, "global"}, {"tir-interp,gpu=1", 0, "global"}});
  BlockBuilder bb(mod);
  auto x = make_ref<Var>("x", tensor_sinfo({tir::int_imm(4)}, DataType::Float(32), "llvm"));
  bb.begin_scope({x});
  bb.begin_binding_block();
  Expr y = bb.normalize(op::to_vdevice(x, "tir-interp:0"));
  auto* t = y->struct_info.as<TensorStructInfo>();
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->vdevice, "tir-interp:0");
  ASSERT_TRUE(t->shape.has_value());
  std::string msg = error_of([&] { bb.normalize(op::to_vdevice(x, "cuda")); });
  EXPECT_NE(msg.find("vdevice \"cuda\" in R.to_vdevice names no device"), std::string::npos) << msg;
  msg = error_of([&] { bb.normalize(op::to_vdevice(make_shape({tir::int_imm(1)}), "llvm")); });
  EXPECT_NE(msg.find("must be a tensor"), std::string::npos) << msg;
}

}  // namespace
}  // namespace relax
