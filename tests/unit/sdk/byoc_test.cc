// BYOC offload through the compile API (relax/transform/codegen.h): fuse-ops-by-pattern with
// annotate-codegen marks relu(a + b) for codegen "testlib"; with the test-byoc plugin loaded,
// run-codegen (put before legalize-ops by compile()) replaces the call by call_dps_packed to the
// plugin's function, which runs (its call counter moves) and computes the right values; without
// the plugin the same program compiles as usual. Error paths: a composite the codegen refuses,
// a codegen name taken by two plugins.
#include <gtest/gtest.h>

#include "../../common/error_of.h"
#include "relax/runtime/ndarray.h"
#include "relax/runtime/registry.h"
#include "relax/runtime/vm.h"
#include "relax/target/build.h"
#include "relax/target/compile.h"
#include "relax/text/parser.h"
#include "relax/transform/codegen.h"

namespace relax {
namespace {

const std::string kByoc = RELAX_SDK_TEST_DIR "/librelax-test-byoc.so";

const char* kProgram = R"(
@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((2, 3), "float32"), b: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        with R.dataflow():
            s = R.add(a, b)
            y = R.nn.relu(s)
            z = R.multiply(y, b)
            R.output(z)
        return z
)";

std::string pipeline(const std::string& pattern) {
  return "normalize,fuse-ops-by-pattern{patterns=\"" + pattern + "\",annotate-codegen=true}";
}

CompileResult compile_with(const std::vector<std::string>& plugins, const std::string& pattern) {
  CompileOptions o;
  o.module = parse_module(kProgram);
  o.pipeline = pipeline(pattern);
  o.target = "tir-interp";
  o.plugins = plugins;
  return compile(o);
}

runtime::NDArray tensor(std::vector<float> v) {
  return runtime::NDArray::from_bytes({2, 3}, DataType::Float(32), v.data());
}

std::vector<float> run_main(const CompileResult& r) {
  target::register_tir_interp_loader();
  auto vm = runtime::VirtualMachine::create(r.executable);
  runtime::Value out = vm->invoke(
      "main", {tensor({1, -2, 3, -4, 5, -6}), tensor({0.5f, 1, -4, 2, 1, 1})});
  runtime::NDArray y = out.as_tensor();
  const float* p = static_cast<const float*>(y.data());
  return std::vector<float>(p, p + 6);
}

// (a + b) relu, times b.
const std::vector<float> kExpected = {0.75f, 0, 0, 0, 6, 0};

const char* kPattern = "testlib.add_relu = relax.nn.relu(relax.add($x, $y))";

int64_t calls() { return runtime::Registry::get("testlib.calls").call().as_int(); }

TEST(Byoc, ClaimedFunctionRunsInThePluginLibrary) {
  CompileResult r = compile_with({"fusion", kByoc}, kPattern);
  // The codegen function and its composite are gone; main calls the plugin's symbol.
  for (const auto& e : r.lowered.functions()) {
    EXPECT_EQ(e.gv->name.find("testlib_add_relu"), std::string::npos) << e.gv->name;
  }
  const AttrValue* off = r.lowered.attrs()->find(transform::kOffloadedAttr);
  ASSERT_NE(off, nullptr);
  auto entries = std::get<std::vector<std::string>>(*off);
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_NE(entries[0].find("-> testlib:testlib.add_relu"), std::string::npos) << entries[0];
  int64_t before = calls();
  EXPECT_EQ(run_main(r), kExpected);
  EXPECT_EQ(calls(), before + 1);
}

TEST(Byoc, WithoutTheCodegenTheFunctionCompilesAsUsual) {
  // Another codegen name: nobody claims it, the wrapper is compiled like any function.
  CompileResult r = compile_with({"fusion"}, "other.add_relu = relax.nn.relu(relax.add($x, $y))");
  EXPECT_EQ(r.lowered.attrs().defined() ? r.lowered.attrs()->find(transform::kOffloadedAttr)
                                        : nullptr,
            nullptr);
  EXPECT_EQ(run_main(r), kExpected);
}

TEST(Byoc, CodegenRefusingAFunctionNamesIt) {
  std::string msg = test::error_of([&] {
    compile_with({"fusion", kByoc}, "testlib.add_only = relax.add($x, $y)");
  });
  EXPECT_NE(msg.find("codegen testlib"), std::string::npos) << msg;
  EXPECT_NE(msg.find("testlib.add_only"), std::string::npos) << msg;
}

TEST(Byoc, CodegenNameTakenByAnotherPluginIsRefused) {
  transform::register_codegen({"taken", "", [](auto&, auto&) { return transform::CodegenOutput{}; },
                               "plugin-a"});
  std::string msg = test::error_of([&] {
    transform::register_codegen(
        {"taken", "", [](auto&, auto&) { return transform::CodegenOutput{}; }, "plugin-b"});
  });
  EXPECT_NE(msg.find("'taken' is already registered by plugin 'plugin-a'"), std::string::npos)
      << msg;
  EXPECT_TRUE(transform::remove_codegen("taken"));
}

TEST(Byoc, CodegenReturningTooFewSymbolsIsAnError) {
  transform::register_codegen({"short", "", [](auto&, auto&) { return transform::CodegenOutput{}; },
                               "test"});
  std::string msg = test::error_of([&] {
    compile_with({"fusion"}, "short.add_relu = relax.nn.relu(relax.add($x, $y))");
  });
  EXPECT_NE(msg.find("codegen 'short' returned 0 symbols for 1 functions"), std::string::npos)
      << msg;
  transform::remove_codegen("short");
}

}  // namespace
}  // namespace relax
