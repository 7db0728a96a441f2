// Malformed input: every case is a relax::Error whose diagnostic names the problem and points
// at file:line:column, with the source line and a caret in the message.
#include "text_test_util.h"

namespace relax {
namespace {

using testing::expect_parse_error;

const std::string kHead =
    "@R.function\ndef f(x: R.Tensor((2, 3), \"float32\"), s: R.Shape([2, 3])):\n";

TEST(ParserErrors, TruncatedFile) {
  expect_parse_error("@R.function\ndef f(x: R.Tensor((2,", "'(' was never closed", 2, 19);
  expect_parse_error(kHead + "    y = R.exp(x)\n", "function 'f' must end with a return statement",
                     3, 5);
  expect_parse_error("@R.function\ndef f(x: R.Tensor((2,), \"float32\")):",
                     "expected an indented block, got end of input", 2, 37);
  expect_parse_error("@R.function\n",
                     "expected 'def' or 'class' after a decorator, got end of input", 2, 1);
}

TEST(ParserErrors, BadIndentation) {
  expect_parse_error(kHead + "    y = R.exp(x)\n  return y\n",
                     "unindent does not match any outer indentation level", 4, 3);
  expect_parse_error(kHead + "    y = R.exp(x)\n        z = R.exp(y)\n    return z\n",
                     "unexpected indentation", 4, 9);
  expect_parse_error("  @R.function\n", "unexpected indentation at the start of the file", 1, 3);
}

TEST(ParserErrors, UnbalancedBrackets) {
  expect_parse_error(kHead + "    y = R.add(x, x]\n    return y\n",
                     "closing ']' does not match '(' opened at line 3", 3, 19);
  expect_parse_error(kHead + "    y = R.exp(x))\n    return y\n", "unmatched ')'", 3, 17);
}

TEST(ParserErrors, DimensionsThatAreNotIntegers) {
  // Every spelling of a shape checks its dimensions as an annotation does: a float dimension in
  // R.call_tir's (shape, dtype) form printed as out_sinfo that did not read back (a fuzz_rx
  // finding).
  expect_parse_error(kHead + "    y = R.call_tir(\"k\", (x,), (2, 1.5), dtype=\"float32\")\n    return y\n",
                     "a shape dimension must be an integer, got float32", 3, 35);
  expect_parse_error(kHead + "    y = R.shape([2, 0.5])\n    return y\n",
                     "a shape value must be an integer, got float32", 3, 21);
  expect_parse_error(kHead + "    y = R.match_shape(x, (2, 3.0))\n    return y\n",
                     "a shape pattern dimension must be an integer, got float32", 3, 30);
  expect_parse_error(kHead + "    y: R.Tensor((2, 1.5), \"float32\") = x\n    return y\n",
                     "a shape dimension must be an integer, got float32", 3, 21);
}

TEST(ParserErrors, UnknownOps) {
  expect_parse_error(kHead + "    y = R.exq(x)\n    return y\n",
                     "unknown op 'relax.exq'; did you mean 'relax.exp'?", 3, 9);
  expect_parse_error(kHead + "    y = R.nn.frobnicate(x)\n    return y\n",
                     "unknown op 'relax.nn.frobnicate'", 3, 9);
  expect_parse_error(kHead + "    y = R.permute_dims(x, axis=[1, 0])\n    return y\n",
                     "R.permute_dims has no attribute 'axis'; valid attributes: axes", 3, 32);
  expect_parse_error(kHead + "    y = R.matmul(x, x, out_dtype=3)\n    return y\n",
                     "expected a dtype such as \"float32\"", 3, 34);
}

TEST(ParserErrors, UndefinedNames) {
  expect_parse_error(kHead + "    y = R.add(x, w)\n    return y\n", "undefined variable 'w'", 3,
                     18);
  expect_parse_error(kHead + "    y = R.reshape(x, (k, 6))\n    return y\n",
                     "undefined variable 'k'", 3, 23);
  expect_parse_error(kHead + "    y = cls.g(x)\n    return y\n", "the module has no function 'g'",
                     3, 9);
  expect_parse_error("@T.prim_func\ndef k(A: T.Buffer((4,), \"float32\")):\n    B[0] = A[0]\n",
                     "undefined buffer 'B'", 3, 5);
}

TEST(ParserErrors, BinaryGarbage) {
  expect_parse_error(std::string("@R.function\ndef f(\x01\x02"), "unexpected character byte 0x01",
                     2, 7);
  expect_parse_error("x = $", "unexpected character '$'", 1, 5);
  expect_parse_error("@R.function\ndef f(x: R.Tensor((2,), \"float32)):\n",
                     "unterminated string literal", 2, 25);
}

TEST(ParserErrors, TypeErrorsFromInference) {
  // An annotation that contradicts inference points at the annotation.
  expect_parse_error(
      kHead + "    y: R.Tensor((3, 3), \"float32\") = R.exp(x)\n    return y\n",
      "the annotation R.Tensor((3, 3), dtype=\"float32\") contradicts the inferred struct info "
      "R.Tensor((2, 3), dtype=\"float32\")",
      3, 8);
  // An ill-typed op call points at the call (its span) and carries the op's own message.
  expect_parse_error(kHead + "    y = R.add(x, s)\n    return y\n", "relax.add", 3, 9);
  expect_parse_error(kHead + "    y = R.match_cast(x, R.Shape([2]))\n    return y\n",
                     "R.match_cast can never succeed", 3, 25);
  expect_parse_error(kHead + "    return x\n\n@R.function\ndef f(y: R.Object):\n    return y\n",
                     "function 'f' is defined twice", 5, 1);
  expect_parse_error(
      "@R.function\ndef f(x: R.Tensor((2,), \"float32\")) -> R.Shape:\n    return x\n",
      "does not match its declared", 2, 40);
}

TEST(ParserErrors, DataflowBlockRules) {
  expect_parse_error(kHead + "    with R.dataflow():\n        y = R.exp(x)\n    return y\n",
                     "a dataflow block must end with R.output(...)", 4, 9);
  expect_parse_error(
      kHead + "    with R.dataflow():\n        y = R.exp(x)\n        R.output(z)\n    return y\n",
      "R.output names 'z', which this dataflow block does not define", 5, 18);
  expect_parse_error(
      kHead + "    with R.dataflow():\n        y = R.exp(x)\n        R.output()\n    return y\n",
      "undefined variable 'y'", 6, 12);
  expect_parse_error(kHead + "    R.output(x)\n    return x\n",
                     "R.output is only valid as the last statement", 3, 5);
}

TEST(ParserErrors, TirErrors) {
  const std::string head =
      "@T.prim_func\ndef k(A: T.Buffer((4, 4), \"float32\"), B: T.Buffer((4,), \"int32\")):\n";
  expect_parse_error(head + "    A[0] = T.float32(1)\n",
                     "buffer 'A' has 2 dimension(s), indexed with 1", 3, 5);
  expect_parse_error(head + "    A[0, 0] = B[0]\n",
                     "storing a int32 value into 'A', a float32 buffer access", 3, 15);
  expect_parse_error(head +
                         "    for i in range(4):\n        with T.block(\"b\"):\n            vi = "
                         "T.axis.remap(\"S\", [j])\n"
                         "            A[vi, 0] = T.float32(0)\n",
                     "undefined name 'j'", 5, 37);
  expect_parse_error(head + "    for i in T.grid(4, 4):\n        A[i, 0] = T.float32(0)\n",
                     "T.grid has 2 extent(s) for 1 loop variable(s)", 3, 14);
  expect_parse_error(head + "    A[0, 0] = T.exp(B[0]) + T.float32(1)\n",
                     "operands of '+' have different dtypes: int32 and float32", 3, 27);
  expect_parse_error(head + "    A[0, 0] = T.frob(1)\n", "unknown TIR function 'T.frob'", 3, 15);
  expect_parse_error(head + "    with T.block(\"b\"):\n        vi = T.axis.remap(\"SX\", [0, 1])\n",
                     "T.axis.remap", 4, 14);
  expect_parse_error("@T.prim_func\ndef k(A):\n    pass\n", "parameter 'A' needs a type", 2, 7);
}

TEST(ParserErrors, ModuleStructure) {
  expect_parse_error("class M:\n    pass\n", "class 'M' needs the @I.ir_module decorator", 1, 1);
  expect_parse_error("def f():\n    pass\n",
                     "function 'f' needs a @R.function or @T.prim_func decorator", 1, 1);
  expect_parse_error("@I.ir_module\nclass M:\n    x = 1\n", "expected a function definition", 3, 5);
  expect_parse_error("@R.function\ndef f(x):\n    return x\n",
                     "parameter 'x' needs a struct info annotation", 2, 7);
}

TEST(ParserErrors, FileNameAndCaretInTheMessage) {
  try {
    parse_module(
        "@R.function\ndef f(x: R.Tensor((2,), \"float32\")):\n    y = R.exq(x)\n    return y\n",
        "model.rx");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "model.rx:3:9: error: unknown op 'relax.exq'; did you mean 'relax.exp'?\n"
              "        y = R.exq(x)\n"
              "            ^");
  }
}

TEST(ParserErrors, MissingFile) { EXPECT_THROW(parse_module_file("/nonexistent/file.rx"), Error); }

}  // namespace
}  // namespace relax
