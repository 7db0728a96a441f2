// The whole GPU path through the compile API and the driver, on the interpreter's GPU target
// (tir-interp,gpu=1): placement, the default GPU rules, the GPU lowering, launch programs in
// the library, copies at device boundaries; a data-dependent op (nonzero, a VM builtin) runs
// on the host between GPU kernels. Every result is checked against the CPU reference build.
#include <gtest/gtest.h>

#include "../../common/driver_runner.h"
#include "../../common/error_of.h"
#include "../../common/tensor_compare.h"
#include "relax/runtime/vm.h"
#include "relax/target/build.h"
#include "relax/target/compile.h"
#include "relax/target/devices.h"
#include "relax/text/parser.h"

namespace relax {
namespace {

using runtime::NDArray;
using runtime::Value;

// matmul + bias + relu and a row softmax on the GPU; nonzero (data-dependent) on the host; the
// indices it returns go back to the GPU for a cast and an add.
const char* kModel = R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((8, 40), "float32"), w: R.Tensor((40, 24), "float32"), b: R.Tensor((24,), "float32")):
        with R.dataflow():
            y = R.matmul(x, w)
            z = R.nn.relu(R.add(y, b))
            s = R.nn.softmax(z, axis=1)
            t = R.sum(z, axis=[0])
            nz = R.nonzero(t)
            m = R.match_cast(nz, R.Tensor((1, "m"), "int64"))
            k = R.add(R.astype(m, dtype="float32"), R.const(1.0, "float32"))
            R.output(s, k)
        return (s, k)
)";

std::vector<Value> inputs() {
  NDArray x = NDArray::empty({8, 40}, DataType::Float(32));
  NDArray w = NDArray::empty({40, 24}, DataType::Float(32));
  NDArray b = NDArray::empty({24}, DataType::Float(32));
  for (int i = 0; i < 8 * 40; ++i) x.data_as<float>()[i] = float((i * 7) % 13) / 13.0f - 0.4f;
  for (int i = 0; i < 40 * 24; ++i) w.data_as<float>()[i] = float((i * 5) % 11) / 11.0f - 0.5f;
  for (int i = 0; i < 24; ++i) b.data_as<float>()[i] = (i % 3 == 0) ? -50.0f : 0.1f * float(i);
  return {x, w, b};
}

CompileResult compile_gpu(const std::string& pipeline, bool stats = true) {
  CompileOptions o;
  o.module = parse_module(kModel);
  o.target = "tir-interp,gpu=1";
  o.pipeline = pipeline;
  o.stats = stats;
  return compile(o);
}

void expect_matches_reference(const Ref<runtime::Executable>& exec) {
  auto ref = runtime::VirtualMachine::create(build(parse_module(kModel), {"tir-interp", "o0"}));
  runtime::Tuple want = ref->invoke("main", inputs()).as_tuple();
  auto vm = runtime::VirtualMachine::create(exec);
  runtime::Tuple got = vm->invoke("main", inputs()).as_tuple();
  ASSERT_EQ(got.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(got[i].as_tensor().device().device_type, kDLCPU) << "result " << i;
    EXPECT_TRUE(test::tensors_close(got[i].as_tensor(), want[i].as_tensor(), 1e-5, 1e-5))
        << "result " << i;
  }
}

TEST(GpuCompile, HeterogeneousBuildMatchesTheReference) {
  CompileResult r = compile_gpu("o0");
  EXPECT_EQ(r.host, "tir-interp");
  const runtime::Executable& exec = *r.executable;
  ASSERT_EQ(exec.devices.size(), 2u);
  EXPECT_EQ(exec.devices[0].device_type, kDLCPU);
  EXPECT_EQ(exec.devices[1].device_type, target::kInterpGpuDeviceType);
  bool gpu_library = false;
  for (const auto& lib : exec.libraries) gpu_library |= lib.device_index == 1;
  EXPECT_TRUE(gpu_library);
  // --stats: the copies placement inserted, the rules that scheduled the GPU kernels.
  EXPECT_NE(r.stats.find("copies inserted"), std::string::npos) << r.stats;
  EXPECT_NE(r.stats.find("data-dependent ops on the host: vm.builtin.nonzero"), std::string::npos)
      << r.stats;
  EXPECT_NE(r.stats.find("kernels scheduled by the default GPU rules"), std::string::npos)
      << r.stats;
  EXPECT_NE(r.stats.find("gpu.matmul"), std::string::npos) << r.stats;
  EXPECT_TRUE(r.warnings.empty()) << r.warnings.front();
  expect_matches_reference(r.executable);
}

TEST(GpuCompile, OptimisingPipelineFusesThenPlaces) {
  CompileResult r = compile_gpu("default");
  expect_matches_reference(r.executable);
  // The memory plan aligns each device's storage as its target asks.
  CompileOptions o;
  o.module = parse_module(kModel);
  o.target = "tir-interp,gpu=1,buffer-alignment=256";
  o.pipeline = "default";
  o.passes_only = true;
  IRModule lowered = compile(o).lowered;
  const AttrValue* a = lowered.attrs()->find("vdevice_alignment");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(std::get<std::vector<int64_t>>(*a), (std::vector<int64_t>{64, 256}));
}

TEST(GpuCompile, SaveLoadRunsTheLaunchPrograms) {
  CompileResult r = compile_gpu("o0", false);
  Ref<runtime::Executable> back = runtime::Executable::load(r.executable->save());
  expect_matches_reference(back);
}

TEST(GpuCompile, BadTargetsAreNamed) {
  std::string msg = test::error_of([] {
    CompileOptions o;
    o.module = parse_module(kModel);
    o.target = "tir-interp,gpu=1,max-threads=64";
    o.pipeline = "o0";
    compile(o);
  });
  EXPECT_NE(msg.find("unknown attribute \"max-threads\""), std::string::npos) << msg;
  EXPECT_NE(msg.find("max-threads-per-block"), std::string::npos) << msg;
  // A limit no schedule can meet: blocks of at most 0 threads.
  msg = test::error_of([] {
    CompileOptions o;
    o.module = parse_module(kModel);
    o.target = "tir-interp,gpu=1,max-threads-per-block=0";
    o.pipeline = "o0";
    compile(o);
  });
  EXPECT_NE(msg.find("max-threads-per-block"), std::string::npos) << msg;
}

TEST(GpuCompile, AVDeviceNamingNoDeviceIsAnError) {
  const char* text = R"(
@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("tir-interp", 0, "global")]})
    @R.function
    def main(x: R.Tensor((2,), "float32", vdevice="vulkan:0")):
        return x
)";
  std::string msg = test::error_of([&] { parse_module(text); });
  EXPECT_NE(msg.find("vulkan:0"), std::string::npos) << msg;
  EXPECT_NE(msg.find("names no device"), std::string::npos) << msg;
}

class GpuDriver : public test::DriverTest {};

TEST_F(GpuDriver, CompileInspectAndRun) {
  {
    std::ofstream f(dir_ / "model.rx");
    f << kModel;
  }
  test::DriverResult r = run("compile model.rx --target tir-interp,gpu=1 -O0 --stats -o m.rxe");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("host tir-interp"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("kernels scheduled by the default GPU rules"), std::string::npos) << r.err;
  r = run("inspect m.rxe");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("tir-interp,gpu=1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("copies"), std::string::npos) << r.out;
  r = run("run m.rxe --seed 3");
  EXPECT_EQ(r.rc, 0) << r.err;
}

}  // namespace
}  // namespace relax

namespace relax {
namespace {

// A hand-scheduled kernel with more threads per block than the target allows.
const char* kTooWide = R"(
@I.ir_module
class Module:
    @T.prim_func
    def wide(A: T.Buffer((4096,), "float32"), B: T.Buffer((4096,), "float32")):
        for bx in T.thread_binding(2, thread="blockIdx.x"):
            for tx in T.thread_binding(2048, thread="threadIdx.x"):
                B[bx * 2048 + tx] = A[bx * 2048 + tx] * T.float32(2)

    @R.function
    def main(x: R.Tensor((4096,), "float32")):
        cls = Module
        y = R.call_tir(cls.wide, (x,), out_sinfo=R.Tensor((4096,), "float32"))
        return y
)";

TEST(GpuCompile, AScheduleBreakingALimitIsNamed) {
  CompileOptions o;
  o.module = parse_module(kTooWide);
  o.target = "tir-interp,gpu=1";
  o.pipeline = "o0";
  std::string msg = test::error_of([&] { compile(o); });
  EXPECT_NE(msg.find("wide"), std::string::npos) << msg;
  EXPECT_NE(msg.find("2048"), std::string::npos) << msg;
  EXPECT_NE(msg.find("1024"), std::string::npos) << msg;
  // With a device that allows it, the same kernel builds and runs.
  o.target = "tir-interp,gpu=1,max-threads-per-block=2048,max-block=2048x1024x64";
  CompileResult r = compile(o);
  auto vm = runtime::VirtualMachine::create(r.executable);
  NDArray x = NDArray::empty({4096}, DataType::Float(32));
  for (int i = 0; i < 4096; ++i) x.data_as<float>()[i] = float(i);
  std::string err = test::error_of([&] { vm->invoke("main", {x}); });
  // The interpreter itself bounds blocks at 1024 threads (a sanity limit): named, not a crash.
  if (!err.empty()) {
    EXPECT_NE(err.find("1024"), std::string::npos) << err;
  }
}

}  // namespace
}  // namespace relax
