// The corpus of Relay programs (tests/relay/corpus): each parses and converts, and runs to
// values computed here by hand. Also the constructs written inline: infix operators, chained
// projections, function attributes, an applied fn, `else if`, literal suffixes, incomplete
// types.
#include <gtest/gtest.h>

#include "relax/text/printer.h"
#include "relay_test_util.h"

namespace relax::relay_test {
namespace {

namespace fs = std::filesystem;

const fs::path kCorpus = fs::path(RELAX_SOURCE_DIR) / "tests" / "relay" / "corpus";

IRModule import_corpus(const std::string& name) { return frontend().import((kCorpus / name).string(), {}); }

TEST(RelayCorpus, EveryFileParsesAndConverts) {
  int n = 0;
  for (const auto& entry : fs::directory_iterator(kCorpus)) {
    if (entry.path().extension() != ".relay") continue;
    ++n;
    try {
      IRModule mod = frontend().import(entry.path().string(), {});
      EXPECT_TRUE(mod.lookup("main").defined()) << entry.path();
    } catch (const Error& e) {
      ADD_FAILURE() << entry.path() << ": " << e.what();
    }
  }
  EXPECT_GE(n, 9);
}

TEST(RelayCorpus, GraphFormRunsToAProbabilityVector) {
  NDArray out = run(import_corpus("graph_form.relay"),
                    {random_f32({1, 3, 8, 8}, 1), random_f32({4, 3, 3, 3}, 2), random_f32({4}, 3)});
  ASSERT_EQ(out.shape(), (std::vector<int64_t>{1, 4}));
  float sum = 0;
  for (int k = 0; k < 4; ++k) sum += out.data_as<float>()[k];
  EXPECT_NEAR(sum, 1.0f, 1e-5);
}

TEST(RelayCorpus, LetBindingsWithAndWithoutTypes) {
  auto out = run_all(import_corpus("let_typed.relay"),
                     {f32({2, 3}, {0, 1, 2, 3, 4, 5}), ints<int64_t>({2}, {7, -3}, DataType::Int(64))});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(tensor_close_to(out[0], {2, 3}, {-1, 1, 3, 5, 7, 9}));
  EXPECT_TRUE(tensor_close_to(out[1], {2}, {10, 0}));
}

TEST(RelayCorpus, IfTakesEitherBranch) {
  IRModule mod = import_corpus("if_else.relay");
  EXPECT_TRUE(tensor_close_to(run(mod, {f32({4}, {1, 2, -1, 0})}), {4}, {3, 5, -1, 1}));
  EXPECT_TRUE(tensor_close_to(run(mod, {f32({4}, {-1, -2, 1, 0})}), {4}, {1, 2, -1, 0}));
}

TEST(RelayCorpus, TuplesAndProjections) {
  auto out = run_all(import_corpus("tuples.relay"), {f32({2, 2}, {1, 2, 3, 4}), f32({2, 2}, {10, 20, 30, 40})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(tensor_close_to(out[0], {2, 2}, {22, 11, 44, 33}));
  EXPECT_TRUE(tensor_close_to(out[1], {2, 2}, {10, 20, 30, 40}));
}

TEST(RelayCorpus, GlobalsWithMutualRecursion) {
  IRModule mod = import_corpus("globals.relay");
  for (const char* f : {"main", "scale", "is_even", "is_odd"}) EXPECT_TRUE(mod.lookup(f).defined()) << f;
  for (int n : {0, 3, 4, 7}) {
    auto out = run_all(mod, {ints<int32_t>({}, {n}, DataType::Int(32)), f32({3}, {1, 2, 3})});
    EXPECT_TRUE(tensor_close_to(out[0], {}, {n % 2 == 0 ? 1.0 : 0.0})) << n;
    EXPECT_TRUE(tensor_close_to(out[1], {3}, {3, 6, 9}));
  }
}

TEST(RelayCorpus, ClosuresAreLiftedWithTheirCaptures) {
  IRModule mod = import_corpus("closures.relay");
  EXPECT_TRUE(mod.lookup("main_twice").defined());
  EXPECT_TRUE(mod.lookup("main_loop").defined());
  EXPECT_TRUE(tensor_close_to(run(mod, {f32({3}, {1, 2, 3}), ints<int32_t>({}, {3}, DataType::Int(32))}), {3}, {6, 12, 18}));
  EXPECT_TRUE(tensor_close_to(run(mod, {f32({3}, {1, 2, 3}), ints<int32_t>({}, {0}, DataType::Int(32))}), {3}, {0, 0, 0}));
}

TEST(RelayCorpus, NestedClosures) {
  IRModule mod = import_corpus("closures_nested.relay");
  EXPECT_TRUE(mod.lookup("main_outer_add1").defined());
  auto c = [](bool v) { return ints<uint8_t>({}, {uint8_t(v)}, DataType::Bool()); };
  EXPECT_TRUE(tensor_close_to(run(mod, {f32({2}, {1, -2}), c(true)}), {2}, {-4, 5}));
  EXPECT_TRUE(tensor_close_to(run(mod, {f32({2}, {1, -2}), c(false)}), {2}, {4, -5}));
}

TEST(RelayCorpus, BareFunctionProgram) {
  NDArray out = run(import_corpus("bare_fn.relay"),
                    {f32({2, 4}, {1, 0, 0, 0, 0, 1, 0, 0}), f32({3, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})});
  EXPECT_TRUE(tensor_close_to(out, {2, 3}, {1, 5, 9, 2, 6, 10}));
}

TEST(RelayCorpus, UnknownDimsBecomeSymbolicVariables) {
  IRModule mod = import_corpus("dynamic.relay");
  std::string text = print_module(mod);
  EXPECT_TRUE(has(text, "R.Tensor((n, 4)")) << text;
  EXPECT_TRUE(has(text, "R.Tensor((x_dim0, 4)")) << text;
  for (int64_t rows : {1, 3}) {
    std::vector<float> x(size_t(rows * 4), -1.0f);
    NDArray out = run(mod, {f32({rows, 4}, x), f32({2, 4}, {1, 1, 1, 1, 2, 2, 2, 2}), f32({2, 4}, {1, 1, 1, 1, 1, 1, 1, 1})});
    std::vector<double> want(size_t(rows * 4), 0.0);
    for (double v : {2, 2, 2, 2, 3, 3, 3, 3}) want.push_back(v);
    EXPECT_TRUE(tensor_close_to(out, {rows + 2, 4}, want));
  }
}

TEST(RelayCorpus, GlobalNamesTheTextFormatCannotSpellAreRenamed) {
  // Relay takes "@1a", "@fc.out" and "@class" as global names; as Relax functions they are
  // v1a, fc_out and class_ (a def already named v1a keeps its name), and the printed module
  // reads back (the fuzz_relay property).
  const char* text = R"(#[version = "0.0.5"]
def @v1a(%x: Tensor[(2), float32]) { negative(%x) }
def @1a(%x: Tensor[(2), float32]) { add(%x, 1f) }
def @fc.out(%x: Tensor[(2), float32]) { multiply(%x, 2f) }
def @class(%x: Tensor[(2), float32]) { @fc.out(@1a(%x)) }
def @main(%x: Tensor[(2), float32]) { @v1a(@class(%x)) }
)";
  IRModule mod = import_text(text, "names");
  for (const char* name : {"main", "v1a", "v1a_1", "fc_out", "class_"})
    EXPECT_TRUE(mod.lookup(name).defined()) << name;
  IRModule back = parse_module(print_module(mod), "names.rx");
  EXPECT_TRUE(tensor_close_to(run(back, {f32({2}, {1, -2})}), {2}, {-4, 2}));
}

TEST(RelayCorpus, AnnotatedResultIsTheFunctionsTypeWhereTheBodySaysLess) {
  // main and f are typed from the annotations before their callees are built: f(%x) is (2)
  // in main, g(%x) only rank 1 in f (g says "?"). f's result stays its annotation (2), not
  // the body's rank 1, or main's printed binding would claim more than f, and not read back.
  const char* text = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(2), float32]) { @f(%x) }
def @f(%x: Tensor[(2), float32]) -> Tensor[(2), float32] { @g(%x) }
def @g(%x: Tensor[(2), float32]) -> Tensor[(?), float32] { negative(%x) }
)";
  IRModule mod = import_text(text, "declared");
  EXPECT_EQ(to_string(mod.lookup("f").as_ref<Function>()->ret_struct_info), "Tensor((2,), float32)");
  IRModule back = parse_module(print_module(mod), "declared.rx");
  EXPECT_TRUE(tensor_close_to(run(back, {f32({2}, {1, -2})}), {2}, {-1, 2}));
}

TEST(RelayCorpus, MetadataConstants) {
  // w = arange(6) / 4 as (2, 3), b = [1, -1], indices [1, 0] (scripts/make_relay_models.py).
  NDArray out = run(import_corpus("metadata.relay"), {f32({1, 3}, {1, 2, 3})});
  EXPECT_TRUE(tensor_close_to(out, {1, 2}, {5.5, 3}));
}

TEST(RelayCorpus, FreeVarsBecomeParameters) {
  NDArray out = run(import_corpus("free_vars.relay"), {f32({3}, {1, 2, 3}), f32({3}, {10, 20, 30})});
  EXPECT_TRUE(tensor_close_to(out, {3}, {11, 22, 33}));
}

TEST(RelayCorpus, FormsNewerTvmsPrint) {
  IRModule mod = import_corpus("astext_forms.relay");
  EXPECT_TRUE(mod.lookup("main_0").defined());  // the fused primitive function, lifted
  // relu(reshape(x, (3, 2))) * 2 + 1
  EXPECT_TRUE(tensor_close_to(run(mod, {f32({2, 3}, {1, -2, 3, -4, 5, -6})}), {3, 2}, {3, 1, 7, 1, 11, 1}));
}

TEST(RelayCorpus, NamesWithSlashesAndDots) {
  IRModule mod = import_text(R"(#[version = "0.0.5"]
def @main(%conv/weights: Tensor[(2), float32], %fc1.bias: Tensor[(2), float32]) {
  %0 = (%conv/weights, %fc1.bias);
  add(%0.0, %0.1)
}
)");
  EXPECT_TRUE(tensor_close_to(run(mod, {f32({2}, {1, 2}), f32({2}, {10, 20})}), {2}, {11, 22}));
}

TEST(RelayCorpus, CallsAndParametersKeepTheirPlace) {
  IRModule mod = import_text("#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(2), float32]) {\n  %0 = nn.relu(%x);\n  negative(%0)\n}\n",
                             "spans");
  auto main = mod.lookup("main").as<Function>();
  ASSERT_NE(main, nullptr);
  EXPECT_TRUE(has(main->params[0]->span.to_string(), "spans.relay:2:11"));
  const auto* body = main->body.as<SeqExpr>();
  ASSERT_NE(body, nullptr);
  ASSERT_FALSE(body->blocks.empty());
  const auto& bindings = body->blocks[0]->bindings;
  ASSERT_GE(bindings.size(), 2u);
  EXPECT_TRUE(has(bindings[0]->span.to_string(), "spans.relay:3:8"));
  EXPECT_TRUE(has(bindings[1]->span.to_string(), "spans.relay:4:3"));
}

TEST(RelayCorpus, InlineConstructs) {
  // Infix operators with precedence, negative literals, literal suffixes, chained projections,
  // function attributes, an immediately applied fn, else-if and an incomplete type.
  IRModule mod = import_text(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(2), float32], %k: int64) -> Tensor[(2), float32] {
  let %t: (_, (Tensor[(2), float32], _)) = (%x, (%x * 2f, 3i8));
  let %y = %t.1.0 + %x * -1f - 0.5f / 0.5f;
  let %g = fn (%v: Tensor[(2), float32], Primitive=1) { nn.relu(%v) };
  let %z = fn (%v: Tensor[(2), float32]) { add(%v, 1f) }(%y);
  if (%k == 0i64) { %g(%z) } else if (greater(%k, 0i64)) { %z } else { negative(%z) }
}
)");
  auto k = [](int64_t v) { return ints<int64_t>({}, {v}, DataType::Int(64)); };
  // y = 2x - x - 1 = x - 1; z = x
  EXPECT_TRUE(tensor_close_to(run(mod, {f32({2}, {-3, 4}), k(0)}), {2}, {0, 4}));
  EXPECT_TRUE(tensor_close_to(run(mod, {f32({2}, {-3, 4}), k(5)}), {2}, {-3, 4}));
  EXPECT_TRUE(tensor_close_to(run(mod, {f32({2}, {-3, 4}), k(-5)}), {2}, {3, -4}));
}

}  // namespace
}  // namespace relax::relay_test
