// Virtual devices in the text format: I.module_global_infos, vdevice strings in struct info,
// R.to_vdevice, and the errors for a vdevice that names no device.
#include <gtest/gtest.h>

#include "../../common/error_of.h"
#include "relax/ir/structural_equal.h"
#include "text_test_util.h"

namespace relax {
namespace {

using test::error_of;

const char* kDevices =
    R"(    I.module_global_infos({"vdevice": [I.vdevice("llvm", 0, "global"), I.vdevice("tir-interp,gpu=1", 0, "global"), I.vdevice("tir-interp,gpu=1", 1, "global")]})
)";

std::string module_with(const std::string& devices, const std::string& body) {
  return "@I.ir_module\nclass Module:\n" + devices + body;
}

const char* kCopy = R"(
    @R.function
    def main(x: R.Tensor((2, 3), "float32", vdevice="llvm")) -> R.Tensor((2, 3), "float32", vdevice="tir-interp:1"):
        y = R.to_vdevice(x, "tir-interp:1")
        return y
)";

TEST(VDeviceText, RoundTripAndResolution) {
  IRModule m = parse_module(module_with(kDevices, kCopy));
  ASSERT_EQ(m.vdevices().size(), 3u);
  EXPECT_EQ(m.vdevices()[1].target, "tir-interp,gpu=1");
  EXPECT_EQ(m.vdevices()[2].device_id, 1);
  EXPECT_EQ(m.vdevices()[1].kind(), "tir-interp");
  // "kind:i" is the i-th vdevice of that kind; "kind" the first.
  EXPECT_EQ(find_vdevice(m.vdevices(), "llvm"), 0u);
  EXPECT_EQ(find_vdevice(m.vdevices(), "tir-interp"), 1u);
  EXPECT_EQ(find_vdevice(m.vdevices(), "tir-interp:1"), 2u);
  EXPECT_FALSE(find_vdevice(m.vdevices(), "tir-interp:2"));
  EXPECT_FALSE(find_vdevice(m.vdevices(), "llvm:x"));
  EXPECT_EQ(vdevice_ref(m.vdevices(), 2), "tir-interp:1");
  std::string text = testing::expect_round_trip(m);
  EXPECT_NE(text.find("I.vdevice(\"tir-interp,gpu=1\", 1, \"global\")"), std::string::npos) << text;
  EXPECT_NE(text.find("R.to_vdevice(x, dst_vdevice=\"tir-interp:1\")"), std::string::npos) << text;
  // The copy's struct info is the argument's with the new vdevice.
  auto* f = m.lookup("main").as<Function>();
  auto* body = f->body.as<SeqExpr>();
  const Binding& b = body->blocks[0]->bindings[0];
  EXPECT_EQ(b->var->struct_info.as<TensorStructInfo>()->vdevice, "tir-interp:1");
}

TEST(VDeviceText, StructuralEqualityIncludesTheDeviceList) {
  IRModule a = parse_module(module_with(kDevices, kCopy));
  IRModule b = parse_module(module_with(kDevices, kCopy));
  EXPECT_TRUE(structural_equal(a, b));
  EXPECT_EQ(structural_hash(a), structural_hash(b));
  std::vector<VDevice> other = b.vdevices();
  other[2].memory_scope = "shared";
  b.set_vdevices(other);
  EXPECT_FALSE(structural_equal(a, b));
  EXPECT_NE(structural_hash(a), structural_hash(b));
  auto diff = structural_diff(a, b);
  ASSERT_TRUE(diff.has_value());
  EXPECT_NE(diff->find("vdevice"), std::string::npos) << *diff;
}

TEST(VDeviceText, UnknownVDeviceIsAnErrorNamingItAndTheDevices) {
  // In an annotation: the string, the place and the module's devices.
  std::string bad = R"(
    @R.function
    def main(x: R.Tensor((2,), "float32", vdevice="cuda:0")) -> R.Tensor((2,), "float32"):
        return x
)";
  std::string msg = error_of([&] { parse_module(module_with(kDevices, bad), "m.rx"); });
  EXPECT_NE(msg.find("vdevice \"cuda:0\" in R.Tensor names no device of the module"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("llvm:0 = llvm, tir-interp:0 = tir-interp,gpu=1"), std::string::npos) << msg;
  EXPECT_NE(msg.find("m.rx:"), std::string::npos) << msg;
  // An ordinal past the devices of that kind.
  std::string too_far = R"(
    @R.function
    def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        y = R.to_vdevice(x, "llvm:1")
        return y
)";
  msg = error_of([&] { parse_module(module_with(kDevices, too_far)); });
  EXPECT_NE(msg.find("vdevice \"llvm:1\" in R.to_vdevice names no device"), std::string::npos)
      << msg;
  // A module without a device list.
  msg = error_of([&] { parse_module(module_with("", bad)); });
  EXPECT_NE(msg.find("its devices: none"), std::string::npos) << msg;
  // A malformed list.
  msg = error_of(
      [&] { parse_module(module_with("    I.module_global_infos({\"vdevices\": []})\n", kCopy)); });
  EXPECT_NE(msg.find("unknown global info kind 'vdevices'"), std::string::npos) << msg;
  msg = error_of([&] {
    parse_module(
        module_with("    I.module_global_infos({\"vdevice\": [I.vdevice(\"\")]})\n", kCopy));
  });
  EXPECT_NE(msg.find("needs a kind"), std::string::npos) << msg;
}

TEST(VDeviceText, DefaultsOfIVDevice) {
  IRModule m =
      parse_module(module_with("    I.module_global_infos({\"vdevice\": [I.vdevice(\"llvm\"), "
                               "I.vdevice(\"vulkan\", device_id=1)]})\n",
                               R"(
    @R.function
    def main(x: R.Tensor((2,), "float32", vdevice="vulkan")) -> R.Tensor((2,), "float32", vdevice="vulkan"):
        return x
)"));
  ASSERT_EQ(m.vdevices().size(), 2u);
  EXPECT_EQ(m.vdevices()[0], (VDevice{"llvm", 0, "global"}));
  EXPECT_EQ(m.vdevices()[1], (VDevice{"vulkan", 1, "global"}));
  testing::expect_round_trip(m);
}

}  // namespace
}  // namespace relax
