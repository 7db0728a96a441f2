#include "relax/tir/buffer.h"

#include <gtest/gtest.h>

#include "relax/tir/stmt.h"

namespace relax::tir {
namespace {

constexpr DataType kF32 = DataType::Float(32);

TEST(Buffer, DeclBufferIsCompactWithItsOwnDataVar) {
  Ref<Var> n = var("n");
  Ref<Buffer> a = decl_buffer({n, int_imm(4)}, kF32, "A");
  EXPECT_EQ(a->name, "A");
  EXPECT_EQ(a->data->name, "A");
  EXPECT_TRUE(a->data->dtype.is_handle());
  EXPECT_EQ(a->ndim(), 2u);
  EXPECT_TRUE(a->is_compact());
  EXPECT_TRUE(is_const_int(a->elem_offset, 0));
  EXPECT_EQ(a->scope, "global");
  EXPECT_EQ(to_string(a), "A: Buffer((n, 4), float32)");
  // Two buffers with one name are different buffers.
  EXPECT_FALSE(decl_buffer({n}, kF32, "A").same_as(decl_buffer({n}, kF32, "A")));
}

TEST(Buffer, MakeBufferValidates) {
  Ref<Var> data = var("p", DataType::Handle());
  EXPECT_THROW(make_buffer(var("p"), kF32, {int_imm(4)}, "A"), InternalError);  // int64 data var
  EXPECT_THROW(make_buffer(data, DataType::Void(), {int_imm(4)}, "A"), InternalError);
  EXPECT_THROW(make_buffer(data, kF32, {float_imm(4.0)}, "A"), InternalError);
  EXPECT_THROW(make_buffer(data, kF32, {int_imm(4), int_imm(2)}, "A", {int_imm(1)}), InternalError);
  EXPECT_THROW(make_buffer(data, kF32, {int_imm(4)}, "A", {}, {}, "texture"), InternalError);
  Ref<Buffer> shared = make_buffer(data, kF32, {int_imm(4)}, "S", {}, {}, "shared");
  EXPECT_EQ(to_string(shared), "S: Buffer((4,), float32, scope=\"shared\")");
}

TEST(Buffer, EffectiveStridesAndFlatOffset) {
  Ref<Var> n = var("n");
  Ref<Buffer> a = decl_buffer({n, int_imm(4), int_imm(8)}, kF32, "A");
  std::vector<PrimExpr> strides = effective_strides(*a);
  ASSERT_EQ(strides.size(), 3u);
  EXPECT_TRUE(is_const_int(strides[0], 32));
  EXPECT_TRUE(is_const_int(strides[1], 8));
  EXPECT_TRUE(is_const_int(strides[2], 1));
  Ref<Var> i = var("i"), j = var("j"), k = var("k");
  EXPECT_EQ(to_string(flat_offset(*a, {i, j, k})), "i * 32 + j * 8 + k");
  EXPECT_THROW(flat_offset(*a, {i, j}), InternalError);

  // Explicit strides and an offset.
  Ref<Buffer> view =
      make_buffer(a->data, kF32, {int_imm(4), int_imm(4)}, "V", {int_imm(8), int_imm(1)}, n);
  EXPECT_EQ(to_string(flat_offset(*view, {i, j})), "n + i * 8 + j");
}

TEST(Buffer, LoadChecksIndicesAndComputesLanes) {
  Ref<Buffer> a = decl_buffer({int_imm(4), int_imm(8)}, kF32, "A");
  Ref<Var> i = var("i");
  PrimExpr scalar = buffer_load(a, {i, int_imm(0)});
  EXPECT_EQ(scalar->dtype, kF32);
  EXPECT_EQ(to_string(scalar), "A[i, 0]");

  PrimExpr vec = buffer_load(a, {i, make_ref<Ramp>(int_imm(0), int_imm(1), 4)});
  EXPECT_EQ(vec->dtype, DataType::Float(32, 4));

  EXPECT_THROW(buffer_load(a, {i}), InternalError);                  // too few indices
  EXPECT_THROW(buffer_load(a, {i, i, i}), InternalError);            // too many
  EXPECT_THROW(buffer_load(a, {i, float_imm(1.0)}), InternalError);  // float index
  PrimExpr ramp = make_ref<Ramp>(int_imm(0), int_imm(1), 4);
  EXPECT_THROW(buffer_load(a, {ramp, ramp}), InternalError);  // two vector indices
  try {
    buffer_load(a, {i});
    FAIL();
  } catch (const InternalError& e) {
    EXPECT_NE(e.detail().find("load of buffer A (rank 2) with 1 index"), std::string::npos)
        << e.detail();
  }
}

TEST(Buffer, StoreChecksValueType) {
  Ref<Buffer> a = decl_buffer({int_imm(8)}, kF32, "A");
  Ref<Var> i = var("i");
  EXPECT_NO_THROW(buffer_store(a, float_imm(1.0), {i}));
  EXPECT_THROW(buffer_store(a, int_imm(1), {i}), InternalError);  // int64 into float32
  EXPECT_THROW(buffer_store(a, float_imm(1.0), {i, i}), InternalError);
  PrimExpr ramp = make_ref<Ramp>(int_imm(0), int_imm(1), 4);
  EXPECT_THROW(buffer_store(a, float_imm(1.0), {ramp}), InternalError);  // scalar into 4 lanes
  Stmt vec = buffer_store(a, make_ref<Broadcast>(float_imm(1.0), 4), {ramp});
  EXPECT_EQ(to_string(vec), "A[ramp(0, 1, 4)] = broadcast(1, 4)\n");
}

TEST(Buffer, Regions) {
  Ref<Var> n = var("n");
  Ref<Buffer> a = decl_buffer({n, int_imm(4)}, kF32, "A");
  BufferRegion full = BufferRegion::full(a);
  ASSERT_EQ(full.region.size(), 2u);
  EXPECT_TRUE(is_const_int(full.region[0].min, 0));
  EXPECT_TRUE(full.region[0].extent.same_as(n));
  BufferRegion point = BufferRegion::from_point(a, {n, int_imm(1)});
  EXPECT_TRUE(is_const_int(point.region[1].extent, 1));
  EXPECT_THROW(BufferRegion::from_point(a, {n}), InternalError);
}

}  // namespace
}  // namespace relax::tir
