#include "relax/tir/stmt.h"

#include <gtest/gtest.h>

#include "tir_fixtures.h"

namespace relax::tir {
namespace {

using testing::ExpFunc;
using testing::kF32;
using testing::Matmul;

TEST(Stmt, KindsComeFromOneList) {
  EXPECT_STREQ(stmt_kind_name(uint32_t(StmtKind::kFor)), "For");
  EXPECT_STREQ(stmt_kind_name(uint32_t(StmtKind::kBlockRealize)), "BlockRealize");
  EXPECT_STREQ(stmt_kind_name(0), "<not a Stmt>");
  ExpFunc f;
  EXPECT_TRUE(f.func->body.is<StmtNode>());
  EXPECT_TRUE(f.func->body.is<For>());
  EXPECT_FALSE(f.func->body.is<Block>());
}

TEST(Stmt, ForValidates) {
  Ref<Var> i = var("i");
  Stmt body = no_op();
  EXPECT_THROW(make_ref<For>(i, int_imm(0, DataType::Int(32)), int_imm(4), ForKind::kSerial, body),
               InternalError);
  EXPECT_THROW(make_ref<For>(i, int_imm(0), int_imm(4), ForKind::kThreadBinding, body),
               InternalError);
  EXPECT_THROW(make_ref<For>(i, int_imm(0), int_imm(4), ForKind::kSerial, body, "threadIdx.x"),
               InternalError);
  EXPECT_THROW(make_ref<For>(var("x", kF32), float_imm(0), float_imm(4), ForKind::kSerial, body),
               InternalError);
  EXPECT_THROW(make_ref<For>(i, int_imm(0), int_imm(4), ForKind::kSerial, Stmt()), InternalError);
}

TEST(Stmt, OtherConstructorsValidate) {
  Ref<Var> x = var("x");
  EXPECT_THROW(make_ref<LetStmt>(x, float_imm(1.0), no_op()), InternalError);
  EXPECT_THROW(make_ref<IfThenElse>(x, no_op()), InternalError);  // int condition
  EXPECT_THROW(make_ref<AssertStmt>(int_imm(1), "msg", no_op()), InternalError);
  EXPECT_THROW(make_ref<Allocate>(x, kF32, std::vector<PrimExpr>{int_imm(4)}, "global", no_op()),
               InternalError);
  EXPECT_THROW(make_ref<Allocate>(var("p", DataType::Handle()), kF32,
                                  std::vector<PrimExpr>{int_imm(4)}, "gpu", no_op()),
               InternalError);
  EXPECT_THROW(
      make_ref<IterVar>(x, Range::upto(int_imm(4, DataType::Int(32))), IterVarType::kSpatial),
      InternalError);

  Matmul m;
  // Two bindings for a block with three iteration variables.
  EXPECT_THROW(make_ref<BlockRealize>(std::vector<PrimExpr>{m.i, m.j}, bool_imm(true), m.block),
               InternalError);
  EXPECT_THROW(make_ref<BlockRealize>(std::vector<PrimExpr>{m.i, m.j, m.k}, int_imm(1), m.block),
               InternalError);
  // A read region with the wrong rank.
  EXPECT_THROW(make_ref<Block>("b", std::vector<Ref<IterVar>>{},
                               std::vector<BufferRegion>{BufferRegion{m.A, {Range::point(m.i)}}},
                               std::vector<BufferRegion>{}, no_op()),
               InternalError);
}

TEST(Stmt, SeqStmtFlattensAndDropsNoOps) {
  Ref<Buffer> a = decl_buffer({int_imm(4)}, kF32, "A");
  Stmt s0 = buffer_store(a, float_imm(0.0), {int_imm(0)});
  Stmt s1 = buffer_store(a, float_imm(1.0), {int_imm(1)});
  Stmt s2 = buffer_store(a, float_imm(2.0), {int_imm(2)});
  Stmt nested = seq_stmt({s0, seq_stmt({s1, no_op()}), Stmt(), s2});
  auto* seq = nested.as<SeqStmt>();
  ASSERT_NE(seq, nullptr);
  ASSERT_EQ(seq->seq.size(), 3u);
  EXPECT_TRUE(seq->seq[1].same_as(s1));
  EXPECT_TRUE(seq_stmt({s0}).same_as(s0));
  EXPECT_TRUE(is_no_op(seq_stmt({})));
}

TEST(Stmt, DebugPrintOfExpFunc) {
  ExpFunc f;
  EXPECT_EQ(to_string(f.func->body), "for i in T.serial(n):\n    Y[i] = exp(X[i])\n");
  EXPECT_EQ(to_string(f.func),
            "@T.prim_func\n"
            "def tir_exp_func(X: Buffer((n,), float32), Y: Buffer((n,), float32)):\n"
            "    for i in T.serial(n):\n"
            "        Y[i] = exp(X[i])\n");
}

TEST(Stmt, DebugPrintOfReductionBlock) {
  Matmul m;
  EXPECT_EQ(to_string(m.func->body),
            "for i in T.serial(16):\n"
            "    for j in T.serial(16):\n"
            "        for k in T.serial(16):\n"
            "            with T.block(\"matmul\"):\n"
            "                vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
            "                T.reads(A[vi, vk], B[vk, vj])\n"
            "                T.writes(C[vi, vj])\n"
            "                with T.init():\n"
            "                    C[vi, vj] = 0\n"
            "                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n");
}

TEST(Stmt, DebugPrintOfGpuLoopsAllocationsAndBranches) {
  Ref<Buffer> a = decl_buffer({int_imm(256)}, kF32, "A");
  Ref<Buffer> tmp = decl_buffer({int_imm(1)}, kF32, "tmp", "local");
  Ref<Var> bx = var("bx"), tx = var("tx");
  PrimExpr index = bx * 64 + tx;
  Stmt store = make_ref<IfThenElse>(lt(index, int_imm(200)),
                                    buffer_store(a, buffer_load(tmp, {int_imm(0)}), {index}),
                                    buffer_store(a, float_imm(0.0), {index}));
  Stmt alloc =
      make_ref<Allocate>(tmp->data, kF32, std::vector<PrimExpr>{int_imm(1)}, "local", store);
  Stmt inner =
      make_ref<For>(tx, int_imm(0), int_imm(64), ForKind::kThreadBinding, alloc, "threadIdx.x");
  Stmt outer =
      make_ref<For>(bx, int_imm(0), int_imm(4), ForKind::kThreadBinding, inner, "blockIdx.x");
  EXPECT_EQ(to_string(outer),
            "for bx in T.thread_binding(4, thread=\"blockIdx.x\"):\n"
            "    for tx in T.thread_binding(64, thread=\"threadIdx.x\"):\n"
            "        tmp = T.allocate([1], \"float32\", \"local\")\n"
            "        if bx * 64 + tx < 200:\n"
            "            A[bx * 64 + tx] = tmp[0]\n"
            "        else:\n"
            "            A[bx * 64 + tx] = 0\n");
}

TEST(Stmt, DebugPrintOfNonTrivialBindings) {
  // vi = T.axis.spatial(16, i0 * 4 + i1) with a predicate and an allocated buffer.
  Ref<Buffer> c = decl_buffer({int_imm(16)}, kF32, "C");
  Ref<Buffer> scratch = decl_buffer({int_imm(4)}, kF32, "scratch", "shared");
  Ref<Var> i0 = var("i0"), i1 = var("i1"), vi = var("vi");
  auto block = make_ref<Block>(
      "b", std::vector<Ref<IterVar>>{make_iter_var(vi, int_imm(16), IterVarType::kSpatial)},
      std::vector<BufferRegion>{}, std::vector<BufferRegion>{BufferRegion::from_point(c, {vi})},
      buffer_store(c, float_imm(1.0), {vi}), Stmt(), std::vector<Ref<Buffer>>{scratch});
  Stmt realize =
      make_ref<BlockRealize>(std::vector<PrimExpr>{i0 * 4 + i1}, lt(i0, int_imm(3)), block);
  EXPECT_EQ(to_string(realize),
            "with T.block(\"b\"):\n"
            "    vi = T.axis.spatial(16, i0 * 4 + i1)\n"
            "    T.where(i0 < 3)\n"
            "    T.reads()\n"
            "    T.writes(C[vi])\n"
            "    scratch = T.alloc_buffer((4,), \"float32\", scope=\"shared\")\n"
            "    C[vi] = 1\n");
}

}  // namespace
}  // namespace relax::tir
