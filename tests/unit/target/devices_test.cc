// Heterogeneous execution end to end: a module with a host vdevice and the interpreter's GPU
// device (relax/target/devices.h), placed by device-placement, built with one kernel library
// per device, run by the VM with its executable's devices, against the single-device build.
#include "relax/target/devices.h"

#include <gtest/gtest.h>

#include "../../common/driver_runner.h"
#include "../../common/error_of.h"
#include "../../common/tensor_compare.h"
#include "relax/runtime/device_api.h"
#include "relax/runtime/vm.h"
#include "relax/target/build.h"
#include "relax/target/compile.h"
#include "relax/text/parser.h"
#include "relax/text/printer.h"
#include "relax/vm/codegen.h"

namespace relax {
namespace {

using runtime::NDArray;
using runtime::Value;

const char* kDevices =
    R"(    I.module_global_infos({"vdevice": [I.vdevice("tir-interp", 0, "global"), I.vdevice("tir-interp,gpu=1", 0, "global")]})
)";

// add (device), flip (host only), add of a constant (device), called twice from a loop-like
// recursion so that the constant is used on many calls.
const char* kBody = R"(
    @T.prim_func
    def flip(a: T.handle, b: T.handle):
        T.func_attr({"relax.host_only": True})
        A = T.match_buffer(a, (2, 3), "float32")
        B = T.match_buffer(b, (2, 3), "float32")
        for i, j in T.grid(2, 3):
            B[i, j] = A[1 - i, 2 - j]

    @R.function
    def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        cls = Module
        with R.dataflow():
            a = R.multiply(x, y)
            f = R.call_tir(cls.flip, (a,), out_sinfo=R.Tensor((2, 3), "float32"))
            c = R.add(f, R.const([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], "float32"))
            r = R.nn.relu(c)
            R.output(r)
        return r
)";

std::string module_text(bool devices) {
  return std::string("@I.ir_module\nclass Module:\n") + (devices ? kDevices : "") + kBody;
}

const char* kPipeline =
    "normalize,legalize-ops,device-placement,call-tir-rewrite,static-plan-block-memory,"
    "to-non-dataflow,vm-shape-lower,kill-after-last-use";

/// The heterogeneous build of `text` (default: the module above): passes through compile(),
/// one library per device.
Ref<runtime::Executable> build_two_devices(IRModule* lowered = nullptr,
                                           const std::string& text = module_text(true)) {
  CompileOptions o;
  o.module = parse_module(text);
  o.pipeline = kPipeline;
  o.target = "tir-interp";
  o.passes_only = true;
  o.stats = true;
  CompileResult r = compile(o);
  if (text == module_text(true)) {
    EXPECT_NE(r.stats.find("stats: devices: 6 copies inserted; 1 ops sent to host: flip"),
              std::string::npos)
        << r.stats;
  }
  std::vector<runtime::Library> libs;
  for (auto& [device, kernels] : vm::kernels_by_device(r.lowered)) {
    if (device == 0) {
      libs.push_back({"tir-interp", target::make_tir_interp_library(kernels), 0});
    } else {
      libs.push_back(target::make_interp_gpu_library(kernels, int32_t(device)));
    }
  }
  if (lowered) *lowered = r.lowered;
  return vm::vm_codegen(r.lowered, std::move(libs));
}

std::vector<Value> inputs() {
  NDArray x = NDArray::empty({2, 3}, DataType::Float(32));
  NDArray y = NDArray::empty({2, 3}, DataType::Float(32));
  for (int i = 0; i < 6; ++i) {
    x.data_as<float>()[i] = float(i) - 2.5f;
    y.data_as<float>()[i] = 0.5f * float(i);
  }
  return {x, y};
}

class Devices : public ::testing::Test {
 protected:
  void SetUp() override { target::register_interp_gpu_device(); }
};

TEST_F(Devices, HeterogeneousRunMatchesTheSingleDeviceBuild) {
  IRModule lowered;
  Ref<runtime::Executable> exec = build_two_devices(&lowered);
  ASSERT_EQ(exec->devices.size(), 2u);
  EXPECT_EQ(exec->devices[0].device_type, kDLCPU);
  EXPECT_EQ(exec->devices[1].device_type, target::kInterpGpuDeviceType);
  EXPECT_EQ(exec->devices[1].target, "tir-interp,gpu=1");
  ASSERT_EQ(exec->libraries.size(), 2u);
  EXPECT_EQ(exec->libraries[1].format, "tir-interp-gpu");
  EXPECT_EQ(exec->libraries[1].device_index, 1);

  Ref<runtime::Executable> ref = build(parse_module(module_text(false)), {"tir-interp", "o0"});
  EXPECT_TRUE(ref->devices.empty());
  auto ref_vm = runtime::VirtualMachine::create(ref);
  NDArray want = ref_vm->invoke("main", inputs()).as_tensor();

  auto vm = runtime::VirtualMachine::create(exec);  // the executable's devices
  ASSERT_EQ(vm->devices().size(), 2u);
  int64_t before = target::interp_gpu_copy_count();
  NDArray got = vm->invoke("main", inputs()).as_tensor();
  int64_t first = target::interp_gpu_copy_count() - before;
  EXPECT_EQ(got.device().device_type, kDLCPU);  // results come back to the host
  EXPECT_TRUE(test::tensors_close(got, want));
  // Per run: x and y up, the product down for flip and back up, the result down; the constant
  // goes up on the first run only and stays on the device.
  before = target::interp_gpu_copy_count();
  got = vm->invoke("main", inputs()).as_tensor();
  int64_t second = target::interp_gpu_copy_count() - before;
  EXPECT_TRUE(test::tensors_close(got, want));
  EXPECT_EQ(second, 5);
  EXPECT_EQ(first, second + 1);
}

TEST_F(Devices, MemoryPlanKeepsDevicesApart) {
  IRModule lowered;
  build_two_devices(&lowered);
  // Each device gets storages of its own: every alloc_storage names its device, and tensors
  // on the device are allocated in device storage.
  std::string text = print_module(lowered);
  EXPECT_NE(text.find("R.vm.alloc_storage(R.shape([64]), R.prim_value(0))"), std::string::npos)
      << text;
  EXPECT_NE(text.find("R.vm.alloc_storage(R.shape([64]), R.prim_value(1))"), std::string::npos)
      << text;
  EXPECT_NE(text.find("R.vm.alloc_tensor(storage1, R.prim_value(0), R.shape([2, 3])"),
            std::string::npos)
      << text;
}

TEST_F(Devices, SaveLoadKeepsTheDevices) {
  Ref<runtime::Executable> exec = build_two_devices();
  Ref<runtime::Executable> back = runtime::Executable::load(exec->save());
  EXPECT_EQ(back->devices, exec->devices);
  EXPECT_EQ(back->libraries, exec->libraries);
  auto vm = runtime::VirtualMachine::create(back);
  auto ref_vm = runtime::VirtualMachine::create(
      build(parse_module(module_text(false)), {"tir-interp", "o0"}));
  EXPECT_TRUE(test::tensors_close(vm->invoke("main", inputs()).as_tensor(),
                                  ref_vm->invoke("main", inputs()).as_tensor()));
  // The loader checks the device list.
  auto damaged = make_ref<runtime::Executable>();
  auto& d = const_cast<runtime::Executable&>(*damaged);
  d.devices.push_back({0, 0, "nowhere"});
  std::string msg = test::error_of([&] { d.validate(); });
  EXPECT_NE(msg.find("device 0 (nowhere) has invalid device type 0"), std::string::npos) << msg;
  // A VM given fewer devices than the executable needs is refused.
  msg = test::error_of([&] { runtime::VirtualMachine::create(back, {{kDLCPU, 0}}); });
  EXPECT_NE(msg.find("the executable runs on 2 devices, the VM was given 1"), std::string::npos)
      << msg;
}

TEST_F(Devices, KernelOnTheWrongDeviceIsAnError) {
  // Without placement a GPU-library kernel receives host tensors: the missing copy is named.
  CompileOptions o;
  o.module = parse_module(module_text(true));
  o.pipeline =
      "normalize,legalize-ops,call-tir-rewrite,to-non-dataflow,vm-shape-lower,kill-after-last-use";
  o.passes_only = true;
  CompileResult r = compile(o);
  IRModule kernels;
  for (const auto& e : r.lowered.functions())
    if (e.func.is<tir::PrimFunc>()) kernels.add(e.gv, e.func);
  auto exec = vm::vm_codegen(r.lowered, {target::make_interp_gpu_library(kernels, 1)});
  auto vm = runtime::VirtualMachine::create(exec);
  std::string msg = test::error_of([&] { vm->invoke("main", inputs()); });
  EXPECT_NE(msg.find("runs on the tir-interp-gpu device, but argument 0 is on cpu:0"),
            std::string::npos)
      << msg;
}

class DevicesDriver : public test::DriverTest {};

TEST_F(DevicesDriver, InspectShowsDevicesKernelsAndCopiesAndRunTakesHostTensors) {
  target::register_interp_gpu_device();
  std::string path = (dir_ / "hetero.rxe").string();
  build_two_devices()->save_to_file(path);
  test::DriverResult r = run("inspect hetero.rxe");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("devices:\n  0: type 1 id 0 target tir-interp (host)\n"
                       "  1: type 12 id 0 target tir-interp,gpu=1\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("tir-interp-gpu: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("device 1, 3 kernels:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("device 0, 1 kernels: flip"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("device copies: 5 (+1 constant uploads, once per VM)"), std::string::npos)
      << r.out;
  r = run("run hetero.rxe --repeat 2");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("output 0"), std::string::npos) << r.out;

  // A parameter that lives on the device: run copies the host input there (the device kernel
  // would refuse a host tensor) and the result back.
  std::string on_device = std::string("@I.ir_module\nclass Module:\n") + kDevices + R"(
    @R.function
    def main(x: R.Tensor((2, 3), "float32", vdevice="tir-interp:1")) -> R.Tensor((2, 3), "float32"):
        r = R.nn.relu(x)
        return r
)";
  build_two_devices(nullptr, on_device)->save_to_file((dir_ / "param.rxe").string());
  r = run("run param.rxe");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("output 0"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace relax
