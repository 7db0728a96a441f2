// The RFC's programs (examples/rfc/*.rx) and the layout document's PrimFuncs
// (examples/tir/*.rx): each parses, passes the well-formed check (or reports exactly the
// references to functions the document does not show), and round-trips through the printer.
// Where the RFC's own text breaks a rule of today's IR, the parser's report is checked here.
#include "relax/ir/well_formed.h"
#include "relax/tir/stmt.h"
#include "text_test_util.h"

namespace relax {
namespace {

using testing::expect_fixed_point;
using testing::expect_parse_error;
using testing::read_source;

std::vector<std::string> wf_messages(const IRModule& m) {
  std::vector<std::string> out;
  for (const auto& d : well_formed_errors(m)) out.push_back(d.message);
  return out;
}

IRModule load(const std::string& rel) {
  std::string text = read_source(rel);
  EXPECT_FALSE(text.empty()) << rel;
  return expect_fixed_point(text, rel);
}

TEST(RfcExamples, MyIRModule) {
  IRModule m = load("examples/rfc/my_ir_module.rx");
  ASSERT_EQ(m.size(), 2u);
  EXPECT_TRUE(m.lookup("tir_exp_func").is<tir::PrimFunc>());
  auto f = m.lookup("relax_func").as_ref<Function>();
  ASSERT_TRUE(f.defined());
  EXPECT_FALSE(f->is_pure);
  // m is defined inside the function (by the match_shape), so the signature keeps the rank only.
  EXPECT_EQ(print_struct_info(f->ret_struct_info), "R.Tensor(ndim=1, dtype=\"float32\")");
  auto* seq = f->body.as<SeqExpr>();
  ASSERT_EQ(seq->blocks.size(), 2u);
  EXPECT_TRUE(seq->blocks[0]->is_dataflow());
  EXPECT_TRUE(seq->blocks[0]->bindings[0].is<MatchCast>());
  EXPECT_TRUE(wf_messages(m).empty()) << wf_messages(m)[0];
  testing::expect_round_trip(m);
}

TEST(RfcExamples, CallDpsModule) {
  IRModule m = load("examples/rfc/call_dps_module.rx");
  EXPECT_TRUE(wf_messages(m).empty()) << wf_messages(m)[0];
  auto f = m.lookup("relax_func").as_ref<Function>();
  EXPECT_EQ(print_struct_info(f->ret_struct_info), "R.Tensor((m, k * 2), dtype=\"float32\")");
  testing::expect_round_trip(m);
}

TEST(RfcExamples, ShapeExample) {
  // R.call_tir("custom_func", ...) names no function of the module: a packed function.
  IRModule m = load("examples/rfc/shape_example.rx");
  EXPECT_TRUE(wf_messages(m).empty()) << wf_messages(m)[0];
  EXPECT_NE(print_module(m).find("R.call_dps_packed(\"custom_func\""), std::string::npos)
      << print_module(m);
  testing::expect_round_trip(m);
}

TEST(RfcExamples, ShapeExampleAsWrittenInTheRfcIsRejectedClearly) {
  // The RFC calls the impure R.call_packed inside a dataflow block ...
  expect_parse_error(
      "@R.function\n"
      "def f(x: R.Tensor[(n, 2, 2), \"float32\"]):\n"
      "    with R.dataflow():\n"
      "        lv2: R.Shape = (n * 4,)\n"
      "        lv3: R.Shape = R.call_packed(\"myshape_func\", lv2)\n"
      "        R.outputs(lv3)\n"
      "    return lv3\n",
      "R.call_packed is impure and not allowed in a dataflow block", 5, 9);
  // ... and gives call_tir a shape computed at run time as the output shape.
  expect_parse_error(
      "@R.function\n"
      "def f(x: R.Tensor[(n, 2, 2), \"float32\"]):\n"
      "    with R.dataflow():\n"
      "        lv2: R.Shape = (n * 4,)\n"
      "        lv3: R.Shape = R.call_pure_packed(\"myshape_func\", lv2, "
      "sinfo_args=R.Shape(ndim=1))\n"
      "        lv4 = R.call_tir(\"custom_func\", (x,), lv3, dtype=\"float32\")\n"
      "        R.outputs(lv4)\n"
      "    return lv4\n",
      "the output shape must be symbolic dimensions known at compile time", 6, 47);
}

TEST(RfcExamples, TwoDataflowBlocks) {
  IRModule m = load("examples/rfc/two_dataflow_blocks.rx");
  auto f = m.lookup("main").as_ref<Function>();
  ASSERT_EQ(f->body.as<SeqExpr>()->blocks.size(), 3u);
  EXPECT_TRUE(wf_messages(m).empty());  // linear, relu, linear1: packed functions
  testing::expect_round_trip(m);
}

TEST(RfcExamples, RelaxFuncBindings) {
  IRModule m = load("examples/rfc/relax_func_bindings.rx");
  EXPECT_TRUE(wf_messages(m).empty());
  auto* seq = m.lookup("relax_func").as<Function>()->body.as<SeqExpr>();
  ASSERT_EQ(seq->blocks.size(), 2u);
  EXPECT_TRUE(seq->blocks[0]->bindings[0]->var.is<DataflowVar>());
  EXPECT_TRUE(seq->blocks[0]->bindings[1]->var.is<Var>());
  testing::expect_round_trip(m);
}

TEST(RfcExamples, CallTirLowering) {
  IRModule m = load("examples/rfc/call_tir_lowering.rx");
  EXPECT_TRUE(wf_messages(m).empty()) << wf_messages(m)[0];
  EXPECT_NE(print_module(m).find("R.call_dps_packed(\"flatten\""), std::string::npos);
  testing::expect_round_trip(m);
}

TEST(RfcExamples, PureFunctionCallingCallPackedIsRejected) {
  expect_parse_error(
      "@R.function\n"
      "def f(x: R.Tensor((2,), \"float32\")):\n"
      "    R.call_packed(\"custom_inplace_update\", x)\n"
      "    return x\n",
      "function 'f' is pure but calls R.call_packed, which is impure; declare it with "
      "@R.function(pure=False)",
      3, 5);
}

class LayoutPrimFuncs : public ::testing::TestWithParam<const char*> {};

TEST_P(LayoutPrimFuncs, ParseCheckRoundTrip) {
  IRModule m = load(std::string("examples/tir/") + GetParam());
  ASSERT_EQ(m.size(), 1u);
  auto pf = m.functions()[0].func.as_ref<tir::PrimFunc>();
  ASSERT_TRUE(pf.defined());
  EXPECT_TRUE(is_well_formed(m));
  testing::expect_round_trip(m);
}

INSTANTIATE_TEST_SUITE_P(Layout, LayoutPrimFuncs,
                         ::testing::Values("sum_nchw.rx", "sum_nhwc.rx", "layout_transform.rx",
                                           "matmul_layout_rewrite.rx"));

TEST(RfcExamples, MatmulLayoutRewriteStructure) {
  IRModule m = load("examples/tir/matmul_layout_rewrite.rx");
  auto pf = m.functions()[0].func.as_ref<tir::PrimFunc>();
  // The top-level T.alloc_buffer made the implicit root block.
  auto* root = pf->body.as<tir::BlockRealize>();
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->block->name, "root");
  ASSERT_EQ(root->block->alloc_buffers.size(), 1u);
  EXPECT_EQ(root->block->alloc_buffers[0]->name, "B_");
  std::string text = print_module(m);
  EXPECT_NE(text.find("T.block_attr({\"meta_schedule.layout_rewrite_preproc\": True})"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("with T.block(\"root\"):"), std::string::npos) << text;
  EXPECT_NE(text.find("B_ = T.alloc_buffer((16, 4, 4), \"float32\")"), std::string::npos) << text;
  EXPECT_NE(text.find("vk = T.axis.reduce(16, k0 * 4 + k1)"), std::string::npos) << text;
}

}  // namespace
}  // namespace relax
