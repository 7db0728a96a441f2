// The SPIR-V emitter on real kernels (elementwise with static and symbolic shapes, every
// unary intrinsic, casts between all dtypes, reductions with shared memory and barriers,
// softmax, matmul, conv2d, many scalars, int64, bool, bfloat16, float16), each validated in
// process; golden checks on the disassembly for the semantics TVM got wrong; error texts.
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "spirv_test_util.h"

namespace relax::vulkan::test {
namespace {

/// A one-input elementwise kernel: B[i] = expr(A[i]) over n elements.
std::string unary(const std::string& in, const std::string& out, const std::string& expr,
                  int n = 1000) {
  std::string N = std::to_string(n);
  return "@T.prim_func\ndef f(A: T.Buffer((" + N + ",), \"" + in + "\"), B: T.Buffer((" + N +
         ",), \"" + out + "\")):\n    for i in range(" + N +
         "):\n        with T.block(\"b\"):\n            vi = T.axis.spatial(" + N +
         ", i)\n            B[vi] = " + expr + "\n";
}

/// A two-input elementwise kernel: C[i] = expr(A[i], B[i]).
std::string binary(const std::string& dt, const std::string& out, const std::string& expr) {
  return "@T.prim_func\ndef f(A: T.Buffer((100,), \"" + dt + "\"), B: T.Buffer((100,), \"" + dt +
         "\"), C: T.Buffer((100,), \"" + out + "\")):\n    for i in range(100):\n        with "
         "T.block(\"b\"):\n            vi = T.axis.spatial(100, i)\n            C[vi] = " +
         expr + "\n";
}

TEST(SpirvCodegen, ElementwiseStatic) {
  Compiled c = compile_text(binary("float32", "float32", "A[vi] + B[vi]"));
  ASSERT_EQ(c.kernels.size(), 1u);
  EXPECT_EQ(c.kernels[0].buffer_dtypes.size(), 3u);
  EXPECT_NE(c.text.find("OpEntryPoint GLCompute"), std::string::npos);
  EXPECT_NE(c.text.find("LocalSize"), std::string::npos);
  EXPECT_NE(c.text.find("WorkgroupId"), std::string::npos);
  EXPECT_NE(c.text.find("LocalInvocationId"), std::string::npos);
  EXPECT_NE(c.text.find("PushConstant"), std::string::npos);
}

TEST(SpirvCodegen, ElementwiseSymbolic) {
  Compiled c = compile_text(R"(
@T.prim_func
def add(a: T.handle, b: T.handle, c: T.handle):
    n = T.int64()
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    C = T.match_buffer(c, (n,), "float32")
    for i in range(n):
        with T.block("add"):
            vi = T.axis.spatial(n, i)
            C[vi] = A[vi] + B[vi]
)");
  ASSERT_EQ(c.kernels.size(), 1u);
  // n reaches the kernel as a scalar of the parameter block.
  EXPECT_EQ(c.kernels[0].scalar_dtypes.size(), 1u);
}

TEST(SpirvCodegen, UnaryIntrinsicsFloat32AndFloat16) {
  const char* fns[] = {"T.exp", "T.exp2", "T.log", "T.log2", "T.log1p", "T.sqrt", "T.rsqrt",
                       "T.sin", "T.cos", "T.tan", "T.asin", "T.acos", "T.atan", "T.sinh",
                       "T.cosh", "T.tanh", "T.asinh", "T.acosh", "T.atanh", "T.erf",
                       "T.sigmoid", "T.floor", "T.ceil", "T.round", "T.trunc", "T.fabs",
                       "T.abs"};
  for (const char* dt : {"float32", "float16"}) {
    for (bool fp16 : {false, true}) {
      SpirvFeatures f;
      f.float16 = fp16;
      for (const char* fn : fns) {
        SCOPED_TRACE(std::string(fn) + " " + dt + (fp16 ? " float16=1" : ""));
        EXPECT_NO_THROW(compile_text(unary(dt, dt, std::string(fn) + "(A[vi])"), f));
      }
      for (const char* e : {"T.pow(A[vi], B[vi])", "T.fmod(A[vi], B[vi])",
                            "T.atan2(A[vi], B[vi])", "T.max(A[vi], B[vi])",
                            "T.min(A[vi], B[vi])", "A[vi] / B[vi]", "A[vi] // B[vi]",
                            "A[vi] % B[vi]"}) {
        SCOPED_TRACE(std::string(e) + " " + dt);
        EXPECT_NO_THROW(compile_text(binary(dt, dt, e), f));
      }
    }
  }
  for (const char* e : {"T.isnan(A[vi])", "T.isinf(A[vi])", "T.isfinite(A[vi])"})
    EXPECT_NO_THROW(compile_text(unary("float32", "bool", e))) << e;
}

TEST(SpirvCodegen, CastsBetweenAllDtypes) {
  const char* dts[] = {"float32", "float16", "bfloat16", "int8", "int16", "int32", "int64",
                       "uint8", "uint16", "uint32", "uint64", "bool"};
  for (const char* from : dts)
    for (const char* to : dts) {
      SCOPED_TRACE(std::string(from) + " -> " + to);
      EXPECT_NO_THROW(compile_text(unary(from, to, std::string("T.Cast(\"") + to + "\", A[vi])")));
    }
}

TEST(SpirvCodegen, IntegerArithmeticAndBitwise) {
  for (const char* dt : {"int8", "int16", "int32", "int64", "uint8", "uint32"}) {
    for (const char* e : {"A[vi] + B[vi] * A[vi]", "A[vi] // B[vi]", "A[vi] % B[vi]",
                          "T.truncdiv(A[vi], B[vi])", "T.truncmod(A[vi], B[vi])",
                          "T.bitwise_and(A[vi], B[vi])", "T.bitwise_or(A[vi], B[vi])",
                          "T.bitwise_xor(A[vi], B[vi])", "T.bitwise_not(A[vi])",
                          "T.shift_left(A[vi], B[vi])", "T.shift_right(A[vi], B[vi])",
                          "T.max(A[vi], B[vi])", "T.abs(A[vi])"}) {
      SCOPED_TRACE(std::string(e) + " " + dt);
      EXPECT_NO_THROW(compile_text(binary(dt, dt, e)));
    }
  }
}

/// Occurrences of `needle` in `hay`.
size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

const char* kRowSum = R"(
@T.prim_func
def row_sum(A: T.Buffer((4, 300), "float32"), B: T.Buffer((4,), "float32")):
    for i, k in T.grid(4, 300):
        with T.block("sum"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk]
)";

TEST(SpirvCodegen, ReductionUsesWorkgroupMemoryAndBarriers) {
  Compiled c = compile_text(kRowSum);
  // Barrier: Workgroup execution and memory scope (2), AcquireRelease|WorkgroupMemory (0x108 =
  // 264), never SequentiallyConsistent.
  EXPECT_NE(c.text.find("OpControlBarrier %uint_2 %uint_2 %uint_264"), std::string::npos)
      << c.text;
  EXPECT_NE(c.text.find("Workgroup"), std::string::npos);
  // No layout decoration on the workgroup arrays: the only ArrayStrides are the storage
  // buffers' runtime arrays.
  EXPECT_EQ(count(c.text, "ArrayStride"), 2u) << c.text;
}

TEST(SpirvCodegen, Softmax) {
  Compiled c = compile_text(R"(
@T.prim_func
def softmax(A: T.Buffer((8, 100), "float32"), B: T.Buffer((8, 100), "float32")):
    M = T.alloc_buffer((8,), "float32")
    S = T.alloc_buffer((8,), "float32")
    for i, k in T.grid(8, 100):
        with T.block("mx"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                M[vi] = T.float32(-3.4e38)
            M[vi] = T.max(M[vi], A[vi, vk])
    for i, k in T.grid(8, 100):
        with T.block("sm"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                S[vi] = T.float32(0)
            S[vi] = S[vi] + T.exp(A[vi, vk] - M[vi])
    for i, k in T.grid(8, 100):
        with T.block("out"):
            vi, vk = T.axis.remap("SS", [i, k])
            B[vi, vk] = T.exp(A[vi, vk] - M[vi]) / S[vi]
)");
  EXPECT_GE(c.kernels.size(), 1u);
  EXPECT_NE(c.text.find("OpControlBarrier"), std::string::npos);
}

TEST(SpirvCodegen, MatmulWithSharedTiles) {
  Compiled c = compile_text(R"(
@T.prim_func
def mm(A: T.Buffer((64, 40), "float32"), B: T.Buffer((40, 48), "float32"), C: T.Buffer((64, 48), "float32")):
    for i, j, k in T.grid(64, 48, 40):
        with T.block("mm"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)");
  ASSERT_EQ(c.kernels.size(), 1u);
  EXPECT_NE(c.text.find("OpVariable %_ptr_Workgroup"), std::string::npos);
  EXPECT_NE(c.text.find("OpLoopMerge"), std::string::npos);
  EXPECT_EQ(count(c.text, "ArrayStride"), 3u);
}

TEST(SpirvCodegen, Conv2d) {
  Compiled c = compile_text(R"(
@T.prim_func
def conv(X: T.Buffer((1, 3, 10, 10), "float32"), W: T.Buffer((8, 3, 3, 3), "float32"), Y: T.Buffer((1, 8, 8, 8), "float32")):
    for n, co, h, w, ci, kh, kw in T.grid(1, 8, 8, 8, 3, 3, 3):
        with T.block("conv"):
            vn, vc, vh, vw, vci, vkh, vkw = T.axis.remap("SSSSRRR", [n, co, h, w, ci, kh, kw])
            with T.init():
                Y[vn, vc, vh, vw] = T.float32(0)
            Y[vn, vc, vh, vw] = Y[vn, vc, vh, vw] + X[vn, vci, vh + vkh, vw + vkw] * W[vc, vci, vkh, vkw]
)");
  EXPECT_EQ(c.kernels.size(), 1u);
}

TEST(SpirvCodegen, ManyScalarsOverflowToUniformBuffer) {
  std::string params, sum = "T.int64(0)";
  for (int i = 0; i < 20; ++i) {
    params += ", s" + std::to_string(i) + ": T.int64";
    sum += " + s" + std::to_string(i);
  }
  Compiled c = compile_text("@T.prim_func\ndef f(A: T.Buffer((100,), \"float32\"), B: "
                            "T.Buffer((100,), \"float32\")" + params +
                            "):\n    for i in range(100):\n        with T.block(\"b\"):\n"
                            "            vi = T.axis.spatial(100, i)\n            B[vi] = A[vi] "
                            "+ T.Cast(\"float32\", " + sum + ")\n");
  ASSERT_EQ(c.kernels.size(), 1u);
  EXPECT_EQ(c.kernels[0].scalar_dtypes.size(), 20u);
  // 20 int64 + 2 offsets = 168 bytes > 128: a Uniform block at binding 2 (after the buffers).
  EXPECT_EQ(c.text.find("PushConstant"), std::string::npos);
  EXPECT_NE(c.text.find("OpDecorate %params Binding 2"), std::string::npos) << c.text;
  EXPECT_TRUE(c.kernels[0].requirements.count("int64"));
}

TEST(SpirvCodegen, Int64BoolAndBfloat16Buffers) {
  Compiled i64 = compile_text(binary("int64", "int64", "A[vi] * B[vi] + T.int64(1)"));
  EXPECT_TRUE(i64.kernels[0].requirements.count("int64"));
  Compiled b = compile_text(binary("bool", "bool", "T.bitwise_and(A[vi], T.bitwise_not(B[vi]))"));
  EXPECT_TRUE(b.kernels[0].requirements.count("storage8"));
  EXPECT_NE(b.text.find("%_runtimearr_uchar"), std::string::npos) << b.text;
  Compiled bf = compile_text(binary("bfloat16", "bfloat16", "A[vi] * B[vi]"));
  EXPECT_TRUE(bf.kernels[0].requirements.count("storage16"));
  EXPECT_NE(bf.text.find("OpShiftLeftLogical"), std::string::npos);    // load: bits << 16
  EXPECT_NE(bf.text.find("%uint_32767"), std::string::npos);            // store: RNE
  // float16 without the feature: 16-bit storage, float32 arithmetic.
  Compiled h = compile_text(binary("float16", "float16", "A[vi] + B[vi]"));
  EXPECT_FALSE(h.kernels[0].requirements.count("float16"));
  EXPECT_EQ(h.text.find("OpCapability Float16"), std::string::npos);
  EXPECT_NE(h.text.find("OpFAdd %float "), std::string::npos) << h.text;
  SpirvFeatures f16;
  f16.float16 = true;
  Compiled h2 = compile_text(binary("float16", "float16", "A[vi] + B[vi]"), f16);
  EXPECT_TRUE(h2.kernels[0].requirements.count("float16"));
  EXPECT_NE(h2.text.find("OpFAdd %half "), std::string::npos) << h2.text;
}

TEST(SpirvCodegen, GoldenSemantics) {
  // round and nearbyint are half to even: RoundEven, never GLSL Round (ties away).
  Compiled r = compile_text(unary("float32", "float32", "T.round(A[vi])"));
  EXPECT_NE(r.text.find("RoundEven"), std::string::npos);
  EXPECT_EQ(r.text.find("Round %"), std::string::npos);
  // float != is unordered (NaN != NaN is true), == ordered.
  Compiled ne = compile_text(binary("float32", "bool", "A[vi] != B[vi]"));
  EXPECT_NE(ne.text.find("OpFUnordNotEqual"), std::string::npos);
  EXPECT_EQ(ne.text.find("OpFOrdNotEqual"), std::string::npos);
  Compiled eq = compile_text(binary("float32", "bool", "A[vi] == B[vi]"));
  EXPECT_NE(eq.text.find("OpFOrdEqual"), std::string::npos);
  // min/max as the interpreter: a select on an ordered <, not GLSL FMin/NMin.
  Compiled mn = compile_text(binary("float32", "float32", "T.min(A[vi], B[vi])"));
  EXPECT_NE(mn.text.find("OpFOrdLessThan"), std::string::npos);
  EXPECT_EQ(mn.text.find("FMin"), std::string::npos);
  // float -> int: NaN goes to 0.
  Compiled fi = compile_text(unary("float32", "int32", "T.Cast(\"int32\", A[vi])"));
  EXPECT_NE(fi.text.find("OpIsNan"), std::string::npos);
}

TEST(SpirvCodegen, IfThenElseDoesNotReadTheUntakenBranch) {
  Compiled c = compile_text(R"(
@T.prim_func
def shift(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    for i in range(64):
        with T.block("b"):
            vi = T.axis.spatial(64, i)
            B[vi] = T.if_then_else(vi > 0, A[vi - 1], T.float32(0))
)");
  EXPECT_NE(c.text.find("OpPhi"), std::string::npos) << c.text;
  EXPECT_NE(c.text.find("OpSelectionMerge"), std::string::npos);
}

TEST(SpirvCodegen, ErrorsNameTheKernelAndTheConstruct) {
  SpirvFeatures f64;
  f64.float64 = true;
  std::string e = error_of([&] { compile_text(unary("float64", "float64", "T.exp(A[vi])"), f64); });
  EXPECT_NE(e.find("SPIR-V GLSL.std.450 has no float64 exp"), std::string::npos) << e;
  EXPECT_NE(e.find("kernel k_kernel0"), std::string::npos) << e;
  // float64 arithmetic without transcendentals is fine where the feature is on.
  EXPECT_NO_THROW(compile_text(unary("float64", "float64", "T.sqrt(A[vi]) * T.float64(2)"), f64));
  // ... and an error naming the feature where it is off.
  e = error_of([&] { compile_text(unary("float64", "float64", "A[vi] + T.float64(1)")); });
  EXPECT_NE(e.find("'float64'"), std::string::npos) << e;
  EXPECT_NE(e.find("float64=0"), std::string::npos) << e;
  SpirvFeatures no64;
  no64.int64 = false;  // int64 index arithmetic is demoted, int64 data is an error
  e = error_of([&] { compile_text(binary("int64", "int64", "A[vi] + B[vi]"), no64); });
  EXPECT_NE(e.find("kernel k_kernel0"), std::string::npos) << e;
  EXPECT_NE(e.find("int64=0"), std::string::npos) << e;
  SpirvFeatures no8;
  no8.storage8 = false;
  e = error_of([&] { compile_text(binary("uint8", "uint8", "A[vi] + B[vi]"), no8); });
  EXPECT_NE(e.find("storage8=0"), std::string::npos) << e;
}

TEST(SpirvCodegen, ValidationFailureIsAnInternalErrorWithADump) {
  Compiled c = compile_text(binary("float32", "float32", "A[vi] + B[vi]"));
  std::vector<uint32_t> words = c.kernels[0].words;
  // Drop the Shader capability (the first instruction after the header): invalid.
  ASSERT_EQ(words[5] & 0xFFFFu, 17u);  // OpCapability
  words.erase(words.begin() + 5, words.begin() + 7);
  std::filesystem::path dir = std::filesystem::temp_directory_path() / "relax_vk_dump_test";
  std::filesystem::remove_all(dir);
  setenv("RELAX_DUMP_DIR", dir.c_str(), 1);
  std::string msg;
  try {
    validate_spirv("broken_kernel", words);
  } catch (const InternalError& err) {
    msg = err.what();
  }
  unsetenv("RELAX_DUMP_DIR");
  EXPECT_NE(msg.find("broken_kernel"), std::string::npos) << msg;
  std::filesystem::path file = dir / "broken_kernel.spvasm";
  EXPECT_NE(msg.find(file.string()), std::string::npos) << msg;
  ASSERT_TRUE(std::filesystem::exists(file));
  std::ifstream in(file);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("OpEntryPoint"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(SpirvCodegen, UnsupportedConstructsAreErrorsNamingTheKernel) {
  std::string e = error_of([] {
    compile_text(unary("float32", "float32", "T.call_extern(\"float32\", \"my_fn\", A[vi])"));
  });
  EXPECT_NE(e.find("kernel k_kernel0"), std::string::npos) << e;
  EXPECT_NE(e.find("my_fn"), std::string::npos) << e;
}

TEST(SpirvCodegen, PowerOfTwoFloorDivisionIsAShift) {
  Compiled c = compile_text(unary("int32", "int32", "A[vi] // 8 + A[vi] % 16"));
  EXPECT_NE(c.text.find("OpShiftRightArithmetic"), std::string::npos);
  EXPECT_EQ(c.text.find("OpSDiv"), std::string::npos) << c.text;
}

TEST(SpirvCodegen, DumpDirectoryGetsEveryKernel) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / "relax_vk_dump_every";
  std::filesystem::remove_all(dir);
  setenv("RELAX_VULKAN_DUMP", dir.c_str(), 1);
  compile_text(binary("float32", "float32", "A[vi] - B[vi]"));
  unsetenv("RELAX_VULKAN_DUMP");
  std::ifstream in(dir / "k_kernel0.spvasm");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("; @T.prim_func"), std::string::npos) << text;  // the TIR, commented
  EXPECT_NE(text.find("OpFSub"), std::string::npos) << text;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace relax::vulkan::test
