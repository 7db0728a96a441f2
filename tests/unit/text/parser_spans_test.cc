// Source spans from the parser (text/parser.h, ir/expr.h): the nodes it builds carry
// file:line:column, and errors raised later about them — struct-info inference through the
// BlockBuilder, op attribute checks — name that place. Line and column numbers below count
// from the first line of each source string.
#include <gtest/gtest.h>

#include <string>

#include "relax/ir/expr.h"
#include "relax/ir/structural_equal.h"
#include "relax/text/parser.h"
#include "relax/text/printer.h"

namespace relax {
namespace {

/// The relax::Error that parsing `text` as file `file` raises; a test failure when none is.
Error parse_error(const std::string& text, const std::string& file) {
  try {
    parse_module(text, file);
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "expected " << file << " not to parse";
  return Error("parsed without error");
}

/// Checks that `e` is placed at file:line:col — in its diagnostic and in the printed message
/// — that it mentions `needle`, and that it shows the source line with a caret.
void expect_at(const Error& e, const std::string& file, int line, int col,
               const std::string& needle) {
  std::string place = file + ":" + std::to_string(line) + ":" + std::to_string(col) + ":";
  std::string what = e.what();
  EXPECT_EQ(what.rfind(place, 0), 0u) << "expected the error at " << place << ", got:\n" << what;
  EXPECT_EQ(e.span().file, file);
  EXPECT_EQ(e.span().line, line) << what;
  EXPECT_EQ(e.span().column, col) << what;
  EXPECT_NE(what.find(needle), std::string::npos) << "expected '" << needle << "' in:\n" << what;
  EXPECT_NE(what.find("^"), std::string::npos) << "expected a caret line in:\n" << what;
}

TEST(ParserSpans, NodesCarryTheirPlace) {
  IRModule m = parse_module(R"(@R.function
def main(x: R.Tensor((2, 3), "float32")):
    with R.dataflow():
        y = R.exp(x)
        z = R.add(R.exp(y), x)
        R.output(z)
    return z
)",
                            "nodes.rx");
  auto f = m.lookup("main").as_ref<Function>();
  ASSERT_TRUE(f.defined());
  EXPECT_EQ(f->params[0]->span.to_string(), "nodes.rx:2:10");
  auto* seq = f->body.as<SeqExpr>();
  ASSERT_EQ(seq->blocks.size(), 1u);
  const auto& bs = seq->blocks[0]->bindings;
  ASSERT_EQ(bs.size(), 3u);  // y, the flattened inner R.exp, z
  EXPECT_EQ(bs[0]->span.to_string(), "nodes.rx:4:9");
  EXPECT_EQ(bs[0]->var->span.to_string(), "nodes.rx:4:9");
  EXPECT_EQ(bs[0]->value->span.to_string(), "nodes.rx:4:13");
  // The nested call bound by normalisation keeps its own place, and so does its binding.
  EXPECT_EQ(bs[1]->value->span.to_string(), "nodes.rx:5:19");
  EXPECT_EQ(bs[1]->span.to_string(), "nodes.rx:5:19");
  EXPECT_EQ(bs[2]->span.to_string(), "nodes.rx:5:9");
  EXPECT_EQ(bs[2]->value->span.to_string(), "nodes.rx:5:13");
}

TEST(ParserSpans, SpansAreNotPartOfTheIR) {
  // The same program, two lines lower in another file: equal, hash-equal, printed alike.
  const std::string text = R"(@R.function
def main(x: R.Tensor((2, 3), "float32")):
    y = R.add(R.exp(x), x)
    return y
)";
  IRModule a = parse_module(text, "a.rx");
  IRModule b = parse_module("\n\n" + text, "b.rx");
  EXPECT_EQ(a.lookup("main")->span.to_string(), "a.rx:1:1");
  EXPECT_EQ(b.lookup("main")->span.to_string(), "b.rx:3:1");
  EXPECT_TRUE(structural_equal(a, b));
  EXPECT_EQ(structural_hash(a), structural_hash(b));
  EXPECT_EQ(print_module(a), print_module(b));
  EXPECT_EQ(print_module(a).find("a.rx"), std::string::npos);
}

TEST(ParserSpans, MatchCastBindingHasItsStatement) {
  IRModule m = parse_module(R"(@R.function
def main(x: R.Tensor(ndim=1, dtype="float32")):
    n = T.int64()
    y = R.match_cast(x, R.Tensor((n,), "float32"))
    return y
)",
                            "cast.rx");
  auto f = m.lookup("main").as_ref<Function>();
  const Binding& b = f->body.as<SeqExpr>()->blocks[0]->bindings[0];
  ASSERT_TRUE(b.is<MatchCast>());
  EXPECT_EQ(b->span.to_string(), "cast.rx:4:5");
}

// (a) Struct-info inference fails during parsing, inside the BlockBuilder: the error names the
// call, not the statement around it.
TEST(ParserSpans, InferenceErrorNamesTheCall) {
  expect_at(parse_error(R"(@R.function
def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((4, 3), "float32")):
    with R.dataflow():
        z = R.add(x, y)
        R.output(z)
    return z
)",
                        "shapes.rx"),
            "shapes.rx", 4, 13, "relax.add");
}

TEST(ParserSpans, InferenceErrorInANestedCallNamesTheInnerCall) {
  expect_at(parse_error(R"(@R.function
def main(x: R.Tensor((2, 3), "float32"), w: R.Tensor((4, 5), "float32")):
    z = R.add(R.matmul(x, w), R.const(1.0, "float32"))
    return z
)",
                        "matmul.rx"),
            "matmul.rx", 3, 15, "relax.matmul");
}

TEST(ParserSpans, InferenceErrorInAReturnedCall) {
  expect_at(parse_error(R"(@R.function
def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((3, 2), "float32")):
    return R.add(x, y)
)",
                        "ret.rx"),
            "ret.rx", 3, 12, "relax.add");
}

// (c) Op attributes: a value of the wrong kind is reported where it is written; an unknown
// keyword at its value; a missing required attribute (found by the op's check during
// normalisation) at the call.
TEST(ParserSpans, AttributeErrorsNameTheirPlace) {
  const std::string head = R"(@R.function
def main(x: R.Tensor((2, 3), "float32")):
)";
  expect_at(parse_error(head + "    y = R.sum(x, axis=\"a\")\n    return y\n", "attr.rx"),
            "attr.rx", 3, 23, "R.sum: attribute 'axis' should be a list of integers");
  expect_at(parse_error(head + "    y = R.sum(x, axes=[0])\n    return y\n", "attr.rx"), "attr.rx",
            3, 23, "R.sum has no attribute 'axes'");
  expect_at(
      parse_error(head + "    y = R.exp(x)\n    z = R.einsum((x, y))\n    return z\n", "attr.rx"),
      "attr.rx", 4, 9, "attribute 'subscripts' is required");
}

}  // namespace
}  // namespace relax
