// End-to-end tests of the minimum build on every kernel target (tir-interp, and llvm when the
// backend is built: one table of programs, two backends): Relax text -> build() -> VM ->
// results compared with values computed here by hand.
#include "relax/ir/op.h"
#include "relax/runtime/exec_builder.h"
#include "relax/target/target.h"

#include <algorithm>
#include "target_test_util.h"

namespace relax::target::testing {
namespace {

using runtime::NDArray;
using runtime::Value;

/// The programs below, built for the target given as the parameter.
class BuildOnTarget : public ::testing::TestWithParam<std::string> {};

const char* kAddModule = R"(
@I.ir_module
class Module:
    @T.prim_func
    def add(a: T.handle, b: T.handle, c: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (n,), "float32")
        C = T.match_buffer(c, (n,), "float32")
        for i in range(n):
            C[i] = A[i] + B[i]

    @R.function
    def main(x: R.Tensor((n,), "float32"), y: R.Tensor((n,), "float32")) -> R.Tensor((n,), "float32"):
        with R.dataflow():
            z = R.call_tir(cls.add, (x, y), out_sinfo=R.Tensor((n,), "float32"))
            w = R.call_tir(cls.add, (z, x), out_sinfo=R.Tensor((n,), "float32"))
            R.output(w)
        return w
)";

TEST_P(BuildOnTarget, CallTirAtSeveralSymbolicSizes) {
  auto vm = build_vm(GetParam(), kAddModule);
  for (int64_t n : {1, 3, 17}) {
    NDArray x = f32({n}, iota(n, 1.0f));
    NDArray y = f32({n}, iota(n, 0.5f, 2.0f));
    NDArray w = vm->invoke("main", {x, y}).as_tensor();
    ASSERT_EQ(w.shape(), std::vector<int64_t>{n});
    std::vector<float> expected(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i)
      expected[size_t(i)] = 2 * (1.0f + float(i)) + (0.5f + 2.0f * float(i));
    EXPECT_EQ(values_of(w), expected) << "n = " << n;
  }
}

TEST_P(BuildOnTarget, WrongInputsNameTheParameter) {
  auto vm = build_vm(GetParam(), kAddModule);
  std::string shape_error = error_of([&] {
    vm->invoke("main", {f32({3}, iota(3)), f32({4}, iota(4))});
  });
  EXPECT_NE(shape_error.find("main: parameter y: R.Tensor((n,), dtype=\"float32\")"),
            std::string::npos)
      << shape_error;
  EXPECT_NE(shape_error.find("dimension 0 is 4 but 3 was expected"), std::string::npos)
      << shape_error;
  NDArray ints = NDArray::empty({3}, DataType::Int(32));
  std::string dtype_error = error_of([&] { vm->invoke("main", {ints, f32({3}, iota(3))}); });
  EXPECT_NE(dtype_error.find("main: parameter x"), std::string::npos) << dtype_error;
  EXPECT_NE(dtype_error.find("dtype float32"), std::string::npos) << dtype_error;
  std::string rank_error = error_of([&] {
    vm->invoke("main", {f32({3}, iota(3)), f32({1, 3}, iota(3))});
  });
  EXPECT_NE(rank_error.find("main: parameter y"), std::string::npos) << rank_error;
  EXPECT_NE(rank_error.find("rank 1"), std::string::npos) << rank_error;
}

TEST_P(BuildOnTarget, ShapeArithmeticOnTheHeap) {
  // The output size n * 4 and the parameter annotation n + 1 are computed at run time.
  auto vm = build_vm(GetParam(), R"(
@I.ir_module
class Module:
    @T.prim_func
    def flat_plus(a: T.handle, b: T.handle, c: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n, 4), "float32")
        B = T.match_buffer(b, (n + 1,), "float32")
        C = T.match_buffer(c, (n * 4,), "float32")
        for i in range(n * 4):
            C[i] = A[i // 4, i % 4] + B[n]

    @R.function
    def main(x: R.Tensor((n, 4), "float32"), y: R.Tensor((n + 1,), "float32")):
        z = R.call_tir(cls.flat_plus, (x, y), out_sinfo=R.Tensor((n * 4,), "float32"))
        return z
)");
  for (int64_t n : {1, 3, 17}) {
    NDArray z =
        vm->invoke("main", {f32({n, 4}, iota(4 * n)), f32({n + 1}, iota(n + 1, 100))}).as_tensor();
    ASSERT_EQ(z.shape(), std::vector<int64_t>{4 * n});
    EXPECT_EQ(values_of(z), iota(4 * n, 100.0f + float(n)));
  }
  std::string error = error_of([&] {
    vm->invoke("main", {f32({2, 4}, iota(8)), f32({2}, iota(2))});
  });
  EXPECT_NE(error.find("main: parameter y: R.Tensor((n + 1,)"), std::string::npos) << error;
}

void register_packed_functions() {
  using runtime::Args;
  using runtime::Registry;
  static bool done = false;
  if (done) return;
  done = true;
  Registry::register_func("test.target.is_positive", [](Args a) -> Value {
    return a[0].as_tensor().data_as<int64_t>()[0] > 0;
  });
  Registry::register_func("test.target.dec", [](Args a) -> Value {
    NDArray k = NDArray::empty({}, DataType::Int(64));
    k.data_as<int64_t>()[0] = a[0].as_tensor().data_as<int64_t>()[0] - 1;
    return k;
  });
  Registry::register_func("test.target.double", [](Args a) -> Value {  // DPS: (x, out)
    NDArray x = a[0].as_tensor(), out = a[1].as_tensor();
    for (int64_t i = 0; i < x.numel(); ++i) out.data_as<float>()[i] = 2 * x.data_as<float>()[i];
    return {};
  });
  Registry::register_func("test.target.add_new", [](Args a) -> Value {
    NDArray x = a[0].as_tensor(), y = a[1].as_tensor();
    NDArray out = NDArray::empty(x.shape(), DataType::Float(32));
    for (int64_t i = 0; i < x.numel(); ++i)
      out.data_as<float>()[i] = x.data_as<float>()[i] + y.data_as<float>()[i];
    return out;
  });
  Registry::register_func("test.target.positives", [](Args a) -> Value {
    NDArray x = a[0].as_tensor();
    std::vector<float> kept;
    for (int64_t i = 0; i < x.numel(); ++i)
      if (x.data_as<float>()[i] > 0) kept.push_back(x.data_as<float>()[i]);
    return f32({int64_t(kept.size())}, kept);
  });
}

TEST_P(BuildOnTarget, IfAndRecursion) {
  register_packed_functions();
  auto vm = build_vm(GetParam(), R"(
@I.ir_module
class Module:
    @T.prim_func
    def add_one(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (n,), "float32")
        for i in range(n):
            B[i] = A[i] + T.float32(1)

    @R.function
    def count_down(x: R.Tensor((n,), "float32"), k: R.Tensor((), "int64")) -> R.Tensor((n,), "float32"):
        cond = R.call_pure_packed("test.target.is_positive", k, sinfo_args=R.Tensor((), "bool"))
        if cond:
            y = R.call_tir(cls.add_one, (x,), out_sinfo=R.Tensor((n,), "float32"))
            k1 = R.call_pure_packed("test.target.dec", k, sinfo_args=R.Tensor((), "int64"))
            r = cls.count_down(y, k1)
        else:
            r = x
        return r

    @R.function
    def main(x: R.Tensor((n,), "float32"), k: R.Tensor((), "int64")) -> R.Tensor((n,), "float32"):
        r = cls.count_down(x, k)
        return r
)");
  for (int64_t k : {0, 1, 5}) {
    NDArray kt = NDArray::empty({}, DataType::Int(64));
    kt.data_as<int64_t>()[0] = k;
    NDArray r = vm->invoke("main", {f32({3}, {1, 2, 3}), kt}).as_tensor();
    EXPECT_EQ(values_of(r), iota(3, 1.0f + float(k))) << "k = " << k;
  }
}

TEST_P(BuildOnTarget, PackedAndDpsPackedCalls) {
  register_packed_functions();
  auto vm = build_vm(GetParam(), R"(
@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((n, 2), "float32")) -> R.Tensor((n, 2), "float32"):
        y = R.call_dps_packed("test.target.double", (x,), out_sinfo=R.Tensor((n, 2), "float32"))
        z = R.call_packed("test.target.add_new", y, x, sinfo_args=R.Tensor((n, 2), "float32"))
        return z
)");
  NDArray z = vm->invoke("main", {f32({2, 2}, {1, 2, 3, 4})}).as_tensor();
  EXPECT_EQ(values_of(z), (std::vector<float>{3, 6, 9, 12}));
}

const char* kMatchCastModule = R"(
@I.ir_module
class Module:
    @T.prim_func
    def add(a: T.handle, b: T.handle, c: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (n,), "float32")
        C = T.match_buffer(c, (n,), "float32")
        for i in range(n):
            C[i] = A[i] + B[i]

    @R.function
    def main(x: R.Tensor((n,), "float32")):
        u = R.call_pure_packed("test.target.positives", x, sinfo_args=R.Tensor(ndim=1, dtype="float32"))
        v = R.match_cast(u, R.Tensor((m,), "float32"))
        w = R.call_tir(cls.add, (v, v), out_sinfo=R.Tensor((m,), "float32"))
        return w
)";

TEST_P(BuildOnTarget, MatchCastOfADataDependentResult) {
  register_packed_functions();
  auto vm = build_vm(GetParam(), kMatchCastModule);
  NDArray w = vm->invoke("main", {f32({5}, {1, -2, 3, -4, 5})}).as_tensor();
  EXPECT_EQ(values_of(w), (std::vector<float>{2, 6, 10}));
  NDArray none = vm->invoke("main", {f32({2}, {-1, -2})}).as_tensor();
  EXPECT_EQ(none.shape(), std::vector<int64_t>{0});
}

TEST_P(BuildOnTarget, UniqueAndNonzeroHaveRunTimeShapes) {
  auto vm = build_vm(GetParam(), R"(
@R.function
def main(x: R.Tensor((n,), "float32")):
    u = R.unique(x)
    v = R.match_cast(u, R.Tensor((m,), "float32"))
    w = R.add(v, v)
    nz = R.nonzero(x)
    return (w, nz)
)");
  Value out = vm->invoke("main", {f32({7}, {3, 1, 3, 0, 1, 5, 0})});
  NDArray w = out.as_tuple()[0].as_tensor();
  EXPECT_EQ(values_of(w), (std::vector<float>{0, 2, 6, 10}));
  NDArray nz = out.as_tuple()[1].as_tensor();
  ASSERT_EQ(nz.shape(), (std::vector<int64_t>{1, 5}));
  std::vector<int64_t> idx(nz.data_as<int64_t>(), nz.data_as<int64_t>() + 5);
  EXPECT_EQ(idx, (std::vector<int64_t>{0, 1, 2, 4, 5}));
}

// A shape computed at run time: the same executable reshapes to whatever the tensor holds.
TEST_P(BuildOnTarget, TensorToShapeReshapesAtRunTime) {
  auto vm = build_vm(GetParam(), R"(
@R.function
def main(x: R.Tensor((6,), "float32"), s: R.Tensor((2,), "int64")):
    sh = R.tensor_to_shape(s)
    named = R.match_cast(sh, R.Shape([a, b]))
    y = R.reshape(x, named)
    z = R.add(y, y)
    return z
)");
  NDArray x = f32({6}, {0, 1, 2, 3, 4, 5});
  for (auto [a, b] : {std::pair<int64_t, int64_t>{2, 3}, {3, 2}, {1, 6}}) {
    NDArray s = NDArray::empty({2}, DataType::Int(64));
    s.data_as<int64_t>()[0] = a;
    s.data_as<int64_t>()[1] = b;
    NDArray z = vm->invoke("main", {x, s}).as_tensor();
    EXPECT_EQ(z.shape(), (std::vector<int64_t>{a, b}));
    EXPECT_EQ(values_of(z), (std::vector<float>{0, 2, 4, 6, 8, 10}));
  }
}

TEST_P(BuildOnTarget, EveryPassLeavesWellFormedIR) {
  register_packed_functions();
  BuildOptions options;
  options.target = GetParam();
  options.pipeline = "o0";
  options.verify_each = true;
  for (const char* text : {kAddModule, kMatchCastModule}) {
    Ref<runtime::Executable> exec = build(parse_module(text), options);
    EXPECT_GE(exec->find_function("main"), 0);
  }
}

TEST_P(BuildOnTarget, SaveLoadRun) {
  register_packed_functions();
  BuildOptions options;
  options.target = GetParam();
  options.pipeline = "o0";
  Ref<runtime::Executable> exec = build(parse_module(kAddModule), options);
  std::vector<uint8_t> bytes = exec->save();
  Ref<runtime::Executable> loaded = runtime::Executable::load(bytes);
  ASSERT_EQ(loaded->libraries.size(), 1u);
  EXPECT_EQ(loaded->libraries[0].format, GetParam() == "llvm" ? "llvm-so" : "tir-interp");
  auto vm = runtime::VirtualMachine::create(loaded);
  NDArray w = vm->invoke("main", {f32({3}, {1, 2, 3}), f32({3}, {10, 20, 30})}).as_tensor();
  EXPECT_EQ(values_of(w), (std::vector<float>{12, 24, 36}));
}

INSTANTIATE_TEST_SUITE_P(Targets, BuildOnTarget,
                         ::testing::ValuesIn(std::vector<std::string>{
                             "tir-interp",
#ifdef RELAX_HAVE_LLVM_BACKEND
                             "llvm",
#endif
                         }),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

TEST(Build, TargetStrings) {
  Target t = Target::parse("llvm, mcpu=skylake-avx512,opt-level=2,jit");
  EXPECT_EQ(t.kind, "llvm");
  EXPECT_EQ(t.attr("mcpu"), "skylake-avx512");
  EXPECT_EQ(t.attr("jit"), "1");
  EXPECT_FALSE(t.attr("mtriple"));
  EXPECT_EQ(t.str(), "llvm,mcpu=skylake-avx512,opt-level=2,jit=1");
  EXPECT_EQ(Target::parse(t.str()), t);
  EXPECT_NE(error_of([] { Target::parse(""); }).find("expected a kind first"), std::string::npos);
  EXPECT_NE(error_of([] { Target::parse("llvm,mcpu=a,mcpu=b"); }).find("mcpu given twice"),
            std::string::npos);
  EXPECT_NE(error_of([] { Target::parse("llvm,=3"); }).find("empty attribute name"),
            std::string::npos);
}

TEST(Build, UnknownTargetNamesThePluginSearched) {
  BuildOptions options;
  options.target = "frobnicator";
  std::string error = error_of([&] { build(parse_module(kAddModule), options); });
  EXPECT_NE(error.find("target \"frobnicator\": unknown target kind \"frobnicator\"; known "
                       "kinds: "),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("librelax-frobnicator.so"), std::string::npos) << error;
  options.target = "tir-interp,mcpu=x";
  error = error_of([&] { build(parse_module(kAddModule), options); });
  EXPECT_NE(error.find("unknown attribute \"mcpu\"; tir-interp takes: gpu, "), std::string::npos)
      << error;
}

TEST(Build, DamagedKernelLibraryIsAnError) {
  Ref<runtime::Executable> exec = build(parse_module(kAddModule), relax::BuildOptions{"tir-interp", "o0"});
  runtime::ExecBuilder b;
  b.begin_function("main", {});
  b.emit_call("vm.builtin.null_value", {}, 0);
  b.emit_ret(0);
  b.end_function();
  std::vector<uint8_t> lib = exec->libraries[0].bytes;
  lib.resize(lib.size() - 3);
  b.add_library("tir-interp", lib);
  Ref<runtime::Executable> damaged = b.get();
  std::string error = error_of([&] { runtime::VirtualMachine::create(damaged); });
  EXPECT_NE(error.find("tir-interp library: truncated"), std::string::npos) << error;
}

TEST(Build, UnloweredOpIsANamedError) {
  // An op with neither a legalisation nor a VM lowering: the build names it and the function.
  if (OpRegistry::global().find("relax.test_target_opaque") == nullptr) {
    OpInfo& op = OpRegistry::global().register_op("relax.test_target_opaque");
    op.arg_names = {"x"};
    op.infer = [](const Call& call, BlockBuilder&) { return get_struct_info(call.args[0]); };
  }
  std::string error = error_of([&] {
    build(parse_module(R"(
@R.function
def main(x: R.Tensor((n,), "float32")):
    y = R.test_target_opaque(x)
    return y
)"), relax::BuildOptions{"tir-interp", "o0"});
  });
  EXPECT_NE(error.find("function main"), std::string::npos) << error;
  EXPECT_NE(error.find("relax.test_target_opaque"), std::string::npos) << error;
}

}  // namespace
}  // namespace relax::target::testing
