// Bad Relay input: each a relax::Error with file:line:column, what was expected, and the line
// with a caret — truncated text, bad metadata, unknown ops (all listed at once), type
// annotations that contradict inference, ADTs, and the structural mistakes.
#include <gtest/gtest.h>

#include "relay_test_util.h"

namespace relax::relay_test {
namespace {

const char* kHeader = "#[version = \"0.0.5\"]\n";

TEST(RelayErrors, TruncatedTextNamesTheEndWithACaret) {
  std::string msg = import_error(std::string(kHeader) + "def @main(%x: Tensor[(2), float32]) {\n  add(%x, ", "trunc");
  EXPECT_TRUE(has(msg, "trunc.relay:3:"));
  EXPECT_TRUE(has(msg, "expected an expression, found the end of the text"));
  EXPECT_TRUE(has(msg, "^"));
}

TEST(RelayErrors, SyntaxErrorPointsAtTheColumn) {
  std::string msg = import_error(std::string(kHeader) + "def @main(%x: Tensor[(2), float32]) {\n  add(%x %x)\n}\n", "syntax");
  EXPECT_TRUE(has(msg, "syntax.relay:3:10: expected ')', found '%x'"));
  EXPECT_TRUE(has(msg, "\n    add(%x %x)\n           ^"));
}

TEST(RelayErrors, UnterminatedCommentAndString) {
  EXPECT_TRUE(has(import_error("/* never closed\nfn () { 1f }"), ":1:1: unterminated comment"));
  EXPECT_TRUE(has(import_error("fn (%x: Tensor[(2), float32]) { cast(%x, dtype=\"int32) }"), "unterminated string"));
}

TEST(RelayErrors, IntegerLiteralsOutOfTheirTypesRange) {
  // A bare integer literal is int32; a suffix names the type.
  std::string msg = import_error(std::string(kHeader) + "fn () { 3000000000 }", "big");
  EXPECT_TRUE(has(msg, "big.relay:2:9: the literal 3000000000 is out of range for int32")) << msg;
  EXPECT_TRUE(has(import_error(std::string(kHeader) + "fn () { 300u8 }"),
                  "the literal 300 is out of range for uint8"));
  EXPECT_TRUE(has(import_error(std::string(kHeader) + "fn () { 28888888888888888888888888888888i64 }"),
                  "is out of range for int64"));
}

TEST(RelayErrors, UnsupportedVersion) {
  EXPECT_TRUE(has(import_error("#[version = \"0.0.4\"]\nfn () { 1f }"), "version \"0.0.4\" is not supported (expected \"0.0.5\")"));
}

TEST(RelayErrors, UnknownOpsAreListedAllAtOnce) {
  std::string msg = import_error(std::string(kHeader) +
                                 "def @main(%x: Tensor[(2), float32]) {\n"
                                 "  %0 = nn.frobnicate(%x);\n"
                                 "  %1 = add(%0, %0);\n"
                                 "  %2 = vision.mystery(%1);\n"
                                 "  nn.frobnicate(%2)\n}\n",
                                 "unknown");
  EXPECT_TRUE(has(msg, "unsupported Relay operators (2): nn.frobnicate (line 3, 6); vision.mystery (line 5)"));
  EXPECT_TRUE(has(msg, "unknown.relay:3:8"));
}

TEST(RelayErrors, LetAnnotationContradictingInferenceNamesBothTypes) {
  std::string msg = import_error(std::string(kHeader) +
                                 "def @main(%x: Tensor[(2, 3), float32]) {\n"
                                 "  let %y: Tensor[(3, 2), float32] = nn.relu(%x);\n  %y\n}\n",
                                 "mismatch");
  EXPECT_TRUE(has(msg, "mismatch.relay:3:11: type annotation Tensor[(3, 2), float32] of %y contradicts the inferred type Tensor((2, 3), float32)"));
}

TEST(RelayErrors, ReturnTypeAndDtypeMismatch) {
  EXPECT_TRUE(has(import_error(std::string(kHeader) + "def @main(%x: Tensor[(2), float32]) -> Tensor[(2), int32] {\n  %x\n}\n"),
              "type annotation Tensor[(2), int32] of the result of main contradicts the inferred type Tensor((2,), float32)"));
}

TEST(RelayErrors, IfBranchesOfDifferentTypes) {
  // Relay's inference does not unify bool and int32; taken as a tensor of unknown dtype, the if
  // contradicted the declared -> bool that main's call had been typed with (a fuzz_relay finding).
  std::string msg = import_error(std::string(kHeader) +
                                 "def @f(%n: int32) -> bool {\n"
                                 "  if (equal(%n, 0)) {\n    True\n  } else {\n    subtract(%n, 1)\n  }\n}\n",
                                 "branches");
  EXPECT_TRUE(has(msg, "branches.relay:3:3: the branches of 'if' have different types: Tensor((), bool) and "
                       "Tensor((), int32)"))
      << msg;
  // Shapes: static dimensions must agree; ranks too.
  EXPECT_TRUE(has(import_error(std::string(kHeader) +
                               "def @main(%c: bool, %x: Tensor[(2), float32], %y: Tensor[(3), float32]) {\n"
                               "  if (%c) { %x } else { %y }\n}\n"),
                  "the branches of 'if' have different types: Tensor((2,), float32) and Tensor((3,), float32)"));
}

TEST(RelayErrors, IllTypedCallIsPlacedAtTheCall) {
  std::string msg = import_error(std::string(kHeader) +
                                 "def @main(%x: Tensor[(2, 3), float32], %y: Tensor[(4), float32]) {\n  add(%x, %y)\n}\n",
                                 "illtyped");
  EXPECT_TRUE(has(msg, "illtyped.relay:3:3: add: "));
}

TEST(RelayErrors, AdtsAreRefusedWhereUsed) {
  const std::string list = "type List[A] {\n  Cons(A, List[A]),\n  Nil,\n}\n";
  EXPECT_TRUE(has(import_error(std::string(kHeader) + list + "def @main() {\n  Nil\n}\n"),
                  ":7:3: not supported: ADT constructor 'Nil' in @main"));
  EXPECT_TRUE(has(import_error(std::string(kHeader) + "def @main(%x: Tensor[(2), float32]) {\n  match (%x) {\n    _ => %x,\n  }\n}\n"),
                  ":3:3: not supported: ADT match expression in @main"));
  std::string msg = import_error(std::string(kHeader) + list +
                                 "def @hd[A](%xs: List[A]) -> A {\n  match? (%xs) {\n    Cons(%x, _) => %x,\n  }\n}\n"
                                 "def @main(%x: Tensor[(2), float32]) {\n  @hd(%x)\n}\n");
  EXPECT_TRUE(has(msg, ":6:8: not supported: ADT type parameters (a polymorphic function) in @hd, which @main uses at line 12"));
}

TEST(RelayErrors, UnusedAdtDefinitionsAreSkipped) {
  // The prelude TVM's frontends add to every module: types, polymorphic defs with match,
  // extern types. A main that does not use them converts.
  IRModule mod = import_text(std::string(kHeader) +
                             "extern type Storage\n"
                             "type List[A] {\n  Cons(A, List[A]),\n  Nil,\n}\n"
                             "type Option[A] {\n  Some(A),\n  None,\n}\n"
                             "type Tree[A] {\n  Rose(A, List[Tree[A]]),\n}\n"
                             "def @map[A, B](%f: fn (A) -> B, %xs: List[A]) -> List[B] {\n"
                             "  match (%xs) {\n    Cons(%x, %rest) => Cons(%f(%x), @map(%f, %rest)),\n    Nil => Nil,\n  }\n}\n"
                             "def @unwrap(%o: Option[Tensor[(2), float32]]) -> Tensor[(2), float32] {\n"
                             "  match? (%o) {\n    Some(%v) => %v,\n  }\n}\n"
                             "def @main(%x: Tensor[(2), float32]) {\n  nn.relu(%x)\n}\n");
  EXPECT_TRUE(has(error_of([&] { mod.lookup("map"); }), "no function named 'map'"));
  EXPECT_TRUE(tensor_close_to(run(mod, {f32({2}, {-1, 2})}), {2}, {0, 2}));
}

// A metadata section whose one constant is `blob` (base64).
std::string with_blob(const std::string& b64) {
  return std::string(kHeader) +
         "def @main() -> Tensor[(2), float32] {\n  meta[relay.Constant][0]\n}\n#[metadata]\n"
         "{\"root\": 1, \"nodes\": [{\"type_key\": \"\"}, {\"type_key\": \"Map\", \"keys\": [\"relay.Constant\"], \"data\": [2]},"
         " {\"type_key\": \"Array\", \"data\": [3]}, {\"type_key\": \"relay.Constant\", \"attrs\": {\"data\": \"0\"}}],"
         " \"b64ndarrays\": [\"" + b64 + "\"]}\n";
}

TEST(RelayErrors, BadMetadataBlob) {
  // A valid blob: float32 [1, 2].
  const std::string good = "P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAQAAAAIgAQACAAAAAAAAAAgAAAAAAAAAAACAPwAAAEA=";
  EXPECT_TRUE(tensor_close_to(run(import_text(with_blob(good)), {}), {2}, {1, 2}));
  EXPECT_TRUE(has(import_error(with_blob("P6G0lvBA*t0")), "bad #[metadata] section: meta[relay.Constant][0]: b64ndarrays[0] is not valid base64"));
  EXPECT_TRUE(has(import_error(with_blob("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")), "not an NDArray blob (magic 0x0"));
  EXPECT_TRUE(has(import_error(with_blob(good.substr(0, 60))), "the NDArray blob is truncated"));
  std::string text = with_blob(good);
  EXPECT_TRUE(has(import_error(text.substr(0, text.size() - 40), "truncjson"), "bad #[metadata] section: "));
  EXPECT_TRUE(has(import_error(std::string(kHeader) + "def @main() {\n  meta[relay.Constant][3]\n}\n"),
              ":3:3: meta[relay.Constant][3] but the text has no #[metadata] section"));
}

TEST(RelayErrors, StructuralMistakes) {
  EXPECT_TRUE(has(import_error(std::string(kHeader) + "def @main(%x: Tensor[(2), float32]) {\n  add(%x, %y)\n}\n"),
              ":3:11: unknown variable %y"));
  EXPECT_TRUE(has(import_error(std::string(kHeader) + "def @main(%x) {\n  %x\n}\n"),
              ":2:11: parameter %x of main needs a type annotation"));
  EXPECT_TRUE(has(import_error(std::string(kHeader) + "def @main(%x: Tensor[(2), float32]) {\n  @nope(%x)\n}\n"),
              ":3:3: unknown global @nope"));
  EXPECT_TRUE(has(import_error(std::string(kHeader) + "def @f(%x: int32) {\n  @f(%x)\n}\ndef @main(%x: int32) {\n  @f(%x)\n}\n"),
              "@f is recursive (directly or through other defs): annotate its return type"));
  EXPECT_TRUE(has(import_error(std::string(kHeader) + "def @main(%x: Tensor[(2), float32]) {\n  %x.0\n}\n"),
              "projection .0 of a value that is not a tuple"));
  EXPECT_TRUE(has(import_error(std::string(kHeader) + "def @main(%x: Tensor[(2), float32]) {\n  if (%x) { %x } else { %x }\n}\n"),
              "the condition of 'if' must be a bool scalar"));
  EXPECT_TRUE(has(import_error(std::string(kHeader) + "def @main(%x: Tensor[(2), float32]) {\n  nn.softmax(%x, axis=\"last\")\n}\n"),
              ":3:23: nn.softmax: attribute 'axis' must be an integer"));
  EXPECT_TRUE(has(import_error(std::string(kHeader) + "def @main(%x: Tensor[(2), float32]) {\n"
                           "  let %f = fn (%i: int32) { %f(%i) };\n  %f(0)\n}\n"),
              "the recursive local function %f needs its return type annotated"));
  EXPECT_TRUE(has(import_error("fn (%x: Tensor[(2), flaot32]) { %x }"), "unknown dtype 'flaot32'"));
  EXPECT_TRUE(has(import_error("fn (%x: flaot32) { %x }"), "not supported: ADT type 'flaot32' (an ADT or a type variable) in @main"));
  EXPECT_TRUE(has(import_error(""), "the file is empty"));
}

TEST(RelayErrors, MissingFileAndOptions) {
  EXPECT_TRUE(has(error_of([] { frontend().import("/nonexistent/m.relay", {}); }), "/nonexistent/m.relay: cannot open"));
  EXPECT_TRUE(has(error_of([] { frontend().import(write_relay("opt", "fn () { 1f }"), {{"params", "inputs"}}); }),
              "unknown option 'params=inputs'"));
}

}  // namespace
}  // namespace relax::relay_test

namespace relax::relay_test {
namespace {

TEST(RelayLimits, LongLetChainsAndDeepNesting) {
  // 20000 bindings: parsed and converted without deep recursion.
  std::string text = "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(2), float32]) {\n  %0 = add(%x, 1f);\n";
  for (int k = 1; k < 20000; ++k) text += "  %" + std::to_string(k) + " = add(%" + std::to_string(k - 1) + ", 1f);\n";
  text += "  %19999\n}\n";
  EXPECT_TRUE(import_text(text, "long").lookup("main").defined());
  // Nesting beyond the parser's limit is an error, not a crash.
  std::string deep = "fn (%x: Tensor[(2), float32]) { ";
  for (int k = 0; k < 5000; ++k) deep += "negative(";
  deep += "%x";
  for (int k = 0; k < 5000; ++k) deep += ")";
  deep += " }";
  EXPECT_TRUE(has(import_error(deep), "expressions nested more than 1000 levels deep"));
}

}  // namespace
}  // namespace relax::relay_test
