// Pass declarations, options, the registry, granularity dispatch and the core passes.
#include "relax/transform/pass.h"

#include <gtest/gtest.h>

#include "../../common/error_of.h"
#include "relax/ir/structural_equal.h"
#include "relax/ir/well_formed.h"
#include "relax/target/compile.h"
#include "relax/tir/stmt.h"
#include "relax/transform/pass_context.h"
#include "transform_test_util.h"

namespace relax::transform {
namespace {

using test::error_of;
using test::kF32;

PassInfo demo_info() {
  return {"demo",
          "a demo",
          Granularity::kModule,
          {{"depth", OptionType::kInt, int64_t(4), "how deep"},
           {"ratio", OptionType::kFloat, 0.5, "a ratio"},
           {"on", OptionType::kBool, true, "a switch"},
           {"mode", OptionType::kString, std::string("fast"), "a mode"}}};
}

ModuleTransform identity() {
  return [](const IRModule& m, const PassOptions&, PassContext&) { return m; };
}

TEST(PassOptions, ValuesPrintAndParseBack) {
  for (const OptionValue& v : {OptionValue(true), OptionValue(int64_t(-8)), OptionValue(0.1),
                               OptionValue(2.0), OptionValue(std::string("plain"))}) {
    auto back = parse_option_value(type_of(v), to_string(v));
    ASSERT_TRUE(back.has_value()) << to_string(v);
    EXPECT_EQ(*back, v) << to_string(v);
  }
  EXPECT_EQ(to_string(OptionValue(2.0)), "2.0");
  EXPECT_EQ(to_string(OptionValue(std::string("a,b"))), "\"a,b\"");
  EXPECT_FALSE(parse_option_value(OptionType::kInt, "8x"));
  EXPECT_FALSE(parse_option_value(OptionType::kBool, "maybe"));
  EXPECT_FALSE(parse_option_value(OptionType::kFloat, ""));
}

TEST(PassRegistry, CreateFillsDefaultsAndChecksOptions) {
  PassRegistry reg;
  reg.add(demo_info(), identity());
  Pass p = reg.create("demo", {{"depth", int64_t(8)}, {"ratio", int64_t(1)}});
  EXPECT_EQ(p.options().get_int("depth"), 8);
  EXPECT_EQ(p.options().get_float("ratio"), 1.0);  // an int is accepted for a float
  EXPECT_TRUE(p.options().get_bool("on"));
  EXPECT_EQ(p.to_string(), "demo{depth=8,ratio=1.0,on=true,mode=fast}");

  EXPECT_EQ(error_of([&] {
              reg.create("demo", {{"width", int64_t(1)}});
            }),
            "error: pass 'demo' has no option 'width'; valid options: depth, ratio, on, mode");
  EXPECT_EQ(error_of([&] {
              reg.create("demo", {{"depth", std::string("x")}});
            }),
            "error: option 'depth' of pass 'demo' expects int, got string 'x'");
  EXPECT_EQ(error_of([&] { reg.create("nope"); }),
            "error: unknown pass 'nope'; valid passes: demo");
}

TEST(PassRegistry, RejectsDuplicatesAndBadDeclarations) {
  PassRegistry reg;
  reg.add(demo_info(), identity());
  EXPECT_EQ(error_of([&] { reg.add(demo_info(), identity(), "fusion"); }),
            "error: pass 'demo' is registered twice: by the core and by plugin 'fusion'");
  EXPECT_THROW(reg.add({"Bad_Name", "", Granularity::kModule, {}}, identity()), InternalError);
  // The body must match the declared granularity.
  EXPECT_THROW(reg.add({"mismatch", "", Granularity::kFunction, {}}, identity()), InternalError);
  EXPECT_THROW(
      reg.add({"bad-default", "", Granularity::kModule, {{"n", OptionType::kInt, true, ""}}},
              identity()),
      InternalError);
  EXPECT_TRUE(reg.remove("demo"));
  EXPECT_FALSE(reg.contains("demo"));
}

TEST(CorePasses, RegisteredSortedWithMetadata) {
  PassRegistry reg = make_core_registry();
  EXPECT_EQ(reg.names(),
            (std::vector<std::string>{"attach-global-symbol", "call-tir-rewrite", "device-placement",
                                      "gpu-host-fallback", "kill-after-last-use", "lambda-lift",
                                      "legalize-ops", "normalize",
                                      "remove-unused-functions", "run-codegen", "to-non-dataflow",
                                      "vm-shape-lower"}));
  EXPECT_EQ(reg.find("normalize")->info.granularity, Granularity::kFunction);
  EXPECT_EQ(reg.find("to-non-dataflow")->info.granularity, Granularity::kDataflowBlock);
  EXPECT_EQ(reg.find("remove-unused-functions")->info.options.at(0).name, "entry");
  EXPECT_THROW(register_core_passes(reg), Error);  // once per registry
}

TEST(CorePasses, NormalizeKeepsNormalisedFunctionsShared) {
  IRModule mod = test::make_chain_module(3);
  PassContext ctx;
  IRModule out = make_core_registry().create("normalize")(mod, ctx);
  for (size_t i = 0; i < mod.size(); ++i)
    EXPECT_TRUE(out.functions()[i].func.same_as(mod.functions()[i].func));
}

TEST(CorePasses, NormalizeFlattensNestedCalls) {
  // main(x) = relu(add(x, x)) written as one nested expression, without struct info.
  auto x = make_var("x", tensor_sinfo({tir::int_imm(2)}, kF32));
  Expr nested = op::relu(op::add(x, x));
  auto f =
      make_ref<Function>(std::vector<Ref<Var>>{x}, make_ref<SeqExpr>(std::vector<Block>{}, nested),
                         tensor_sinfo({tir::int_imm(2)}, kF32));
  IRModule mod;
  mod.add("main", f);
  EXPECT_FALSE(is_well_formed(mod));
  PassContext ctx;
  IRModule out = make_core_registry().create("normalize")(mod, ctx);
  EXPECT_TRUE(is_well_formed(out)) << well_formed_errors(out).front().to_string();
  auto* body = out.lookup("main").as<Function>()->body.as<SeqExpr>();
  ASSERT_EQ(body->blocks.size(), 1u);
  EXPECT_EQ(body->blocks[0]->bindings.size(), 1u);  // add bound; relu is the body's value
}

TEST(CorePasses, ToNonDataflow) {
  IRModule mod = test::make_chain_module(2);
  PassContext ctx;
  IRModule out = make_core_registry().create("to-non-dataflow")(mod, ctx);
  EXPECT_TRUE(is_well_formed(out));
  // The same five bindings (four ops and the output) in a plain block, every variable a Var.
  for (const auto& e : out.functions()) {
    auto* body = e.func.as<Function>()->body.as<SeqExpr>();
    ASSERT_EQ(body->blocks.size(), 1u);
    EXPECT_FALSE(body->blocks[0]->is_dataflow());
    for (const auto& b : body->blocks[0]->bindings) EXPECT_TRUE(b->var.is<Var>());
    EXPECT_EQ(body->blocks[0]->bindings.size(), 5u);
  }
  // Running it again changes nothing.
  IRModule again = make_core_registry().create("to-non-dataflow")(out, ctx);
  EXPECT_TRUE(again.functions()[0].func.same_as(out.functions()[0].func));
}

TEST(Granularity, PrimFuncAndBlockPassesSeeOnlyTheirUnits) {
  BlockBuilder bb;
  auto n = tir::var("n");
  auto X = tir::decl_buffer({n}, kF32, "X");
  auto Y = tir::decl_buffer({n}, kF32, "Y");
  bb.add_function(tir::make_prim_func({X, Y}, tir::serial_for("i", n,
                                                              [&](const Ref<tir::Var>& i) {
                                                                return tir::buffer_store(
                                                                    Y, tir::buffer_load(X, {i}),
                                                                    {i});
                                                              })),
                  "copy");
  test::add_chain_function(bb, "f", 2);
  IRModule mod = bb.get_module();

  PassRegistry reg;
  std::atomic<int> prim_calls{0}, block_calls{0};
  reg.add({"mark-prim", "", Granularity::kPrimFunc, {}},
          PrimFuncTransform([&](const Ref<tir::PrimFunc>& f, const PassArgs& args) {
            ++prim_calls;
            EXPECT_EQ(args.function_name, "copy");
            return make_ref<tir::PrimFunc>(f->params, f->body, f->buffer_map,
                                           with_attr(f->attrs, "marked", true), f->ret_type);
          }));
  reg.add({"count-blocks", "", Granularity::kDataflowBlock, {}},
          BlockTransform([&](const Block& b, const PassArgs&) {
            ++block_calls;
            EXPECT_TRUE(b->is_dataflow());
            return b;
          }));
  PassContext ctx;
  IRModule out = reg.create("mark-prim")(mod, ctx);
  EXPECT_EQ(prim_calls, 1);
  EXPECT_TRUE(get_bool(out.lookup("copy")->attrs, "marked", false));
  EXPECT_TRUE(out.lookup("f").same_as(mod.lookup("f")));
  IRModule same = reg.create("count-blocks")(mod, ctx);
  EXPECT_EQ(block_calls, 1);
  EXPECT_TRUE(same.lookup("f").same_as(mod.lookup("f")));
}

TEST(Sequential, RunsInOrderAndPrintsOneLine) {
  PassRegistry reg = make_core_registry();
  Sequential seq({reg.create("normalize"),
                  reg.create("remove-unused-functions", {{"entry", std::string("f1")}}),
                  reg.create("to-non-dataflow")});
  EXPECT_EQ(seq.to_string(), "normalize,remove-unused-functions{entry=f1},to-non-dataflow");
  PassContext ctx;
  IRModule out = seq(test::make_chain_module(3), ctx);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_FALSE(out.lookup("f1").as<Function>()->body.as<SeqExpr>()->blocks[0]->is_dataflow());
}

}  // namespace
}  // namespace relax::transform
