// ONNX control flow (If, Loop, Scan) and quantisation, each on a small model run through the
// interpreter target and compared with numbers computed here (by hand or by plain loops);
// malformed subgraphs give errors naming the node. Recurrent layers: onnx_rnn_test.cc.
#include <cmath>

#include "onnx_test_util.h"
#include "relax/text/printer.h"

namespace relax::onnx_test {
namespace {

using T = onnx::TensorProto;

/// A subgraph (If branch, Loop or Scan body) under construction.
struct Sub {
  onnx::GraphProto g;
  Sub& input(const std::string& name, int elem, const std::vector<Dim>& dims) {
    auto* vi = g.add_input();
    vi->set_name(name);
    Model::set_type(vi, elem, dims);
    return *this;
  }
  Sub& output(const std::string& name, int elem, const std::vector<Dim>& dims) {
    auto* vi = g.add_output();
    vi->set_name(name);
    Model::set_type(vi, elem, dims);
    return *this;
  }
  /// A sequence of `elem` tensors as input or output.
  Sub& sequence(bool is_input, const std::string& name, int elem) {
    auto* vi = is_input ? g.add_input() : g.add_output();
    vi->set_name(name);
    vi->mutable_type()->mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()
        ->set_elem_type(elem);
    return *this;
  }
  onnx::NodeProto& node(const std::string& op, const std::vector<std::string>& inputs,
                        const std::vector<std::string>& outputs) {
    auto* n = g.add_node();
    n->set_op_type(op);
    n->set_name(outputs[0] + "_node");
    for (const auto& i : inputs) n->add_input(i);
    for (const auto& o : outputs) n->add_output(o);
    return *n;
  }
};

void set_graph(onnx::NodeProto& n, const std::string& name, const onnx::GraphProto& g) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::GRAPH);
  *a->mutable_g() = g;
}

NDArray boolean(bool v) {
  NDArray t = NDArray::empty({}, DataType::Bool());
  *t.data_as<uint8_t>() = v;
  return t;
}
NDArray i64(const std::vector<int64_t>& shape, const std::vector<int64_t>& values) {
  NDArray t = NDArray::empty(shape, DataType::Int(64));
  std::copy(values.begin(), values.end(), t.data_as<int64_t>());
  return t;
}
template <typename E>
std::vector<double> elements(const NDArray& t) {
  return std::vector<double>(t.data_as<E>(), t.data_as<E>() + t.numel());
}

// ---- If.

TEST(OnnxControl, IfRunsEitherBranchAndLaterNodesReadValuesFromBefore) {
  // r = relu(x); y = cond ? r + 1 : r * x; z = y - r.
  Model m(13);
  m.input("cond", {}, T::BOOL).input("x", {int64_t(3)}).output("z", 1);
  m.init_f32("one", {}, {1});
  m.node("Relu", {"x"}, {"r"});
  Sub then_b, else_b;
  then_b.node("Add", {"r", "one"}, {"t"});
  then_b.output("t", T::FLOAT, {int64_t(3)});
  else_b.node("Mul", {"r", "x"}, {"e"});
  else_b.output("e", T::FLOAT, {int64_t(3)});
  auto& n = m.node("If", {"cond"}, {"y"}, "choose");
  set_graph(n, "then_branch", then_b.g);
  set_graph(n, "else_branch", else_b.g);
  m.node("Sub", {"y", "r"}, {"z"});
  IRModule mod = m.import("if_both");
  NDArray x = f32({3}, {-1, 2, 3});
  EXPECT_TRUE(tensor_close_to(run(mod, {boolean(true), x}), {3}, {1, 1, 1}));
  EXPECT_TRUE(tensor_close_to(run(mod, {boolean(false), x}), {3}, {0, 2, 6}));
}

TEST(OnnxControl, IfBranchesOfDifferentShapesJoinToASymbolicShape) {
  Model m(13);
  m.input("cond", {int64_t(1)}, T::BOOL).input("x", {int64_t(4)}).output("y", 1);
  Sub then_b, else_b;
  then_b.node("Neg", {"x"}, {"t"});
  then_b.output("t", T::FLOAT, {int64_t(4)});
  else_b.node("Concat", {"x", "x"}, {"e"});
  set_int(*else_b.g.mutable_node(0), "axis", 0);
  else_b.output("e", T::FLOAT, {int64_t(8)});
  auto& n = m.node("If", {"cond"}, {"y"}, "choose");
  set_graph(n, "then_branch", then_b.g);
  set_graph(n, "else_branch", else_b.g);
  IRModule mod = m.import("if_shapes");
  NDArray c = NDArray::empty({1}, DataType::Bool());
  NDArray x = f32({4}, {1, 2, 3, 4});
  *c.data_as<uint8_t>() = 1;
  EXPECT_TRUE(tensor_close_to(run(mod, {c, x}), {4}, {-1, -2, -3, -4}));
  *c.data_as<uint8_t>() = 0;
  EXPECT_TRUE(tensor_close_to(run(mod, {c, x}), {8}, {1, 2, 3, 4, 1, 2, 3, 4}));
}

// ---- Loop.

/// Loop: s = 0; for i < M while cond: s += step * i; cond = s < limit; scan s.
Model counting_loop(bool with_trip_count) {
  Model m(13);
  m.input("x", {int64_t(1)}).output("s_final", 1).output("s_all", 2);
  m.init_f32("s0", {1}, {0});
  m.init_f32("limit", {}, {10});
  if (with_trip_count) m.input("M", {}, T::INT64);
  m.node("Relu", {"x"}, {"step"});  // an outer run-time value the body reads
  Sub body;
  body.input("i", T::INT64, {}).input("c", T::BOOL, {}).input("s", T::FLOAT, {int64_t(1)});
  body.node("Cast", {"i"}, {"fi"});
  set_int(*body.g.mutable_node(0), "to", T::FLOAT);
  body.node("Mul", {"fi", "step"}, {"inc"});
  body.node("Add", {"s", "inc"}, {"s_out"});
  body.node("Less", {"s_out", "limit"}, {"c_out1"});
  body.node("Squeeze", {"c_out1"}, {"c_out"});
  body.node("Identity", {"s_out"}, {"scan"});
  body.output("c_out", T::BOOL, {}).output("s_out", T::FLOAT, {int64_t(1)});
  body.output("scan", T::FLOAT, {int64_t(1)});
  auto& n = m.node("Loop", {with_trip_count ? "M" : "", "", "s0"}, {"s_final", "s_all"}, "loop");
  set_graph(n, "body", body.g);
  return m;
}

TEST(OnnxControl, LoopStopsOnItsConditionAndCollectsScanOutputs) {
  // step 1: s = 0, 1, 3, 6, 10 (then s < 10 fails).
  auto out = run_all(counting_loop(false).import("loop_cond"), {f32({1}, {1})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(tensor_close_to(out[0], {1}, {10}));
  EXPECT_EQ(out[1].shape(), (std::vector<int64_t>{5, 1}));
  EXPECT_TRUE(tensor_close_to(out[1], {5, 1}, {0, 1, 3, 6, 10}));
  // step 2: s = 0, 2, 6, 12.
  out = run_all(counting_loop(false).import("loop_cond2"), {f32({1}, {2})});
  EXPECT_TRUE(tensor_close_to(out[1], {4, 1}, {0, 2, 6, 12}));
}

TEST(OnnxControl, LoopStopsAtItsTripCount) {
  IRModule mod = counting_loop(true).import("loop_trip");
  auto out = run_all(mod, {f32({1}, {1}), i64({}, {3})});
  EXPECT_TRUE(tensor_close_to(out[0], {1}, {3}));
  EXPECT_TRUE(tensor_close_to(out[1], {3, 1}, {0, 1, 3}));
  out = run_all(mod, {f32({1}, {1}), i64({}, {0})});  // no iteration: the initial value
  EXPECT_TRUE(tensor_close_to(out[0], {1}, {0}));
  EXPECT_EQ(out[1].shape()[0], 0);
}

/// Loop M=3 carrying a sequence: seq += [x * i] each iteration, scan x * i too; then the
/// sequence concatenated. `trip_count_input`: M is a graph input (not known at import).
Model sequence_loop(bool trip_count_input) {
  Model m(13);
  m.input("x", {int64_t(2)}).output("out", 1).output("rows", 2);
  if (trip_count_input) {
    m.input("M", {}, T::INT64);
  } else {
    m.init_i64("M", {}, {3});
  }
  set_int(m.node("SequenceEmpty", {}, {"s0"}), "dtype", T::FLOAT);
  Sub body;
  body.input("i", T::INT64, {}).input("c", T::BOOL, {}).sequence(true, "seq", T::FLOAT);
  set_int(body.node("Cast", {"i"}, {"fi"}), "to", T::FLOAT);
  body.node("Mul", {"x", "fi"}, {"elem"});  // x: an outer value
  body.node("SequenceInsert", {"seq", "elem"}, {"seq_out"});
  body.node("Identity", {"c"}, {"c_out"});
  body.node("Identity", {"elem"}, {"scan"});
  body.output("c_out", T::BOOL, {}).sequence(false, "seq_out", T::FLOAT);
  body.output("scan", T::FLOAT, {int64_t(2)});
  set_graph(m.node("Loop", {"M", "", "s0"}, {"s_final", "rows"}, "loop"), "body", body.g);
  set_int(m.node("ConcatFromSequence", {"s_final"}, {"out"}), "axis", 0);
  return m;
}

TEST(OnnxControl, LoopCarryingASequenceIsUnrolled) {
  Model m = sequence_loop(false);
  auto out = run_all(m.import("loop_seq"), {f32({2}, {1, 2})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(tensor_close_to(out[0], {6}, {0, 0, 1, 2, 2, 4}));
  EXPECT_TRUE(tensor_close_to(out[1], {3, 2}, {0, 0, 1, 2, 2, 4}));
  // A trip count known only at run time cannot fix the sequence's length.
  Model dyn = sequence_loop(true);
  std::string msg = error_of([&] { dyn.import("loop_seq_dyn"); });
  EXPECT_NE(msg.find("the trip count M (input 'M') must be a constant"), std::string::npos) << msg;
  EXPECT_NE(msg.find("it carries the sequence 's0'"), std::string::npos) << msg;
}

TEST(OnnxControl, IfInsideALoopBodyReadsOuterValues) {
  // s = 0; for i < 4: s = i even ? s + x : s - x  (x a graph input, read inside the branches).
  Model m(13);
  m.input("x", {int64_t(1)}).input("M", {}, T::INT64).output("s_final", 1).output("s_all", 2);
  m.init_f32("s0", {1}, {0});
  m.init_i64("two", {}, {2});
  m.init_i64("zero", {}, {0});
  Sub then_b, else_b;
  then_b.node("Add", {"s", "x"}, {"plus"});
  then_b.output("plus", T::FLOAT, {int64_t(1)});
  else_b.node("Sub", {"s", "x"}, {"minus"});
  else_b.output("minus", T::FLOAT, {int64_t(1)});
  Sub body;
  body.input("i", T::INT64, {}).input("c", T::BOOL, {}).input("s", T::FLOAT, {int64_t(1)});
  body.node("Mod", {"i", "two"}, {"r"});
  body.node("Equal", {"r", "zero"}, {"even"});
  auto& branch = body.node("If", {"even"}, {"s_out"});
  set_graph(branch, "then_branch", then_b.g);
  set_graph(branch, "else_branch", else_b.g);
  body.node("Identity", {"c"}, {"c_out"});
  body.node("Identity", {"s_out"}, {"scan"});
  body.output("c_out", T::BOOL, {}).output("s_out", T::FLOAT, {int64_t(1)});
  body.output("scan", T::FLOAT, {int64_t(1)});
  set_graph(m.node("Loop", {"M", "", "s0"}, {"s_final", "s_all"}, "loop"), "body", body.g);
  auto out = run_all(m.import("loop_if"), {f32({1}, {1.5f}), i64({}, {5})});
  EXPECT_TRUE(tensor_close_to(out[0], {1}, {1.5f}));
  EXPECT_TRUE(tensor_close_to(out[1], {5, 1}, {1.5f, 0, 1.5f, 0, 1.5f}));
}

TEST(OnnxControl, IfWithAConstantConditionInlinesTheBranchTaken) {
  Model m(13);
  m.input("x", {int64_t(2)}).output("y", 1);
  onnx::TensorProto c;
  c.set_name("c");
  c.set_data_type(T::BOOL);
  c.add_int32_data(0);
  *m.graph().add_initializer() = c;
  Sub then_b, else_b;
  then_b.node("Neg", {"x"}, {"t"});
  then_b.output("t", T::FLOAT, {int64_t(2)});
  else_b.node("Abs", {"x"}, {"e"});
  else_b.output("e", T::FLOAT, {int64_t(2)});
  auto& n = m.node("If", {"c"}, {"y"}, "fixed");
  set_graph(n, "then_branch", then_b.g);
  set_graph(n, "else_branch", else_b.g);
  IRModule mod = m.import("if_const");
  EXPECT_TRUE(tensor_close_to(run(mod, {f32({2}, {-3, 4})}), {2}, {3, 4}));
  // No If is left: main is one dataflow block of the else branch's Abs.
  std::string text = print_module(mod);
  EXPECT_EQ(text.find("if "), std::string::npos) << text;
  EXPECT_NE(text.find("R.abs"), std::string::npos) << text;
}

// ---- Scan.

TEST(OnnxControl, ScanSumsForwardAndBackward) {
  // state (2,), scan input (3, 2): running sums; the second Scan reads the input reversed.
  for (int64_t reverse : {0, 1}) {
    Model m(11);
    m.input("init", {int64_t(2)}).input("xs", {int64_t(3), int64_t(2)});
    m.output("final", 1).output("sums", 2);
    Sub body;
    body.input("sum", T::FLOAT, {int64_t(2)}).input("x", T::FLOAT, {int64_t(2)});
    body.node("Add", {"sum", "x"}, {"sum_out"});
    body.node("Identity", {"sum_out"}, {"scan_out"});
    body.output("sum_out", T::FLOAT, {int64_t(2)}).output("scan_out", T::FLOAT, {int64_t(2)});
    auto& n = m.node("Scan", {"init", "xs"}, {"final", "sums"}, "scan");
    set_graph(n, "body", body.g);
    set_int(n, "num_scan_inputs", 1);
    set_ints(n, "scan_input_directions", {reverse});
    auto out = run_all(m.import("scan_sum"), {f32({2}, {0, 0}), f32({3, 2}, {1, 2, 3, 4, 5, 6})});
    EXPECT_TRUE(tensor_close_to(out[0], {2}, {9, 12}));
    if (reverse)
      EXPECT_TRUE(tensor_close_to(out[1], {3, 2}, {5, 6, 8, 10, 9, 12}));
    else
      EXPECT_TRUE(tensor_close_to(out[1], {3, 2}, {1, 2, 4, 6, 9, 12}));
  }
}

TEST(OnnxControl, Scan8RunsOneScanPerBatchEntry) {
  // Opset 8: batch axis 0 on every input and output, no sequence_lens.
  Model m(8);
  m.input("init", {int64_t(2), int64_t(1)}).input("xs", {int64_t(2), int64_t(3), int64_t(1)});
  m.output("final", 2).output("sums", 3);
  Sub body;
  body.input("sum", T::FLOAT, {int64_t(1)}).input("x", T::FLOAT, {int64_t(1)});
  body.node("Add", {"sum", "x"}, {"sum_out"});
  body.node("Identity", {"sum_out"}, {"scan_out"});
  body.output("sum_out", T::FLOAT, {int64_t(1)}).output("scan_out", T::FLOAT, {int64_t(1)});
  auto& n = m.node("Scan", {"", "init", "xs"}, {"final", "sums"}, "scan8");
  set_graph(n, "body", body.g);
  set_int(n, "num_scan_inputs", 1);
  auto out = run_all(m.import("scan8"), {f32({2, 1}, {0, 10}), f32({2, 3, 1}, {1, 2, 3, 4, 5, 6})});
  EXPECT_TRUE(tensor_close_to(out[0], {2, 1}, {6, 25}));
  EXPECT_EQ(out[1].shape(), (std::vector<int64_t>{2, 3, 1}));
  EXPECT_TRUE(tensor_close_to(out[1], {2, 3, 1}, {1, 3, 6, 14, 19, 25}));
  // sequence_lens is refused, naming the node.
  m.input("lens", {int64_t(2)}, T::INT32);
  n.set_input(0, "lens");
  std::string msg = error_of([&] { m.import("scan8_lens"); });
  EXPECT_NE(msg.find("node 'scan8' (Scan): sequence_lens is not supported"), std::string::npos)
      << msg;
}

// ---- Malformed subgraphs.

TEST(OnnxControl, MalformedSubgraphsAreErrorsNamingTheNode) {
  Model m(13);
  m.input("x", {int64_t(1)}).output("y", 1);
  m.init_f32("s0", {1}, {0});
  m.node("Loop", {"", "", "s0"}, {"y"}, "nobody");
  std::string msg = error_of([&] { m.import("loop_nobody"); });
  EXPECT_NE(msg.find("node 'nobody' (Loop): the subgraph attribute 'body' is missing"),
            std::string::npos)
      << msg;

  Model w(13);
  w.input("x", {int64_t(1)}).output("y", 1);
  w.init_f32("s0", {1}, {0});
  Sub body;  // one input short: no loop-carried value
  body.input("i", T::INT64, {}).input("c", T::BOOL, {});
  body.node("Identity", {"c"}, {"c_out"});
  body.node("FancyOp", {"x"}, {"s_out"});
  body.output("c_out", T::BOOL, {}).output("s_out", T::FLOAT, {int64_t(1)});
  set_graph(w.node("Loop", {"", "", "s0"}, {"y"}, "short"), "body", body.g);
  msg = error_of([&] { w.import("loop_short"); });
  EXPECT_NE(msg.find("node 'short' (Loop): the body's inputs has 2; expected 3"), std::string::npos)
      << msg;
  // Unsupported ops inside subgraphs are reported with the others, with their path.
  EXPECT_NE(msg.find("FancyOp (1 node: short/body/s_out_node)"), std::string::npos) << msg;

  Model b(13);
  b.input("c", {}, T::BOOL).output("y", 1);
  Sub then_b;
  then_b.node("Neg", {"undefined_value"}, {"t"});
  then_b.output("t", T::FLOAT, {int64_t(1)});
  auto& n = b.node("If", {"c"}, {"y"}, "branchy");
  set_graph(n, "then_branch", then_b.g);
  msg = error_of([&] { b.import("if_bad"); });
  EXPECT_NE(msg.find("node 'branchy' (If): the subgraph attribute 'else_branch' is missing"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("node 'branchy/then_branch/t_node' (Neg) reads 'undefined_value'"),
            std::string::npos)
      << msg;
}

// ---- Quantisation.

onnx::TensorProto u8(const std::string& name, const std::vector<int64_t>& dims,
                     const std::vector<int>& v) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(T::UINT8);
  for (int64_t d : dims) t.add_dims(d);
  for (int x : v) t.add_int32_data(x);
  return t;
}

TEST(OnnxQuant, QuantizeRoundsHalfToEvenAndSaturates) {
  Model m(13);
  m.input("x", {int64_t(6)}).output("y", 1, T::UINT8);
  m.init_f32("scale", {}, {2});
  *m.graph().add_initializer() = u8("zp", {}, {10});
  m.node("QuantizeLinear", {"x", "scale", "zp"}, {"y"});
  // x / 2 = 0.5, 1.5, 2.5, -30, 300, -5.5 -> round half to even 0, 2, 2, -30, 300, -6 -> + 10
  // -> 10, 12, 12, -20 (0), 310 (255), 4.
  NDArray y = run(m.import("quant"), {f32({6}, {1, 3, 5, -60, 600, -11})});
  EXPECT_EQ(elements<uint8_t>(y), (std::vector<double>{10, 12, 12, 0, 255, 4}));
}

TEST(OnnxQuant, PerAxisInt8QuantizeAndDequantizeRoundTrip) {
  Model m(13);
  m.input("x", {int64_t(2), int64_t(3)}).output("q", 2, T::INT8).output("y", 2);
  m.init_f32("scale", {3}, {0.5f, 1, 2});
  onnx::TensorProto zp;
  zp.set_name("zp");
  zp.set_data_type(T::INT8);
  zp.add_dims(3);
  for (int v : {0, -1, 3}) zp.add_int32_data(v);
  *m.graph().add_initializer() = zp;
  set_int(m.node("QuantizeLinear", {"x", "scale", "zp"}, {"q"}), "axis", 1);
  set_int(m.node("DequantizeLinear", {"q", "scale", "zp"}, {"y"}), "axis", 1);
  auto out = run_all(m.import("quant_axis"), {f32({2, 3}, {1.2f, 3.4f, 5.0f, -70, -300, 1000})});
  // column scales 0.5, 1, 2, zero points 0, -1, 3:
  // 1.2/0.5 = 2.4 -> 2; 3.4 -> 3 - 1 = 2; 5/2 = 2.5 -> 2 + 3 = 5;
  // -70/0.5 = -140 -> -128; -300 - 1 -> -128; 500 + 3 -> 127.
  EXPECT_EQ(elements<int8_t>(out[0]), (std::vector<double>{2, 2, 5, -128, -128, 127}));
  EXPECT_TRUE(tensor_close_to(out[1], {2, 3}, {1, 3, 4, -64, -127, 248}));
}

TEST(OnnxQuant, DynamicQuantizeLinearMatchesTheOnnxExample) {
  Model m(11);
  m.input("x", {int64_t(6)}).output("y", 1, T::UINT8).output("scale", 0).output("zp", 0, T::UINT8);
  m.node("DynamicQuantizeLinear", {"x"}, {"y", "scale", "zp"});
  auto out = run_all(m.import("dyn_quant"), {f32({6}, {0, 2, -3, -2.5f, 1.34f, 0.5f})});
  EXPECT_EQ(elements<uint8_t>(out[0]), (std::vector<double>{153, 255, 0, 26, 221, 179}));
  EXPECT_TRUE(tensor_close_to(out[1], {}, {5.f / 255}));
  EXPECT_EQ(elements<uint8_t>(out[2]), (std::vector<double>{153}));
}

TEST(OnnxQuant, MatMulIntegerAndQLinearMatMul) {
  // A (2, 2) uint8 with zero point 1, B (2, 2) uint8 with per-column zero points (2, 0).
  Model m(10);
  m.input("a", {int64_t(2), int64_t(2)}, T::UINT8)
      .output("acc", 2, T::INT32)
      .output("q", 2, T::UINT8);
  *m.graph().add_initializer() = u8("b", {2, 2}, {3, 4, 5, 6});
  *m.graph().add_initializer() = u8("azp", {}, {1});
  *m.graph().add_initializer() = u8("bzp", {2}, {2, 0});
  *m.graph().add_initializer() = u8("yzp", {}, {5});
  m.init_f32("as", {}, {0.5f}).init_f32("bs", {}, {0.25f}).init_f32("ys", {}, {0.1f});
  m.node("MatMulInteger", {"a", "b", "azp", "bzp"}, {"acc"});
  m.node("QLinearMatMul", {"a", "as", "azp", "b", "bs", "bzp", "ys", "yzp"}, {"q"});
  NDArray a = NDArray::empty({2, 2}, DataType::UInt(8));
  for (int k = 0; k < 4; ++k) a.data_as<uint8_t>()[k] = uint8_t(k + 1);  // 1 2 / 3 4
  auto out = run_all(m.import("matmul_int"), {a});
  // A - 1 = [[0, 1], [2, 3]]; B - zp = [[1, 4], [3, 6]]: product [[3, 6], [11, 26]].
  EXPECT_EQ(elements<int32_t>(out[0]), (std::vector<double>{3, 6, 11, 26}));
  // times 0.5 * 0.25 / 0.1 = 1.25: 3.75, 7.5, 13.75, 32.5 -> 4, 8, 14, 32 (half to even) + 5.
  EXPECT_EQ(elements<uint8_t>(out[1]), (std::vector<double>{9, 13, 19, 37}));
}

TEST(OnnxQuant, ConvIntegerSubtractsZeroPointsBeforePadding) {
  // x (1, 1, 2, 2) uint8 with zero point 2, w (1, 1, 2, 2) of ones, pads 1 on every side.
  Model m(10);
  m.input("x", {int64_t(1), int64_t(1), int64_t(2), int64_t(2)}, T::UINT8).output("y", 4, T::INT32);
  *m.graph().add_initializer() = u8("w", {1, 1, 2, 2}, {1, 1, 1, 1});
  *m.graph().add_initializer() = u8("xzp", {}, {2});
  set_ints(m.node("ConvInteger", {"x", "w", "xzp"}, {"y"}), "pads", {1, 1, 1, 1});
  NDArray x = NDArray::empty({1, 1, 2, 2}, DataType::UInt(8));
  for (int k = 0; k < 4; ++k) x.data_as<uint8_t>()[k] = uint8_t(k + 2);  // x - 2 = 0 1 / 2 3
  NDArray y = run(m.import("conv_int"), {x});
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{1, 1, 3, 3}));
  EXPECT_EQ(elements<int32_t>(y), (std::vector<double>{0, 1, 1, 2, 6, 4, 2, 5, 3}));
}

// ---- NonMaxSuppression.

TEST(OnnxNms, SelectsPerClassThroughTheRuntimeBuiltin) {
  // Boxes 0 and 1 overlap (IoU 0.82), box 2 is apart; one class; at most 2 per class.
  Model m(11);
  m.input("boxes", {int64_t(1), int64_t(3), int64_t(4)})
      .input("scores", {int64_t(1), int64_t(1), int64_t(3)});
  m.output("selected", 2, T::INT64);
  m.init_i64("max_out", {1}, {2});
  m.init_f32("iou", {1}, {0.5f});
  m.node("NonMaxSuppression", {"boxes", "scores", "max_out", "iou"}, {"selected"}, "nms");
  IRModule mod = m.import("nms");
  NDArray boxes = f32({1, 3, 4}, {0, 0, 1, 1, 0, 0.1f, 1, 1.1f, 0, 5, 1, 6});
  NDArray y = run(mod, {boxes, f32({1, 1, 3}, {0.8f, 0.9f, 0.7f})});
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(elements<int64_t>(y), (std::vector<double>{0, 0, 1, 0, 0, 2}));
  // Box 2 scoring highest comes first; 0 then loses to 1 only when it scores lower.
  y = run(mod, {boxes, f32({1, 1, 3}, {0.9f, 0.8f, 0.95f})});
  EXPECT_EQ(elements<int64_t>(y), (std::vector<double>{0, 0, 2, 0, 0, 0}));
}

}  // namespace
}  // namespace relax::onnx_test
