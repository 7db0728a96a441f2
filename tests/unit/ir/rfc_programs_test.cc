// The three example programs of the Relax RFC (../shared/seeds/relax-rfc.md), built through
// the BlockBuilder, with the struct info of each binding checked and the result well formed.
//
// Where the RFC's spelling predates today's Relax, the nearest current form is used:
// R.match_shape is R.match_cast; R.dot is R.matmul; the opaque shape function called inside a
// dataflow block is R.call_pure_packed (a dataflow block admits only pure calls); and the
// call_tir whose output shape comes from that opaque function first gives the shape symbolic
// dimensions with R.match_cast (output shapes of DPS calls are symbolic expressions).
#include <gtest/gtest.h>

#include "../../common/error_of.h"
#include "relax/arith/analyzer.h"
#include "relax/ir/block_builder.h"
#include "relax/ir/prim_func.h"
#include "relax/ir/struct_info_analysis.h"
#include "relax/ir/well_formed.h"
#include "relax/op/op.h"
#include "relax/tir/stmt.h"

namespace relax {
namespace {

using tir::int_imm;

const DataType f32 = DataType::Float(32);

/// Checks that `e`'s struct info is a float32 tensor whose shape prints as `shape`.
void expect_tensor(const Expr& e, const std::string& sinfo) { EXPECT_EQ(to_string(get_struct_info(e)), sinfo); }

/// tir_exp_func of the RFC: Y[i] = exp(X[i]) over a symbolic length n.
Ref<tir::PrimFunc> tir_exp_func() {
  auto n = tir::var("n");
  auto X = tir::decl_buffer({n}, f32, "X");
  auto Y = tir::decl_buffer({n}, f32, "Y");
  tir::Stmt body = tir::serial_for("i", n, [&](const Ref<tir::Var>& i) {
    PrimExpr x = tir::buffer_load(X, {i});
    return tir::buffer_store(Y, make_ref<tir::Call>(f32, tir::Intrinsic::kExp, std::vector<PrimExpr>{x}), {i});
  });
  return tir::make_prim_func({X, Y}, body);
}

TEST(RfcPrograms, MyIRModuleRelaxFunc) {
  BlockBuilder bb;
  auto exp_gv = bb.add_function(tir_exp_func(), "tir_exp_func");
  auto n = tir::var("n"), k = tir::var("k"), m = tir::var("m");
  auto x = make_var("x", tensor_sinfo({n, k}, f32));
  auto w = make_var("w", tensor_sinfo(f32, 2));
  bb.begin_function("relax_func", {x, w}, /*pure=*/false);
  bb.begin_dataflow_block();
  auto lv0 = bb.emit_match_cast(w, tensor_sinfo({k, m}, f32), "lv0");
  expect_tensor(lv0, "Tensor((k, m), float32)");
  auto lv1 = bb.emit(op::matmul(x, lv0), "lv1");
  expect_tensor(lv1, "Tensor((n, m), float32)");
  auto lv2 = bb.emit(op::flatten(lv1), "lv2");
  // The product is simplified into canonical (name) order.
  expect_tensor(lv2, "Tensor((m * n,), float32)");
  auto lv3 = bb.emit(make_shape({n * m}), "lv3");
  EXPECT_EQ(to_string(get_struct_info(lv3)), "Shape((n * m,))");
  auto gv0 = bb.emit_output(op::call_tir(exp_gv, {lv2}, {tensor_sinfo({n * m}, f32)}), "gv0");
  expect_tensor(gv0, "Tensor((n * m,), float32)");
  EXPECT_TRUE(gv0.is<Var>());
  bb.end_block();
  auto upd = bb.emit(op::call_packed("custom_inplace_update", {gv0}), "upd");
  EXPECT_EQ(to_string(get_struct_info(upd)), "Object");
  auto gv = bb.end_function(gv0);

  IRModule mod = bb.get_module();
  auto errors = well_formed_errors(mod);
  EXPECT_TRUE(errors.empty()) << (errors.empty() ? "" : errors[0].to_string());
  auto f = mod.lookup(gv).as_ref<Function>();
  ASSERT_TRUE(f.defined());
  // m is defined by a match_cast in the body, so the signature keeps only the rank.
  EXPECT_EQ(to_string(f->ret_struct_info), "Tensor(ndim=1, float32)");
  EXPECT_FALSE(f->is_pure);
  auto* body = f->body.as<SeqExpr>();
  ASSERT_EQ(body->blocks.size(), 2u);
  EXPECT_TRUE(body->blocks[0]->is_dataflow());
  EXPECT_EQ(body->blocks[0]->bindings.size(), 5u);
  EXPECT_TRUE(body->blocks[0]->bindings[0].is<MatchCast>());
  EXPECT_FALSE(body->blocks[1]->is_dataflow());
}

TEST(RfcPrograms, DpsPackedAndPackedCalls) {
  // The D0 examples: call_dps_packed and call_packed with and without a result.
  BlockBuilder bb;
  auto n = tir::var("n");
  auto x = make_var("x", tensor_sinfo({n, int_imm(4)}, f32));
  bb.begin_function("main", {x}, /*pure=*/false);
  bb.begin_dataflow_block();
  auto lv0 = bb.emit(op::call_dps_packed("custom_add", {x, x}, {tensor_sinfo({n, int_imm(4)}, f32)}));
  expect_tensor(lv0, "Tensor((n, 4), float32)");
  auto lv1 = bb.emit(op::call_dps_packed("custom_tile", {lv0}, {tensor_sinfo({n * 2, int_imm(4)}, f32)}));
  expect_tensor(lv1, "Tensor((n * 2, 4), float32)");
  auto out = bb.emit_output(lv1);
  bb.end_block();
  auto printed = bb.emit(op::call_packed("custom_print", {out}));
  EXPECT_EQ(to_string(get_struct_info(printed)), "Object");
  auto ret = bb.emit(op::call_packed("custom_func", {out}, {tensor_sinfo(f32, 2)}));
  expect_tensor(ret, "Tensor(ndim=2, float32)");
  bb.end_function(ret);
  EXPECT_TRUE(is_well_formed(bb.get_module()));
}

TEST(RfcPrograms, ShapeExample) {
  BlockBuilder bb;
  auto custom_func = make_ref<GlobalVar>("custom_func");
  auto n = tir::var("n"), m = tir::var("m"), k = tir::var("k");
  auto x = make_var("x", tensor_sinfo({n, int_imm(2), int_imm(2)}, f32));
  bb.begin_function("shape_example", {x});
  bb.begin_dataflow_block();
  // V0: symbolic and static shape deduction.
  auto lv0 = bb.emit(op::reshape(x, {n, int_imm(4)}), "lv0");
  expect_tensor(lv0, "Tensor((n, 4), float32)");
  auto lv1 = bb.emit(op::flatten(lv0), "lv1");
  expect_tensor(lv1, "Tensor((n * 4,), float32)");
  auto lv2 = bb.emit(make_shape({n * 4}), "lv2");
  EXPECT_EQ(to_string(get_struct_info(lv2)), "Shape((n * 4,))");
  // V1: an external opaque shape function; its result gets symbolic dims through match_cast.
  auto lv3 = bb.emit(op::call_pure_packed("myshape_func", {lv2}, {shape_sinfo(1)}), "lv3");
  EXPECT_EQ(to_string(get_struct_info(lv3)), "Shape(ndim=1)");
  auto lv3k = bb.emit_match_cast(lv3, shape_sinfo({k}), "lv3k");
  auto lv4 = bb.emit(op::call_tir(custom_func, {lv1}, {tensor_sinfo({k}, f32)}), "lv4");
  expect_tensor(lv4, "Tensor((k,), float32)");
  // V2: a data-dependent shape.
  auto lv5 = bb.emit(op::unique(lv4), "lv5");
  expect_tensor(lv5, "Tensor(ndim=1, float32)");
  // Re-match the shape.
  auto lv6 = bb.emit_match_cast(lv5, tensor_sinfo({m}, f32), "lv6");
  expect_tensor(lv6, "Tensor((m,), float32)");
  auto lv7 = bb.emit_match_cast(lv3, shape_sinfo({m}), "lv7");
  EXPECT_EQ(to_string(get_struct_info(lv7)), "Shape((m,))");
  auto gv0 = bb.emit_output(op::exp(lv6), "gv0");
  expect_tensor(gv0, "Tensor((m,), float32)");
  bb.end_block();
  auto gv = bb.end_function(gv0);
  (void)lv3k;

  IRModule mod = bb.get_module();
  // custom_func is not defined in this module: the only violation is that reference.
  auto errors = well_formed_errors(mod);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].message.find("@custom_func is not a function of the module"), std::string::npos);
  // m is defined inside the function by a match_cast, so the signature only knows the rank.
  EXPECT_EQ(to_string(mod.lookup(gv).as<Function>()->ret_struct_info), "Tensor(ndim=1, float32)");
}

TEST(RfcPrograms, TwoDataflowBlocksAroundASideEffect) {
  BlockBuilder bb;
  // linear, relu and linear1 stand for PrimFuncs of the module; read_tensor_from_file is a
  // packed function with a result.
  auto linear = make_ref<GlobalVar>("linear"), relu = make_ref<GlobalVar>("relu"), linear1 = make_ref<GlobalVar>("linear1");
  auto x = make_var("x", tensor_sinfo(const_shape({1, 784}), f32));
  auto w = make_var("w", tensor_sinfo(const_shape({128, 784}), f32));
  auto b = make_var("b", tensor_sinfo(const_shape({128}), f32));
  StructInfo out = tensor_sinfo(const_shape({1, 128}), f32);
  bb.begin_function("main", {x, w, b}, /*pure=*/false);
  bb.begin_dataflow_block();
  auto lv0 = bb.emit(op::call_tir(linear, {x, w, b}, {out}), "lv0");
  EXPECT_TRUE(lv0.is<DataflowVar>());
  auto gv0 = bb.emit_output(op::call_tir(relu, {lv0}, {out}), "gv0");
  bb.end_block();
  bb.emit(op::call_packed("custom_inplace_update", {gv0}));
  auto gv1 = bb.emit(op::call_packed("read_tensor_from_file", {make_string("tensor.txt")}, {out}), "gv1");
  expect_tensor(gv1, "Tensor((1, 128), float32)");
  bb.begin_dataflow_block();
  auto res = bb.emit_output(op::call_tir(linear1, {gv0, gv1, b}, {out}), "out");
  bb.end_block();
  auto gv = bb.end_function(res);
  IRModule mod = bb.get_module();
  auto* body = mod.lookup(gv).as<Function>()->body.as<SeqExpr>();
  ASSERT_EQ(body->blocks.size(), 3u);
  EXPECT_TRUE(body->blocks[0]->is_dataflow());
  EXPECT_FALSE(body->blocks[1]->is_dataflow());
  EXPECT_TRUE(body->blocks[2]->is_dataflow());
  // Only the three undefined PrimFuncs are reported.
  EXPECT_EQ(well_formed_errors(mod).size(), 3u);
}

TEST(BlockBuilder, NormalisesNestedCallsToANormalForm) {
  BlockBuilder bb;
  auto x = make_var("x", tensor_sinfo(const_shape({2, 3}), f32));
  bb.begin_function("f", {x});
  bb.begin_dataflow_block();
  // exp(relu(add(x, x))) becomes three bindings.
  auto out = bb.emit_output(op::exp(op::relu(op::add(x, x))));
  bb.end_block();
  auto gv = bb.end_function(out);
  IRModule mod = bb.get_module();
  auto* body = mod.lookup(gv).as<Function>()->body.as<SeqExpr>();
  ASSERT_EQ(body->blocks.size(), 1u);
  ASSERT_EQ(body->blocks[0]->bindings.size(), 3u);
  EXPECT_TRUE(is_well_formed(mod));
}

TEST(BlockBuilder, CallsBetweenFunctionsSubstituteSymbolicShapes) {
  BlockBuilder bb;
  auto n = tir::var("n");
  auto p = make_var("p", tensor_sinfo({n}, f32));
  bb.begin_function("double_it", {p});
  auto r = bb.emit(op::add(p, p));
  auto callee = bb.end_function(r);

  auto a = make_var("a", tensor_sinfo(const_shape({7}), f32));
  bb.begin_function("main", {a});
  auto y = bb.emit(make_ref<Call>(callee, std::vector<Expr>{a}));
  expect_tensor(y, "Tensor((7,), float32)");
  bb.end_function(y);
  EXPECT_TRUE(is_well_formed(bb.get_module()));
}

TEST(BlockBuilder, RecursionThroughADeclaredFunction) {
  BlockBuilder bb;
  auto x = make_var("x", tensor_sinfo(f32, 0));
  StructInfo sig = func_sinfo({tensor_sinfo(f32, 0)}, tensor_sinfo(f32, 0));
  auto self = bb.declare_function("loop", sig);
  bb.begin_function("loop", {x});
  auto y = bb.emit(make_ref<Call>(self, std::vector<Expr>{x}));
  auto gv = bb.end_function(y, tensor_sinfo(f32, 0));
  EXPECT_TRUE(gv.same_as(self));
  EXPECT_TRUE(is_well_formed(bb.get_module()));
}

TEST(BlockBuilder, ErrorsNameTheOpAndArgument) {
  BlockBuilder bb;
  auto x = make_var("x", tensor_sinfo(const_shape({2, 3}), f32));
  auto y = make_var("y", tensor_sinfo(const_shape({4, 3}), f32));
  auto s = make_var("s", shape_sinfo(2));
  bb.begin_function("f", {x, y, s});
  std::string e = test::error_of([&] { bb.emit(op::add(x, y)); });
  EXPECT_NE(e.find("relax.add: shapes cannot broadcast: dimension 0 is 2"), std::string::npos) << e;
  e = test::error_of([&] { bb.emit(op::exp(s)); });
  EXPECT_NE(e.find("relax.exp: argument 'x' ('s') should be a tensor"), std::string::npos) << e;
  e = test::error_of([&] { bb.emit_output(x); });
  EXPECT_NE(e.find("only valid inside a dataflow block"), std::string::npos) << e;
  e = test::error_of([&] { bb.emit_match_cast(x, shape_sinfo(2)); });
  EXPECT_NE(e.find("can never succeed"), std::string::npos) << e;
}

}  // namespace
}  // namespace relax
