// The ONNX importer's model handling: bad files and bad graphs (each a relax::Error naming the
// file and the node), the all-unsupported-ops precheck, inputs, initializers and the
// params=inputs option, symbolic dims shared by name, binding names.
#include <fstream>

#include "onnx_test_util.h"
#include "relax/text/printer.h"

namespace relax::onnx_test {
namespace {

constexpr int kI64 = onnx::TensorProto::INT64;

/// y = relu(x + b), x: [N, 3] with N a dim_param.
Model relu_model() {
  Model m;
  m.input("x", {std::string("N"), int64_t(3)}).output("y", 2);
  m.init_f32("b", {3}, {1, -2, 3});
  m.node("Add", {"x", "b"}, {"s"}, "add");
  m.node("Relu", {"s"}, {"y"}, "relu");
  return m;
}

TEST(OnnxImport, AddReluRunsAtAnyBatch) {
  IRModule mod = relu_model().import("relu");
  EXPECT_TRUE(tensor_close_to(run(mod, {f32({1, 3}, {0, 0, 0})}), {1, 3}, {1, 0, 3}));
  EXPECT_TRUE(
      tensor_close_to(run(mod, {f32({2, 3}, {1, 1, -5, -1, 3, -3})}), {2, 3}, {2, 0, 0, 0, 1, 0}));
}

TEST(OnnxImport, ValueNamesBecomeBindingNamesAndDimParamsSymbolicVars) {
  Model m;
  m.input("x", {std::string("batch"), int64_t(3)}).input("z", {std::string("batch"), int64_t(3)});
  m.output("y", 2);
  m.node("Add", {"x", "z"}, {"/enc/add.0/out"});
  m.node("Relu", {"/enc/add.0/out"}, {"y"});
  std::string text = print_module(m.import("names"));
  // Both inputs share the symbolic "batch"; names are kept or sanitised.
  EXPECT_NE(text.find("x: R.Tensor((batch, 3), dtype=\"float32\")"), std::string::npos) << text;
  EXPECT_NE(text.find("z: R.Tensor((batch, 3), dtype=\"float32\")"), std::string::npos) << text;
  EXPECT_NE(text.find("enc_add_0_out"), std::string::npos) << text;
  // The graph output is bound by R.output under its own name and returned.
  EXPECT_NE(text.find("y: R.Tensor((batch, 3), dtype=\"float32\") = R.nn.relu(enc_add_0_out)"),
            std::string::npos) << text;
  EXPECT_NE(text.find("return y"), std::string::npos) << text;
}

TEST(OnnxImport, InitializersAreConstantsOrParametersWithParamsInputs) {
  Model m = relu_model();
  IRModule as_constants = m.import("params_const");
  EXPECT_EQ(as_constants.lookup("main").as<Function>()->params.size(), 1u);
  IRModule as_inputs = m.import("params_inputs", {{"params", "inputs"}});
  const auto& params = as_inputs.lookup("main").as<Function>()->params;
  ASSERT_EQ(params.size(), 2u);
  EXPECT_EQ(params[1]->name, "b");
  // Now b is supplied by the caller.
  auto vm = runtime::VirtualMachine::create(build(as_inputs, relax::BuildOptions{"tir-interp", "o0"}));
  NDArray y = vm->invoke("main", {f32({1, 3}, {0, 0, 0}), f32({3}, {5, 6, -7})}).as_tensor();
  EXPECT_TRUE(tensor_close_to(y, {1, 3}, {5, 6, 0}));
  EXPECT_NE(error_of([&] { m.import("params_bad", {{"params", "maybe"}}); }).find("params=maybe"),
            std::string::npos);
  EXPECT_NE(error_of([&] { m.import("params_bad", {{"weights", "x"}}); }).find("'weights'"),
            std::string::npos);
}

TEST(OnnxImport, GraphInputThatIsAlsoAnInitializerIsAConstantByDefault) {
  Model m = relu_model();
  auto* vi = m.graph().add_input();
  vi->set_name("b");
  Model::set_type(vi, onnx::TensorProto::FLOAT, {int64_t(3)});
  IRModule mod = m.import("input_with_default");
  EXPECT_EQ(mod.lookup("main").as<Function>()->params.size(), 1u);
  EXPECT_TRUE(tensor_close_to(run(mod, {f32({1, 3}, {0, 0, 0})}), {1, 3}, {1, 0, 3}));
  // Declared with a type other than the initializer's: a named mismatch.
  Model bad = relu_model();
  auto* vi2 = bad.graph().add_input();
  vi2->set_name("b");
  Model::set_type(vi2, kI64, {int64_t(3)});
  std::string msg = error_of([&] { bad.import("input_default_mismatch"); });
  EXPECT_NE(msg.find("graph input 'b' is declared int64"), std::string::npos) << msg;
}

TEST(OnnxImport, MissingOrCorruptFilesAreNamedErrors) {
  std::string msg = error_of([] { frontend().import("/nonexistent/m.onnx", {}); });
  EXPECT_NE(msg.find("/nonexistent/m.onnx: cannot open"), std::string::npos) << msg;

  std::string path = relu_model().save("garbage");
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << "\xff\xff\xff\xff this is not a protobuf";
  }
  msg = error_of([&] { frontend().import(path, {}); });
  EXPECT_NE(msg.find(path + ": not a valid ONNX model"), std::string::npos) << msg;
}

TEST(OnnxImport, TruncatedFileIsANamedError) {
  Model m = relu_model();
  std::string bytes = m.proto.SerializeAsString();
  std::string path = m.save("truncated");
  // Every cut inside the file: an error naming the file, never a crash or a silent success.
  for (size_t cut : {bytes.size() / 4, bytes.size() / 2, bytes.size() - 5, bytes.size() - 1}) {
    {
      std::ofstream out(path, std::ios::binary | std::ios::trunc);
      out.write(bytes.data(), std::streamsize(cut));
    }
    std::string msg = error_of([&] { frontend().import(path, {}); });
    EXPECT_NE(msg.find(path + ": "), std::string::npos) << "cut at " << cut << ": " << msg;
  }
}

TEST(OnnxImport, EveryUnsupportedOpIsReportedInOneError) {
  Model m;
  m.input("x", {int64_t(2)}).output("y", 1);
  m.node("FancyOp", {"x"}, {"a"}, "fancy1");
  m.node("Relu", {"a"}, {"b"}, "ok");
  m.node("FancyOp", {"b"}, {"c"}, "fancy2");
  m.node("OtherOp", {"c"}, {"d"}, "other");
  m.node("Gelu", {"d"}, {"e"}, "vendor").set_domain("com.microsoft");
  m.node("LayerNormalization", {"e", "e"}, {"y"}, "ln16");  // opset 17 only
  std::string msg = error_of([&] { m.import("unsupported"); });
  EXPECT_NE(msg.find("unsupported.onnx: cannot import the model"), std::string::npos) << msg;
  EXPECT_NE(msg.find("4 unsupported operators at opset 13"), std::string::npos) << msg;
  EXPECT_NE(msg.find("FancyOp (2 nodes: fancy1, fancy2)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("OtherOp (1 node: other)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("com.microsoft::Gelu (1 node: vendor)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("LayerNormalization (1 node: ln16)"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("Relu"), std::string::npos) << msg;
}

TEST(OnnxImport, MissingInitializerNamesTheNodeAndTheValue) {
  Model m;
  m.input("x", {int64_t(2), int64_t(3)}).output("y", 2);
  m.node("MatMul", {"x", "weight"}, {"y"}, "fc");
  std::string msg = error_of([&] { m.import("missing_init"); });
  EXPECT_NE(msg.find("missing_init.onnx"), std::string::npos) << msg;
  EXPECT_NE(msg.find("node 'fc' (MatMul) reads 'weight'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("missing initializer"), std::string::npos) << msg;
}

TEST(OnnxImport, CycleIsAnErrorNamingItsNodes) {
  Model m;
  m.input("x", {int64_t(2)}).output("y", 1);
  m.node("Add", {"x", "c"}, {"a"}, "first");
  m.node("Relu", {"a"}, {"b"}, "second");
  m.node("Neg", {"b"}, {"c"}, "third");
  m.node("Relu", {"a"}, {"y"}, "out");
  std::string msg = error_of([&] { m.import("cycle"); });
  EXPECT_NE(msg.find("cycle.onnx"), std::string::npos) << msg;
  EXPECT_NE(msg.find("cycle through the nodes 'first' (Add), 'second' (Relu), 'third' (Neg)"),
            std::string::npos) << msg;
}

TEST(OnnxImport, NodesOutOfOrderAreSortedTopologically) {
  Model m;
  m.input("x", {int64_t(2)}).output("y", 1);
  m.node("Neg", {"a"}, {"y"}, "second");
  m.node("Relu", {"x"}, {"a"}, "first");
  EXPECT_TRUE(tensor_close_to(run(m.import("unsorted"), {f32({2}, {-1, 2})}), {2}, {0, -2}));
}

TEST(OnnxImport, TypeMismatchNamesTheFileAndTheNode) {
  Model m;
  m.input("x", {int64_t(2)}).output("y", 1);
  m.init_i64("k", {2}, {1, 2});
  m.node("Add", {"x", "k"}, {"y"}, "mixed_add");
  std::string msg = error_of([&] { m.import("mismatch"); });
  EXPECT_NE(msg.find("mismatch.onnx: node 'mixed_add' (Add)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("int64"), std::string::npos) << msg;

  Model out;
  out.input("x", {int64_t(2)}).output("y", 1, kI64);
  out.node("Relu", {"x"}, {"y"});
  msg = error_of([&] { out.import("output_mismatch"); });
  EXPECT_NE(msg.find("graph output 'y' is declared int64 but the graph computes float32"),
            std::string::npos) << msg;
}

TEST(OnnxImport, OpsetOutsideTheSupportedRangeIsRefused) {
  Model m(18);
  m.input("x", {int64_t(2)}).output("y", 1);
  m.node("Relu", {"x"}, {"y"});
  std::string msg = error_of([&] { m.import("opset18"); });
  EXPECT_NE(msg.find("opset 18 is not supported"), std::string::npos) << msg;
}

TEST(OnnxImport, UnsupportedElementTypeIsNamed) {
  Model m;
  m.input("s", {int64_t(2)}, onnx::TensorProto::STRING).output("y", 1);
  m.node("Identity", {"s"}, {"y"});
  std::string msg = error_of([&] { m.import("strings"); });
  EXPECT_NE(msg.find("graph input 's': STRING tensors are not supported"), std::string::npos) << msg;
}

}  // namespace
}  // namespace relax::onnx_test
