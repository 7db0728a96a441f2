// The printer over IR built in C++ (BlockBuilder, the TIR fixtures): the text is today's
// TVMScript spelling, and parse(print(m)) is structurally equal to m.
#include "../tir/tir_fixtures.h"
#include "relax/ir/block_builder.h"
#include "relax/op/op.h"
#include "relax/runtime/ndarray.h"
#include "text_test_util.h"

namespace relax {
namespace {

using testing::expect_round_trip;
using tir::int_imm;

const DataType f32 = DataType::Float(32);

TEST(Printer, SmallFunctionReadsLikeTvmScript) {
  BlockBuilder bb;
  auto n = tir::var("n");
  auto x = make_var("x", tensor_sinfo({n, int_imm(4)}, f32));
  bb.begin_function("main", {x});
  bb.begin_dataflow_block();
  auto lv = bb.emit(op::relu(x), "lv");
  auto gv = bb.emit_output(op::add(lv, x), "gv");
  bb.end_block();
  bb.end_function(gv);
  EXPECT_EQ(print_module(bb.get_module()),
            "# from tvm.script import ir as I\n"
            "# from tvm.script import relax as R\n"
            "# from tvm.script import tir as T\n"
            "\n"
            "@I.ir_module\n"
            "class Module:\n"
            "    @R.function\n"
            "    def main(x: R.Tensor((n, 4), dtype=\"float32\")) -> R.Tensor((n, 4), "
            "dtype=\"float32\"):\n"
            "        n = T.int64()\n"
            "        with R.dataflow():\n"
            "            lv: R.Tensor((n, 4), dtype=\"float32\") = R.nn.relu(x)\n"
            "            gv: R.Tensor((n, 4), dtype=\"float32\") = R.add(lv, x)\n"
            "            R.output(gv)\n"
            "        return gv\n");
  expect_round_trip(bb.get_module());
}

TEST(Printer, RfcProgramBuiltInCxxRoundTrips) {
  // The RFC's MyIRModule as rfc_programs_test builds it.
  BlockBuilder bb;
  tir::testing::ExpFunc exp;
  auto exp_gv = bb.add_function(exp.func, "tir_exp_func");
  auto n = tir::var("n"), k = tir::var("k"), m = tir::var("m");
  auto x = make_var("x", tensor_sinfo({n, k}, f32));
  auto w = make_var("w", tensor_sinfo(f32, 2));
  bb.begin_function("relax_func", {x, w}, /*pure=*/false);
  bb.begin_dataflow_block();
  auto lv0 = bb.emit_match_cast(w, tensor_sinfo({k, m}, f32), "lv0");
  auto lv1 = bb.emit(op::matmul(x, lv0), "lv1");
  auto lv2 = bb.emit(op::flatten(lv1), "lv2");
  auto gv0 = bb.emit_output(op::call_tir(exp_gv, {lv2}, {tensor_sinfo({n * m}, f32)}), "gv0");
  bb.end_block();
  bb.emit(op::call_packed("custom_inplace_update", {gv0}), "upd");
  bb.end_function(gv0);
  std::string text = expect_round_trip(bb.get_module());
  for (const char* piece :
       {"@R.function(pure=False)",
        "T.func_attr({\"global_symbol\": \"tir_exp_func\", \"tir.noalias\": True})",
        "def tir_exp_func(X: T.Buffer((n,), \"float32\"), Y: T.Buffer((n,), \"float32\")):",
        "for i in range(n):", "Y[i] = T.exp(X[i])",
        "lv0: R.Tensor((k, m), dtype=\"float32\") = R.match_cast(w, R.Tensor((k, m), "
        "dtype=\"float32\"))",
        "R.call_tir(cls.tir_exp_func, (lv2,), out_sinfo=R.Tensor((n * m,), dtype=\"float32\"))",
        "upd: R.Object = R.call_packed(\"custom_inplace_update\", gv0)",
        "w: R.Tensor(ndim=2, dtype=\"float32\")"})
    EXPECT_NE(text.find(piece), std::string::npos) << piece << "\n" << text;
}

TEST(Printer, MatmulFixtureRoundTrips) {
  tir::testing::Matmul mm;
  std::string text = print_prim_func(mm.func, "matmul");
  EXPECT_EQ(text,
            "@T.prim_func\n"
            "def matmul(A: T.Buffer((16, 16), \"float32\"), B: T.Buffer((16, 16), \"float32\"), C: "
            "T.Buffer((16, 16), \"float32\")):\n"
            "    for i, j, k in T.grid(16, 16, 16):\n"
            "        with T.block(\"matmul\"):\n"
            "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
            "            T.reads(A[vi, vk], B[vk, vj])\n"
            "            T.writes(C[vi, vj])\n"
            "            with T.init():\n"
            "                C[vi, vj] = T.float32(0)\n"
            "            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n");
  IRModule m;
  m.add("matmul", mm.func);
  expect_round_trip(m);
}

TEST(Printer, DistinctVariablesWithOneNameGetSuffixes) {
  BlockBuilder bb;
  auto n1 = tir::var("n"), n2 = tir::var("n");
  auto x = make_var("x", tensor_sinfo({n1}, f32));
  auto y = make_var("x", tensor_sinfo({n2}, f32));
  bb.begin_function("f", {x, y});
  auto r = bb.emit(op::exp(x), "x");
  bb.end_function(r);
  std::string text = expect_round_trip(bb.get_module());
  EXPECT_NE(
      text.find(
          "def f(x: R.Tensor((n,), dtype=\"float32\"), x_1: R.Tensor((n_1,), dtype=\"float32\"))"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("x1: R.Tensor((n,), dtype=\"float32\") = R.exp(x)"), std::string::npos)
      << text;
}

TEST(Printer, LargeConstantsGoToMetadata) {
  std::vector<float> data(64);
  for (size_t i = 0; i < data.size(); ++i) data[i] = 0.1f * float(i);
  auto c = make_constant(runtime::NDArray::from_bytes({8, 8}, f32, data.data()));
  BlockBuilder bb;
  auto x = make_var("x", tensor_sinfo(const_shape({8, 8}), f32));
  bb.begin_function("f", {x});
  auto r = bb.emit(op::add(x, c), "r");
  bb.end_function(r);
  std::string text = expect_round_trip(bb.get_module());
  EXPECT_NE(text.find("r: R.Tensor((8, 8), dtype=\"float32\") = R.add(x, "
                      "metadata[\"relax.expr.Constant\"][0])"),
            std::string::npos)
      << text;
  EXPECT_NE(
      text.find("metadata = {\n    \"relax.expr.Constant\": [\n        R.const([[0.0, 0.1, 0.2,"),
      std::string::npos)
      << text;
}

TEST(Printer, SingleExpressionsAndStructInfo) {
  auto n = tir::var("n");
  EXPECT_EQ(print_struct_info(tensor_sinfo({n, int_imm(4)}, f32, "cpu")),
            "R.Tensor((n, 4), dtype=\"float32\", vdevice=\"cpu\")");
  EXPECT_EQ(print_struct_info(tensor_sinfo(DataType::Void(), -1)), "R.Tensor");
  EXPECT_EQ(print_struct_info(shape_sinfo(2)), "R.Shape(ndim=2)");
  EXPECT_EQ(print_struct_info(prim_sinfo(DataType::Int(64), n)), "R.Prim(value=n)");
  EXPECT_EQ(print_struct_info(func_sinfo({object_sinfo()}, object_sinfo(), false)),
            "R.Callable((R.Object,), R.Object, purity=False)");
  EXPECT_EQ(print_struct_info(tuple_sinfo({})), "R.Tuple()");
  EXPECT_EQ(print_prim_expr(tir::floordiv(n + 2, int_imm(2))), "(n + 2) // 2");
  EXPECT_EQ(print_prim_expr(make_ref<tir::Sub>(
                DataType::Int(64), n, make_ref<tir::Sub>(DataType::Int(64), n, int_imm(1)))),
            "n - (n - 1)");
  EXPECT_EQ(print_prim_expr(tir::cast(DataType::Int(32), n) + int_imm(1, DataType::Int(32))),
            "T.Cast(\"int32\", n) + 1");
  EXPECT_EQ(print_prim_expr(int_imm(3, DataType::Int(32))), "T.int32(3)");
  EXPECT_EQ(print_prim_expr(tir::float_imm(0.1)), "T.float32(0.1)");
  EXPECT_EQ(print_expr(make_shape({n, int_imm(4)})), "R.shape([n, 4])");
  EXPECT_EQ(print_expr(make_tuple({make_string("a"), make_prim_value(int_imm(2))})),
            "(R.str(\"a\"), R.prim_value(2))");
  // Parsing a PrimExpr reads back the same tree.
  PrimExpr e = parse_prim_expr("T.max(n * 4, (h + 2) // 2) - T.truncdiv(n, 3)");
  EXPECT_EQ(print_prim_expr(e), "T.max(n * 4, (h + 2) // 2) - T.truncdiv(n, 3)");
}

}  // namespace
}  // namespace relax
