#include "relax/op/compute.h"

#include <gtest/gtest.h>

#include "../../common/error_of.h"
#include "../kernel/interp_test_util.h"
#include "relax/ir/block_builder.h"
#include "relax/ir/well_formed.h"
#include "relax/op/emit_te.h"
#include "relax/tir/intrin.h"
#include "relax/tir/stmt_functor.h"

namespace relax::tir {
namespace {

constexpr DataType kF32 = DataType::Float(32);

/// The stage blocks of a create_prim_func result, in order (the root excluded).
std::vector<const Block*> stage_blocks(const Ref<PrimFunc>& f) {
  std::vector<const Block*> blocks;
  post_order_visit(f->body, [&](const Stmt& s) {
    if (auto* b = s.as<Block>(); b && b->name != "root") blocks.push_back(b);
  });
  return blocks;
}

const Block* root_block(const Ref<PrimFunc>& f) {
  auto* realize = f->body.as<BlockRealize>();
  return realize ? realize->block.get() : nullptr;
}

TEST(Compute, ElementwiseAddWithBroadcastIsOneSpatialBlock) {
  Ref<Var> n = var("n");
  te::Tensor A = te::placeholder({n, 4}, kF32, "A");
  te::Tensor B = te::placeholder({4}, kF32, "B");
  te::Tensor C = te::compute(
      {n, 4}, [&](const auto& i) { return A(i[0], i[1]) + B(i[1]); }, "C");
  EXPECT_EQ(C.dtype(), kF32);
  ASSERT_EQ(C.op()->inputs.size(), 2u);
  Ref<PrimFunc> f = te::create_prim_func({A, B, C});

  ASSERT_EQ(f->params.size(), 3u);  // n is bound by A's (and C's) shape
  EXPECT_TRUE(f->param_buffer(0).same_as(A.buffer()));
  const Block* root = root_block(f);
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->name, "root");
  EXPECT_TRUE(root->alloc_buffers.empty());

  auto blocks = stage_blocks(f);
  ASSERT_EQ(blocks.size(), 1u);
  const Block* c = blocks[0];
  EXPECT_EQ(c->name, "C");
  ASSERT_EQ(c->iter_vars.size(), 2u);
  EXPECT_EQ(c->iter_vars[0]->type, IterVarType::kSpatial);
  EXPECT_TRUE(c->iter_vars[0]->dom.extent.same_as(n));
  EXPECT_FALSE(c->init.defined());
  ASSERT_EQ(c->reads.size(), 2u);
  EXPECT_TRUE(c->reads[0].buffer.same_as(A.buffer()));
  EXPECT_TRUE(c->reads[1].buffer.same_as(B.buffer()));
  EXPECT_TRUE(c->reads[1].region[0].min.same_as(c->iter_vars[1]->var));  // B[v_i1]
  ASSERT_EQ(c->writes.size(), 1u);
  EXPECT_TRUE(c->writes[0].buffer.same_as(C.buffer()));

  // The loops: for i0 in range(n): for i1 in range(4): block C.
  auto* outer = root->body.as<For>();
  ASSERT_NE(outer, nullptr);
  EXPECT_TRUE(outer->extent.same_as(n));
  auto* inner = outer->body.as<For>();
  ASSERT_NE(inner, nullptr);
  EXPECT_TRUE(is_const_int(inner->extent, 4));
  auto* realize = inner->body.as<BlockRealize>();
  ASSERT_NE(realize, nullptr);
  EXPECT_TRUE(realize->iter_values[0].same_as(outer->loop_var));
}

TEST(Compute, MatmulIsAReductionBlockWithInit) {
  Ref<Var> n = var("n");
  te::Tensor A = te::placeholder({n, 8}, kF32, "A");
  te::Tensor B = te::placeholder({8, 6}, kF32, "B");
  te::Axis k = te::reduce_axis(8, "k");
  te::Tensor C = te::compute(
      {n, 6}, [&](const auto& i) { return te::sum(A(i[0], k) * B(k, i[1]), {k}); }, "C");
  Ref<PrimFunc> f = te::create_prim_func({A, B, C});
  auto blocks = stage_blocks(f);
  ASSERT_EQ(blocks.size(), 1u);
  const Block* c = blocks[0];
  ASSERT_EQ(c->iter_vars.size(), 3u);
  EXPECT_EQ(c->iter_vars[2]->type, IterVarType::kReduce);
  EXPECT_EQ(c->iter_vars[2]->var->name, "v_k");
  ASSERT_TRUE(c->init.defined());
  auto* init = c->init.as<BufferStore>();
  ASSERT_NE(init, nullptr);
  EXPECT_TRUE(init->buffer.same_as(C.buffer()));
  auto* zero = init->value.as<FloatImm>();
  ASSERT_NE(zero, nullptr);
  EXPECT_EQ(zero->value, 0.0);
  // Reads list A and B only, not the accumulator C.
  ASSERT_EQ(c->reads.size(), 2u);
  EXPECT_TRUE(c->reads[0].buffer.same_as(A.buffer()));
  EXPECT_TRUE(c->reads[1].buffer.same_as(B.buffer()));
  // The update is C[v_i0, v_i1] = C[v_i0, v_i1] + A[v_i0, v_k] * B[v_k, v_i1].
  auto* update = c->body.as<BufferStore>();
  ASSERT_NE(update, nullptr);
  auto* add = update->value.as<Add>();
  ASSERT_NE(add, nullptr);
  auto* acc = add->a.as<BufferLoad>();
  ASSERT_NE(acc, nullptr);
  EXPECT_TRUE(acc->buffer.same_as(C.buffer()));
}

TEST(Compute, SoftmaxStagesBecomeRootAllocations) {
  Ref<Var> n = var("n");
  testing::Softmax sm = testing::softmax_prim_func(n, 16);
  Ref<PrimFunc> f = sm.func;
  const Block* root = root_block(f);
  ASSERT_NE(root, nullptr);
  ASSERT_EQ(root->alloc_buffers.size(), 3u);
  EXPECT_TRUE(root->alloc_buffers[0].same_as(sm.max.buffer()));
  EXPECT_TRUE(root->alloc_buffers[1].same_as(sm.exp.buffer()));
  EXPECT_TRUE(root->alloc_buffers[2].same_as(sm.sum.buffer()));
  auto blocks = stage_blocks(f);
  ASSERT_EQ(blocks.size(), 4u);
  EXPECT_EQ(blocks[0]->name, "max");
  EXPECT_EQ(blocks[3]->name, "Y");
  // max's identity is the lowest float32.
  auto* init = blocks[0]->init.as<BufferStore>();
  ASSERT_NE(init, nullptr);
  EXPECT_LT(init->value.as<FloatImm>()->value, -3e38);
}

TEST(Compute, VariablesNotBoundByAWholeDimensionBecomeScalarParams) {
  Ref<Var> n = var("n");
  te::Tensor A = te::placeholder({n * 2}, kF32, "A");
  te::Tensor B = te::compute(
      {n * 2}, [&](const auto& i) { return A(i[0]); }, "B");
  Ref<PrimFunc> f = te::create_prim_func({A, B});
  ASSERT_EQ(f->params.size(), 3u);
  EXPECT_TRUE(f->params[2].same_as(n));
  auto* sinfo = f->struct_info.as<relax::FuncStructInfo>();
  EXPECT_TRUE((*sinfo->params)[2].is<relax::PrimStructInfo>());

  // A whole dimension anywhere among the parameters binds it.
  te::Tensor C = te::compute(
      {n}, [&](const auto& i) { return A(i[0] * 2); }, "C");
  EXPECT_EQ(te::create_prim_func({A, C})->params.size(), 2u);
}

TEST(Compute, ArgmaxIsATwoOutputReduction) {
  te::Tensor X = te::placeholder({3, 5}, kF32, "X");
  te::Axis k = te::reduce_axis(5, "k");
  auto outs = te::compute_multi(
      {3}, [&](const auto& i) { return te::argmax(X(i[0], k), k); }, "argmax");
  ASSERT_EQ(outs.size(), 2u);
  EXPECT_EQ(outs[0].dtype(), DataType::Int(64));
  EXPECT_EQ(outs[1].dtype(), kF32);
  EXPECT_EQ(outs[1].name(), "argmax_v1");
  Ref<PrimFunc> f = te::create_prim_func({X, outs[0]});  // the values stay an intermediate
  ASSERT_EQ(root_block(f)->alloc_buffers.size(), 1u);
  const Block* b = stage_blocks(f)[0];
  EXPECT_EQ(b->writes.size(), 2u);
  // Both new values are computed (lets) before either is stored.
  EXPECT_TRUE(b->body.is<LetStmt>());
}

TEST(Compute, StencilReadsCoverTheOffsets) {
  te::Tensor A = te::placeholder({10}, kF32, "A");
  te::Tensor B = te::compute(
      {8}, [&](const auto& i) { return A(i[0]) + A(i[0] + 2); }, "B");
  Ref<PrimFunc> f = te::create_prim_func({A, B});
  const Block* b = stage_blocks(f)[0];
  ASSERT_EQ(b->reads.size(), 1u);
  EXPECT_TRUE(is_const_int(b->reads[0].region[0].extent, 3));
}

TEST(Compute, ReductionWithConditionAndGuardedLoad) {
  te::Tensor A = te::placeholder({6}, kF32, "A");
  te::Axis k = te::reduce_axis(3, "k");
  // A 1-D "convolution" with zero padding 1 on each side, summing only even taps.
  te::Tensor B = te::compute(
      {6},
      [&](const auto& i) {
        PrimExpr j = i[0] + k - 1;
        PrimExpr in = logical_and(ge(j, int_imm(0)), lt(j, int_imm(6)));
        return te::sum(te::if_then_else(in, A(j), float_imm(0)), {k},
                       eq(floormod(PrimExpr(k.var), 2), int_imm(0)));
      },
      "B");
  Ref<PrimFunc> f = te::create_prim_func({A, B});
  const Block* b = stage_blocks(f)[0];
  EXPECT_TRUE(b->body.is<IfThenElse>());
}

TEST(Compute, Errors) {
  te::Tensor A = te::placeholder({4}, kF32, "A");
  te::Tensor B = te::compute(
      {4}, [&](const auto& i) { return A(i[0]); }, "B");
  std::string e = relax::test::error_of([&] { te::create_prim_func({B}); });
  EXPECT_NE(e.find("placeholder A"), std::string::npos) << e;
  EXPECT_THROW(A(0, 1), relax::Error);                          // wrong rank
  EXPECT_THROW(te::create_prim_func({A, B, B}), relax::Error);  // passed twice
  EXPECT_THROW(te::placeholder({4}, DataType::Handle(), "H"), relax::Error);
  EXPECT_THROW(te::compute(
                   {4}, [&](const auto& i) { return std::vector<PrimExpr>{}; }, "E"),
               relax::Error);
  EXPECT_THROW(te::sum(A(0), {}), relax::Error);  // no axes
}

TEST(Compute, LoadsOfUnrecordedTensorsAreRejected) {
  te::Tensor A = te::placeholder({4}, kF32, "A");
  PrimExpr outside = A(int_imm(0));  // built outside the compute function: not recorded
  te::Tensor B = te::compute(
      {4}, [&](const auto&) { return outside; }, "B");
  EXPECT_TRUE(B.op()->inputs.empty());
  EXPECT_THROW(te::create_prim_func({B}), relax::Error);
}

TEST(EmitTe, EmitsCallTirWithItsOwnVariables) {
  Ref<Var> n = var("n");
  auto x = relax::make_var("x", relax::tensor_sinfo({n, int_imm(4)}, kF32));
  auto y = relax::make_var("y", relax::tensor_sinfo({int_imm(4)}, kF32));
  BlockBuilder bb;
  bb.begin_function("main", {x, y});
  bb.begin_dataflow_block();
  auto lv = te::emit_te(
      bb, {x, y},
      [](const std::vector<te::Tensor>& a) {
        return te::compute(
            a[0].shape(), [&](const auto& i) { return a[0](i[0], i[1]) + a[1](i[1]); }, "add");
      },
      "add");
  auto out = bb.emit_output(lv);
  bb.end_block();
  bb.end_function(out);
  relax::IRModule mod = bb.get_module();

  auto* call = bb.lookup_binding(lv).as<relax::Call>();
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->args.size(), 2u);  // no tir_vars: n is bound by x
  auto* gv = call->args[0].as<relax::GlobalVar>();
  ASSERT_NE(gv, nullptr);
  auto* f = mod.find(gv->name).as<PrimFunc>();
  ASSERT_NE(f, nullptr);
  // The PrimFunc's n is its own variable, named like the Relax one.
  auto* dim = f->param_buffer(0)->shape[0].as<Var>();
  ASSERT_NE(dim, nullptr);
  EXPECT_EQ(dim->name, "n");
  EXPECT_NE(dim, n.get());
  // The result has the Relax shape (n, 4).
  auto* t = relax::tensor_info(lv);
  ASSERT_NE(t, nullptr);
  EXPECT_TRUE((*t->shape)[0].same_as(n));
}

TEST(EmitTe, PassesUnboundVariablesAsTirVars) {
  Ref<Var> n = var("n");
  auto x = relax::make_var("x", relax::tensor_sinfo({n * 2}, kF32));
  BlockBuilder bb;
  bb.begin_function("main", {x});
  Expr call = te::call_te(
      bb, {x},
      [](const std::vector<te::Tensor>& a) {
        return te::compute(
            a[0].shape(), [&](const auto& i) { return a[0](i[0]) * a[0](i[0]); }, "square");
      },
      "square");
  auto* c = call.as<relax::Call>();
  ASSERT_NE(c, nullptr);
  ASSERT_EQ(c->args.size(), 3u);
  auto* tv = c->args[2].as<relax::ShapeExpr>();
  ASSERT_NE(tv, nullptr);
  ASSERT_EQ(tv->values.size(), 1u);
  EXPECT_TRUE(tv->values[0].same_as(n));
  auto* f = bb.module().find("square").as<PrimFunc>();
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(f->params.size(), 3u);
  EXPECT_FALSE(f->params[2].same_as(n));
  EXPECT_EQ(f->params[2]->name, "n");
}

TEST(EmitTe, RejectsArgumentsWithoutShape) {
  auto x = relax::make_var("x", relax::tensor_sinfo(kF32, 2));
  BlockBuilder bb;
  bb.begin_function("main", {x});
  EXPECT_THROW(te::call_te(bb, {x}, [](const std::vector<te::Tensor>& a) { return a[0]; }),
               relax::Error);
}

}  // namespace
}  // namespace relax::tir
