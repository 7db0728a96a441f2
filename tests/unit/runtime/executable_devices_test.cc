// The executable's device list (format 3): save/load, validation, version 2 files, and the VM
// taking its devices from the executable.
#include <gtest/gtest.h>

#include <cstring>

#include "../../common/error_of.h"
#include "relax/runtime/vm.h"
#include "runtime_test_util.h"

namespace relax::runtime {
namespace {

using test::error_of;

/// A mutable copy of the fields of `e` (executables are not copyable: they own loaded modules).
Ref<Executable> clone(const Executable& e) {
  auto out = make_ref<Executable>();
  auto& c = const_cast<Executable&>(*out);
  c.functions = e.functions;
  c.constants = e.constants;
  c.instructions = e.instructions;
  c.args = e.args;
  c.libraries = e.libraries;
  c.devices = e.devices;
  return out;
}

TEST(ExecutableDevices, RoundTripAndDefaults) {
  Ref<Executable> exec = testing::build_int_programs();
  ASSERT_TRUE(exec->libraries.empty());
  auto with = clone(*exec);
  // A copy with two CPU devices (a CPU "device 1" keeps the test free of device runtimes).
  const_cast<Executable&>(*with).devices = {{kDLCPU, 0, "llvm"}, {kDLCPU, 0, "llvm,mcpu=x"}};
  Ref<Executable> back = Executable::load(with->save());
  EXPECT_EQ(back->devices, with->devices);
  auto vm = VirtualMachine::create(back);
  EXPECT_EQ(vm->devices().size(), 2u);
  // No list: one CPU.
  EXPECT_EQ(VirtualMachine::create(exec)->devices().size(), 1u);
  // A device type without a runtime is named with its target. (14: a type DLPack 0.6 does not
  // name but its unfixed enum can hold — larger vendor types are UB for UBSan's enum check.)
  const_cast<Executable&>(*with).devices[1] = {14, 0, "nowhere,gpu=1"};
  std::string msg = error_of([&] { VirtualMachine::create(with); });
  EXPECT_NE(msg.find("device 1 (target nowhere,gpu=1) has device type 14"), std::string::npos)
      << msg;
}

TEST(ExecutableDevices, Version2FilesStillLoad) {
  // A version-3 file without libraries and devices is a version-2 file plus an empty DEVS
  // section (tag, size, count: 16 bytes).
  std::vector<uint8_t> bytes = testing::build_int_programs()->save();
  bytes.resize(bytes.size() - 16);
  uint32_t version = 2;
  std::memcpy(bytes.data() + 8, &version, 4);
  uint64_t payload = bytes.size() - 32;
  std::memcpy(bytes.data() + 16, &payload, 8);
  uint64_t sum = fnv1a64(std::span<const uint8_t>(bytes).subspan(32));
  std::memcpy(bytes.data() + 24, &sum, 8);
  Ref<Executable> back = Executable::load(bytes);
  EXPECT_TRUE(back->devices.empty());
  EXPECT_EQ(back->functions, testing::build_int_programs()->functions);
}

TEST(ExecutableDevices, LibraryOnAMissingDeviceIsRejected) {
  auto exec = clone(*testing::build_int_programs());
  auto& e = const_cast<Executable&>(*exec);
  e.libraries.push_back({"tir-interp", {}, 3});
  std::string msg = error_of([&] { e.validate(); });
  EXPECT_NE(msg.find("library 0 (tir-interp) runs on device 3, the executable has 1 devices"),
            std::string::npos)
      << msg;
}

}  // namespace
}  // namespace relax::runtime
