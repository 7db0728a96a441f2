// End to end through relax-driver with the LLVM backend: the MLP example (examples/mlp)
// compiled once for a symbolic batch and run at batch 1, 3 and 17; run straight from source
// (JIT); the shipped pipelines; inputs as .npy and .pb; bad inputs; an executable copied away
// from the build tree; inspect.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "../../common/driver_runner.h"
#include "../../common/tensor_compare.h"
#include "relax/runtime/tensor_io.h"

namespace relax {
namespace {

namespace fs = std::filesystem;
using runtime::NDArray;

const std::string kExamples = RELAX_SOURCE_DIR "/examples/mlp";
const std::string kMlp = kExamples + "/mlp.rx";

std::string input(int batch) { return kExamples + "/input_b" + std::to_string(batch) + ".npy"; }
std::string expected(int batch) {
  return kExamples + "/expected_b" + std::to_string(batch) + ".npy";
}

/// Every element of `got` within 1e-5 of `want` (the shared comparison, tests/common).
void expect_close(const NDArray& got, const NDArray& want) {
  EXPECT_TRUE(test::tensors_close(got, want, 0, 1e-5));
}

class Mlp : public test::LLVMDriverTest {
 protected:
  /// Runs `exe_or_source` on the batch's input; checks the output against the reference.
  void run_and_check(const std::string& exe_or_source, int batch, const std::string& extra = "") {
    fs::path out = dir_ / ("out_b" + std::to_string(batch));
    test::DriverResult r = run("run " + exe_or_source + " --input x=" + input(batch) +
                               " --output-dir " + out.string() + " " + extra);
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_NE(r.out.find("output 0: tensor (" + std::to_string(batch) + ", 10) float32"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("latency: first"), std::string::npos) << r.out;
    expect_close(runtime::load_npy((out / "output_0.npy").string()),
                 runtime::load_npy(expected(batch)));
  }
};

TEST_F(Mlp, CompiledOnceRunsAtBatch1And3And17) {
  test::DriverResult c = run("compile " + kMlp + " --target llvm -o mlp.rxe");
  ASSERT_EQ(c.rc, 0) << c.err;
  ASSERT_TRUE(fs::exists(dir_ / "mlp.rxe"));
  for (int batch : {1, 3, 17}) run_and_check("mlp.rxe", batch);
}

TEST_F(Mlp, RunsStraightFromSourceThroughTheJit) {
  for (int batch : {1, 17}) run_and_check(kMlp, batch);
}

TEST_F(Mlp, ShippedPipelinesAndTheInterpreterTargetAgree) {
  for (const char* pipeline : {"default", "o0"}) {
    std::string exe = std::string(pipeline) + ".rxe";
    test::DriverResult c = run("compile " + kMlp + " -p " RELAX_SOURCE_DIR "/config/pipelines/" +
                               pipeline + ".yaml -o " + exe);
    ASSERT_EQ(c.rc, 0) << pipeline << ": " << c.err;
    run_and_check(exe, 3);
  }
  test::DriverResult c = run("compile " + kMlp + " --target tir-interp -o interp.rxe");
  ASSERT_EQ(c.rc, 0) << c.err;
  run_and_check("interp.rxe", 3);
}

TEST_F(Mlp, StatsCountKernelLaunchesBeforeAndAfterFusion) {
  test::DriverResult o0 = run("compile " + kMlp + " -p " RELAX_SOURCE_DIR
                              "/config/pipelines/o0.yaml --stats -o o0.rxe");
  ASSERT_EQ(o0.rc, 0) << o0.err;
  // Three matmuls, three bias adds, two relus, one softmax.
  EXPECT_NE(o0.err.find("stats: main: 9 kernel launches"), std::string::npos) << o0.err;
  test::DriverResult fused = run("compile " + kMlp + " -p " RELAX_SOURCE_DIR
                                 "/config/pipelines/default.yaml --stats -o default.rxe");
  ASSERT_EQ(fused.rc, 0) << fused.err;
  // matmul+add+relu twice, matmul+add, softmax.
  EXPECT_NE(fused.err.find("stats: main: 4 kernel launches"), std::string::npos) << fused.err;
}

TEST_F(Mlp, UpperBoundPlansMemoryAtTheBoundAndRunsBelowIt) {
  test::DriverResult plain = run("compile " + kMlp + " -p " RELAX_SOURCE_DIR
                                 "/config/pipelines/default.yaml --stats -o plain.rxe");
  ASSERT_EQ(plain.rc, 0) << plain.err;
  // The batch is symbolic: no statistics without a bound.
  EXPECT_EQ(plain.err.find("memory: planned"), std::string::npos) << plain.err;
  test::DriverResult c = run("compile " + kMlp + " -p " RELAX_SOURCE_DIR
                             "/config/pipelines/default.yaml --stats --upper-bound n=32 "
                             "-o bounded.rxe");
  ASSERT_EQ(c.rc, 0) << c.err;
  EXPECT_NE(c.err.find("memory: planned"), std::string::npos) << c.err;
  for (int batch : {1, 3, 17}) run_and_check("bounded.rxe", batch);
  test::DriverResult bad = run("compile " + kMlp + " --upper-bound n=big -o bad.rxe");
  EXPECT_EQ(bad.rc, 1) << bad.err;
  EXPECT_NE(bad.err.find("--upper-bound n=big: expected NAME=BOUND"), std::string::npos)
      << bad.err;
}

TEST_F(Mlp, CopiedExecutableRunsElsewhere) {
  ASSERT_EQ(run("compile " + kMlp + " -o mlp.rxe").rc, 0);
  fs::path away = dir_ / "deploy" / "elsewhere";
  fs::create_directories(away);
  fs::copy_file(dir_ / "mlp.rxe", away / "model.rxe");
  fs::remove(dir_ / "mlp.rxe");
  test::DriverResult r = run("run model.rxe --input x=" + input(3) + " --output-dir out",
                             test::kDriverPath, away);
  ASSERT_EQ(r.rc, 0) << r.err;
  expect_close(runtime::load_npy((away / "out" / "output_0.npy").string()),
               runtime::load_npy(expected(3)));
}

TEST_F(Mlp, WrongInputShapeOrDtypeIsANamedErrorWithExitCode1) {
  ASSERT_EQ(run("compile " + kMlp + " -o mlp.rxe").rc, 0);
  runtime::save_npy((dir_ / "bad_shape.npy").string(),
                    NDArray::empty({2, 63}, DataType::Float(32)));
  test::DriverResult r = run("run mlp.rxe --input x=bad_shape.npy");
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_NE(r.err.find("x"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("64"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;

  NDArray ints = NDArray::empty({2, 64}, DataType::Int(32));
  std::memset(ints.data(), 0, ints.nbytes());
  runtime::save_npy((dir_ / "bad_dtype.npy").string(), ints);
  r = run("run mlp.rxe --input x=bad_dtype.npy");
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_NE(r.err.find("float32"), std::string::npos) << r.err;

  r = run("run mlp.rxe --input y=" + input(1));
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("no parameter named y"), std::string::npos) << r.err;

  std::ofstream(dir_ / "junk.npy") << "not a numpy file";
  r = run("run mlp.rxe --input x=junk.npy");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("junk.npy: not a .npy file"), std::string::npos) << r.err;

  std::ofstream(dir_ / "junk.rxe") << "not an executable";
  r = run("run junk.rxe");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("not a Relax executable"), std::string::npos) << r.err;
}

/// An onnx.TensorProto (dims, data_type FLOAT, raw_data) holding `a`.
std::string tensor_proto(const NDArray& a) {
  std::string out;
  auto varint = [&](uint64_t v) {
    do {
      uint8_t b = v & 0x7F;
      v >>= 7;
      out.push_back(char(b | (v ? 0x80 : 0)));
    } while (v);
  };
  for (int64_t d : a.shape()) {
    varint(1 << 3 | 0);
    varint(uint64_t(d));
  }
  varint(2 << 3 | 0);
  varint(1);
  varint(8 << 3 | 2);
  varint(1);
  out += "x";
  varint(9 << 3 | 2);
  varint(a.nbytes());
  out.append(static_cast<const char*>(a.data()), a.nbytes());
  return out;
}

TEST_F(Mlp, TensorProtoInputsRandomInputsAndRepeat) {
  ASSERT_EQ(run("compile " + kMlp + " -o mlp.rxe").rc, 0);
  std::ofstream(dir_ / "x.pb", std::ios::binary) << tensor_proto(runtime::load_npy(input(3)));
  test::DriverResult r = run("run mlp.rxe --input x=x.pb --output-dir out");
  ASSERT_EQ(r.rc, 0) << r.err;
  expect_close(runtime::load_npy((dir_ / "out" / "output_0.npy").string()),
               runtime::load_npy(expected(3)));

  r = run("run mlp.rxe --dim n=5 --repeat 4");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("output 0: tensor (5, 10) float32"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("over 3 more runs: mean"), std::string::npos) << r.out;
  // Random inputs come from a fixed seed: two runs print the same output.
  EXPECT_EQ(run("run mlp.rxe --dim n=5").out.substr(0, 80), r.out.substr(0, 80));
}

TEST_F(Mlp, InspectShowsSignatureKernelsConstantsAndBytecode) {
  // The minimum build keeps the weights as written (the default pipeline packs them).
  ASSERT_EQ(run("compile " + kMlp + " -O0 -o mlp.rxe").rc, 0);
  test::DriverResult r = run("inspect mlp.rxe");
  ASSERT_EQ(r.rc, 0) << r.err;
  for (const char* want :
       {"main(x: Tensor((n, 64), float32))", "kernel libraries:", "llvm-so: ",
        "tensor (64, 128) float32 (32768 bytes)", "bytecode:", "vm.builtin.check_tensor_info"}) {
    EXPECT_NE(r.out.find(want), std::string::npos) << want << "\n" << r.out;
  }
}

// An executable records the CPU features its kernels were compiled for; one that needs a
// feature the CPU lacks (simulated with RELAX_CPU_FEATURES_HIDE) is refused when it loads,
// naming the feature, instead of dying of SIGILL; one compiled for x86-64-v3 still runs there.
TEST_F(Mlp, ExecutableForAMissingCpuFeatureIsRefused) {
#if defined(__x86_64__)
  ASSERT_EQ(run("compile " + kMlp + " -o host.rxe").rc, 0);
  ASSERT_EQ(run("compile " + kMlp + " --target llvm,mcpu=x86-64-v3 -o v3.rxe").rc, 0);
  ::setenv("RELAX_CPU_FEATURES_HIDE", "avx512f,avx2", 1);
  test::DriverResult host = run("run host.rxe --input x=" + input(3));
  test::DriverResult v3 = run("run v3.rxe --input x=" + input(3));
  ::setenv("RELAX_CPU_FEATURES_HIDE", "avx512f", 1);
  test::DriverResult v3_ok = run("run v3.rxe --input x=" + input(3));
  ::unsetenv("RELAX_CPU_FEATURES_HIDE");
  EXPECT_EQ(host.rc, 1) << host.err;
  EXPECT_NE(host.err.find("compiled for CPU features this CPU lacks: avx2"), std::string::npos)
      << host.err;
  EXPECT_EQ(v3.rc, 1) << v3.err;
  EXPECT_NE(v3.err.find("lacks: avx2 (they need "), std::string::npos) << v3.err;
  EXPECT_EQ(v3.err.find("avx512"), std::string::npos) << "x86-64-v3 has no AVX-512: " << v3.err;
  EXPECT_EQ(v3_ok.rc, 0) << v3_ok.err;
#else
  GTEST_SKIP() << "x86-64 only";
#endif
}

}  // namespace
}  // namespace relax
