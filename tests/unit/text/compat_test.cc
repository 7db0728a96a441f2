// TVMScript compatibility (issue #24): the corpus in tests/text/compat — one program per
// construct TVM's own tests use — parses, is well formed, prints and parses back to a
// structurally equal module; the complete programs build (default pipeline, tir-interp
// kernels) and run; malformed variants are rejected with file:line:column messages.
#include <algorithm>
#include <filesystem>

#include "../../common/error_of.h"
#include "relax/ir/well_formed.h"
#include "relax/runtime/vm.h"
#include "relax/target/build.h"
#include "relax/vm/vm_ops.h"
#include "text_test_util.h"

namespace relax {
namespace {

using runtime::NDArray;
using runtime::Value;
using testing::expect_fixed_point;
using testing::expect_parse_error;
using testing::expect_round_trip;
using testing::read_source;

const std::string kCorpus = "tests/text/compat/";

IRModule parse_corpus(const std::string& name) {
  vm::register_vm_ops();  // R.builtin.* and R.vm.* are the VM's ops
  return parse_module(read_source(kCorpus + name), name);
}

std::shared_ptr<runtime::VirtualMachine> build_corpus(const std::string& name) {
  BuildOptions options;
  options.target = "tir-interp";
  return runtime::VirtualMachine::create(build(parse_corpus(name), options));
}

NDArray tensor(DataType t, std::vector<int64_t> shape, const std::vector<double>& values) {
  NDArray a = NDArray::empty(shape, t);
  EXPECT_EQ(size_t(a.numel()), values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    if (t == DataType::Float(32)) a.data_as<float>()[i] = float(values[i]);
    if (t == DataType::Int(64)) a.data_as<int64_t>()[i] = int64_t(values[i]);
  }
  return a;
}

std::vector<double> values(const NDArray& a) {
  std::vector<double> out;
  for (int64_t i = 0; i < a.numel(); ++i) {
    if (a.dtype() == DataType::Float(32)) out.push_back(a.data_as<float>()[i]);
    if (a.dtype() == DataType::Int(32)) out.push_back(a.data_as<int32_t>()[i]);
    if (a.dtype() == DataType::Int(64)) out.push_back(double(a.data_as<int64_t>()[i]));
  }
  return out;
}

const DataType f32 = DataType::Float(32);

TEST(Compat, EveryCorpusProgramRoundTrips) {
  namespace fs = std::filesystem;
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(std::string(RELAX_SOURCE_DIR) + "/" + kCorpus))
    if (e.path().extension() == ".rx") names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  ASSERT_GE(names.size(), 13u);
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    IRModule m;
    try {
      m = parse_corpus(name);
    } catch (const Error& e) {
      ADD_FAILURE() << e.what();
      continue;
    }
    for (const auto& d : well_formed_errors(m)) ADD_FAILURE() << d.message;
    expect_round_trip(m);
    expect_fixed_point(read_source(kCorpus + name), name);
  }
}

TEST(Compat, MethodCallsAndOperatorsAreOps) {
  std::string text = print_module(parse_corpus("method_call.rx"));
  for (const char* s : {"R.astype(a, dtype=\"float16\")", "R.add(a, b)", "R.negative(d)",
                        "R.less(a, b)", "R.divide("})
    EXPECT_NE(text.find(s), std::string::npos) << s << "\n" << text;
  auto vm = build_corpus("method_call.rx");
  Value out = vm->invoke("main", {tensor(f32, {4}, {1, 5, 3, 4}), tensor(f32, {4}, {2, 2, 3, 8})});
  NDArray c = out.as_tuple()[1].as_tensor();
  ASSERT_EQ(c.dtype(), DataType::Bool());
  std::vector<int> less(c.data_as<uint8_t>(), c.data_as<uint8_t>() + 4);
  EXPECT_EQ(less, (std::vector<int>{1, 0, 0, 1}));
}

TEST(Compat, PrintRunsWithItsFormat) {
  auto vm = build_corpus("print.rx");
  ::testing::internal::CaptureStdout();
  NDArray y = vm->invoke("main", {tensor(f32, {3}, {1, 2, 3}), Value(int64_t(7))}).as_tensor();
  std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(values(y), (std::vector<double>{2, 4, 6}));
  EXPECT_NE(out.find("x="), std::string::npos) << out;
  EXPECT_NE(out.find(" n=7\nno values\n"), std::string::npos) << out;
  EXPECT_NE(out.find("[2, 4, 6]"), std::string::npos) << out;
}

TEST(Compat, AssertOpPassesAndFailsWithItsMessage) {
  auto vm = build_corpus("assert_op.rx");
  NDArray y = vm->invoke("main", {tensor(f32, {}, {3}), tensor(f32, {}, {4})}).as_tensor();
  EXPECT_EQ(values(y), (std::vector<double>{9}));
  std::string err = test::error_of([&] {
    vm->invoke("main", {tensor(f32, {}, {5}), tensor(f32, {}, {4})});
  });
  EXPECT_NE(err.find("R.assert_op: x="), std::string::npos) << err;
  EXPECT_NE(err.find("must be below"), std::string::npos) << err;
}

TEST(Compat, MinMaxValueAndZeroDimBuffersRun) {
  auto vm = build_corpus("min_max_value.rx");
  Value out = vm->invoke("main", {tensor(f32, {2, 3}, {-5, -7, -6, 1, 9, 2})});
  EXPECT_EQ(values(out.as_tuple()[0].as_tensor()), (std::vector<double>{-5, 9}));
  EXPECT_EQ(values(out.as_tuple()[1].as_tensor()), (std::vector<double>{-7, 1}));
  auto total = build_corpus("zero_dim_buffer.rx");
  NDArray s = total->invoke("main", {tensor(f32, {4}, {1, 2, 3, 4.5})}).as_tensor();
  EXPECT_EQ(s.shape().size(), 0u);
  EXPECT_EQ(values(s), (std::vector<double>{10.5}));
}

TEST(Compat, ShapeVariableAnnotationRuns) {
  IRModule m = parse_corpus("shape_var_tensor.rx");
  EXPECT_NE(print_module(m).find("z: R.Tensor((3, 2), dtype=\"float32\")"), std::string::npos)
      << print_module(m);
  auto vm = build_corpus("shape_var_tensor.rx");
  NDArray z = vm->invoke("main", {tensor(f32, {2, 3}, {0, 1, 2, 3, 4, 5})}).as_tensor();
  EXPECT_EQ(z.shape(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(values(z), (std::vector<double>{0, 2, 4, 6, 8, 10}));
}

TEST(Compat, LoweredBuiltinsRun) {
  EXPECT_NE(print_module(parse_corpus("builtin_alloc_tensor.rx"))
                .find("R.vm.call_dps(cls.double, (x, alloc))"),
            std::string::npos);
  auto vm = build_corpus("builtin_alloc_tensor.rx");
  Value out = vm->invoke("main", {tensor(f32, {2, 3}, {0, 1, 2, 3, 4, 5})});
  EXPECT_EQ(values(out.as_tuple()[0].as_tensor()), (std::vector<double>{0, 4, 8, 12, 16, 20}));
  NDArray other = out.as_tuple()[1].as_tensor();  // allocated, contents undefined
  EXPECT_EQ(other.shape(), (std::vector<int64_t>{4}));
  EXPECT_EQ(other.dtype(), DataType::Int(32));
}

TEST(Compat, RecursiveLocalFunctionRefersToItsOwnVariable) {
  IRModule m = parse_corpus("recursive_local_function.rx");
  auto* main = m.lookup("main").as<Function>();
  const Binding& b = main->body.as<SeqExpr>()->blocks[0]->bindings[0];
  ASSERT_TRUE(b->value.is<Function>());
  EXPECT_EQ(b->var->name, "pow2");
  EXPECT_TRUE(b->var->struct_info.is<FuncStructInfo>());
  EXPECT_TRUE(well_formed_errors(m).empty());
}

TEST(Compat, CallTirInplaceRuns) {
  // Output 0 is written into x (index 0), output 1 is fresh (-1): call-tir-rewrite allocates
  // only the fresh one.
  auto vm = build_corpus("call_tir_inplace.rx");
  Value out = vm->invoke("main", {tensor(f32, {4}, {1, 2, 3, 4}), tensor(f32, {4}, {10, 20, 30, 40})});
  EXPECT_EQ(values(out.as_tuple()[0].as_tensor()), (std::vector<double>{11, 22, 33, 44}));
  EXPECT_EQ(values(out.as_tuple()[1].as_tensor()), (std::vector<double>{10, 20, 30, 40}));
}

TEST(Compat, ExplicitMemoryOpsRun) {
  auto vm = build_corpus("memory_ops_planned.rx");
  NDArray out = vm->invoke("main", {tensor(f32, {2, 3}, {0, 1, 2, 3, 4, 5})}).as_tensor();
  EXPECT_EQ(values(out), (std::vector<double>{0, 4, 8, 12, 16, 20}));  // 3x + x
  // The VM's alloc_tensor takes a constant offset.
  const std::string symbolic_offset = R"(@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor((2,), "float32"):
        n = T.int64()
        s = R.memory.alloc_storage(R.shape([64]), virtual_device_index=0, storage_scope="global", dtype="float32")
        t = R.memory.alloc_tensor(s, R.prim_value(n), R.shape([2]), dtype="float32")
        return t
)";
  std::string err = test::error_of([&] {
    BuildOptions options;
    options.target = "tir-interp";
    build(parse_module(symbolic_offset, "offset.rx"), options);
  });
  EXPECT_NE(err.find("relax.memory.alloc_tensor: the offset must be a constant integer, got n"),
            std::string::npos)
      << err;
}

TEST(Compat, LocalFunctionsCompileThroughLambdaLifting) {
  auto pow2 = build_corpus("recursive_local_function.rx");
  NDArray r = pow2->invoke("main", {tensor(DataType::Int(64), {}, {3}),
                                    tensor(DataType::Int(64), {}, {5})})
                  .as_tensor();
  EXPECT_EQ(values(r), (std::vector<double>{96}));  // 3 * 2^5
  auto scale = build_corpus("local_function.rx");
  NDArray s = scale->invoke("main", {tensor(f32, {2}, {1, 3})}).as_tensor();
  EXPECT_EQ(values(s), (std::vector<double>{2, 18}));  // x * (x + x)
}

TEST(Compat, PositionalAttributesAndTvmNames) {
  IRModule m = parse_module(R"(
@R.function
def main(x: R.Tensor((2, 3), "float32")) -> R.Tuple([R.Tensor((2, 3), "float16"), R.Any]):
    R.func_attr({"relax.force_pure": True})
    a = R.astype(x, "float16")
    b = relax.sum(x, [1])
    c = R.call_packed("f", x, ty_args=R.Any)
    return (a, c)
)");
  std::string text = print_module(m);
  EXPECT_NE(text.find("R.astype(x, dtype=\"float16\")"), std::string::npos) << text;
  EXPECT_NE(text.find("R.sum(x, axis=[1]"), std::string::npos) << text;
  EXPECT_NE(text.find("sinfo_args=R.Object"), std::string::npos) << text;
  EXPECT_TRUE(well_formed_errors(m).empty());
  const std::string head = "@R.function\ndef main(x: R.Tensor((2,), \"float32\")):\n";
  expect_parse_error(head + "    y = R.astype(x, \"float16\", 3)\n    return y\n",
                     "takes 1 argument(s) and 1 attribute(s), got 3", 3, 32);
  expect_parse_error(head + "    y = R.call_packed(\"f\", x, sinfo_args=R.Object)\n    return y\n",
                     "is pure but calls R.call_packed", 3, 5);
}

TEST(Compat, MalformedVariantsAreRejected) {
  const std::string head = "@R.function(pure=False)\ndef main(x: R.Tensor((2,), \"float32\")):\n";
  expect_parse_error(head + "    y = x.reshape([2])\n    return y\n", "one method, astype", 3, 9);
  expect_parse_error(head + "    y = x + 1\n    return y\n", "R.const(...) first", 3, 13);
  expect_parse_error(head + "    y = x == x\n    return y\n", "operator '=='", 3, 11);
  expect_parse_error(head + "    R.print(x, fmt=\"{}\")\n    return x\n",
                     "R.print has no keyword argument 'fmt'", 3, 20);
  expect_parse_error(head + "    R.assert_op(x)\n    return x\n", "must be a bool scalar", 3, 5);
  expect_parse_error(head + "    R.func_attr({\"a\": {1: 2}})\n    return x\n",
                     "expected a string literal", 3, 24);
  expect_parse_error(
      head + "    s = R.shape([2])\n    y: R.Tensor(x, \"float32\") = x\n    return y\n",
      "must be a shape value", 4, 17);
  expect_parse_error(head +
                         "    @R.function\n    def f(v: R.Tensor((2,), \"float32\")):\n"
                         "        r = f(v)\n        return r\n    return x\n",
                     "undefined variable 'f'", 5, 13);
  const std::string prim = "@T.prim_func\ndef f(A: T.Buffer((), \"float32\")):\n";
  expect_parse_error(prim + "    A[0] = T.float32(1)\n", "has 0 dimension(s), indexed with 1", 3,
                     5);
  expect_parse_error(prim + "    A[()] = T.min_value(\"handle\")\n", "no limits known for handle",
                     3, 25);
  expect_parse_error("@T.prim_func(s_tir=1)\ndef f():\n    T.evaluate(0)\n", "True or False", 1,
                     20);
  std::string inplace = read_source(kCorpus + "call_tir_inplace.rx");
  inplace.replace(inplace.find("[0, -1]"), 7, "[0, 0]");
  try {
    parse_module(inplace, "bad.rx");
    ADD_FAILURE() << "two outputs in one argument must be rejected";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("in-place output of outputs 0 and 1"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace relax
