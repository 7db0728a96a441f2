// The dynamic code real exporters write (issue 24), on the cases of tests/data/onnx_compat
// (made by its make.py, references from ONNX Runtime): each model imported and built once,
// then run on every test_data_set_N (several input sizes where the dims are symbolic) and
// compared with ONNX Runtime's outputs. Also: what the import leaves to run time (a folded
// F.pad chain is a constant pads attribute; shape arithmetic is symbolic), and the errors.
// Built for tir-interp (o0) and for LLVM (o0) when the backend is built.
#include "onnx_test_util.h"
#include "relax/runtime/tensor_io.h"
#include "relax/text/printer.h"

namespace relax::onnx_test {
namespace {

namespace fs = std::filesystem;

const fs::path kCases = fs::path(RELAX_SOURCE_DIR) / "tests" / "data" / "onnx_compat";

/// The inputs (input_K.pb) and ONNX Runtime's outputs (output_K.pb) of one data set.
struct DataSet {
  std::vector<NDArray> inputs, outputs;
};

std::vector<DataSet> data_sets(const fs::path& dir) {
  std::vector<DataSet> sets;
  for (int k = 0;; ++k) {
    fs::path d = dir / ("test_data_set_" + std::to_string(k));
    if (!fs::exists(d)) break;
    DataSet s;
    for (int i = 0; fs::exists(d / ("input_" + std::to_string(i) + ".pb")); ++i)
      s.inputs.push_back(runtime::load_tensor_proto((d / ("input_" + std::to_string(i) + ".pb")).string()));
    for (int i = 0; fs::exists(d / ("output_" + std::to_string(i) + ".pb")); ++i)
      s.outputs.push_back(runtime::load_tensor_proto((d / ("output_" + std::to_string(i) + ".pb")).string()));
    sets.push_back(std::move(s));
  }
  return sets;
}

/// Imports case `name` once, builds it for the reference interpreter (tir-interp, o0: the
/// TIR goes through the executable as text) and, where built, for LLVM (o0), runs every data
/// set on each and compares with ONNX Runtime. Returns the imported module (for checks on
/// what was folded).
IRModule check_case(const std::string& name) {
  fs::path dir = kCases / name;
  IRModule mod = frontend().import((dir / "model.onnx").string(), {});
  std::vector<relax::BuildOptions> builds{{"tir-interp", "o0"}};
#ifdef RELAX_HAVE_LLVM_BACKEND
  builds.push_back({"llvm", "o0"});
#endif
  std::vector<DataSet> sets = data_sets(dir);
  EXPECT_GE(sets.size(), 2u) << name;
  for (const relax::BuildOptions& options : builds) {
    SCOPED_TRACE(options.target);
    auto vm = runtime::VirtualMachine::create(build(mod, options));
    for (size_t k = 0; k < sets.size(); ++k) {
      std::vector<runtime::Value> args(sets[k].inputs.begin(), sets[k].inputs.end());
      runtime::Value r = vm->invoke("main", args);
      std::vector<NDArray> got;
      if (r.is(runtime::ValueKind::kTuple)) {
        for (const runtime::Value& v : r.as_tuple().fields()) got.push_back(v.as_tensor());
      } else {
        got.push_back(r.as_tensor());
      }
      EXPECT_EQ(got.size(), sets[k].outputs.size()) << name << " data set " << k;
      for (size_t i = 0; i < got.size() && i < sets[k].outputs.size(); ++i) {
        EXPECT_TRUE(test::tensors_close(got[i], sets[k].outputs[i], 1e-5, 1e-6))
            << name << " data set " << k << " output " << i;
      }
    }
  }
  return mod;
}

std::string text_of(const IRModule& mod) { return print_module(mod); }

TEST(OnnxCompat, IfOnOneElementConditionOfRank1) { check_case("if_cond_rank1"); }

TEST(OnnxCompat, IfOnOneElementConditionOfRank2) { check_case("if_cond_rank2"); }

TEST(OnnxCompat, FPadChainFoldsToConstantPads) {
  IRModule mod = check_case("fpad_chain");
  std::string text = text_of(mod);
  // The whole chain is folded: one pad with constant widths, nothing computed at run time.
  EXPECT_NE(text.find("R.nn.pad"), std::string::npos) << text;
  EXPECT_EQ(text.find("R.concat"), std::string::npos) << text;
  EXPECT_EQ(text.find("tensor_to_shape"), std::string::npos) << text;
}

TEST(OnnxCompat, FPadChainInsideAnIf) { check_case("fpad_chain_in_if"); }

TEST(OnnxCompat, PadsComputedFromTheInputShape) {
  IRModule mod = check_case("pads_from_shape");
  // Symbolic pads: no run-time shape computation.
  EXPECT_EQ(text_of(mod).find("tensor_to_shape"), std::string::npos) << text_of(mod);
}

TEST(OnnxCompat, PadsComputedFromTheInputShapeInsideAnIf) { check_case("pads_from_shape_in_if"); }

TEST(OnnxCompat, ResizeOnSymbolicDims) {
  IRModule mod = check_case("resize_symbolic");
  EXPECT_EQ(text_of(mod).find("tensor_to_shape"), std::string::npos) << text_of(mod);
}

TEST(OnnxCompat, ResizeToSizesComputedInFloatFromTheShape) {
  // Shape values that go through float math are computed at run time.
  IRModule mod = check_case("resize_sizes_in_float");
  EXPECT_NE(text_of(mod).find("tensor_to_shape"), std::string::npos) << text_of(mod);
}

TEST(OnnxCompat, SliceBoundsFromTheShape) {
  IRModule mod = check_case("slice_from_shape");
  EXPECT_EQ(text_of(mod).find("tensor_to_shape"), std::string::npos) << text_of(mod);
}

TEST(OnnxCompat, SliceStartKnownOnlyAtRunTime) {
  // The start is a graph input: bound at run time, one build for every value.
  IRModule mod = check_case("slice_runtime");
  EXPECT_NE(text_of(mod).find("tensor_to_shape"), std::string::npos) << text_of(mod);
}

// ---- Built here: folding limits and errors.

TEST(OnnxCompat, LargeConstantResultsAreNotFolded) {
  // ConstantOfShape of 1024 x 1024 (4 MiB) stays a run-time op.
  Model m;
  m.input("x", {2}).output("y", 2);
  m.init_i64("shape", {2}, {1024, 1024});
  auto& n = m.node("ConstantOfShape", {"shape"}, {"big"});
  set_tensor(n, "value", Model::tensor_f32("v", {1}, {1.5f}));
  m.node("ReduceSum", {"big"}, {"y"});
  IRModule mod = m.import("compat_large_fold");
  EXPECT_NE(text_of(mod).find("R.full"), std::string::npos) << text_of(mod);
}

TEST(OnnxCompat, SmallConstantChainsFold) {
  // Transpose(Add(c1, c2)) of initializers is one constant.
  Model m;
  m.input("x", {3, 2}).output("y", 2);
  m.init_f32("a", {2, 3}, {1, 2, 3, 4, 5, 6}).init_f32("b", {2, 3}, {10, 20, 30, 40, 50, 60});
  m.node("Add", {"a", "b"}, {"s"});
  m.node("Transpose", {"s"}, {"t"});
  m.node("Mul", {"x", "t"}, {"y"});
  IRModule mod = m.import("compat_small_fold");
  std::string text = text_of(mod);
  EXPECT_EQ(text.find("R.add"), std::string::npos) << text;
  EXPECT_EQ(text.find("R.permute_dims"), std::string::npos) << text;
  NDArray got = run(mod, {f32({3, 2}, {1, 1, 1, 1, 1, 1})});
  EXPECT_EQ(values_of(got), (std::vector<float>{11, 44, 22, 55, 33, 66}));
}

TEST(OnnxCompat, ConditionWithMoreThanOneElementIsAnError) {
  Model m(13);
  m.input("x", {2}).input("cond", {2}, onnx::TensorProto::BOOL).output("y", 1);
  onnx::GraphProto then_g, else_g;
  for (auto* g : {&then_g, &else_g}) {
    auto* n = g->add_node();
    n->set_op_type("Identity");
    n->add_input("x");
    n->add_output(g == &then_g ? "t" : "e");
    auto* o = g->add_output();
    o->set_name(g == &then_g ? "t" : "e");
    Model::set_type(o, onnx::TensorProto::FLOAT, {2});
  }
  auto& n = m.node("If", {"cond"}, {"y"}, "the_if");
  for (auto [name, g] : {std::pair{"then_branch", &then_g}, std::pair{"else_branch", &else_g}}) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::GRAPH);
    *a->mutable_g() = *g;
  }
  std::string err = error_of([&] { m.import("compat_if_two"); });
  EXPECT_NE(err.find("node 'the_if' (If): the condition must hold exactly one element"),
            std::string::npos)
      << err;
}

TEST(OnnxCompat, UpsampleNearestRoundsDown) {
  // Upsample-9 by (1, 1, 1, 3): output column j reads input column floor(j / 3).
  Model m(9);
  m.input("x", {1, 1, 1, 2}).output("y", 4);
  m.init_f32("scales", {4}, {1, 1, 1, 3});
  auto& n = m.node("Upsample", {"x", "scales"}, {"y"});
  set_string(n, "mode", "nearest");
  NDArray got = run(m.import("compat_upsample"), {f32({1, 1, 1, 2}, {1, 2})});
  EXPECT_EQ(values_of(got), (std::vector<float>{1, 1, 1, 2, 2, 2}));
}

TEST(OnnxCompat, Upsample7TakesScalesAsAnAttribute) {
  // Upsample-7 by (1, 1, 2, 2), nearest: every input element becomes a 2 x 2 block.
  Model m(7);
  m.input("x", {1, 1, 1, 2}).output("y", 4);
  auto& n = m.node("Upsample", {"x"}, {"y"});
  auto* a = n.add_attribute();
  a->set_name("scales");
  a->set_type(onnx::AttributeProto::FLOATS);
  for (float f : {1.f, 1.f, 2.f, 2.f}) a->add_floats(f);
  NDArray got = run(m.import("compat_upsample7"), {f32({1, 1, 1, 2}, {1, 2})});
  EXPECT_EQ(got.shape(), (std::vector<int64_t>{1, 1, 2, 4}));
  EXPECT_EQ(values_of(got), (std::vector<float>{1, 1, 2, 2, 1, 1, 2, 2}));
}

TEST(OnnxCompat, UpsampleWithAnUnknownModeIsAnError) {
  Model m(9);
  m.input("x", {1, 1, 1, 2}).output("y", 4);
  m.init_f32("scales", {4}, {1, 1, 1, 3});
  auto& n = m.node("Upsample", {"x", "scales"}, {"y"}, "up");
  set_string(n, "mode", "area");
  std::string err = error_of([&] { m.import("compat_upsample_bad"); });
  EXPECT_NE(err.find("node 'up' (Upsample): mode 'area' is not one of nearest, linear, bilinear"),
            std::string::npos)
      << err;
}

}  // namespace
}  // namespace relax::onnx_test
