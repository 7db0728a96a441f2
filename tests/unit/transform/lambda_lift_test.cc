// lambda-lift: local functions become module functions, captures leading parameters, closures
// R.make_closure / R.invoke_pure_closure (the cases of TVM's test_transform_lambda_lift.py in
// our own programs). Recursive local functions are built in C++ (the parser does not read a
// nested function that names itself yet).
#include <gtest/gtest.h>

#include "../../common/closure_modules.h"
#include "../../common/error_of.h"
#include "relax/ir/block_builder.h"
#include "relax/ir/expr_functor.h"
#include "relax/ir/structural_equal.h"
#include "relax/ir/well_formed.h"
#include "relax/op/closure.h"
#include "relax/op/op.h"
#include "relax/target/compile.h"
#include "relax/text/parser.h"
#include "relax/text/printer.h"
#include "relax/transform/pass_context.h"

namespace relax::transform {
namespace {

using test::error_of;

IRModule lift(const IRModule& mod) {
  PassRegistry reg = make_core_registry();
  PassContext ctx;
  return run_passes({reg.create("lambda-lift")}, mod, ctx);
}

IRModule lift(const std::string& text) { return lift(parse_module(text)); }

void expect_module(const IRModule& got, const std::string& expected) {
  IRModule want = parse_module(expected);
  auto diff = structural_diff(got, want);
  EXPECT_FALSE(diff.has_value()) << *diff << "\n--- got:\n" << print_module(got);
  // The closure ops print and parse back.
  auto round_trip = structural_diff(parse_module(print_module(got)), got);
  EXPECT_FALSE(round_trip.has_value()) << *round_trip << "\n--- printed:\n" << print_module(got);
}

/// The well-formedness violations of `mod`, one per line ("" when well formed).
std::string violations(const IRModule& mod) {
  std::string out;
  for (const Diagnostic& d : well_formed_errors(mod)) out += d.message + "\n";
  return out;
}

/// Whether any Function is nested in a module function of `mod`.
bool has_local_function(const IRModule& mod) {
  bool found = false;
  for (const auto& e : mod.functions()) {
    auto* f = e.func.as<Function>();
    if (f == nullptr) continue;
    post_order_visit(f->body, [&](const Expr& x) { found |= x.is<Function>(); });
  }
  return found;
}

TEST(LambdaLift, FunctionWithoutCapturesBecomesGlobalCalledDirectly) {
  IRModule out = lift(R"(
@R.function
def main(x1: R.Tensor((10, 5), "float32"), y1: R.Tensor((10, 5), "float32")) -> R.Tensor((10, 5), "float32"):
    @R.function
    def inner(x2: R.Tensor((10, 5), "float32"), y2: R.Tensor((10, 5), "float32")) -> R.Tensor((10, 5), "float32"):
        s = R.add(x2, y2)
        return s
    gv1 = inner(x1, y1)
    return gv1
)");
  EXPECT_EQ(out.size(), 2u);
  expect_module(out, R"(
@I.ir_module
class Module:
    @R.function
    def main_inner(x2: R.Tensor((10, 5), "float32"), y2: R.Tensor((10, 5), "float32")) -> R.Tensor((10, 5), "float32"):
        s = R.add(x2, y2)
        return s

    @R.function
    def main(x1: R.Tensor((10, 5), "float32"), y1: R.Tensor((10, 5), "float32")) -> R.Tensor((10, 5), "float32"):
        gv1 = cls.main_inner(x1, y1)
        return gv1
)");
  EXPECT_FALSE(out.lookup("main_inner")->attrs.defined() &&
               out.lookup("main_inner")->attrs->has("global_symbol"));
}

const char* kClosure = R"(
@R.function
def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
    @R.function
    def outer_func(c1: R.Tensor((2, 3), "float32")) -> R.Callable((R.Tensor((2, 3), "float32"),), R.Tensor((2, 3), "float32")):
        @R.function
        def inner_func(x1: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
            s = R.add(x1, c1)
            return s
        return inner_func
    in_call = outer_func(x)
    res = in_call(y)
    return res
)";

TEST(LambdaLift, CapturedVariablesBecomeLeadingParametersOfAClosure) {
  IRModule before = parse_module(kClosure);
  std::string before_text = print_module(before);
  IRModule out = lift(before);
  expect_module(out, R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        in_call = cls.main_outer_func(x)
        res = R.invoke_pure_closure(in_call, (y,), sinfo_args=(R.Tensor((2, 3), "float32"),))
        return res

    @R.function
    def main_outer_func(c1: R.Tensor((2, 3), "float32")) -> R.Callable((R.Tensor((2, 3), "float32"),), R.Tensor((2, 3), "float32")):
        inner_func = R.make_closure(cls.main_inner_func, (c1,))
        return inner_func

    @R.function
    def main_inner_func(c1: R.Tensor((2, 3), "float32"), x1: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        s = R.add(x1, c1)
        return s
)");
  EXPECT_FALSE(has_local_function(out));
  EXPECT_EQ(violations(out), "") << print_module(out);
  // The input module is not modified.
  EXPECT_EQ(print_module(before), before_text);
}

TEST(LambdaLift, CallsInTheDefiningFunctionAreDirect) {
  // `scale` captures x; main calls it twice: direct calls passing x, the closure unused.
  IRModule out = lift(R"(
@R.function
def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
    @R.function
    def scale(z: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        r = R.multiply(z, x)
        return r
    a = scale(y)
    b = scale(a)
    return b
)");
  expect_module(out, R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        scale = R.make_closure(cls.main_scale, (x,))
        a = cls.main_scale(x, y)
        b = cls.main_scale(x, a)
        return b

    @R.function
    def main_scale(x: R.Tensor((4,), "float32"), z: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        r = R.multiply(z, x)
        return r
)");
}

TEST(LambdaLift, FunctionValuesAreCalledThroughInvokeClosure) {
  // A parameter of callable type (higher-order function) and a global passed as a value.
  IRModule out = lift(R"(
@I.ir_module
class Module:
    @R.function
    def twice(f: R.Callable((R.Tensor((4,), "float32"),), R.Tensor((4,), "float32")), v: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        a = f(v)
        b = f(a)
        return b

    @R.function
    def double(v: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        w = R.add(v, v)
        return w

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        y = cls.twice(cls.double, x)
        return y
)");
  expect_module(out, R"(
@I.ir_module
class Module:
    @R.function
    def twice(f: R.Callable((R.Tensor((4,), "float32"),), R.Tensor((4,), "float32")), v: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        a = R.invoke_pure_closure(f, (v,), sinfo_args=(R.Tensor((4,), "float32"),))
        b = R.invoke_pure_closure(f, (a,), sinfo_args=(R.Tensor((4,), "float32"),))
        return b

    @R.function
    def double(v: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        w = R.add(v, v)
        return w

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        y = cls.twice(cls.double, x)
        return y
)");
}

TEST(LambdaLift, LocalFunctionInADataflowBlock) {
  IRModule out = lift(R"(
@R.function
def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
    with R.dataflow():
        @R.function
        def f(a: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            b = R.add(a, x)
            return b
        y = f(x)
        R.output(y)
    return y
)");
  EXPECT_EQ(violations(out), "") << print_module(out);
  expect_module(out, R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            f = R.make_closure(cls.main_f, (x,))
            y = cls.main_f(x, x)
            R.output(y)
        return y

    @R.function
    def main_f(x: R.Tensor((4,), "float32"), a: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        b = R.add(a, x)
        return b
)");
}

TEST(LambdaLift, SymbolicVariablesOfTheEnclosingFunctionAreCapturedAsAShape) {
  // `dims` writes the shape (n,) of main's parameter: n is captured as an R.Shape value.
  IRModule out = lift(test::kSymbolicCapture);
  EXPECT_EQ(violations(out), "") << print_module(out);
  auto lifted = out.lookup("main_dims").as_ref<Function>();
  ASSERT_TRUE(lifted.defined()) << print_module(out);
  ASSERT_EQ(lifted->params.size(), 1u);
  EXPECT_EQ(print_struct_info(lifted->params[0]->struct_info), "R.Shape([n])");
  // A symbolic variable that a parameter annotation defines is not captured.
  IRModule plain = lift(R"(
@R.function
def main(x: R.Tensor((n,), "float32")) -> R.Tensor((n,), "float32"):
    @R.function
    def twice(y: R.Tensor((n,), "float32")) -> R.Tensor((n,), "float32"):
        z = R.add(y, y)
        return z
    r = twice(x)
    return r
)");
  EXPECT_EQ(plain.lookup("main_twice").as_ref<Function>()->params.size(), 1u) << print_module(plain);
  EXPECT_EQ(violations(plain), "") << print_module(plain);
}

TEST(LambdaLift, ModuleWithoutLocalFunctionsIsUnchanged) {
  IRModule mod = parse_module(R"(
@R.function
def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
    y = R.add(x, x)
    return y
)");
  IRModule out = lift(mod);
  EXPECT_TRUE(structural_equal(out, mod));
  EXPECT_TRUE(out.lookup("main").same_as(mod.lookup("main")));
}

TEST(LambdaLift, NamesDoNotCollideWithModuleFunctionsOrEachOther) {
  IRModule out = lift(R"(
@I.ir_module
class Module:
    @R.function
    def main_inner(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        return x

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        @R.function
        def inner(a: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            b = R.add(a, a)
            return b
        y = inner(x)
        z = cls.main_inner(y)
        return z
)");
  ASSERT_EQ(out.size(), 3u);
  EXPECT_TRUE(out.contains("main_inner1")) << print_module(out);
  EXPECT_FALSE(has_local_function(out));
}

TEST(LambdaLift, ImpureLocalFunctionStaysImpure) {
  IRModule out = lift(R"(
@R.function(pure=False)
def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
    @R.function(pure=False)
    def show(a: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        u = R.call_packed("vm.builtin.print", a, sinfo_args=(R.Tuple(),))
        return a
    y = show(x)
    return y
)");
  auto lifted = out.lookup("main_show").as_ref<Function>();
  ASSERT_TRUE(lifted.defined());
  EXPECT_FALSE(lifted->is_pure);
  EXPECT_EQ(violations(out), "") << print_module(out);
}

// ---- Recursion (built in C++).

using test::kF32;
using test::kI32;
using test::recursive_module;
using test::scalar_i32;

TEST(LambdaLift, RecursiveLocalFunctionCallsItselfDirectlyWithItsCaptures) {
  // A local function's variable is visible in its own body (well-formed before lifting).
  EXPECT_EQ(violations(recursive_module()), "");
  IRModule out = lift(recursive_module());
  ASSERT_EQ(out.size(), 2u) << print_module(out);
  EXPECT_FALSE(has_local_function(out));
  EXPECT_EQ(violations(out), "") << print_module(out);
  expect_module(out, R"(
@I.ir_module
class Module:
    @R.function
    def main_while_loop(x: R.Tensor((2, 3), "float32"), i: R.Tensor((), "int32"), s: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        cond = R.less(i, R.const(10, "int32"))
        if cond:
            new_i = R.add(i, R.const(1, "int32"))
            new_s = R.add(s, x)
            r1 = cls.main_while_loop(x, new_i, new_s)
            r = r1
        else:
            r = s
        return r

    @R.function
    def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        while_loop = R.make_closure(cls.main_while_loop, (x,))
        gv = cls.main_while_loop(x, R.const(0, "int32"), x)
        return gv
)");
}

TEST(LambdaLift, RecursiveFunctionUsedAsAValueInsideItselfGetsOneClosure) {
  // f(n) returns itself when n is 0: the self reference is a value, so the lifted body starts
  // with a closure of itself over its captures.
  BlockBuilder bb;
  StructInfo t = tensor_sinfo(const_shape({4}), kF32);
  auto x = make_var("x", t);
  auto n = make_var("n", t);
  StructInfo self_sinfo = func_sinfo({t}, object_sinfo());
  auto f = make_var("f", self_sinfo);
  bb.begin_function("main", {x});
  bb.begin_scope({n});
  bb.begin_binding_block();
  Expr sum = bb.emit(op::add(n, x), "sum");
  Expr pair = bb.emit(make_tuple({sum, f}), "pair");
  auto fn = make_ref<Function>(std::vector<Ref<Var>>{n}, make_ref<SeqExpr>(bb.end_scope(), pair),
                               object_sinfo());
  bb.begin_binding_block();
  bb.emit_binding(make_ref<VarBinding>(f, fn));
  Expr out = bb.emit(make_ref<Call>(f, std::vector<Expr>{x}), "out");
  bb.end_function(out);
  IRModule lifted = lift(bb.get_module());
  EXPECT_EQ(violations(lifted), "") << print_module(lifted);
  auto g = lifted.lookup("main_f").as_ref<Function>();
  ASSERT_TRUE(g.defined()) << print_module(lifted);
  ASSERT_EQ(g->params.size(), 2u);
  auto* body = g->body.as<SeqExpr>();
  ASSERT_TRUE(body != nullptr && !body->blocks.empty());
  auto* first = body->blocks[0]->bindings[0]->value.as<Call>();
  ASSERT_TRUE(first != nullptr);
  EXPECT_EQ(first->op.as<Op>()->name, "relax.make_closure") << print_module(lifted);
}

TEST(LambdaLift, NestedFunctionCallingItsEnclosingOneIsMutualRecursion) {
  // even(n) defines odd(m) which calls even: odd captures even's closure... here even has no
  // captures, so odd calls the lifted global directly.
  BlockBuilder bb;
  StructInfo t = tensor_sinfo({}, kI32);
  auto x = make_var("x", t);
  auto n = make_var("n", t), m = make_var("m", t);
  auto even = make_var("even", func_sinfo({t}, t));
  auto odd = make_var("odd", func_sinfo({t}, t));
  bb.begin_function("main", {x});
  // odd(m) = even(m - 1)
  bb.begin_scope({m});
  bb.begin_binding_block();
  Expr m1 = bb.emit(op::subtract(m, scalar_i32(1)), "m1");
  Expr call_even = bb.emit(make_ref<Call>(even, std::vector<Expr>{m1}), "e");
  auto odd_fn = make_ref<Function>(std::vector<Ref<Var>>{m}, make_ref<SeqExpr>(bb.end_scope(), call_even), t);
  // even(n) = n if n < 1 else odd(n - 1)... simplified: even binds odd and calls it.
  bb.begin_scope({n});
  bb.begin_binding_block();
  bb.emit_binding(make_ref<VarBinding>(odd, odd_fn));
  Expr c = bb.emit(make_ref<Call>(odd, std::vector<Expr>{n}), "c");
  auto even_fn = make_ref<Function>(std::vector<Ref<Var>>{n}, make_ref<SeqExpr>(bb.end_scope(), c), t);
  bb.begin_binding_block();
  bb.emit_binding(make_ref<VarBinding>(even, even_fn));
  Expr out = bb.emit(make_ref<Call>(even, std::vector<Expr>{x}), "out");
  bb.end_function(out);
  IRModule lifted = lift(bb.get_module());
  EXPECT_FALSE(has_local_function(lifted));
  EXPECT_EQ(violations(lifted), "") << print_module(lifted);
  expect_module(lifted, R"(
@I.ir_module
class Module:
    @R.function
    def main_even(n: R.Tensor((), "int32")) -> R.Tensor((), "int32"):
        c = cls.main_odd(n)
        return c

    @R.function
    def main_odd(m: R.Tensor((), "int32")) -> R.Tensor((), "int32"):
        m1 = R.subtract(m, R.const(1, "int32"))
        e = cls.main_even(m1)
        return e

    @R.function
    def main(x: R.Tensor((), "int32")) -> R.Tensor((), "int32"):
        out = cls.main_even(x)
        return out
)");
}

// ---- The closure ops' errors.

TEST(LambdaLift, CallingANonCallableIsAnError) {
  std::string msg = error_of([] {
    parse_module(R"(
@R.function
def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
    y = R.invoke_pure_closure(x, (x,), sinfo_args=(R.Tensor((4,), "float32"),))
    return y
)");
  });
  EXPECT_NE(msg.find("relax.invoke_pure_closure: 'x' is Tensor((4,), float32), not a closure or function"),
            std::string::npos)
      << msg;
}

TEST(LambdaLift, WrongArityIsAnError) {
  std::string msg = error_of([] {
    parse_module(R"(
@R.function
def main(f: R.Callable((R.Tensor((4,), "float32"),), R.Tensor((4,), "float32")), x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
    y = R.invoke_pure_closure(f, (x, x))
    return y
)");
  });
  EXPECT_NE(msg.find("'f' takes 1 argument(s), got 2"), std::string::npos) << msg;
  msg = error_of([] {
    parse_module(R"(
@I.ir_module
class Module:
    @R.function
    def add(a: R.Tensor((4,), "float32"), b: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        c = R.add(a, b)
        return c

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Object:
        f = R.make_closure(cls.add, (x, x, x))
        return f
)");
  });
  EXPECT_NE(msg.find("takes 2 parameter(s), but 3 value(s) are captured"), std::string::npos) << msg;
}

TEST(LambdaLift, CapturedValueOfTheWrongTypeIsAnError) {
  std::string msg = error_of([] {
    parse_module(R"(
@I.ir_module
class Module:
    @R.function
    def add(a: R.Tensor((4,), "float32"), b: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        c = R.add(a, b)
        return c

    @R.function
    def main(x: R.Tensor((3,), "float32")) -> R.Object:
        f = R.make_closure(cls.add, (x,))
        return f
)");
  });
  EXPECT_NE(msg.find("relax.make_closure: captured value 0 has struct info Tensor((3,), float32), "
                     "which does not match parameter 0 of @add, Tensor((4,), float32)"),
            std::string::npos)
      << msg;
}

TEST(LambdaLift, MakeClosureTypesThePartialApplication) {
  IRModule mod = parse_module(R"(
@I.ir_module
class Module:
    @R.function
    def add(a: R.Tensor((n,), "float32"), b: R.Tensor((n,), "float32")) -> R.Tensor((n,), "float32"):
        c = R.add(a, b)
        return c

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        f = R.make_closure(cls.add, (x,))
        y = R.invoke_pure_closure(f, (x,))
        return y
)");
  auto main = mod.lookup("main").as_ref<Function>();
  auto* body = main->body.as<SeqExpr>();
  const auto& b = body->blocks[0]->bindings;
  EXPECT_EQ(print_struct_info(b[0]->var->struct_info),
            "R.Callable((R.Tensor((4,), dtype=\"float32\"),), R.Tensor((4,), dtype=\"float32\"))");
  EXPECT_EQ(print_struct_info(b[1]->var->struct_info), "R.Tensor((4,), dtype=\"float32\")");
}

}  // namespace
}  // namespace relax::transform
