// Python functions in the text format (the Python-module design): @I.py_func methods kept as
// source in the module attribute kPyFuncsAttr and printed back as methods, R.call_py_func as a
// pure call of relax.py_func.<name>, and the errors for malformed uses.
#include <gtest/gtest.h>

#include "../../common/error_of.h"
#include "relax/ir/structural_equal.h"
#include "text_test_util.h"

namespace relax {
namespace {

using test::error_of;

const char* kModule = R"(@I.ir_module
class Mod(BasePyModule):
    @I.py_func
    def main(self, x: torch.Tensor) -> torch.Tensor:
        n = x.shape[0]

        return {"y": x ** 2, 'z': f"{n}"}["y"]

    @R.function
    def f(x: R.Tensor(("n", 4), "float32")) -> R.Tensor(("n", 4), "float32"):
        cls = Mod
        n = T.int64()
        with R.dataflow():
            y = R.call_py_func(cls.main, (x,), out_sinfo=R.Tensor((n, 4), "float32"))
            z = R.call_py_func("main", (y,), out_sinfo=R.Tensor((n, 4), "float32"))
            R.output(z)
        return z

    @I.py_func
    def helper(self):
        pass
)";

TEST(PyFuncText, SourcesKeptAndPrintedBack) {
  IRModule m = parse_module(kModule);
  ASSERT_EQ(m.size(), 1u);
  const AttrValue* v = m.attrs()->find(kPyFuncsAttr);
  ASSERT_NE(v, nullptr);
  const auto& sources = std::get<std::vector<std::string>>(*v);
  ASSERT_EQ(sources.size(), 2u);
  EXPECT_EQ(sources[0],
            "@I.py_func\ndef main(self, x: torch.Tensor) -> torch.Tensor:\n    n = x.shape[0]\n\n"
            "    return {\"y\": x ** 2, 'z': f\"{n}\"}[\"y\"]\n");
  EXPECT_EQ(sources[1], "@I.py_func\ndef helper(self):\n    pass\n");
  std::string text = print_module(m);
  EXPECT_NE(text.find("    @I.py_func\n    def main(self, x: torch.Tensor) -> torch.Tensor:\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("I.module_attrs"), std::string::npos) << text;
  EXPECT_NE(text.find("R.call_py_func(\"main\", (x,), out_sinfo=R.Tensor((n, 4), dtype=\"float32\"))"),
            std::string::npos)
      << text;
  IRModule again = parse_module(text);
  EXPECT_TRUE(structural_equal(m, again));
  EXPECT_EQ(print_module(again), text);
}

TEST(PyFuncText, CallIsAPurePackedCall) {
  IRModule m = parse_module(kModule);
  auto f = m.lookup("f").as_ref<Function>();
  const auto* seq = f->body.as<SeqExpr>();
  const auto* call = seq->blocks[0]->bindings[0]->value.as<Call>();
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->op.as<Op>()->name, "relax.call_pure_packed");
  EXPECT_EQ(call->args[0].as<ExternFunc>()->global_symbol, std::string(kPyFuncPrefix) + "main");
  EXPECT_EQ(call->args.size(), 2u);
  EXPECT_TRUE(seq->blocks[0]->is_dataflow());  // pure: allowed in a dataflow block
}

TEST(PyFuncText, Errors) {
  auto with = [](const std::string& call) {
    return "@I.ir_module\nclass M:\n    @R.function\n    def f(x: R.Tensor((2,), \"float32\")):\n"
           "        y = " + call + "\n        return y\n";
  };
  EXPECT_NE(error_of([&] { parse_module(with("R.call_py_func(x, (x,), out_sinfo=R.Tensor((2,), \"float32\"))")); })
                .find("R.call_py_func names a Python function"),
            std::string::npos);
  EXPECT_NE(error_of([&] { parse_module(with("R.call_py_func(\"g\", (x,))")); }).find("needs out_sinfo="),
            std::string::npos);
  EXPECT_NE(error_of([&] { parse_module(with("R.call_py_func(\"g\", (x,), sinfo=1)")); })
                .find("no keyword argument 'sinfo'"),
            std::string::npos);
  std::string no_def = "@I.ir_module\nclass M:\n    @I.py_func\n    x = 1\n";
  EXPECT_NE(error_of([&] { parse_module(no_def, "m.rx"); }).find("m.rx:4:5: error: expected a 'def' after @I.py_func"),
            std::string::npos)
      << error_of([&] { parse_module(no_def, "m.rx"); });
  // The attribute that holds the sources is not a module attribute one can write.
  std::string reserved = "@I.ir_module\nclass M:\n    I.module_attrs({\"py_funcs\": [\"def  as R\"]})\n"
                         "    @R.function\n    def f(x: R.Tensor((2,), \"float32\")):\n        return x\n";
  EXPECT_NE(error_of([&] { parse_module(reserved, "m.rx"); })
                .find("m.rx:3:5: error: module attribute 'py_funcs' is reserved: write Python functions as "
                      "@I.py_func methods of the module class"),
            std::string::npos)
      << error_of([&] { parse_module(reserved, "m.rx"); });
  // A py_func's Python is never parsed as Relax, but the rest keeps its line numbers.
  std::string bad = "@I.ir_module\nclass M:\n    @I.py_func\n    def p(self):\n        lambda: 1\n\n"
                    "    @R.function\n    def f(x: R.Tensor((2,), \"float32\")):\n        return z\n";
  EXPECT_NE(error_of([&] { parse_module(bad); }).find(":9:"), std::string::npos) << error_of([&] { parse_module(bad); });
}

}  // namespace
}  // namespace relax
