#include "relax/ir/prim_func.h"

#include <gtest/gtest.h>

#include "tir_fixtures.h"

namespace relax::tir {
namespace {

using testing::ExpFunc;
using testing::kF32;
using testing::Matmul;

TEST(PrimFunc, IsARelaxModuleFunction) {
  ExpFunc f;
  relax::Expr e = f.func;
  EXPECT_TRUE(e.is<relax::BaseFuncNode>());
  EXPECT_FALSE(e.is<relax::Function>());
  EXPECT_EQ(e.as<PrimFunc>(), f.func.get());
  EXPECT_EQ(e->kind(), uint32_t(relax::ExprKind::kPrimFunc));
  ASSERT_TRUE(f.func->attrs.defined());
  EXPECT_EQ(f.func->attrs->fields.front().first, kAttrGlobalSymbol);
}

TEST(PrimFunc, ParamsAndBufferMap) {
  ExpFunc f;
  ASSERT_EQ(f.func->params.size(), 2u);
  EXPECT_TRUE(f.func->params[0].same_as(f.X->data));
  EXPECT_TRUE(f.func->param_buffer(0).same_as(f.X));
  EXPECT_TRUE(f.func->param_buffer(1).same_as(f.Y));
  EXPECT_TRUE(f.func->ret_type.is_void());
  EXPECT_FALSE(f.func->buffer_of(var("other", DataType::Handle())).defined());
}

TEST(PrimFunc, StructInfoIsTensorsInVoidOutImpure) {
  ExpFunc f;
  auto* sinfo = f.func->struct_info.as<relax::FuncStructInfo>();
  ASSERT_NE(sinfo, nullptr);
  ASSERT_TRUE(sinfo->params.has_value());
  ASSERT_EQ(sinfo->params->size(), 2u);
  auto* x = (*sinfo->params)[0].as<relax::TensorStructInfo>();
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->dtype, kF32);
  ASSERT_EQ(x->ndim, 1);
  EXPECT_TRUE((*x->shape)[0].same_as(f.n));  // the symbolic dim itself
  auto* ret = sinfo->ret.as<relax::TupleStructInfo>();
  ASSERT_NE(ret, nullptr);
  EXPECT_TRUE(ret->fields.empty());
  EXPECT_FALSE(sinfo->purity);
}

TEST(PrimFunc, ScalarAndUnmappedHandleParams) {
  Ref<Var> m = var("m", DataType::Int(32));
  Ref<Var> h = var("h", DataType::Handle());
  auto func = make_ref<PrimFunc>(std::vector<Ref<Var>>{h, m}, no_op(),
                                 std::vector<std::pair<Ref<Var>, Ref<Buffer>>>{});
  auto* sinfo = func->struct_info.as<relax::FuncStructInfo>();
  ASSERT_NE(sinfo, nullptr);
  EXPECT_TRUE((*sinfo->params)[0].is<relax::ObjectStructInfo>());
  auto* prim = (*sinfo->params)[1].as<relax::PrimStructInfo>();
  ASSERT_NE(prim, nullptr);
  EXPECT_EQ(prim->dtype, DataType::Int(32));
  // A 32-bit buffer dim becomes an int64 Relax dim.
  Ref<Buffer> b = decl_buffer({m}, kF32, "B");
  auto f2 = make_prim_func({b}, no_op(), {m});
  auto* t = (*f2->struct_info.as<relax::FuncStructInfo>()->params)[0].as<relax::TensorStructInfo>();
  EXPECT_EQ((*t->shape)[0]->dtype, DataType::Int(64));
}

TEST(PrimFunc, Validates) {
  Matmul mm;
  Ref<Var> p = var("p", DataType::Handle());
  using Map = std::vector<std::pair<Ref<Var>, Ref<Buffer>>>;
  // The buffer's data must be the parameter.
  EXPECT_THROW(make_ref<PrimFunc>(std::vector<Ref<Var>>{p}, no_op(), Map{{p, mm.A}}),
               InternalError);
  // A key that is not a parameter.
  EXPECT_THROW(make_ref<PrimFunc>(std::vector<Ref<Var>>{p}, no_op(), Map{{mm.A->data, mm.A}}),
               InternalError);
  // A parameter twice.
  EXPECT_THROW(make_ref<PrimFunc>(std::vector<Ref<Var>>{p, p}, no_op(), Map{}), InternalError);
  EXPECT_THROW(make_prim_func({mm.A}, Stmt()), InternalError);
}

TEST(PrimFunc, WithBodySharesWhenUnchanged) {
  ExpFunc f;
  EXPECT_TRUE(with_body(f.func, f.func->body).same_as(f.func));
  Ref<PrimFunc> g = with_body(f.func, no_op());
  EXPECT_FALSE(g.same_as(f.func));
  EXPECT_TRUE(g->params[0].same_as(f.func->params[0]));
  EXPECT_TRUE(g->attrs.same_as(f.func->attrs));
}

}  // namespace
}  // namespace relax::tir
