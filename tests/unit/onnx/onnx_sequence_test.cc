// ONNX sequences (ops_sequence.cc): SequenceEmpty/Construct/At/Insert/Erase/Length,
// SplitToSequence and ConcatFromSequence, imported as lists of Relax tensors and run through the
// interpreter target against hand-computed values; and the errors for positions out of range,
// non-sequence inputs and element counts known only at run time.
#include "onnx_test_util.h"

namespace relax::onnx_test {
namespace {

TEST(OnnxSequence, ConstructEraseInsertAtAndLength) {
  Model m(12);
  m.input("X", {2}).input("Y", {2}).input("Z", {2});
  m.init_i64("p1", {}, {1}).init_i64("p0", {}, {0}).init_i64("last", {}, {-1});
  m.node("SequenceConstruct", {"X", "Y", "Z"}, {"s1"});
  m.node("SequenceErase", {"s1", "p1"}, {"s2"});        // [X, Z]
  m.node("SequenceInsert", {"s2", "Y", "p0"}, {"s3"});  // [Y, X, Z]
  m.node("SequenceInsert", {"s3", "X"}, {"s4"});        // [Y, X, Z, X]
  m.node("SequenceAt", {"s4", "p0"}, {"first"});
  m.node("SequenceAt", {"s3", "last"}, {"third"});
  m.node("SequenceLength", {"s4"}, {"len"});
  m.output("first", 1).output("third", 1).output("len", 0, onnx::TensorProto::INT64);
  IRModule mod = m.import("seq_basic");
  std::vector<NDArray> out = run_all(mod, {f32({2}, {1, 2}), f32({2}, {3, 4}), f32({2}, {5, 6})});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_TRUE(tensor_close_to(out[0], {2}, {3, 4}));
  EXPECT_TRUE(tensor_close_to(out[1], {2}, {5, 6}));
  EXPECT_EQ(out[2].data_as<int64_t>()[0], 4);
}

TEST(OnnxSequence, EmptyInsertEraseDefaultAndConcat) {
  Model m(12);
  m.input("X", {1, 2}).input("Y", {2, 2});
  auto& e = m.node("SequenceEmpty", {}, {"s0"});
  set_int(e, "dtype", onnx::TensorProto::FLOAT);
  m.node("SequenceInsert", {"s0", "X"}, {"s1"});
  m.node("SequenceInsert", {"s1", "Y"}, {"s2"});
  m.node("SequenceInsert", {"s2", "X"}, {"s3"});
  m.node("SequenceErase", {"s3"}, {"s4"});  // drops the last: [X, Y]
  auto& c = m.node("ConcatFromSequence", {"s4"}, {"out"});
  set_int(c, "axis", 0);
  m.output("out", 2);
  NDArray y = run(m.import("seq_empty"), {f32({1, 2}, {1, 2}), f32({2, 2}, {3, 4, 5, 6})});
  EXPECT_TRUE(tensor_close_to(y, {3, 2}, {1, 2, 3, 4, 5, 6}));
}

TEST(OnnxSequence, SplitToSequenceElementsAndStack) {
  // Split into rows (keepdims=0), then stack them along a new last axis: a transpose.
  Model m(12);
  m.input("X", {2, 3});
  auto& s = m.node("SplitToSequence", {"X"}, {"rows"});
  set_int(s, "axis", 0);
  set_int(s, "keepdims", 0);
  auto& c = m.node("ConcatFromSequence", {"rows"}, {"out"});
  set_int(c, "axis", -1);
  set_int(c, "new_axis", 1);
  m.node("SequenceLength", {"rows"}, {"len"});
  m.output("out", 2).output("len", 0, onnx::TensorProto::INT64);
  std::vector<NDArray> out = run_all(m.import("seq_split_rows"), {f32({2, 3}, iota(6))});
  EXPECT_TRUE(tensor_close_to(out[0], {3, 2}, {0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(out[1].data_as<int64_t>()[0], 2);
}

TEST(OnnxSequence, SplitToSequenceScalarAndListSizes) {
  Model m(12);
  m.input("X", {5}).input("V", {"n", 2});
  m.init_i64("two", {}, {2}).init_i64("sizes", {2}, {1, 2});
  m.init_i64("p2", {}, {2}).init_i64("p1", {}, {1});
  m.node("SplitToSequence", {"X", "two"}, {"chunks"});  // [0 1] [2 3] [4]
  m.node("SequenceAt", {"chunks", "p2"}, {"tail"});
  m.node("SequenceLength", {"chunks"}, {"len"});
  m.node("SplitToSequence", {"V", "sizes"}, {"parts"});  // rows [0:1], [1:3] of n = 3
  m.node("SequenceAt", {"parts", "p1"}, {"second"});
  m.output("tail", 1).output("len", 0, onnx::TensorProto::INT64).output("second", 2);
  std::vector<NDArray> out =
      run_all(m.import("seq_split_sizes"), {f32({5}, iota(5)), f32({3, 2}, iota(6, 10))});
  EXPECT_TRUE(tensor_close_to(out[0], {1}, {4}));
  EXPECT_EQ(out[1].data_as<int64_t>()[0], 3);
  EXPECT_TRUE(tensor_close_to(out[2], {2, 2}, {12, 13, 14, 15}));
}

TEST(OnnxSequence, IfBranchesBuildingSequences) {
  // y = (cond ? [x + 1, x] : [x * x, x])[0]: an If's sequence output is read by SequenceAt.
  auto branch = [](const std::string& op, const std::string& tag) {
    onnx::GraphProto g;
    auto* n = g.add_node();
    n->set_op_type(op);
    n->set_name(tag + "_op");
    n->add_input("x");
    n->add_input(op == "Add" ? "one" : "x");
    n->add_output(tag + "_v");
    auto* c = g.add_node();
    c->set_op_type("SequenceConstruct");
    c->set_name(tag + "_seq");
    c->add_input(tag + "_v");
    c->add_input("x");
    c->add_output(tag + "_s");
    auto* out = g.add_output();
    out->set_name(tag + "_s");
    auto* elem = out->mutable_type()->mutable_sequence_type()->mutable_elem_type();
    elem->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
    return g;
  };
  Model m(13);
  m.input("cond", {}, onnx::TensorProto::BOOL).input("x", {2});
  m.init_f32("one", {}, {1}).init_i64("p0", {}, {0});
  auto& n = m.node("If", {"cond"}, {"s"}, "choose");
  for (const char* name : {"then_branch", "else_branch"}) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::GRAPH);
    *a->mutable_g() = std::string(name) == "then_branch" ? branch("Add", "t") : branch("Mul", "e");
  }
  m.node("SequenceAt", {"s", "p0"}, {"y"});
  m.output("y", 1);
  IRModule mod = m.import("seq_if");
  NDArray cond = NDArray::empty({}, DataType::Bool());
  for (bool c : {true, false}) {
    *cond.data_as<uint8_t>() = c;
    NDArray y = run(mod, {cond, f32({2}, {2, 3})});
    EXPECT_TRUE(tensor_close_to(y, {2}, c ? std::vector<double>{3, 4} : std::vector<double>{4, 9}));
  }
}

TEST(OnnxSequence, PositionOutOfRangeIsAnError) {
  Model m(12);
  m.input("X", {2}).input("Y", {2});
  m.init_i64("p", {}, {2});
  m.node("SequenceConstruct", {"X", "Y"}, {"s"}, "build");
  m.node("SequenceAt", {"s", "p"}, {"out"}, "pick");
  m.output("out", 1);
  std::string msg = error_of([&] { m.import("seq_bad_pos"); });
  EXPECT_NE(msg.find("node 'pick' (SequenceAt)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("position 2 is out of range for a sequence of 2 elements"), std::string::npos)
      << msg;
  EXPECT_NE(msg.find("[-2, 1]"), std::string::npos) << msg;
}

TEST(OnnxSequence, TensorWhereASequenceIsExpectedIsAnError) {
  Model m(12);
  m.input("X", {2});
  m.node("SequenceLength", {"X"}, {"len"}, "count");
  m.output("len", 0, onnx::TensorProto::INT64);
  std::string msg = error_of([&] { m.import("seq_not_seq"); });
  EXPECT_NE(msg.find("node 'count' (SequenceLength)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("input 'X' is not a sequence"), std::string::npos) << msg;
}

TEST(OnnxSequence, RunTimeElementCountIsAnError) {
  Model m(12);
  m.input("X", {"n", 2});
  m.node("SplitToSequence", {"X"}, {"rows"}, "rows");
  m.node("SequenceLength", {"rows"}, {"len"});
  m.output("len", 0, onnx::TensorProto::INT64);
  std::string msg = error_of([&] { m.import("seq_dyn_count"); });
  EXPECT_NE(msg.find("node 'rows' (SplitToSequence)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("known only at run time"), std::string::npos) << msg;
}

TEST(OnnxSequence, MixedDtypesAreAnError) {
  Model m(12);
  m.input("X", {2}).input("I", {2}, onnx::TensorProto::INT64);
  m.node("SequenceConstruct", {"X", "I"}, {"s"}, "mix");
  m.node("SequenceLength", {"s"}, {"len"});
  m.output("len", 0, onnx::TensorProto::INT64);
  std::string msg = error_of([&] { m.import("seq_mixed"); });
  EXPECT_NE(msg.find("node 'mix' (SequenceConstruct)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("a sequence holds one dtype"), std::string::npos) << msg;
}

}  // namespace
}  // namespace relax::onnx_test
