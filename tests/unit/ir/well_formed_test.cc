// Every rule of the well-formed checker (ir/well_formed.h) with a failing case and its message.
// The broken programs are assembled by hand, since the BlockBuilder never produces them.
#include <gtest/gtest.h>

#include "relax/ir/block_builder.h"
#include "relax/ir/op.h"
#include "relax/ir/well_formed.h"
#include "relax/op/op.h"
#include "relax/text/parser.h"

namespace relax {
namespace {

const DataType f32 = DataType::Float(32);

StructInfo t23() { return tensor_sinfo(const_shape({2, 3}), f32); }

/// A normalised call of `op_name` on `args` (struct info inferred by a scratch builder).
Expr typed_call(const std::string& op_name, std::vector<Expr> args) {
  BlockBuilder bb;
  return bb.normalize(call_op(op_name, std::move(args)));
}

Ref<Function> func(std::vector<Ref<Var>> params, std::vector<Block> blocks, Expr body, bool pure = true) {
  StructInfo ret = body->struct_info;
  return make_ref<Function>(std::move(params), make_ref<SeqExpr>(std::move(blocks), body), ret, pure);
}

/// The well-formed errors of `f` as one string.
std::string errors_of(const Ref<Function>& f) {
  IRModule mod;
  mod.add("f", f);
  std::string s;
  for (const auto& d : well_formed_errors(mod)) s += d.message + "\n";
  return s;
}

void expect_error(const Ref<Function>& f, const std::string& needle) {
  std::string errors = errors_of(f);
  EXPECT_NE(errors.find(needle), std::string::npos) << "expected '" << needle << "' among:\n" << errors;
}

TEST(WellFormed, AcceptsABuilderProgram) {
  BlockBuilder bb;
  auto x = make_var("x", t23());
  bb.begin_function("f", {x});
  bb.begin_dataflow_block();
  auto y = bb.emit_output(op::relu(op::add(x, x)));
  bb.end_block();
  bb.end_function(y);
  EXPECT_TRUE(is_well_formed(bb.get_module()));
  EXPECT_NO_THROW(check_well_formed(bb.get_module()));
}

TEST(WellFormed, NotANormalFormCallArgument) {
  auto x = make_var("x", t23());
  Expr inner = typed_call("relax.add", {x, x});
  // relu(add(x, x)) with the nested call left in place.
  auto nested = make_ref<Call>(get_op("relax.nn.relu"), std::vector<Expr>{inner}, Attrs(), std::vector<StructInfo>{},
                               inner->struct_info);
  auto y = make_var("y", t23());
  auto f = func({x}, {make_block({make_ref<VarBinding>(y, nested)}, false)}, y);
  expect_error(f, "argument 0 of call of relax.nn.relu is call of relax.add, not a leaf (the IR is not in A-normal form)");
}

TEST(WellFormed, MissingStructInfo) {
  auto x = make_var("x", t23());
  auto bare = make_ref<Call>(get_op("relax.add"), std::vector<Expr>{x, x});
  auto y = make_var("y", t23());
  auto f = func({x}, {make_block({make_ref<VarBinding>(y, bare)}, false)}, y);
  expect_error(f, "expression call of relax.add has no struct info (not normalised)");
}

TEST(WellFormed, VariableDefinedTwice) {
  auto x = make_var("x", t23());
  auto y = make_var("y", t23());
  Expr v = typed_call("relax.add", {x, x});
  auto f = func({x}, {make_block({make_ref<VarBinding>(y, v), make_ref<VarBinding>(y, v)}, false)}, y);
  expect_error(f, "variable 'y' is defined more than once (binding)");
}

TEST(WellFormed, UseBeforeDefinition) {
  auto x = make_var("x", t23());
  auto y = make_var("y", t23());
  auto z = make_var("z", t23());
  auto f = func({x}, {make_block({make_ref<VarBinding>(z, typed_call("relax.add", {x, y})),
                                  make_ref<VarBinding>(y, typed_call("relax.add", {x, x}))},
                                 false)},
                z);
  expect_error(f, "variable 'y' is used before it is defined (in binding 'z')");
}

TEST(WellFormed, DataflowVarUsedOutsideItsBlock) {
  auto x = make_var("x", t23());
  auto lv = make_dataflow_var("lv", t23());
  auto gv = make_var("gv", t23());
  auto f = func({x},
                {make_block({make_ref<VarBinding>(lv, typed_call("relax.add", {x, x}))}, true),
                 make_block({make_ref<VarBinding>(gv, typed_call("relax.nn.relu", {lv}))}, false)},
                gv);
  expect_error(f, "DataflowVar 'lv' is used outside its dataflow block (in binding 'gv')");
}

TEST(WellFormed, DataflowVarOutsideADataflowBlock) {
  auto x = make_var("x", t23());
  auto lv = make_dataflow_var("lv", t23());
  auto f = func({x}, {make_block({make_ref<VarBinding>(lv, typed_call("relax.add", {x, x}))}, false)}, lv);
  expect_error(f, "DataflowVar 'lv' is defined outside a dataflow block");

}

TEST(WellFormed, UndefinedSymbolicVariable) {
  auto n = tir::var("n"), m = tir::var("m");
  auto x = make_var("x", tensor_sinfo({n}, f32));
  // A ShapeExpr mentioning m, which nothing defines.
  auto s = make_var("s", shape_sinfo({m}));
  auto f = func({x}, {make_block({make_ref<VarBinding>(s, make_shape({m}))}, false)}, x);
  expect_error(f, "symbolic variable 'm' in shape ShapeExpr is used before it is defined (in binding 's')");

  // m * 2 in a match_cast does not define m.
  auto y = make_var("y", tensor_sinfo({m * 2}, f32));
  auto g = func({x}, {make_block({make_ref<MatchCast>(y, x, tensor_sinfo({m * 2}, f32))}, false)}, x);
  expect_error(g, "symbolic variable 'm' in the match_cast of 'y' is used before it is defined");
}

TEST(WellFormed, MatchCastDefinesSymbolicVariables) {
  auto n = tir::var("n"), m = tir::var("m");
  auto x = make_var("x", tensor_sinfo({n}, f32));
  auto y = make_var("y", tensor_sinfo({m}, f32));
  auto s = make_var("s", shape_sinfo({m * 2}));
  auto f = func({x},
                {make_block({make_ref<MatchCast>(y, x, tensor_sinfo({m}, f32)),
                             make_ref<VarBinding>(s, make_shape({m * 2}))},
                            false)},
                y);
  EXPECT_EQ(errors_of(f), "");
}

TEST(WellFormed, ImpureCallInADataflowBlock) {
  auto x = make_var("x", t23());
  BlockBuilder bb;
  Expr packed = bb.normalize(op::call_packed("side_effect", {x}));
  auto lv = make_dataflow_var("lv", object_sinfo());
  auto f = func({x}, {make_block({make_ref<VarBinding>(lv, packed)}, true)}, x, /*pure=*/false);
  expect_error(f, "impure call call of relax.call_packed in a dataflow block (binding 'lv')");
}

TEST(WellFormed, ImpureCallInAPureFunction) {
  auto x = make_var("x", t23());
  BlockBuilder bb;
  Expr packed = bb.normalize(op::call_packed("side_effect", {x}));
  auto v = make_var("v", object_sinfo());
  auto f = func({x}, {make_block({make_ref<VarBinding>(v, packed)}, false)}, x, /*pure=*/true);
  expect_error(f, "impure call call of relax.call_packed in a function declared pure (binding 'v')");
}

TEST(WellFormed, ControlFlowInADataflowBlock) {
  auto c = make_var("c", tensor_sinfo(DataType::Bool(), 0));
  auto x = make_var("x", t23());
  BlockBuilder bb;
  bb.begin_scope({c, x});
  Expr branch = bb.normalize(make_ref<If>(c, x, x));
  bb.end_scope();
  auto lv = make_dataflow_var("lv", t23());
  auto f = func({c, x}, {make_block({make_ref<VarBinding>(lv, branch)}, true)}, x);
  expect_error(f, "control flow (If) in a dataflow block (binding 'lv')");
}

TEST(WellFormed, BranchLocalsAreNotVisibleAfterTheIf) {
  auto c = make_var("c", tensor_sinfo(DataType::Bool(), 0));
  auto x = make_var("x", t23());
  auto inner = make_var("inner", t23());
  Expr then_body = make_ref<SeqExpr>(
      std::vector<Block>{make_block({make_ref<VarBinding>(inner, typed_call("relax.add", {x, x}))}, false)}, inner);
  Expr else_body = make_ref<SeqExpr>(std::vector<Block>{}, x);
  auto r = make_var("r", t23());
  auto after = make_var("after", t23());
  auto f = func({c, x},
                {make_block({make_ref<VarBinding>(r, make_ref<If>(c, then_body, else_body, t23())),
                             make_ref<VarBinding>(after, typed_call("relax.add", {inner, x}))},
                            false)},
                after);
  expect_error(f, "variable 'inner' is used outside the scope where it is defined (in binding 'after')");
}

TEST(WellFormed, UnknownGlobalAndCallTirOfARelaxFunction) {
  BlockBuilder bb;
  auto x = make_var("x", t23());
  bb.begin_function("helper", {x});
  auto helper = bb.end_function(x);
  auto y = make_var("y", t23());
  bb.begin_function("main", {y});
  auto missing = make_ref<GlobalVar>("missing");
  bb.emit(op::call_tir(missing, {y}, {t23()}));
  bb.end_function(y);
  IRModule mod = bb.get_module();
  std::string all;
  for (const auto& d : well_formed_errors(mod)) all += d.message + "\n";
  EXPECT_NE(all.find("in function 'main': @missing is not a function of the module"), std::string::npos) << all;

  // call_tir naming a Relax function is rejected when built through the BlockBuilder.
  BlockBuilder bb2(mod);
  auto z = make_var("z", t23());
  bb2.begin_function("other", {z});
  EXPECT_THROW(
      {
        try {
          bb2.emit(op::call_tir(helper, {z}, {t23()}));
        } catch (const Error& e) {
          EXPECT_NE(std::string(e.what()).find("@helper is a Relax function"), std::string::npos) << e.what();
          throw;
        }
      },
      Error);
}

TEST(WellFormed, CheckThrowsWithEveryViolation) {
  auto x = make_var("x", t23());
  auto y = make_var("y", t23());
  auto z = make_var("z", t23());
  Expr v = typed_call("relax.add", {x, y});
  auto f = func({x}, {make_block({make_ref<VarBinding>(z, v), make_ref<VarBinding>(z, v)}, false)}, z);
  IRModule mod;
  mod.add("f", f);
  try {
    check_well_formed(mod);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_GE(e.diagnostics().size(), 3u);  // y undefined (twice), z defined twice
  }
}

// IR parsed from text, then broken as a faulty rewrite would break it (keeping the spans, as
// the mutators do): each violation is placed at the offending binding's file:line:column.
TEST(WellFormed, DataflowVarUsedOutsideItsBlockNamesTheBinding) {
  IRModule m = parse_module(R"(@R.function
def main(x: R.Tensor((2, 3), "float32")):
    with R.dataflow():
        lv = R.exp(x)
        gv = R.add(lv, x)
        R.output(gv)
    return gv
)",
                            "wf.rx");
  auto f = m.lookup("main").as_ref<Function>();
  auto* seq = f->body.as<SeqExpr>();
  const auto& bs = seq->blocks[0]->bindings;
  ASSERT_EQ(bs.size(), 2u);
  // gv's binding moved after the dataflow block, where lv is no longer visible.
  std::vector<Block> blocks{make_block({bs[0]}, true), make_block({bs[1]}, false)};
  auto broken = make_ref<Function>(f->params, make_ref<SeqExpr>(blocks, seq->body), f->ret_struct_info);
  IRModule mod;
  mod.add("main", broken);
  auto errors = well_formed_errors(mod);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].to_string(),
            "wf.rx:5:9: error: in function 'main': DataflowVar 'lv' is used outside its dataflow block "
            "(in binding 'gv')");
  try {
    check_well_formed(mod);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("wf.rx:5:9: error:", 0), 0u) << e.what();
  }
}

TEST(WellFormed, UndefinedSymbolicVarNamesTheBinding) {
  IRModule m = parse_module(R"(@R.function
def main(x: R.Tensor(ndim=1, dtype="float32")):
    n = T.int64()
    y = R.match_cast(x, R.Tensor((n,), "float32"))
    z = R.exp(y)
    return z
)",
                            "sym.rx");
  auto f = m.lookup("main").as_ref<Function>();
  auto* seq = f->body.as<SeqExpr>();
  const auto& bs = seq->blocks[0]->bindings;
  ASSERT_EQ(bs.size(), 2u);
  ASSERT_TRUE(bs[0].is<MatchCast>());
  // The match_cast that defines n replaced by a plain binding: n is no longer defined.
  Binding plain = make_ref<VarBinding>(bs[0]->var, bs[0]->value, bs[0]->span);
  auto broken = make_ref<Function>(
      f->params, make_ref<SeqExpr>(std::vector<Block>{make_block({plain, bs[1]}, false)}, seq->body),
      f->ret_struct_info);
  IRModule mod;
  mod.add("main", broken);
  auto errors = well_formed_errors(mod);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0].to_string(),
            "sym.rx:4:5: error: in function 'main': symbolic variable 'n' in the struct info of 'y' is used "
            "before it is defined");
  EXPECT_EQ(errors[1].span.to_string(), "sym.rx:5:5");
  EXPECT_NE(errors[1].message.find("'z'"), std::string::npos) << errors[1].message;
}

}  // namespace
}  // namespace relax
