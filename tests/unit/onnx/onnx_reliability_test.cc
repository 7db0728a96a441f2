// The ONNX importer on hostile or inconsistent models (the error paths behind the reproducers
// of ../shared/reliability, replayed through the driver in e2e/driver_onnx_reliability_test):
// Scan inputs without the axes they need, tensor sizes checked before anything is allocated,
// negative and contradicting dims, external data of the wrong size, and nesting too deep.
#include "onnx_test_util.h"

namespace relax::onnx_test {
namespace {

using T = onnx::TensorProto;

Model relu_model(const std::vector<Dim>& in_dims) {
  Model m;
  m.input("x", in_dims).output("y", int(in_dims.size()));
  m.node("Relu", {"x"}, {"y"});
  return m;
}

/// A Scan body adding its one state and one scan element (both of shape `elem`).
onnx::GraphProto add_body(const std::vector<Dim>& elem) {
  onnx::GraphProto g;
  for (const char* name : {"s", "e"}) {
    auto* vi = g.add_input();
    vi->set_name(name);
    Model::set_type(vi, T::FLOAT, elem);
  }
  auto* n = g.add_node();
  n->set_op_type("Add");
  n->add_input("s");
  n->add_input("e");
  n->add_output("s_out");
  Model::set_type(g.add_output(), T::FLOAT, elem);
  g.mutable_output(0)->set_name("s_out");
  return g;
}

void set_graph(onnx::NodeProto& n, const std::string& name, const onnx::GraphProto& g) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::GRAPH);
  *a->mutable_g() = g;
}

TEST(OnnxReliability, ScanInputsWithoutTheirAxesAreNamedErrors) {
  // Opset 11: a rank-0 scan input has no scan axis.
  Model m(11);
  m.input("init", {}).input("xs", {}).output("final", 0);
  auto& n = m.node("Scan", {"init", "xs"}, {"final"}, "scan");
  set_graph(n, "body", add_body({}));
  set_int(n, "num_scan_inputs", 1);
  std::string msg = error_of([&] { m.import("scan_rank0"); });
  EXPECT_NE(msg.find("node 'scan' (Scan): scan input 'xs' has rank 0; expected rank >= 1"),
            std::string::npos)
      << msg;
  // Opset 8: the batch axis comes first, on the states too.
  Model m8(8);
  m8.input("init", {}).input("xs", {int64_t(2), int64_t(3)}).output("final", 0);
  auto& n8 = m8.node("Scan", {"", "init", "xs"}, {"final"}, "scan8");
  set_graph(n8, "body", add_body({}));
  set_int(n8, "num_scan_inputs", 1);
  msg = error_of([&] { m8.import("scan8_rank0_state"); });
  EXPECT_NE(msg.find("state input 'init' has rank 0; expected rank >= 1 (a batch axis 0)"),
            std::string::npos)
      << msg;
}

TEST(OnnxReliability, TensorSizesAreCheckedBeforeAllocating) {
  // 2^40 floats declared, one given: refused from the count, nothing reserved.
  Model m = relu_model({int64_t(2)});
  *m.graph().add_initializer() = Model::tensor_f32("big", {int64_t(1) << 40}, {1.0f});
  std::string msg = error_of([&] { m.import("big_typed"); });
  EXPECT_NE(msg.find("initializer: tensor 'big' has 1 values in float_data; its shape "
                     "(1099511627776,) needs 1099511627776"),
            std::string::npos)
      << msg;
  // Dims whose product overflows int64, and one whose byte size does.
  for (auto dims : {std::vector<int64_t>{int64_t(1) << 40, int64_t(1) << 40},
                    std::vector<int64_t>{int64_t(1) << 62}}) {
    Model o = relu_model({int64_t(2)});
    T& w = *o.graph().add_initializer();
    w.set_name("w");
    w.set_data_type(T::FLOAT);
    for (int64_t d : dims) w.add_dims(d);
    w.set_raw_data("abcd");
    msg = error_of([&] { o.import("overflow"); });
    EXPECT_NE(msg.find("tensor 'w': its shape ("), std::string::npos) << msg;
    EXPECT_NE(msg.find("is too large"), std::string::npos) << msg;
    EXPECT_NE(msg.find("overflows int64"), std::string::npos) << msg;
  }
}

TEST(OnnxReliability, ExternalDataOfTheWrongSizeIsNamed) {
  Model m = relu_model({int64_t(2)});
  T& w = *m.graph().add_initializer();
  w.set_name("w");
  w.set_data_type(T::FLOAT);
  w.add_dims(4);
  w.set_data_location(T::EXTERNAL);
  auto entry = [&](const std::string& key, const std::string& value) {
    auto* e = w.add_external_data();
    e->set_key(key);
    e->set_value(value);
  };
  entry("location", "w.bin");
  std::string path = m.save("extdata");
  {
    std::ofstream out(std::filesystem::path(path).parent_path() / "w.bin", std::ios::binary);
    out << std::string(8, '\0');
  }
  std::string msg = error_of([&] { frontend().import(path, {}); });
  EXPECT_NE(msg.find("tensor 'w': its external data in"), std::string::npos) << msg;
  EXPECT_NE(msg.find("is 8 bytes (offset 0); its shape and dtype need 16"), std::string::npos)
      << msg;
  // An offset and length whose sum overflows int64.
  entry("offset", "9223372036854775800");
  entry("length", "16");
  msg = error_of([&] { m.import("extdata_overflow"); });
  EXPECT_NE(msg.find("has 8 bytes; the tensor needs 16 from offset 9223372036854775800"),
            std::string::npos)
      << msg;
}

TEST(OnnxReliability, NegativeAndContradictingDimsAreErrors) {
  // -1 is the "unknown" convention some exporters write: a symbolic dim.
  EXPECT_NO_THROW(relu_model({int64_t(-1), int64_t(4)}).import("minus_one"));
  std::string msg = error_of([&] { relu_model({int64_t(-2), int64_t(4)}).import("neg"); });
  EXPECT_NE(msg.find("graph input 'x': dim 0 is -2; expected a size >= 0"), std::string::npos)
      << msg;
  // Declared output dims: negative, or contradicting the computed shape.
  Model m = relu_model({int64_t(2), int64_t(4)});
  auto* shape = m.graph().mutable_output(0)->mutable_type()->mutable_tensor_type()->mutable_shape();
  shape->mutable_dim(1)->set_dim_value(-7);
  msg = error_of([&] { m.import("neg_out"); });
  EXPECT_NE(msg.find("graph output 'y': dim 1 is -7"), std::string::npos) << msg;
  shape->mutable_dim(1)->set_dim_value(3);
  msg = error_of([&] { m.import("contradicting_out"); });
  EXPECT_NE(msg.find("graph output 'y' is declared with dim 1 = 3 but the graph computes"),
            std::string::npos)
      << msg;
  shape->mutable_dim(1)->set_dim_value(4);
  EXPECT_NO_THROW(m.import("agreeing_out"));
}

TEST(OnnxReliability, WindowAttributesAndWeightsOfTheWrongRankAreNamed) {
  // ConvTranspose with output_shape: a weight of rank 2 for 2-D data (the padding is worked out
  // from the weight's kernel sizes before the op sees it).
  Model ct;
  ct.input("x", {int64_t(1), int64_t(2), int64_t(4), int64_t(4)})
      .input("w", {int64_t(2), int64_t(3)})
      .output("y", 4);
  set_ints(ct.node("ConvTranspose", {"x", "w"}, {"y"}, "up"), "output_shape", {8, 8});
  std::string msg = error_of([&] { ct.import("ct_weight_rank"); });
  EXPECT_NE(msg.find("node 'up' (ConvTranspose): the weight needs rank 4 (as the input), got rank 2"),
            std::string::npos)
      << msg;
  // Conv and MaxPool with auto_pad SAME_UPPER and one stride for two spatial axes.
  Model cv;
  cv.input("x", {int64_t(1), int64_t(2), int64_t(5), int64_t(5)})
      .input("w", {int64_t(3), int64_t(2), int64_t(3), int64_t(3)})
      .output("y", 4);
  auto& conv = cv.node("Conv", {"x", "w"}, {"y"}, "c");
  set_string(conv, "auto_pad", "SAME_UPPER");
  set_ints(conv, "strides", {2});
  msg = error_of([&] { cv.import("conv_strides"); });
  EXPECT_NE(msg.find("node 'c' (Conv): strides and dilations need 2 values (one per spatial "
                     "axis), got 1 and 2"),
            std::string::npos)
      << msg;
  Model mp;
  mp.input("x", {int64_t(1), int64_t(2), int64_t(5), int64_t(5)}).output("y", 4);
  auto& pool = mp.node("MaxPool", {"x"}, {"y"}, "p");
  set_ints(pool, "kernel_shape", {2, 2});
  set_string(pool, "auto_pad", "SAME_LOWER");
  set_ints(pool, "dilations", {1, 1, 1});
  msg = error_of([&] { mp.import("pool_dilations"); });
  EXPECT_NE(msg.find("node 'p' (MaxPool): strides and dilations need 2 values"), std::string::npos)
      << msg;
}

TEST(OnnxReliability, NodesMissingTheirInputsAreNamed) {
  // A Reshape (opset 13) without its shape input, a Gather without indices, a Relu without
  // any input: each an error naming the node, not a read past the node's inputs.
  Model r;
  r.input("x", {int64_t(2), int64_t(3)}).output("y", 2);
  r.node("Reshape", {"x"}, {"y"}, "flat");
  std::string msg = error_of([&] { r.import("reshape_one_input"); });
  EXPECT_NE(msg.find("node 'flat' (Reshape): Reshape (opset 5 and later) needs its shape input"),
            std::string::npos)
      << msg;
  Model g;
  g.input("x", {int64_t(2), int64_t(3)}).output("y", 2);
  g.node("Gather", {"x"}, {"y"}, "pick");
  msg = error_of([&] { g.import("gather_one_input"); });
  EXPECT_NE(msg.find("node 'pick' (Gather): Gather needs its data and indices"), std::string::npos)
      << msg;
  Model e;
  e.input("x", {int64_t(2)}).output("y", 1);
  e.node("Relu", {}, {"y"}, "none");
  msg = error_of([&] { e.import("relu_no_input"); });
  EXPECT_NE(msg.find("node 'none' (Relu): the node has no inputs; Relu takes at least one"),
            std::string::npos)
      << msg;
}

TEST(OnnxReliability, NestingTooDeepIsSaidSo) {
  // 400 Ifs nested in then-branches: about 1200 protobuf levels, past the importer's 1000.
  onnx::GraphProto inner;
  {
    auto* n = inner.add_node();
    n->set_op_type("Identity");
    n->add_input("x");
    n->add_output("o");
    Model::set_type(inner.add_output(), T::FLOAT, {int64_t(2)});
    inner.mutable_output(0)->set_name("o");
  }
  onnx::GraphProto leaf = inner;
  for (int level = 0; level < 400; ++level) {
    onnx::GraphProto g;
    auto* n = g.add_node();
    n->set_op_type("If");
    n->add_input("c");
    n->add_output("o");
    set_graph(*n, "then_branch", inner);
    set_graph(*n, "else_branch", leaf);
    *g.add_output() = inner.output(0);
    inner = std::move(g);
  }
  Model m;
  m.input("c", {}, T::BOOL).input("x", {int64_t(2)}).output("o", 1);
  *m.graph().mutable_node() = inner.node();
  std::string msg = error_of([&] { m.import("too_deep"); });
  EXPECT_NE(msg.find("more than 1000 levels deep"), std::string::npos) << msg;
}

}  // namespace
}  // namespace relax::onnx_test
