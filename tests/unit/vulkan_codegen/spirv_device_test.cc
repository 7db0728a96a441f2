// The emitted SPIR-V's *results*: kernels built by the plugin and run by the Vulkan runtime
// (device_runner.h; lavapipe, pinned through VK_DRIVER_FILES) and compared with the reference
// interpreter on inputs chosen for the edge cases (NaN, infinities, negative zero, halfway
// values, integer limits, negative divisors). Skipped without a Vulkan device (failed with
// RELAX_REQUIRE_VULKAN=1).
#include <cmath>
#include <cstring>
#include <limits>

#include "device_runner.h"
#include "vulkan_runtime/vk_test_util.h"
#include "relax/kernel/interpreter.h"
#include "relax/kernel/lower.h"
#include "relax/runtime/ndarray.h"
#include "spirv_test_util.h"

namespace relax::vulkan::test {
namespace {

/// An NDArray of `dtype` (float32/64, integer types and bool) holding `values`.
runtime::NDArray make(DataType t, const std::vector<double>& values) {
  runtime::NDArray a = runtime::NDArray::empty({int64_t(values.size())}, t);
  char* p = static_cast<char*>(a.data());
  for (size_t i = 0; i < values.size(); ++i) {
    double v = values[i];
    if (t == DataType::Float(32)) {
      float f = float(v);
      std::memcpy(p + i * 4, &f, 4);
    } else if (t == DataType::Float(64)) {
      std::memcpy(p + i * 8, &v, 8);
    } else {
      auto x = int64_t(v);
      std::memcpy(p + i * size_t(t.bytes()), &x, size_t(t.bytes()));
    }
  }
  return a;
}

const double kNan = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

/// f32 inputs covering the edge cases.
std::vector<double> float_inputs() {
  return {0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, 3.7, -3.7, 0.3, -0.7, 1e-3, 100.25, -1e5,
          3e9, -3e9, 1e20, -1e20, kNan, kInf, -kInf, 0.9, 2.0, -8.0};
}

/// Runs `text` (params: inputs then one output, shape (n,)) in the interpreter (unscheduled)
/// and on Vulkan (default GPU schedule, lowered, compiled) and compares the outputs.
void expect_same(const std::string& text, const std::vector<runtime::NDArray>& inputs,
                 DataType out, const SpirvFeatures& features = {}, double rtol = 1e-6,
                 double atol = 1e-6) {
  RX_REQUIRE_VULKAN_DEVICE();
  Ref<tir::PrimFunc> f = relax::parse_prim_func(text, "<test>");
  std::vector<tir::InterpArg> args;
  for (const auto& a : inputs) args.emplace_back(a);
  runtime::NDArray o = runtime::NDArray::empty(inputs[0].shape(), out);
  std::memset(o.data(), 0, o.nbytes());
  args.emplace_back(o);
  std::vector<tir::InterpArg> dev = copy_args(args);
  tir::interpret(tir::lower(f), args);
  tir::GpuScheduled s = tir::apply_default_gpu_schedule(f, vulkan_limits(), "k");
  ASSERT_EQ(run_on_vulkan(s.func, dev, features), "");
  EXPECT_EQ(compare_args(dev, args, rtol, atol), "") << text;
}

std::string unary_n(const std::string& in, const std::string& out, const std::string& expr, size_t n) {
  std::string N = std::to_string(n);
  return "@T.prim_func\ndef f(A: T.Buffer((" + N + ",), \"" + in + "\"), B: T.Buffer((" + N +
         ",), \"" + out + "\")):\n    for i in range(" + N + "):\n        with T.block(\"b\"):\n"
         "            vi = T.axis.spatial(" + N + ", i)\n            B[vi] = " + expr + "\n";
}

std::string binary_n(const std::string& in, const std::string& out, const std::string& expr, size_t n) {
  std::string N = std::to_string(n);
  return "@T.prim_func\ndef f(A: T.Buffer((" + N + ",), \"" + in + "\"), B: T.Buffer((" + N +
         ",), \"" + in + "\"), C: T.Buffer((" + N + ",), \"" + out + "\")):\n    for i in range(" +
         N + "):\n        with T.block(\"b\"):\n            vi = T.axis.spatial(" + N +
         ", i)\n            C[vi] = " + expr + "\n";
}

TEST(SpirvDevice, FloatToIntCastsLikeTheInterpreter) {
  std::vector<double> x = float_inputs();
  for (const char* to : {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool"}) {
    SCOPED_TRACE(to);
    expect_same(unary_n("float32", to, std::string("T.Cast(\"") + to + "\", A[vi])", x.size()),
                {make(DataType::Float(32), x)}, *DataType::parse(to));
  }
}

TEST(SpirvDevice, IntegerCastsAndArithmetic) {
  std::vector<double> a = {0, 1, -1, 7, -7, 127, -128, 2147483647.0, -2147483648.0, 100000, -3, 5};
  std::vector<double> b = {1, 3, -3, 2, -2, -1, -1, -1, -1, 7, 2, -4};
  DataType i32 = DataType::Int(32);
  for (const char* e : {"A[vi] // B[vi]", "A[vi] % B[vi]", "A[vi] // 8", "A[vi] % 16",
                        "T.truncdiv(A[vi], 4)", "T.truncmod(A[vi], 4)", "A[vi] // -4",
                        "T.truncdiv(A[vi], B[vi])",
                        "T.truncmod(A[vi], B[vi])", "A[vi] * B[vi] + A[vi]", "T.min(A[vi], B[vi])",
                        "T.max(A[vi], B[vi])", "T.shift_right(A[vi], T.int32(1))",
                        "T.bitwise_xor(A[vi], B[vi])", "T.abs(A[vi])"}) {
    SCOPED_TRACE(e);
    expect_same(binary_n("int32", "int32", e, a.size()), {make(i32, a), make(i32, b)}, i32);
  }
  for (const char* to : {"int8", "uint8", "int16", "uint16", "int64", "uint64", "float32", "bool"}) {
    SCOPED_TRACE(to);
    expect_same(unary_n("int32", to, std::string("T.Cast(\"") + to + "\", A[vi])", a.size()),
                {make(i32, a)}, *DataType::parse(to));
  }
  DataType i64 = DataType::Int(64);
  expect_same(binary_n("int64", "int64", "A[vi] // B[vi] + A[vi] % B[vi]", a.size()),
              {make(i64, a), make(i64, b)}, i64);
  expect_same(unary_n("int64", "float32", "T.Cast(\"float32\", A[vi] * T.int64(3))", a.size()),
              {make(i64, a)}, DataType::Float(32));
}

TEST(SpirvDevice, FloatComparisonsMinMaxAndRounding) {
  std::vector<double> x = float_inputs(), y = float_inputs();
  std::rotate(y.begin(), y.begin() + 5, y.end());
  DataType f32 = DataType::Float(32);
  for (const char* e : {"A[vi] != B[vi]", "A[vi] == B[vi]", "A[vi] < B[vi]", "A[vi] >= B[vi]"}) {
    SCOPED_TRACE(e);
    expect_same(binary_n("float32", "bool", e, x.size()), {make(f32, x), make(f32, y)}, DataType::Bool());
  }
  for (const char* e : {"T.min(A[vi], B[vi])", "T.max(A[vi], B[vi])", "T.round(A[vi])",
                        "T.floor(A[vi])", "T.ceil(A[vi])", "T.trunc(A[vi])", "T.fabs(A[vi])",
                        "A[vi] // B[vi]", "T.fmod(A[vi], B[vi])", "A[vi] * B[vi] - A[vi]",
                        "T.Select(T.isnan(A[vi]), T.float32(1), T.float32(2))",
                        "T.Select(T.isinf(A[vi]), T.float32(1), T.float32(2))",
                        "T.Select(T.isfinite(A[vi]), T.float32(1), T.float32(2))"}) {
    SCOPED_TRACE(e);
    expect_same(binary_n("float32", "float32", e, x.size()), {make(f32, x), make(f32, y)}, f32);
  }
}

TEST(SpirvDevice, Transcendentals) {
  std::vector<double> x = {0.0, 0.1, -0.1, 0.5, -0.5, 0.9, -0.9, 1.0, 1.5, -1.5, 2.0, 3.0, -3.0, 10.0, 1e-4, kNan};
  DataType f32 = DataType::Float(32);
  for (const char* e : {"T.exp(A[vi])", "T.exp2(A[vi])", "T.log(T.fabs(A[vi]) + T.float32(0.5))",
                        "T.log2(T.fabs(A[vi]) + T.float32(0.5))", "T.log1p(T.fabs(A[vi]))",
                        "T.sqrt(T.fabs(A[vi]))", "T.rsqrt(T.fabs(A[vi]) + T.float32(0.1))",
                        "T.sin(A[vi])", "T.cos(A[vi])", "T.tan(A[vi])", "T.asin(A[vi] / T.float32(10))",
                        "T.acos(A[vi] / T.float32(10))", "T.atan(A[vi])", "T.sinh(A[vi])",
                        "T.cosh(A[vi])", "T.tanh(A[vi])", "T.asinh(A[vi])",
                        "T.acosh(T.fabs(A[vi]) + T.float32(1))", "T.atanh(A[vi] / T.float32(10))",
                        "T.erf(A[vi])", "T.sigmoid(A[vi])", "T.pow(A[vi], T.float32(3))",
                        "T.pow(A[vi], T.float32(0.5))", "T.pow(A[vi], T.float32(-2))",
                        "T.atan2(A[vi], T.float32(0.7))"}) {
    SCOPED_TRACE(e);
    expect_same(unary_n("float32", "float32", e, x.size()), {make(f32, x)}, f32, {}, 2e-6, 1e-6);
  }
}

TEST(SpirvDevice, HalfAndBfloat16Storage) {
  std::vector<double> x = {0.0, -0.0, 1.0 / 3, -2.5, 1e-3, 65504, 70000, 1e-8, kNan, kInf, 0.1, 12345.678};
  DataType f32 = DataType::Float(32);
  for (const char* dt : {"float16", "bfloat16"}) {
    SCOPED_TRACE(dt);
    expect_same(unary_n("float32", dt, std::string("T.Cast(\"") + dt + "\", A[vi] * T.float32(1.5))", x.size()),
                {make(f32, x)}, *DataType::parse(dt));
  }
}

TEST(SpirvDevice, BoolBuffersAndIfThenElse) {
  std::vector<double> a = {0, 1, 1, 0, 1, 0, 0, 1};
  DataType b = DataType::Bool();
  expect_same(binary_n("bool", "bool", "T.bitwise_and(A[vi], T.bitwise_not(B[vi]))", a.size()),
              {make(b, a), make(b, {1, 1, 0, 0, 1, 0, 1, 0})}, b);
  std::vector<double> x = {1, 2, 3, 4, 5, 6, 7, 8};
  DataType f32 = DataType::Float(32);
  expect_same(unary_n("float32", "float32", "T.if_then_else(vi > 0, A[vi - 1], T.float32(-1))", x.size()),
              {make(f32, x)}, f32);
}

TEST(SpirvDevice, Int64BufferIndices) {
  std::vector<double> idx = {3, 0, -1, 1, 2, -4};
  std::vector<double> x = {10, 11, 12, 13};
  RX_REQUIRE_VULKAN_DEVICE();
  std::string text = R"(
@T.prim_func
def g(X: T.Buffer((4,), "float32"), I: T.Buffer((6,), "int64"), Y: T.Buffer((6,), "float32")):
    for i in range(6):
        with T.block("b"):
            vi = T.axis.spatial(6, i)
            Y[vi] = X[T.Select(I[vi] < T.int64(0), I[vi] + T.int64(4), I[vi])]
)";
  Ref<tir::PrimFunc> f = relax::parse_prim_func(text, "<test>");
  runtime::NDArray out = runtime::NDArray::empty({6}, DataType::Float(32));
  std::vector<tir::InterpArg> args{make(DataType::Float(32), x), make(DataType::Int(64), idx), out};
  std::vector<tir::InterpArg> dev = copy_args(args);
  tir::interpret(tir::lower(f), args);
  tir::GpuScheduled s = tir::apply_default_gpu_schedule(f, vulkan_limits(), "k");
  ASSERT_EQ(run_on_vulkan(s.func, dev, {}), "");
  EXPECT_EQ(compare_args(dev, args, 0, 0), "");
}


TEST(SpirvDevice, ClampOfAWidenedIndex) {
  std::vector<double> idx = {-5, 7, 2, 0, 1, -1};
  expect_same(unary_n("int32", "int64", "T.min(T.max(T.Cast(\"int64\", A[vi]), T.int64(0)), T.int64(2))", idx.size()),
              {make(DataType::Int(32), idx)}, DataType::Int(64));
  expect_same(unary_n("int32", "int64", "T.max(T.Cast(\"int64\", A[vi]), T.int64(0))", idx.size()),
              {make(DataType::Int(32), idx)}, DataType::Int(64));
  expect_same(unary_n("int32", "int32", "T.max(A[vi], 0)", idx.size()),
              {make(DataType::Int(32), idx)}, DataType::Int(32));
}

TEST(SpirvDevice, ComparisonsOfSignExtendedValues) {
  std::vector<double> idx = {-5, 7, 2, 0, 1, -1};
  for (const char* e : {"T.Cast(\"int64\", A[vi]) < T.int64(0)", "T.Cast(\"int64\", A[vi]) < T.int64(1)",
                        "T.Cast(\"int64\", A[vi]) > T.int64(-1)", "T.Cast(\"int64\", A[vi]) == T.int64(-5)",
                        "T.Cast(\"int64\", A[vi] + 1) < T.int64(0)",
                        "T.Cast(\"int32\", T.Cast(\"int8\", A[vi])) < 0",
                        "T.Cast(\"int64\", T.Cast(\"int16\", A[vi])) < T.int64(0)"}) {
    SCOPED_TRACE(e);
    expect_same(unary_n("int32", "bool", e, idx.size()), {make(DataType::Int(32), idx)}, DataType::Bool());
  }
}


// 20 int64 scalars (168 bytes with the offsets): the parameter block is a uniform buffer.
TEST(SpirvDevice, ManyScalarsThroughTheUniformBuffer) {
  RX_REQUIRE_VULKAN_DEVICE();
  std::string params, sum = "T.int64(0)";
  for (int i = 0; i < 20; ++i) {
    params += ", s" + std::to_string(i) + ": T.int64";
    sum += " + s" + std::to_string(i) + " * T.int64(" + std::to_string(i + 1) + ")";
  }
  Ref<tir::PrimFunc> f = relax::parse_prim_func(
      "@T.prim_func\ndef f(A: T.Buffer((100,), \"float32\"), B: T.Buffer((100,), \"float32\")" +
          params + "):\n    for i in range(100):\n        with T.block(\"b\"):\n"
          "            vi = T.axis.spatial(100, i)\n            B[vi] = A[vi] + T.Cast(\"float32\", " +
          sum + ")\n", "<test>");
  std::vector<double> x(100);
  for (size_t i = 0; i < x.size(); ++i) x[i] = double(i) * 0.25;
  std::vector<tir::InterpArg> args{make(DataType::Float(32), x),
                                   runtime::NDArray::empty({100}, DataType::Float(32))};
  for (int i = 0; i < 20; ++i) args.emplace_back(int64_t(i * 1000 - 7000));
  std::vector<tir::InterpArg> dev = copy_args(args);
  tir::interpret(tir::lower(f), args);
  tir::GpuScheduled s = tir::apply_default_gpu_schedule(f, vulkan_limits(), "k");
  tir::GpuProgram p = s.program ? *s.program : tir::lower_for_gpu(s.func, vulkan_limits(), "k");
  ASSERT_NE(disassemble(compile_kernel(p.kernels[0], {}).words).find("Uniform"), std::string::npos);
  ASSERT_EQ(run_on_vulkan(s.func, dev, {}), "");
  EXPECT_EQ(compare_args(dev, args, 0, 0), "");
}

// int64=0: a symbolic kernel's int64 index arithmetic (and its int64 shape scalar, the low
// word of its 8-byte slot) computed in 32 bits; no Int64 capability, the same results.
TEST(SpirvDevice, Int64IndexArithmeticDemotedWithoutTheFeature) {
  const char* text = R"(
@T.prim_func
def add(a: T.handle, b: T.handle, c: T.handle):
    n = T.int64()
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    C = T.match_buffer(c, (n,), "float32")
    for i in range(n):
        with T.block("add"):
            vi = T.axis.spatial(n, i)
            C[vi] = A[vi] * B[vi] + T.Cast("float32", vi // T.int64(3))
)";
  SpirvFeatures no64;
  no64.int64 = false;
  Compiled c = compile_text(text, no64);
  EXPECT_EQ(c.text.find("Int64"), std::string::npos) << c.text;
  EXPECT_FALSE(c.kernels[0].requirements.count("int64"));
  std::vector<double> x(777), y(777);
  for (size_t i = 0; i < x.size(); ++i) x[i] = double(i) * 0.5, y[i] = double(i % 5) - 2;
  expect_same(text, {make(DataType::Float(32), x), make(DataType::Float(32), y)},
              DataType::Float(32), no64);
}

}  // namespace
}  // namespace relax::vulkan::test
