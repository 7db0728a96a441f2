// Visitors and mutators: traversal order, sharing of unchanged IR, re-normalisation, and the
// source spans that rebuilt nodes keep.
#include <gtest/gtest.h>

#include "relax/ir/expr_functor.h"
#include "relax/ir/structural_equal.h"
#include "relax/ir/well_formed.h"
#include "relax/op/op.h"
#include "relax/text/parser.h"

namespace relax {
namespace {

const DataType f32 = DataType::Float(32);

/// f(x: (n, 4)) = flatten(relu(add(x, x))) in one dataflow block.
IRModule sample_module() {
  BlockBuilder bb;
  auto n = tir::var("n");
  auto x = make_var("x", tensor_sinfo({n, tir::int_imm(4)}, f32));
  bb.begin_function("f", {x});
  bb.begin_dataflow_block();
  auto a = bb.emit(op::add(x, x), "a");
  auto r = bb.emit(op::relu(a), "r");
  auto out = bb.emit_output(op::flatten(r), "out");
  bb.end_block();
  bb.end_function(out);
  return bb.get_module();
}

TEST(ExprVisitor, PostOrderVisitsChildrenFirst) {
  IRModule mod = sample_module();
  std::vector<std::string> calls;
  post_order_visit(mod.lookup("f"), [&](const Expr& e) {
    if (auto* c = e.as<Call>()) calls.push_back(c->op.as<Op>()->name);
  });
  EXPECT_EQ(calls, (std::vector<std::string>{"relax.add", "relax.nn.relu", "relax.flatten"}));
}

TEST(ExprMutator, IdentityReturnsTheSameNodes) {
  IRModule mod = sample_module();
  BaseFunc f = mod.lookup("f");
  ExprMutator m(mod);
  EXPECT_TRUE(m(f).same_as(f));
  struct Base : ExprMutatorBase {};
  Base b;
  EXPECT_TRUE(b(f).same_as(f));
}

/// Rewrites relu(x) into exp(x) and leaves everything else alone.
struct ReluToExp : ExprMutator {
  using ExprMutator::ExprMutator;
  using ExprMutator::visit_;
  Expr visit_(const Call* call) override {
    Expr e = ExprMutator::visit_(call);
    auto* c = e.as<Call>();
    if (auto* op = c->op.as<Op>(); op && op->name == "relax.nn.relu") return op::exp(c->args[0]);
    return e;
  }
};

TEST(ExprMutator, RewritesOnlyWhatChangesAndReinfers) {
  IRModule mod = sample_module();
  auto f = mod.lookup("f").as_ref<Function>();
  ReluToExp m(mod);
  auto g = m(f).as_ref<Function>();
  ASSERT_FALSE(g.same_as(f));
  const auto& old_bindings = f->body.as<SeqExpr>()->blocks[0]->bindings;
  const auto& new_bindings = g->body.as<SeqExpr>()->blocks[0]->bindings;
  ASSERT_EQ(new_bindings.size(), 3u);
  // The add binding is untouched and shared; the relu binding is rebuilt with struct info.
  EXPECT_TRUE(new_bindings[0].same_as(old_bindings[0]));
  EXPECT_EQ(new_bindings[1]->value.as<Call>()->op.as<Op>()->name, "relax.exp");
  EXPECT_TRUE(new_bindings[1]->value->struct_info.defined());
  // The result type is unchanged, so the variable is kept.
  EXPECT_TRUE(new_bindings[1]->var.same_as(old_bindings[1]->var));
  EXPECT_TRUE(new_bindings[2].same_as(old_bindings[2]));
  IRModule out;
  out.add("f", g);
  EXPECT_TRUE(is_well_formed(out));
}

/// Replaces add(a, b) by the nested relu(add(a, b)); the mutator must re-normalise it.
struct WrapAddInRelu : ExprMutator {
  using ExprMutator::ExprMutator;
  using ExprMutator::visit_;
  Expr visit_(const Call* call) override {
    Expr e = ExprMutator::visit_(call);
    auto* c = e.as<Call>();
    if (auto* op = c->op.as<Op>(); op && op->name == "relax.add") return op::relu(op::add(c->args[0], c->args[1]));
    return e;
  }
};

TEST(ExprMutator, NestedResultsAreFlattenedIntoTheBlock) {
  IRModule mod = sample_module();
  WrapAddInRelu m(mod);
  auto g = m(mod.lookup("f")).as_ref<Function>();
  const auto& bindings = g->body.as<SeqExpr>()->blocks[0]->bindings;
  ASSERT_EQ(bindings.size(), 4u);
  EXPECT_EQ(bindings[0]->value.as<Call>()->op.as<Op>()->name, "relax.add");
  EXPECT_EQ(bindings[1]->value.as<Call>()->op.as<Op>()->name, "relax.nn.relu");
  EXPECT_TRUE(bindings[0]->var.is<DataflowVar>());
  IRModule out;
  out.add("f", g);
  auto errors = well_formed_errors(out);
  EXPECT_TRUE(errors.empty()) << (errors.empty() ? "" : errors[0].to_string());
}

/// Replaces relu(a) with flatten(a): `r` changes from (n, 4) to (n * 4,); its uses follow.
struct ReluToFlatten : ExprMutator {
  using ExprMutator::ExprMutator;
  using ExprMutator::visit_;
  Expr visit_(const Call* call) override {
    Expr e = ExprMutator::visit_(call);
    auto* c = e.as<Call>();
    if (auto* op = c->op.as<Op>(); op && op->name == "relax.nn.relu") return op::flatten(c->args[0]);
    return e;
  }
};

TEST(ExprMutator, ChangedStructInfoMakesANewVariable) {
  IRModule mod = sample_module();
  auto f = mod.lookup("f").as_ref<Function>();
  ReluToFlatten m(mod);
  auto g = m(f).as_ref<Function>();
  const auto& old_bindings = f->body.as<SeqExpr>()->blocks[0]->bindings;
  const auto& new_bindings = g->body.as<SeqExpr>()->blocks[0]->bindings;
  EXPECT_FALSE(new_bindings[1]->var.same_as(old_bindings[1]->var));
  EXPECT_EQ(new_bindings[1]->var->name, "r");
  EXPECT_EQ(new_bindings[1]->var->struct_info.as<TensorStructInfo>()->ndim, 1);
  // The flatten that used `r` now uses the new variable.
  EXPECT_TRUE(new_bindings[2]->value.as<Call>()->args[0].same_as(new_bindings[1]->var));
  IRModule out;
  out.add("f", g);
  EXPECT_TRUE(is_well_formed(out));
}

TEST(ExprMutator, RebuiltNodesKeepTheirSpans) {
  IRModule mod = parse_module(R"(@R.function
def f(x: R.Tensor((2, 4), "float32")):
    with R.dataflow():
        a = R.add(x, x)
        r = R.nn.relu(a)
        out = R.flatten(r)
        R.output(out)
    return out
)",
                              "mut.rx");
  auto f = mod.lookup("f").as_ref<Function>();
  ReluToFlatten m(mod);
  auto g = m(f).as_ref<Function>();
  const auto& old_bindings = f->body.as<SeqExpr>()->blocks[0]->bindings;
  const auto& bindings = g->body.as<SeqExpr>()->blocks[0]->bindings;
  ASSERT_EQ(bindings.size(), 3u);
  // r's binding and its new variable (another struct info) keep r's place; the flatten built
  // in code has none.
  EXPECT_FALSE(bindings[1]->var.same_as(old_bindings[1]->var));
  EXPECT_EQ(bindings[1]->span.to_string(), "mut.rx:5:9");
  EXPECT_EQ(bindings[1]->var->span.to_string(), "mut.rx:5:9");
  EXPECT_FALSE(bindings[1]->value->span.defined());
  // out's call is rebuilt (its argument is the new r) and re-inferred, and keeps its place.
  EXPECT_FALSE(bindings[2]->value.same_as(old_bindings[2]->value));
  EXPECT_EQ(bindings[2]->value->span.to_string(), "mut.rx:6:15");
  EXPECT_EQ(bindings[2]->span.to_string(), "mut.rx:6:9");
}

TEST(ExprMutatorBase, RebuiltNodesKeepTheirSpans) {
  IRModule mod = parse_module(R"(@R.function
def f(x: R.Tensor((2, 4), "float32"), y: R.Tensor((2, 4), "float32")):
    a = R.add(x, y)
    return a
)",
                              "base.rx");
  auto f = mod.lookup("f").as_ref<Function>();
  // Swaps the parameters in every use: the call and its binding are rebuilt, not normalised.
  struct Swap : ExprMutatorBase {
    Ref<Var> x, y;
    using ExprMutatorBase::visit_;
    Expr visit_(const Var* v) override { return v == x.get() ? Expr(y) : v == y.get() ? Expr(x) : Expr(v); }
  } swap;
  swap.x = f->params[0];
  swap.y = f->params[1];
  auto g = swap(f).as_ref<Function>();
  ASSERT_FALSE(g.same_as(f));
  const Binding& b = g->body.as<SeqExpr>()->blocks[0]->bindings[0];
  EXPECT_FALSE(b.same_as(f->body.as<SeqExpr>()->blocks[0]->bindings[0]));
  EXPECT_TRUE(b->value.as<Call>()->args[0].same_as(f->params[1]));
  EXPECT_EQ(b->span.to_string(), "base.rx:3:5");
  EXPECT_EQ(b->value->span.to_string(), "base.rx:3:9");
  EXPECT_EQ(g->span.to_string(), "base.rx:1:1");
}

}  // namespace
}  // namespace relax
