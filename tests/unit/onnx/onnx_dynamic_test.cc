// Values known only at run time: shape-valued inputs computed at run time (Reshape, Expand,
// ConstantOfShape, Tile, Range, Resize), each model compiled once and run at two values;
// inputs that decide static properties specialised on a supplied value (option value.NAME)
// with a run-time guard; external data; graph inputs that also have initializers.
#include "../../common/driver_runner.h"
#include "onnx_test_util.h"
#include "relax/runtime/tensor_io.h"

namespace relax::onnx_test {
namespace {

constexpr int kI64 = onnx::TensorProto::INT64;

NDArray i64(const std::vector<int64_t>& shape, const std::vector<int64_t>& values) {
  NDArray t = NDArray::empty(shape, DataType::Int(64));
  std::copy(values.begin(), values.end(), t.data_as<int64_t>());
  return t;
}

/// One executable (interpreter target), run at several inputs.
struct Compiled {
  std::shared_ptr<runtime::VirtualMachine> vm;
  explicit Compiled(const IRModule& mod) : vm(runtime::VirtualMachine::create(build(mod, relax::BuildOptions{"tir-interp", "o0"}))) {}
  NDArray operator()(const std::vector<NDArray>& inputs) {
    std::vector<runtime::Value> args(inputs.begin(), inputs.end());
    return vm->invoke("main", args).as_tensor();
  }
};

TEST(OnnxDynamic, ReshapeToAShapeComputedAtRunTime) {
  Model m;
  m.input("x", {2, 3, 4}).input("s", {3}, kI64).output("y", 3);
  m.node("Reshape", {"x", "s"}, {"y"});
  Compiled run_model(m.import("dyn_reshape"));
  NDArray x = f32({2, 3, 4}, iota(24));
  NDArray a = run_model({x, i64({3}, {4, 3, 2})});
  EXPECT_EQ(a.shape(), (std::vector<int64_t>{4, 3, 2}));
  EXPECT_EQ(values_of(a), iota(24));
  // 0 copies the input's dim, -1 takes the rest.
  NDArray b = run_model({x, i64({3}, {0, -1, 2})});
  EXPECT_EQ(b.shape(), (std::vector<int64_t>{2, 6, 2}));
  EXPECT_EQ(values_of(b), iota(24));
  // A target with another element count is caught before any kernel reads out of bounds.
  std::string msg = error_of([&] { run_model({x, i64({3}, {5, 5, 1})}); });
  EXPECT_NE(msg.find("y_checked"), std::string::npos) << msg;
}

TEST(OnnxDynamic, ExpandAndConstantOfShapeAtRunTime) {
  Model m;
  m.input("x", {3, 1}).input("s", {2}, kI64).output("y", 2);
  m.node("Expand", {"x", "s"}, {"y"});
  Compiled expand(m.import("dyn_expand"));
  NDArray x = f32({3, 1}, {1, 2, 3});
  NDArray a = expand({x, i64({2}, {3, 2})});
  EXPECT_EQ(a.shape(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(values_of(a), (std::vector<float>{1, 1, 2, 2, 3, 3}));
  NDArray b = expand({x, i64({2}, {1, 3})});  // 1 keeps the input's 3
  EXPECT_EQ(b.shape(), (std::vector<int64_t>{3, 3}));
  std::string msg = error_of([&] { expand({x, i64({2}, {2, 2})}); });  // 3 vs 2
  EXPECT_NE(msg.find("y_dims"), std::string::npos) << msg;

  Model c(11);
  c.input("s", {2}, kI64).output("y", 2);
  auto& n = c.node("ConstantOfShape", {"s"}, {"y"});
  set_tensor(n, "value", Model::tensor_f32("v", {1}, {2.5f}));
  Compiled fill(c.import("dyn_const_of_shape"));
  NDArray f = fill({i64({2}, {2, 3})});
  EXPECT_EQ(f.shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(values_of(f), std::vector<float>(6, 2.5f));
  EXPECT_EQ(fill({i64({2}, {1, 5})}).shape(), (std::vector<int64_t>{1, 5}));
}

TEST(OnnxDynamic, TileAndRangeAtRunTime) {
  Model t;
  t.input("x", {2, 2}).input("r", {2}, kI64).output("y", 2);
  t.node("Tile", {"x", "r"}, {"y"});
  Compiled tile(t.import("dyn_tile"));
  NDArray x = f32({2, 2}, {1, 2, 3, 4});
  NDArray a = tile({x, i64({2}, {1, 2})});
  EXPECT_EQ(a.shape(), (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(values_of(a), (std::vector<float>{1, 2, 1, 2, 3, 4, 3, 4}));
  NDArray b = tile({x, i64({2}, {2, 1})});
  EXPECT_EQ(values_of(b), (std::vector<float>{1, 2, 3, 4, 1, 2, 3, 4}));

  Model r(11);
  r.input("start", {}).input("limit", {}).input("delta", {}).output("y", 1);
  r.node("Range", {"start", "limit", "delta"}, {"y"});
  Compiled range(r.import("dyn_range"));
  auto scalar = [](float v) { return f32({}, {v}); };
  EXPECT_TRUE(tensor_close_to(range({scalar(0), scalar(5), scalar(1)}), {5}, {0, 1, 2, 3, 4}));
  EXPECT_TRUE(
      tensor_close_to(range({scalar(1), scalar(2), scalar(0.3f)}), {4}, {1, 1.3f, 1.6f, 1.9f}));
  EXPECT_EQ(range({scalar(3), scalar(1), scalar(1)}).numel(), 0);  // empty, never negative
}

TEST(OnnxDynamic, ResizeToSizesComputedAtRunTime) {
  Model m;
  m.input("x", {1, 1, 2, 2}).input("sizes", {4}, kI64).output("y", 4);
  auto& n = m.node("Resize", {"x", "", "", "sizes"}, {"y"});
  set_string(n, "mode", "nearest");
  set_string(n, "coordinate_transformation_mode", "asymmetric");
  set_string(n, "nearest_mode", "floor");
  Compiled resize(m.import("dyn_resize"));
  NDArray x = f32({1, 1, 2, 2}, {1, 2, 3, 4});
  NDArray a = resize({x, i64({4}, {1, 1, 4, 4})});
  EXPECT_EQ(a.shape(), (std::vector<int64_t>{1, 1, 4, 4}));
  EXPECT_EQ(values_of(a), (std::vector<float>{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}));
  EXPECT_EQ(resize({x, i64({4}, {1, 1, 2, 4})}).shape(), (std::vector<int64_t>{1, 1, 2, 4}));
  std::string msg = error_of([&] { resize({x, i64({4}, {2, 1, 4, 4})}); });  // N may not change
  EXPECT_NE(msg.find("y_size"), std::string::npos) << msg;
}

TEST(OnnxDynamic, ResizeByConstantScalesOfSymbolicDimensions) {
  // Scales 2 and 0.5 on an input of symbolic height and width: out = h * 2, w // 2.
  Model m;
  m.input("x", {1, 1, "h", "w"}).init_f32("scales", {4}, {1, 1, 2, 0.5f}).output("y", 4);
  auto& n = m.node("Resize", {"x", "", "scales"}, {"y"});
  set_string(n, "mode", "nearest");
  set_string(n, "coordinate_transformation_mode", "asymmetric");
  set_string(n, "nearest_mode", "floor");
  Compiled resize(m.import("sym_resize"));
  NDArray a = resize({f32({1, 1, 2, 4}, {1, 2, 3, 4, 5, 6, 7, 8})});
  EXPECT_EQ(a.shape(), (std::vector<int64_t>{1, 1, 4, 2}));
  EXPECT_EQ(values_of(a), (std::vector<float>{1, 3, 1, 3, 5, 7, 5, 7}));
  EXPECT_EQ(resize({f32({1, 1, 3, 5}, std::vector<float>(15, 1.f))}).shape(),
            (std::vector<int64_t>{1, 1, 6, 2}));
  // A scale that is no ratio of small integers cannot size a symbolic axis.
  Model bad;
  bad.input("x", {1, 1, "h", "w"}).init_f32("scales", {4}, {1, 1, 1.0f / 3.1f, 1}).output("y", 4);
  bad.node("Resize", {"x", "", "scales"}, {"y"});
  std::string msg = error_of([&] { bad.import("sym_resize_bad"); });
  EXPECT_NE(msg.find("is not a ratio of integers up to 64"), std::string::npos) << msg;
}

TEST(OnnxDynamic, BroadcastOfUnrelatedSymbolicDimsIsCheckedAtRunTime) {
  // h and w cannot be proven equal: the Add still compiles (with w checked against h at run
  // time), broadcasting the 1 of y's first axis.
  Model m;
  m.input("x", {2, "h"}).input("y", {1, "w"}).output("z", 2);
  m.node("Add", {"x", "y"}, {"z"});
  Compiled add(m.import("sym_add"));
  NDArray z = add({f32({2, 3}, {1, 2, 3, 4, 5, 6}), f32({1, 3}, {10, 20, 30})});
  EXPECT_EQ(z.shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(values_of(z), (std::vector<float>{11, 22, 33, 14, 25, 36}));
  std::string msg = error_of([&] { add({f32({2, 3}, {1, 2, 3, 4, 5, 6}), f32({1, 2}, {1, 2})}); });
  EXPECT_NE(msg.find("match_cast broadcast: R.Tensor((1, h), dtype=\"float32\"): dimension 1 "
                     "is 2 but 3 was expected"),
            std::string::npos)
      << msg;
}

/// ReduceSum over axes given as a graph input.
Model reduce_model() {
  Model m;
  m.input("x", {2, 3}).input("axes", {1}, kI64).output("y", 1);
  set_int(m.node("ReduceSum", {"x", "axes"}, {"y"}, "sum"), "keepdims", 0);
  return m;
}

std::string write_npy(const std::string& stem, const NDArray& a) {
  auto dir = std::filesystem::temp_directory_path() / "relax_onnx_tests";
  std::filesystem::create_directories(dir);
  std::string path = (dir / (stem + ".npy")).string();
  runtime::save_npy(path, a);
  return path;
}

TEST(OnnxDynamic, StaticPropertiesAreSpecialisedOnSuppliedValuesAndGuarded) {
  Model m = reduce_model();
  // Without a value the error names the option to use.
  std::string missing = error_of([&] { m.import("spec_missing"); });
  EXPECT_NE(missing.find("axes (input 'axes') must be an integer constant known at import time; "
                         "it is a graph input: give its value with the frontend option "
                         "value.axes=FILE"),
            std::string::npos)
      << missing;
  NDArray x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  for (int64_t axis : {0, 1}) {
    std::string file = write_npy("axes_" + std::to_string(axis), i64({1}, {axis}));
    IRModule mod = m.import("spec_" + std::to_string(axis), {{"value.axes", file}});
    ASSERT_EQ(mod.lookup("main").as<Function>()->params.size(), 2u);  // axes stays a parameter
    Compiled reduce(mod);
    NDArray y = reduce({x, i64({1}, {axis})});
    std::vector<float> want = axis == 0 ? std::vector<float>{5, 7, 9} : std::vector<float>{6, 15};
    EXPECT_EQ(values_of(y), want);
    // Another value at run time fails the guard, naming the input and both values.
    std::string msg = error_of([&] { reduce({x, i64({1}, {1 - axis})}); });
    EXPECT_NE(msg.find("main: input 'axes' (specialised at import): the program was specialised "
                       "to the value [" + std::to_string(axis) + "] (int64) but got [" +
                       std::to_string(1 - axis) + "] (int64)"),
              std::string::npos)
        << msg;
  }
  // Bad values are named errors.
  std::string f32_file = write_npy("axes_f32", f32({1}, {0}));
  std::string wrong = error_of([&] { m.import("spec_f32", {{"value.axes", f32_file}}); });
  EXPECT_NE(wrong.find("option value.axes=" + f32_file + ": only integer tensors of rank 0 or 1"),
            std::string::npos)
      << wrong;
  std::string i64_file = write_npy("axes_ok", i64({1}, {0}));
  std::string unknown = error_of([&] { m.import("spec_unknown", {{"value.nope", i64_file}}); });
  EXPECT_NE(unknown.find("option value.nope=" + i64_file + ": the model has no graph input 'nope'"),
            std::string::npos)
      << unknown;
  // Callers passing every input's value ask for names that are no parameter to be ignored.
  EXPECT_NO_THROW(m.import("spec_ignore", {{"value.nope", i64_file},
                                           {"value.axes", i64_file},
                                           {"unknown-values", "ignore"}}));
}

/// Writes `model` with its initializer "w" ([2, 2] float32) stored in `data` (a file beside it)
/// from byte `offset`.
std::string external_model(const std::string& dir_name, const std::string& data, int64_t offset,
                           int64_t length) {
  Model m;
  m.input("x", {2, 2}).output("y", 2);
  m.node("Add", {"x", "w"}, {"y"});
  onnx::TensorProto w;
  w.set_name("w");
  w.set_data_type(onnx::TensorProto::FLOAT);
  w.add_dims(2);
  w.add_dims(2);
  w.set_data_location(onnx::TensorProto::EXTERNAL);
  auto entry = [&](const std::string& k, const std::string& v) {
    auto* e = w.add_external_data();
    e->set_key(k);
    e->set_value(v);
  };
  entry("location", "weights.bin");
  entry("offset", std::to_string(offset));
  if (length >= 0) entry("length", std::to_string(length));
  *m.graph().add_initializer() = w;
  auto dir = std::filesystem::temp_directory_path() / "relax_onnx_tests" / dir_name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  if (!data.empty()) {
    std::ofstream(dir / "weights.bin", std::ios::binary) << data;
  }
  std::string path = (dir / "model.onnx").string();
  std::ofstream out(path, std::ios::binary);
  m.proto.SerializeToOstream(&out);
  return path;
}

TEST(OnnxDynamic, ExternalDataIsReadRelativeToTheModel) {
  float w[4] = {10, 20, 30, 40};
  std::string bytes = "HEADER" + std::string(reinterpret_cast<const char*>(w), sizeof(w));
  std::string path = external_model("external_ok", bytes, 6, 16);
  NDArray y = run(frontend().import(path, {}), {f32({2, 2}, {1, 2, 3, 4})});
  EXPECT_EQ(values_of(y), (std::vector<float>{11, 22, 33, 44}));
  // Without a length the data runs to the end of the file.
  std::string to_end = external_model("external_to_end", bytes, 6, -1);
  EXPECT_EQ(values_of(run(frontend().import(to_end, {}), {f32({2, 2}, {0, 0, 0, 0})})),
            (std::vector<float>{10, 20, 30, 40}));

  std::string missing = external_model("external_missing", "", 0, 16);
  std::string msg = error_of([&] { frontend().import(missing, {}); });
  EXPECT_NE(msg.find("tensor 'w': cannot open its external data file"), std::string::npos) << msg;
  EXPECT_NE(msg.find("weights.bin"), std::string::npos) << msg;
  std::string short_file = external_model("external_short", bytes.substr(0, 12), 6, 16);
  msg = error_of([&] { frontend().import(short_file, {}); });
  EXPECT_NE(msg.find("tensor 'w': its external data file"), std::string::npos) << msg;
  EXPECT_NE(msg.find("has 12 bytes; the tensor needs 16 from offset 6"), std::string::npos) << msg;
}

TEST(OnnxDynamic, InitializedGraphInputIsADefaultOrAParameterInItsPlace) {
  // Graph inputs (b, x) where b has an initializer: a constant by default; with params=inputs
  // a parameter at its place among the graph inputs, which the caller may override.
  Model m;
  m.input("b", {2}).input("x", {2}).output("y", 1);
  m.init_f32("b", {2}, {100, 200});
  m.node("Add", {"x", "b"}, {"y"});
  IRModule as_default = m.import("init_input_default");
  ASSERT_EQ(as_default.lookup("main").as<Function>()->params.size(), 1u);
  EXPECT_EQ(values_of(run(as_default, {f32({2}, {1, 2})})), (std::vector<float>{101, 202}));
  IRModule as_param = m.import("init_input_param", {{"params", "inputs"}});
  const auto& params = as_param.lookup("main").as<Function>()->params;
  ASSERT_EQ(params.size(), 2u);
  EXPECT_EQ(params[0]->name, "b");
  EXPECT_EQ(values_of(run(as_param, {f32({2}, {5, 6}), f32({2}, {1, 2})})),
            (std::vector<float>{6, 8}));
}

// ---- Through relax-driver, on the LLVM target.

class OnnxDynamicDriver : public test::LLVMDriverTest {};

TEST_F(OnnxDynamicDriver, RunComputesShapesAtRunTimeAndCompileSpecialises) {
  Model m;
  m.input("x", {2, 3, 4}).input("s", {2}, kI64).output("y", 2);
  m.node("Reshape", {"x", "s"}, {"y"});
  std::string model = (dir_ / "reshape.onnx").string();
  {
    std::ofstream out(model, std::ios::binary);
    m.proto.SerializeToOstream(&out);
  }
  runtime::save_npy((dir_ / "x.npy").string(), f32({2, 3, 4}, iota(24)));
  for (auto [a, b] : {std::pair<int64_t, int64_t>{4, 6}, {-1, 2}}) {
    runtime::save_npy((dir_ / "s.npy").string(), i64({2}, {a, b}));
    test::DriverResult r = run("run reshape.onnx --input x=x.npy --input s=s.npy");
    ASSERT_EQ(r.rc, 0) << r.out << r.err;
    std::string shape = a == 4 ? "(4, 6)" : "(12, 2)";
    EXPECT_NE(r.out.find(shape), std::string::npos) << r.out;
  }

  Model red = reduce_model();
  {
    std::ofstream out(dir_ / "reduce.onnx", std::ios::binary);
    red.proto.SerializeToOstream(&out);
  }
  runtime::save_npy((dir_ / "x23.npy").string(), f32({2, 3}, {1, 2, 3, 4, 5, 6}));
  runtime::save_npy((dir_ / "axes1.npy").string(), i64({1}, {1}));
  runtime::save_npy((dir_ / "axes0.npy").string(), i64({1}, {0}));
  test::DriverResult no_value = run("compile reduce.onnx -o reduce.rxe");
  EXPECT_EQ(no_value.rc, 1);
  EXPECT_NE(no_value.err.find("--specialize axes=FILE"), std::string::npos) << no_value.err;
  test::DriverResult c = run("compile reduce.onnx --specialize axes=axes1.npy -o reduce.rxe");
  ASSERT_EQ(c.rc, 0) << c.err;
  test::DriverResult ok = run("run reduce.rxe --input x=x23.npy --input axes=axes1.npy");
  EXPECT_EQ(ok.rc, 0) << ok.err;
  EXPECT_NE(ok.out.find("[6, 15]  sum=21"), std::string::npos) << ok.out;
  test::DriverResult guard = run("run reduce.rxe --input x=x23.npy --input axes=axes0.npy");
  EXPECT_EQ(guard.rc, 1);
  EXPECT_NE(guard.err.find("input 'axes' (specialised at import): the program was specialised to "
                           "the value [1] (int64) but got [0] (int64)"),
            std::string::npos)
      << guard.err;
  // run MODEL hands small integer --input values to the importer itself.
  test::DriverResult direct = run("run reduce.onnx --input x=x23.npy --input axes=axes0.npy");
  EXPECT_EQ(direct.rc, 0) << direct.err;
  EXPECT_NE(direct.out.find("(3,)"), std::string::npos) << direct.out;
}

}  // namespace
}  // namespace relax::onnx_test
