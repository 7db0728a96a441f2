// BlockBuilder and source spans (ir/block_builder.h): an error raised while normalising a node
// with a span is placed there, the innermost place winning, and what normalisation rebuilds or
// emits keeps the place it came from. The spans here are made up; the parser's are tested in
// tests/unit/text/parser_spans_test.cc.
#include <gtest/gtest.h>

#include "relax/ir/block_builder.h"
#include "relax/ir/op.h"
#include "relax/op/op.h"

namespace relax {
namespace {

const DataType f32 = DataType::Float(32);

Span at(int line, int col) { return Span(SourceSpan{"code.rx", line, col, line, col}); }

/// R.add(a, b) placed at `span`.
Expr add_at(Expr a, Expr b, Span span) {
  return make_ref<Call>(get_op("relax.add"), std::vector<Expr>{std::move(a), std::move(b)}, Attrs(),
                        std::vector<StructInfo>{}, StructInfo(), std::move(span));
}

/// The relax::Error that normalising `e` raises; a test failure when none is.
Error normalize_error(const Expr& e) {
  BlockBuilder bb;
  try {
    bb.normalize(e);
  } catch (const Error& err) {
    return err;
  }
  ADD_FAILURE() << "expected normalisation to fail";
  return Error("normalised without error");
}

TEST(BlockBuilderSpans, InferenceErrorIsPlacedAtTheCall) {
  auto x = make_var("x", tensor_sinfo(const_shape({2, 3}), f32));
  auto y = make_var("y", tensor_sinfo(const_shape({4, 3}), f32));
  Error e = normalize_error(add_at(x, y, at(7, 3)));
  EXPECT_EQ(std::string(e.what()).rfind("code.rx:7:3: error: relax.add:", 0), 0u) << e.what();
  // Without a span the error is as before: no place.
  Error bare = normalize_error(op::add(x, y));
  EXPECT_FALSE(bare.span().defined());
  EXPECT_EQ(std::string(bare.what()).rfind("error: relax.add:", 0), 0u) << bare.what();
}

TEST(BlockBuilderSpans, TheInnermostPlaceWins) {
  auto x = make_var("x", tensor_sinfo(const_shape({2, 3}), f32));
  auto y = make_var("y", tensor_sinfo(const_shape({4, 3}), f32));
  // add(add(x, y) at 2:5, x) at 1:1: the inner call is the ill-typed one.
  Error e = normalize_error(add_at(add_at(x, y, at(2, 5)), x, at(1, 1)));
  EXPECT_EQ(e.span().line, 2);
  EXPECT_EQ(e.span().column, 5);
  // An inner node without a place takes the enclosing one.
  Error outer = normalize_error(add_at(op::add(x, y), x, at(1, 1)));
  EXPECT_EQ(outer.span().line, 1);
}

TEST(BlockBuilderSpans, NormalisationKeepsPlaces) {
  auto x = make_var("x", tensor_sinfo(const_shape({2, 3}), f32));
  BlockBuilder bb;
  bb.begin_function("f", {x}, true, {}, at(1, 1));
  // The nested call is bound to a variable of its own; that binding takes the call's place.
  Ref<VarNode> v = bb.emit(add_at(add_at(x, x, at(3, 15)), x, at(3, 9)), "v");
  Ref<GlobalVar> gv = bb.end_function(v);
  auto f = bb.module().lookup(gv->name).as_ref<Function>();
  EXPECT_EQ(f->span.to_string(), "code.rx:1:1");
  const auto& bindings = f->body.as<SeqExpr>()->blocks[0]->bindings;
  ASSERT_EQ(bindings.size(), 2u);
  EXPECT_EQ(bindings[0]->value->span.to_string(), "code.rx:3:15");
  EXPECT_EQ(bindings[0]->span.to_string(), "code.rx:3:15");
  EXPECT_EQ(bindings[0]->var->span.to_string(), "code.rx:3:15");
  // The outer call was rebuilt with struct info and a leaf argument, and kept its place.
  EXPECT_TRUE(bindings[1]->value->struct_info.defined());
  EXPECT_EQ(bindings[1]->value->span.to_string(), "code.rx:3:9");
  EXPECT_EQ(bindings[1]->span.to_string(), "code.rx:3:9");
}

}  // namespace
}  // namespace relax
