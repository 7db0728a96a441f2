// The dataflow pattern library of the fusion plugin (plugins/passes/fusion/pattern.h, compiled
// into this test): builders, matching through the bindings of a block, predicates,
// alternatives, commutative calls, and the text form (round trip and errors).
#include "pattern.h"

#include <gtest/gtest.h>

#include <unordered_map>

#include "relax/text/parser.h"
#include "relax/support/diagnostic.h"
#include "../../common/error_of.h"

namespace relax::fusion {
namespace {

using test::error_of;

constexpr const char* kConv = R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 3, 6, 6), "float32"), k: R.Tensor((4, 3, 3, 3), "float32"), b: R.Tensor((1, 4, 1, 1), "float32"), k2: R.Tensor((4, 4, 3, 3), "float32")) -> R.Tensor((1, 4, 2, 2), "float32"):
        with R.dataflow():
            c = R.nn.conv2d(x, k)
            a = R.add(b, c)
            r = R.nn.relu(a)
            c2 = R.nn.conv2d(r, k2, strides=[2, 2], padding=[1, 1, 1, 1])
            s = R.multiply(c2, R.const(2, "float32"))
            R.output(s)
        return s
)";

/// The bindings of main's first block by variable name, and a resolver through them.
class PatternTest : public ::testing::Test {
 protected:
  PatternTest() : mod_(parse_module(kConv, "conv.rx")) {
    auto* f = mod_.lookup("main").as<Function>();
    for (const Binding& b : f->body.as<SeqExpr>()->blocks[0]->bindings) {
      vars_[b->var->name] = b->var;
      values_[b->var.get()] = b->value;
    }
    params_ = f->params;
    resolve_ = [this](const VarNode* v) -> Expr {
      auto it = values_.find(v);
      return it == values_.end() ? Expr() : it->second;
    };
  }

  std::optional<PatternMatch> run(const Pattern& p, const std::string& root) {
    return match(p, vars_.at(root), resolve_);
  }

  std::vector<std::string> names(const std::vector<Ref<VarNode>>& vars) {
    std::vector<std::string> out;
    for (const auto& v : vars) out.push_back(v->name);
    return out;
  }

  IRModule mod_;
  std::unordered_map<std::string, Ref<VarNode>> vars_;
  std::unordered_map<const VarNode*, Expr> values_;
  std::vector<Ref<Var>> params_;
  VarResolver resolve_;
};

TEST_F(PatternTest, ChainBindsInputsAndIntermediates) {
  Pattern x = wildcard("x"), w = wildcard("w"), b = wildcard("b");
  Pattern p = is_op("relax.nn.relu")(is_op("relax.add")(is_op("relax.nn.conv2d")(x, w), b));
  auto m = run(p, "r");
  ASSERT_TRUE(m);
  EXPECT_EQ(names(m->intermediates), (std::vector<std::string>{"r", "a", "c"}));
  // relax.add(b, c) matched with its arguments swapped.
  EXPECT_TRUE(m->named.at("x").same_as(params_[0]));
  EXPECT_TRUE(m->named.at("w").same_as(params_[1]));
  EXPECT_TRUE(m->named.at("b").same_as(params_[2]));
  EXPECT_EQ(m->inputs.size(), 3u);
  // Not rooted at the relu: no match at the add's consumer of another kind.
  EXPECT_FALSE(run(p, "s"));
  // Without a resolver, nothing is looked through.
  EXPECT_FALSE(match(p, vars_.at("r")));
}

TEST_F(PatternTest, ShiftBuildsTheSameChain) {
  Pattern p = is_op("relax.nn.conv2d")(wildcard(), wildcard()) >> is_op("relax.add") >>
              is_op("relax.nn.relu");
  EXPECT_EQ(to_string(p), "relax.nn.relu(relax.add(relax.nn.conv2d(_, _), _))");
  EXPECT_TRUE(run(p, "r"));
}

TEST_F(PatternTest, AttributePredicates) {
  Pattern conv = is_op("relax.nn.conv2d")(wildcard(), wildcard());
  // The first conv omits strides: the op's default (1, 1) counts.
  EXPECT_TRUE(run(conv.has_attr("strides", std::vector<int64_t>{1, 1}), "c"));
  EXPECT_FALSE(run(conv.has_attr("strides", std::vector<int64_t>{1, 1}), "c2"));
  EXPECT_TRUE(run(conv.has_attr("strides", std::vector<int64_t>{2, 2}), "c2"));
  EXPECT_TRUE(run(conv.has_attr("data_layout", std::string("NCHW")), "c2"));
  EXPECT_FALSE(run(conv.has_attr("no_such_attr", int64_t(1)), "c"));
  EXPECT_THROW(wildcard().has_attr("strides", int64_t(1)), Error);
}

TEST_F(PatternTest, StructInfoPredicatesAndConstants) {
  Pattern scale = is_op("relax.multiply")(wildcard("x").has_rank(4), is_const("c"));
  auto m = run(scale, "s");
  ASSERT_TRUE(m);
  EXPECT_TRUE(m->named.at("c").is<Constant>());
  EXPECT_TRUE(run(scale.has_dtype(DataType::Float(32)).has_shape({1, 4, -1, 2}), "s"));
  EXPECT_FALSE(run(scale.has_dtype(DataType::Float(16)), "s"));
  EXPECT_FALSE(run(scale.has_shape({1, 4, 3, 3}), "s"));
  // is_const does not match the variable, and a var is not looked through by a wildcard.
  EXPECT_FALSE(run(is_op("relax.multiply")(is_const(), is_const()), "s"));
  auto v = run(is_op("relax.multiply")(is_var("in"), wildcard()), "s");
  ASSERT_TRUE(v);
  EXPECT_TRUE(v->named.at("in").same_as(vars_.at("c2")));
  EXPECT_EQ(names(v->intermediates), std::vector<std::string>{"s"});
  auto odd = [](const Expr& e) { return e.is<Constant>(); };
  EXPECT_TRUE(run(is_op("relax.multiply")(wildcard(), wildcard().where(odd, "a constant")), "s"));
  EXPECT_FALSE(run(is_op("relax.multiply")(wildcard().where(odd, "a constant"),
                                           wildcard().where(odd, "a constant")),
                   "s"));
}

TEST_F(PatternTest, AlternativesGlobsAndRepeatedNames) {
  Pattern act = is_op("relax.nn.gelu")(wildcard()) | is_op("relax.nn.relu")(wildcard());
  EXPECT_TRUE(run(act, "r"));
  EXPECT_FALSE(run(act, "a"));
  EXPECT_TRUE(run(is_op("relax.nn.*")(wildcard(), wildcard()), "c"));
  EXPECT_FALSE(run(is_op("relax.nn.*")(wildcard(), wildcard()), "a"));
  // The same name twice must bind the same expression: b and c differ.
  EXPECT_FALSE(run(is_op("relax.add")(wildcard("y"), wildcard("y")), "a"));
  // Named bindings of a failed alternative do not leak into the next one.
  Pattern alt =
      is_op("relax.add")(is_const("z"), wildcard()) | is_op("relax.add")(wildcard("z"), wildcard());
  auto m = run(alt, "a");
  ASSERT_TRUE(m);
  EXPECT_TRUE(m->named.at("z").same_as(params_[2]));
}

TEST(PatternText, ParsesAndPrintsBack) {
  for (const char* text : {
           "relax.nn.relu(relax.add(relax.nn.conv2d($x, $w){strides=[1, 1], data_layout=\"NCHW\"}, "
           "$b:const))",
           "(relax.nn.relu($x) | relax.nn.gelu($x))",
           "relax.multiply($x[dtype=float32, ndim=2], const)[shape=(2, _)]",
           "relax.nn.*(_, $w:var)",
           "relax.nn.hardsigmoid($x){alpha=0.25, beta=0.5}",
       }) {
    Pattern p = parse_pattern(text, "t");
    EXPECT_EQ(to_string(p), text);
    EXPECT_EQ(to_string(parse_pattern(to_string(p), "t")), text);
  }
  // An int written for a float attribute is read as a float.
  EXPECT_EQ(to_string(parse_pattern("relax.nn.elu($x){alpha=1}")), "relax.nn.elu($x){alpha=1.0}");
}

TEST(PatternText, PatternSets) {
  auto set = parse_pattern_set(
      "# comment\n a.b = relax.nn.relu($x) ; c-d = relax.add($x, $y)\n\n e = relax.nn.relu(_)");
  ASSERT_EQ(set.size(), 3u);
  EXPECT_EQ(set[0].name, "a.b");
  EXPECT_EQ(set[1].name, "c-d");
  EXPECT_EQ(to_string(set[2].pattern), "relax.nn.relu(_)");
  EXPECT_TRUE(parse_pattern_set("  ").empty());
}

TEST(PatternText, ErrorsNameThePatternColumnAndExpectation) {
  auto has = [](const std::string& msg, const std::string& part) {
    return msg.find(part) != std::string::npos;
  };
  std::string e = error_of([] { parse_pattern("relax.add($x $y)", "p1"); });
  EXPECT_TRUE(has(
      e, "pattern 'p1', column 14: expected ',' or ')' after an argument of 'relax.add', got '$'"))
      << e;
  EXPECT_TRUE(has(e, "relax.add($x $y)\n               ^")) << e;
  e = error_of([] { parse_pattern("relax.nn.relux($x)", "p2"); });
  EXPECT_TRUE(has(e, "pattern 'p2', column 1: unknown op 'relax.nn.relux'")) << e;
  e = error_of([] { parse_pattern("relax.add($x)", "p3"); });
  EXPECT_TRUE(has(e, "op 'relax.add' takes 2 argument(s) (x1, x2), got 1")) << e;
  e = error_of([] { parse_pattern("relax.nn.relu($x){a=1}", "p4"); });
  EXPECT_TRUE(has(e, "column 19: op 'relax.nn.relu' has no attribute 'a'; it takes none")) << e;
  e = error_of([] { parse_pattern("$x{strides=[1]}", "p5"); });
  EXPECT_TRUE(has(e, "column 3: attribute predicates '{...}' apply to op calls only")) << e;
  e = error_of([] { parse_pattern("relax.nn.conv2d($x, $w){strides=\"one\"}", "p6"); });
  EXPECT_TRUE(has(e, "attribute 'strides' is")) << e;
  e = error_of([] { parse_pattern("$x[dtype=float33]", "p7"); });
  EXPECT_TRUE(has(e, "column 10: expected a dtype (float32, int64, ...), got 'float33'")) << e;
  e = error_of([] { parse_pattern("relax.nn.relu($x", "p8"); });
  EXPECT_TRUE(has(e,
                  "column 17: expected ',' or ')' after an argument of 'relax.nn.relu', got the "
                  "end of the pattern"))
      << e;
  e = error_of([] { parse_pattern("relax.nn.relu($x) $y", "p9"); });
  EXPECT_TRUE(has(e, "column 19: expected the end of the pattern or '|', got '$'")) << e;
  e = error_of([] { parse_pattern_set("a = relax.nn.relu($x); a = relax.nn.relu($x)"); });
  EXPECT_TRUE(has(e, "pattern 'a' is given twice")) << e;
  e = error_of([] { parse_pattern_set("relax.nn.relu($x)"); });
  EXPECT_TRUE(has(e, "pattern entry 1: expected `NAME = PATTERN`")) << e;
}

}  // namespace
}  // namespace relax::fusion
