#include "relax/tir/stmt_functor.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "tir_fixtures.h"

namespace relax::tir {
namespace {

using testing::ExpFunc;
using testing::kF32;
using testing::Matmul;

/// Counts loads, stores, loops and blocks, and collects the buffers seen.
struct Counter : StmtExprVisitor {
  using StmtExprVisitor::visit_;
  int loads = 0, stores = 0, loops = 0, blocks = 0, calls = 0;
  std::set<std::string> buffers;
  void visit_(const BufferLoad* op) override {
    ++loads;
    StmtExprVisitor::visit_(op);
  }
  void visit_(const Call* op) override {
    ++calls;
    ExprVisitor::visit_(op);
  }
  void visit_(const BufferStore* op) override {
    ++stores;
    StmtVisitor::visit_(op);
  }
  void visit_(const For* op) override {
    ++loops;
    StmtVisitor::visit_(op);
  }
  void visit_(const Block* op) override {
    ++blocks;
    StmtVisitor::visit_(op);
  }
  void visit_buffer(const Ref<Buffer>& b) override { buffers.insert(b->name); }
};

TEST(StmtVisitor, CountsTheExpFunc) {
  ExpFunc f;
  Counter c;
  visit_func(f.func, c);
  EXPECT_EQ(c.loads, 1);
  EXPECT_EQ(c.stores, 1);
  EXPECT_EQ(c.loops, 1);
  EXPECT_EQ(c.calls, 1);
  EXPECT_EQ(c.blocks, 0);
  EXPECT_EQ(c.buffers, (std::set<std::string>{"X", "Y"}));
}

TEST(StmtVisitor, CountsTheMatmul) {
  Matmul m;
  Counter c;
  c(m.func->body);
  EXPECT_EQ(c.loads, 3);   // C, A, B in the update
  EXPECT_EQ(c.stores, 2);  // init and update
  EXPECT_EQ(c.loops, 3);
  EXPECT_EQ(c.blocks, 1);
  EXPECT_EQ(c.buffers, (std::set<std::string>{"A", "B", "C"}));
}

TEST(StmtVisitor, StatementOnlyVisitorSkipsExpressions) {
  // A plain StmtVisitor sees buffers of stores and regions, but not the loads inside values.
  struct Loads : StmtVisitor {
    int exprs = 0;
    void visit_expr(const PrimExpr&) override { ++exprs; }
  } v;
  ExpFunc f;
  v(f.func->body);
  EXPECT_EQ(v.exprs, 4);  // loop min, loop extent, stored value, index
}

TEST(StmtVisitor, PostOrder) {
  Matmul m;
  std::vector<std::string> kinds;
  post_order_visit(m.func->body,
                   [&](const Stmt& s) { kinds.push_back(stmt_kind_name(s->kind())); });
  EXPECT_EQ(kinds, (std::vector<std::string>{"BufferStore", "BufferStore", "Block", "BlockRealize",
                                             "For", "For", "For"}));
}

TEST(StmtMutator, IdentityKeepsEverything) {
  Matmul m;
  StmtExprMutator identity;
  EXPECT_TRUE(identity(m.func->body).same_as(m.func->body));
  EXPECT_TRUE(mutate_func(m.func, identity).same_as(m.func));
}

/// Renames one buffer everywhere it occurs.
struct RenameBuffer : StmtExprMutator {
  Ref<Buffer> from, to;
  RenameBuffer(Ref<Buffer> from, std::string name)
      : from(from), to(make_buffer(from->data, from->dtype, from->shape, std::move(name))) {}
  Ref<Buffer> visit_buffer(const Ref<Buffer>& b) override { return b.same_as(from) ? to : b; }
};

TEST(StmtMutator, RenameBufferSharesUnchangedSubtrees) {
  Matmul m;
  RenameBuffer rename(m.A, "A_renamed");
  Ref<PrimFunc> g = mutate_func(m.func, rename);
  ASSERT_FALSE(g.same_as(m.func));
  EXPECT_TRUE(g->param_buffer(0).same_as(rename.to));
  EXPECT_TRUE(g->param_buffer(1).same_as(m.B));

  Counter c;
  visit_func(g, c);
  EXPECT_EQ(c.buffers, (std::set<std::string>{"A_renamed", "B", "C"}));

  // Walk down to the block: the loops were rebuilt, the init (no A in it) is shared.
  const Stmt* s = &g->body;
  while (auto* loop = s->as<For>()) s = &loop->body;
  auto* realize = s->as<BlockRealize>();
  ASSERT_NE(realize, nullptr);
  const Block* block = realize->block.get();
  EXPECT_FALSE(block == m.block.get());
  EXPECT_TRUE(block->init.same_as(m.init));
  EXPECT_FALSE(block->body.same_as(m.update));
  EXPECT_TRUE(block->iter_vars[0].same_as(m.block->iter_vars[0]));
  EXPECT_TRUE(block->reads[0].buffer.same_as(rename.to));
  EXPECT_TRUE(block->reads[1].buffer.same_as(m.B));
  EXPECT_TRUE(block->writes[0].buffer.same_as(m.C));
  EXPECT_TRUE(realize->predicate.same_as([&] {
    const Stmt* t = &m.func->body;
    while (auto* l = t->as<For>()) t = &l->body;
    return t->as<BlockRealize>()->predicate;
  }()));

  // The update's B load is shared; the A load was rebuilt.
  auto* store = block->body.as<BufferStore>();
  ASSERT_NE(store, nullptr);
  auto* old_store = m.update.as<BufferStore>();
  auto* add = store->value.as<Add>();
  auto* old_add = old_store->value.as<Add>();
  EXPECT_TRUE(add->a.same_as(old_add->a));  // C[vi, vj]
  auto* mul = add->b.as<Mul>();
  auto* old_mul = old_add->b.as<Mul>();
  EXPECT_FALSE(mul->a.same_as(old_mul->a));  // A[vi, vk]
  EXPECT_TRUE(mul->b.same_as(old_mul->b));   // B[vk, vj]
  EXPECT_EQ(to_string(mul->a), "A_renamed[vi, vk]");
}

TEST(StmtMutator, SubstituteSymbolicDim) {
  ExpFunc f;
  Ref<PrimFunc> g =
      substitute(f.func, [&](const Var* v) { return v == f.n.get() ? int_imm(128) : PrimExpr(); });
  ASSERT_FALSE(g.same_as(f.func));
  Ref<Buffer> x = g->param_buffer(0);
  EXPECT_FALSE(x.same_as(f.X));
  EXPECT_TRUE(is_const_int(x->shape[0], 128));
  EXPECT_TRUE(x->data.same_as(f.X->data));
  EXPECT_EQ(to_string(g->body), "for i in T.serial(128):\n    Y[i] = exp(X[i])\n");
  // Every occurrence maps to the one rebuilt buffer.
  auto* loop = g->body.as<For>();
  auto* store = loop->body.as<BufferStore>();
  EXPECT_TRUE(store->buffer.same_as(g->param_buffer(1)));
  auto* load = store->value.as<Call>()->args[0].as<BufferLoad>();
  EXPECT_TRUE(load->buffer.same_as(x));
  // The struct info follows.
  auto* t = (*g->struct_info.as<relax::FuncStructInfo>()->params)[0].as<relax::TensorStructInfo>();
  EXPECT_TRUE(is_const_int((*t->shape)[0], 128));
}

TEST(StmtMutator, SubstituteWithMapAndNoMatch) {
  Matmul m;
  Ref<Var> other = var("other");
  std::unordered_map<Ref<Var>, PrimExpr> none{{other, int_imm(0)}};
  EXPECT_TRUE(substitute(m.func->body, none).same_as(m.func->body));

  // Replacing the loop var i inside the binding (a use), not the loop's definition.
  std::unordered_map<Ref<Var>, PrimExpr> vmap{{m.i, m.i + 1}};
  Stmt s = substitute(m.func->body, vmap);
  auto* loop = s.as<For>();
  ASSERT_NE(loop, nullptr);
  EXPECT_TRUE(loop->loop_var.same_as(m.i));
  EXPECT_NE(to_string(s).find("vi = T.axis.spatial(16, i + 1)"), std::string::npos)
      << to_string(s);
}

TEST(StmtMutator, SeqStmtDropsRemovedChildren) {
  Ref<Buffer> a = decl_buffer({int_imm(4)}, kF32, "A");
  Stmt s0 = buffer_store(a, float_imm(0.0), {int_imm(0)});
  Stmt s1 = buffer_store(a, float_imm(1.0), {int_imm(1)});
  Stmt seq = seq_stmt({s0, s1});
  struct DropFirst : StmtMutator {
    Stmt first;
    Stmt visit_(const BufferStore* op) override {
      return Stmt(op).same_as(first) ? Stmt() : Stmt(op);
    }
  } drop;
  drop.first = s0;
  EXPECT_TRUE(drop(seq).same_as(s1));
}

TEST(StmtMutator, BlockRealizeNeedsABlock) {
  Matmul m;
  struct Bad : StmtMutator {
    Stmt visit_(const Block*) override { return no_op(); }
  } bad;
  EXPECT_THROW(bad(m.func->body), InternalError);
}

}  // namespace
}  // namespace relax::tir
