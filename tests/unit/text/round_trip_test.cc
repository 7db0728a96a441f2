// Round trips of the less common constructs: local functions (closures) bound in a function
// body, ops used as values, consecutive plain binding blocks (one block in text) and
// float16/bfloat16 constants (printed as values).
#include <cstring>
#include <limits>

#include "relax/ir/block_builder.h"
#include "relax/ir/op.h"
#include "relax/ir/well_formed.h"
#include "relax/op/op.h"
#include "relax/runtime/ndarray.h"
#include "relax/kernel/interpreter.h"
#include "text_test_util.h"

namespace relax {
namespace {

using testing::expect_fixed_point;
using testing::expect_parse_error;
using testing::expect_round_trip;

const DataType f32 = DataType::Float(32);

const char* kLocalFunctions = R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
        c = R.add(x, x)

        @R.function
        def inner(y: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
            z = R.multiply(y, c)
            return z

        @R.function
        def shaped(a: R.Tensor(("m",), dtype="float32")) -> R.Tensor(("m",), dtype="float32"):
            m = T.int64()
            b = R.exp(a)
            return b

        r = inner(x)
        s = shaped(r)
        with R.dataflow():
            @R.function
            def twice(q: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
                w = inner(q)
                return w

            gv = twice(s)
            R.output(gv)
        return gv
)";

TEST(RoundTrip, LocalFunctionsPrintNestedAndCaptureOuterVariables) {
  IRModule m = expect_fixed_point(kLocalFunctions);
  EXPECT_TRUE(is_well_formed(m)) << well_formed_errors(m)[0].to_string();
  std::string text = expect_round_trip(m);
  // TVM's spelling: the definition nested in the body, then used as a variable.
  EXPECT_NE(text.find("        @R.function\n"
                      "        def inner(y: R.Tensor((2,), dtype=\"float32\")) -> "
                      "R.Tensor((2,), dtype=\"float32\"):\n"
                      "            z: R.Tensor((2,), dtype=\"float32\") = R.multiply(y, c)\n"
                      "            return z\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("r: R.Tensor((2,), dtype=\"float32\") = inner(x)"), std::string::npos);

  auto main = m.lookup("main").as_ref<Function>();
  auto* seq = main->body.as<SeqExpr>();
  ASSERT_EQ(seq->blocks.size(), 2u);
  const auto& bs = seq->blocks[0]->bindings;
  ASSERT_EQ(bs.size(), 5u);
  auto* inner = bs[1]->value.as<Function>();
  ASSERT_NE(inner, nullptr);
  EXPECT_EQ(bs[1]->var->name, "inner");
  // The captured `c` is the outer binding's variable itself.
  auto* mul = inner->body.as<SeqExpr>()->blocks[0]->bindings[0]->value.as<Call>();
  ASSERT_NE(mul, nullptr);
  EXPECT_TRUE(mul->args[1].same_as(bs[0]->var));
  // The call goes through the local function's variable.
  EXPECT_TRUE(bs[3]->value.as<Call>()->op.same_as(bs[1]->var));
  // Inside a dataflow block the local function is bound to a DataflowVar.
  EXPECT_TRUE(seq->blocks[1]->bindings[0]->var.is<DataflowVar>());
}

TEST(RoundTrip, LocalFunctionErrors) {
  expect_parse_error(R"(
@R.function
def main(x: R.Tensor((2,), dtype="float32")):
    def inner(y: R.Tensor((2,), dtype="float32")):
        return y
    return x
)",
                     "needs the @R.function decorator", 4, 5);
  // A local function's names do not leak out of it.
  expect_parse_error(R"(
@R.function
def main(x: R.Tensor((2,), dtype="float32")):
    @R.function
    def inner(y: R.Tensor((2,), dtype="float32")):
        z = R.exp(y)
        return z
    return z
)",
                     "undefined variable 'z'", 8, 12);
  // The local function's own purity is checked, not the enclosing one's.
  expect_parse_error(R"(
@R.function(pure=False)
def main(x: R.Tensor((2,), dtype="float32")):
    @R.function
    def inner(y: R.Tensor((2,), dtype="float32")):
        R.call_packed("log", y, sinfo_args=R.Object)
        return y
    return x
)",
                     "function 'inner' is pure but calls R.call_packed", 6, 9);
}

TEST(RoundTrip, CallableResultWithSymbolicParametersReadsBack) {
  // pick returns a function value whose parameter shape has its own symbolic variable n. The
  // caller's binding prints that callable type as its annotation, where reading it back makes
  // another n: the two signatures are the same up to renaming the variables their parameters
  // define (a fuzz_rx finding: the annotation "could not be proven" from itself).
  IRModule m = expect_fixed_point(R"(
@I.ir_module
class Module:
    @R.function
    def pick(x: R.Tensor((2, 3), dtype="float32")) -> R.Callable((R.Tensor((n, 3), dtype="float32"),), R.Tensor((n, 3), dtype="float32")):
        n = T.int64()

        @R.function
        def neg(v: R.Tensor((n, 3), dtype="float32")) -> R.Tensor((n, 3), dtype="float32"):
            w = R.negative(v)
            return w
        return neg

    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        cls = Module
        f = cls.pick(x)
        a = f(x)
        return a
)");
  expect_round_trip(m);
}

TEST(RoundTrip, CalleeVariablesNoParameterBindsAreErasedAtTheCall) {
  // pick's result type mentions variables of its own that no parameter binds (free in its
  // signature: a compound dimension defines nothing). The caller cannot name them, so the call's
  // struct info keeps only the rank there; before, main printed them as its own variables and
  // reading that back made other ones, which "could not be proven" (a fuzz_rx finding).
  IRModule m = expect_fixed_point(R"(
@I.ir_module
class Module:
    @R.function
    def pick(x: R.Tensor((2, 3), dtype="float32")) -> R.Callable((R.Tensor((a - b, 3), dtype="float32"),), R.Tensor((2, 3), dtype="float32")):
        a = T.int64()
        b = T.int64()

        @R.function
        def neg(v: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
            w = R.negative(v)
            return w
        return neg

    @R.function
    def split(x: R.Tensor(("n",), dtype="float32")) -> R.Tuple(R.Tensor(("n",), dtype="float32"), R.Tensor(("k",), dtype="float32")):
        n = T.int64()
        k = T.int64()
        y = R.match_cast(x, R.Tensor((k,), dtype="float32"))
        return (x, y)

    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32"), y: R.Tensor((5,), dtype="float32")):
        cls = Module
        f = cls.pick(x)
        a = f(x)
        s = cls.split(y)
        return (a, s)
)");
  std::string text = expect_round_trip(m);
  auto* seq = m.lookup("main").as_ref<Function>()->body.as<SeqExpr>();
  const auto& bs = seq->blocks[0]->bindings;
  ASSERT_EQ(bs.size(), 3u);  // f, a, s
  EXPECT_EQ(to_string(get_struct_info(bs[0]->var)),
            "Callable((Tensor(ndim=2, float32)), Tensor((2, 3), float32), pure)");
  // n is bound by the argument (5); k is split's own.
  EXPECT_EQ(to_string(get_struct_info(bs[2]->var)),
            "Tuple(Tensor((5,), float32), Tensor(ndim=1, float32))");
  EXPECT_EQ(text.find("    def main(x: R.Tensor((2, 3), dtype=\"float32\"), y: R.Tensor((5,), dtype=\"float32\"))"
                      ":\n        a = T.int64()"),
            std::string::npos)
      << text;
}

TEST(RoundTrip, LocalCalleeKeepsTheVariablesItSharesWithItsCaller) {
  // inner's result mentions m, defined by main's parameter: the call keeps it.
  IRModule m = expect_fixed_point(R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("m", 2), dtype="float32")) -> R.Tensor(("m", 2), dtype="float32"):
        m = T.int64()

        @R.function
        def inner(y: R.Tensor((2,), dtype="float32")) -> R.Tensor((m, 2), dtype="float32"):
            z = R.add(x, y)
            return z

        r = inner(R.const([1, 2], "float32"))
        return r
)");
  auto* seq = m.lookup("main").as_ref<Function>()->body.as<SeqExpr>();
  EXPECT_EQ(to_string(get_struct_info(seq->blocks[0]->bindings[1]->var)), "Tensor((m, 2), float32)");
}

TEST(RoundTrip, OpAsAValue) {
  IRModule m = expect_fixed_point(R"(
@R.function
def main(x: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
    y = R.call_pure_packed("apply", R.nn.relu, R.add, x, sinfo_args=R.Tensor((2,), dtype="float32"))
    return y
)");
  std::string text = expect_round_trip(m);
  EXPECT_NE(text.find("R.call_pure_packed(\"apply\", R.nn.relu, R.add, x, "), std::string::npos)
      << text;
  auto* call = m.lookup("main")
                   .as_ref<Function>()
                   ->body.as<SeqExpr>()
                   ->blocks[0]
                   ->bindings[0]
                   ->value.as<Call>();
  ASSERT_NE(call, nullptr);
  EXPECT_TRUE(call->args[1].same_as(get_op("relax.nn.relu")));
  EXPECT_TRUE(call->args[2].same_as(get_op("relax.add")));
  expect_parse_error(R"(
@R.function
def main(x: R.Tensor((2,), dtype="float32")):
    y = R.call_pure_packed("apply", R.no_such_op, x, sinfo_args=R.Tensor((2,), dtype="float32"))
    return y
)",
                     "there is no op 'relax.no_such_op'", 4, 37);
}

TEST(RoundTrip, ConsecutivePlainBlocksAreOneBlockInText) {
  BlockBuilder bb;
  auto x = make_var("x", tensor_sinfo({tir::int_imm(2)}, f32));
  bb.begin_function("main", {x});
  bb.begin_binding_block();
  auto a = bb.emit(op::exp(x), "a");
  bb.begin_binding_block();
  auto b = bb.emit(op::add(a, x), "b");
  bb.end_function(b);
  IRModule m = bb.get_module();
  ASSERT_EQ(m.lookup("main").as_ref<Function>()->body.as<SeqExpr>()->blocks.size(), 2u);
  // The round trip holds up to the merge; the parsed function has one block.
  expect_round_trip(m);
  IRModule back = parse_module(print_module(m));
  EXPECT_EQ(back.lookup("main").as_ref<Function>()->body.as<SeqExpr>()->blocks.size(), 1u);
  EXPECT_TRUE(structural_equal(testing::merge_plain_blocks(m), back));
  EXPECT_FALSE(structural_equal(m, back));
}

uint16_t bits_at(const IRModule& m, size_t i) {
  auto* seq = m.lookup("main").as_ref<Function>()->body.as<SeqExpr>();
  const runtime::NDArray& a = seq->body.as<Constant>()
                                  ? seq->body.as<Constant>()->data
                                  : seq->blocks[0]->bindings[0]->value.as<Constant>()->data;
  uint16_t v;
  std::memcpy(&v, static_cast<const char*>(a.data()) + 2 * i, 2);
  return v;
}

IRModule constant_module(DataType t, const std::vector<uint16_t>& bits) {
  BlockBuilder bb;
  bb.begin_function("main", {});
  auto c = make_constant(runtime::NDArray::from_bytes({int64_t(bits.size())}, t, bits.data()));
  bb.end_function(c);
  return bb.get_module();
}

TEST(RoundTrip, HalfConstantsPrintAsValues) {
  float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<uint16_t> half{
      tir::float_to_half(1.5f),     tir::float_to_half(0.1f), tir::float_to_half(-65504.0f),
      tir::float_to_half(0x1p-24f), 0x8000 /* -0.0 */,        0x7C00 /* inf */,
      tir::float_to_half(nan)};
  std::string text = expect_round_trip(constant_module(DataType::Float(16), half));
  EXPECT_NE(text.find("R.const([1.5, 0.099975586, -65504.0, 5.9604645e-08, -0.0, "
                      "float(\"inf\"), float(\"nan\")], \"float16\")"),
            std::string::npos)
      << text;

  std::vector<uint16_t> bf16{tir::float_to_bfloat16(1.5f), tir::float_to_bfloat16(0.1f),
                             tir::float_to_bfloat16(-3e38f)};
  text = expect_round_trip(constant_module(DataType::BFloat(16), bf16));
  EXPECT_NE(text.find("R.const([1.5, 0.100097656, -3.0040553e+38], \"bfloat16\")"),
            std::string::npos)
      << text;

  // Values in the text round to nearest even; integers are values too.
  IRModule m = parse_module(R"(
@R.function
def main() -> R.Tensor((3,), dtype="float16"):
    return R.const([0.1, 2, 1e9], "float16")
)");
  EXPECT_EQ(bits_at(m, 0), tir::float_to_half(0.1f));
  EXPECT_EQ(bits_at(m, 1), 0x4000);
  EXPECT_EQ(bits_at(m, 2), 0x7C00);
}

TEST(RoundTrip, HalfNanPayloadsKeepTheirBits) {
  std::vector<uint16_t> half{0x3C00, 0x7E01};
  std::string text = expect_round_trip(constant_module(DataType::Float(16), half));
  EXPECT_NE(text.find("R.const([15360, 32257], \"float16\", bits=True)"), std::string::npos)
      << text;
  expect_parse_error(R"(
@R.function
def main():
    return R.const([1.5], "float32", bits=True)
)",
                     "only for float16 and bfloat16", 4, 43);
  expect_parse_error(R"(
@R.function
def main():
    return R.const([1.5], "float16", bits=True)
)",
                     "16-bit patterns", 4, 21);
}

TEST(RoundTrip, LayoutTransformIndexMapAttributes) {
  // relax.layout_transform carries its IndexMap as attributes (parameter vars and result
  // expressions): they print and parse back, the free variables bound by the attribute.
  BlockBuilder bb;
  Ref<Var> x = make_var("x", tensor_sinfo(const_shape({8, 3}), f32));
  bb.begin_function("main", {x});
  auto i = tir::var("i"), j = tir::var("j");
  Expr y = bb.emit(op::layout_transform(x, {i, j}, {tir::floordiv(i, 4), j, tir::floormod(i, 4)},
                                        0.0),
                   "y");
  bb.end_function(y);
  std::string text = expect_round_trip(bb.module());
  EXPECT_NE(text.find("R.layout_transform(x"), std::string::npos) << text;
}

}  // namespace
}  // namespace relax
