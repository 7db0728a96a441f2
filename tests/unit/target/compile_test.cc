// The compile API (relax/target/compile.h): defaults, built-in pipelines, instruments, stages
// and plugins found on demand, through relax::compile / relax::build as a C++ user calls them.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "../../common/error_of.h"
#include "../../common/tensor_compare.h"
#include "relax/runtime/vm.h"
#include "relax/target/build.h"
#include "relax/target/compile.h"
#include "relax/text/parser.h"
#include "relax/transform/plugin.h"

namespace relax {
namespace {

namespace fs = std::filesystem;
using test::error_of;

// Two matmuls with bias and relu: the default pipeline fuses each bias/relu into its matmul.
const char* kModule = R"(
@R.function
def main(x: R.Tensor((n, 8), "float32"), w: R.Tensor((8, 8), "float32"), b: R.Tensor((8,), "float32")):
    with R.dataflow():
        y = R.matmul(x, w)
        z = R.add(y, b)
        r = R.nn.relu(z)
        y2 = R.matmul(r, w)
        z2 = R.add(y2, b)
        o = R.nn.relu(z2)
        R.output(o)
    return o
)";

size_t kernel_count(const IRModule& lowered) {
  size_t n = 0;
  for (const auto& e : lowered.functions())
    n += e.func.is<tir::PrimFunc>() && e.gv->name.rfind("shape_func", 0) != 0;
  return n;
}

CompileOptions options_for(const std::string& pipeline, const std::string& target = "") {
  CompileOptions o;
  o.module = parse_module(kModule);
  o.pipeline = pipeline;
  o.target = target;
  return o;
}

TEST(Compile, BuiltinPipelinesAreTheShippedFiles) {
  EXPECT_EQ(builtin_pipeline_names(), (std::vector<std::string>{"default", "o0"}));
  for (const char* name : {"default", "o0"}) {
    std::ifstream in(std::string(RELAX_SOURCE_DIR) + "/config/pipelines/" + name + ".yaml");
    std::stringstream file;
    file << in.rdbuf();
    ASSERT_TRUE(builtin_pipeline_text(name).has_value()) << name;
    EXPECT_EQ(*builtin_pipeline_text(name), file.str()) << name;
  }
  EXPECT_FALSE(builtin_pipeline_text("o3").has_value());
}

TEST(Compile, DefaultsAreTheOptimisingPipelineOnLLVM) {
  CompileResult r = compile(options_for(""));
  EXPECT_EQ(r.target, "llvm");
  ASSERT_TRUE(r.executable.defined());
  ASSERT_EQ(r.executable->libraries.size(), 1u);
  EXPECT_EQ(r.executable->libraries[0].format, "llvm-so");
  CompileResult named = compile(options_for("default"));
  CompileResult file = compile(options_for(std::string(RELAX_SOURCE_DIR) +
                                           "/config/pipelines/default.yaml"));
  EXPECT_EQ(r.pipeline, named.pipeline);
  EXPECT_EQ(r.pipeline, file.pipeline);
  EXPECT_NE(r.pipeline.find("fuse-ops"), std::string::npos) << r.pipeline;
  EXPECT_EQ(kernel_count(r.lowered), kernel_count(named.lowered));
  EXPECT_EQ(kernel_count(r.lowered), kernel_count(file.lowered));
  CompileResult o0 = compile(options_for("o0"));
  EXPECT_LT(kernel_count(r.lowered), kernel_count(o0.lowered));
  EXPECT_EQ(o0.pipeline.find("fuse-ops"), std::string::npos) << o0.pipeline;
}

// The progress reporter sees the stages, each pass as "pass i/n", and the kernels the LLVM
// backend finishes on its worker threads, counted up to every PrimFunc of the module.
TEST(Compile, ProgressCountsPassesAndKernels) {
  CompileOptions o = options_for("");
  std::vector<std::string> lines;
  o.progress = [&](const std::string& line) { lines.push_back(line); };
  CompileResult r = compile(o);
  size_t prims = 0;
  for (const auto& e : r.lowered.functions()) prims += e.func.is<tir::PrimFunc>();
  std::string all;
  for (const std::string& l : lines) all += l + "\n";
  EXPECT_NE(all.find("pass 1/"), std::string::npos) << all;
  EXPECT_NE(all.find("codegen llvm: kernels 0/" + std::to_string(prims) + "\n"),
            std::string::npos) << all;
  std::string done = "codegen llvm: kernels " + std::to_string(prims) + "/" +
                     std::to_string(prims) + "\n";
  EXPECT_NE(all.find(done), std::string::npos) << all;
  // Once the compile returned its reporter is gone: a later compile reports nothing to it.
  size_t n = lines.size();
  compile(options_for(""));
  EXPECT_EQ(lines.size(), n);
}

TEST(Compile, BuildDefaultsMatchCompileAndRun) {
  Ref<runtime::Executable> exec = build(parse_module(kModule));
  ASSERT_EQ(exec->libraries.size(), 1u);
  EXPECT_EQ(exec->libraries[0].format, "llvm-so");  // LLVM, not the reference interpreter
  std::vector<std::string> packed;
  for (const auto& f : exec->functions)
    if (f.kind == runtime::FunctionKind::kPacked && f.name.rfind("vm.", 0) != 0 &&
        f.name.rfind("shape_func", 0) != 0)
      packed.push_back(f.name);
  EXPECT_EQ(packed.size(), kernel_count(compile(options_for("")).lowered));
  // The optimised program computes what the minimum build on the interpreter computes.
  auto x = runtime::NDArray::empty({3, 8}, DataType::Float(32));
  auto w = runtime::NDArray::empty({8, 8}, DataType::Float(32));
  auto b = runtime::NDArray::empty({8}, DataType::Float(32));
  for (int i = 0; i < 24; ++i) static_cast<float*>(x.data())[i] = float(i % 7) - 3.f;
  for (int i = 0; i < 64; ++i) static_cast<float*>(w.data())[i] = float(i % 5) * 0.25f - 0.5f;
  for (int i = 0; i < 8; ++i) static_cast<float*>(b.data())[i] = float(i) * 0.1f;
  auto fast = runtime::VirtualMachine::create(exec)->invoke("main", {x, w, b}).as_tensor();
  auto ref = runtime::VirtualMachine::create(build(parse_module(kModule), {"tir-interp", "o0"}))
                 ->invoke("main", {x, w, b})
                 .as_tensor();
  EXPECT_TRUE(test::tensors_close(fast, ref, 1e-4, 1e-4));
}

TEST(Compile, OneLinePipelineLoadsItsPluginsOnDemand) {
  CompileOptions o = options_for("normalize,legalize-ops,annotate-op-pattern,fuse-ops,fuse-tir",
                                 "tir-interp");
  CompileResult r = compile(o);
  EXPECT_NE(r.pipeline.find("fuse-tir"), std::string::npos);
  EXPECT_LT(kernel_count(r.lowered), kernel_count(compile(options_for("o0", "tir-interp")).lowered));
}

TEST(Compile, UnknownPluginPassNamesItsPlugin) {
  // With on-demand loading off, a pass that a plugin on the search path provides is named
  // with its plugin in the error.
  CompileOptions o = options_for("normalize,fuse-ops", "tir-interp");
  o.plugins_on_demand = false;
  std::string error = error_of([&] { compile(o); });
  EXPECT_NE(error.find("unknown pass 'fuse-ops'"), std::string::npos) << error;
  EXPECT_NE(error.find("plugin 'fusion'"), std::string::npos) << error;
  EXPECT_NE(error.find("librelax-fusion.so"), std::string::npos) << error;
  // The bare registry API says the same once a plugin manager watches the registry.
  transform::PassRegistry registry = make_core_registry();
  transform::PluginManager plugins(registry);
  plugins.set_on_demand(false);
  error = error_of([&] { transform::parse_pipeline_line("cse", registry); });
  EXPECT_NE(error.find("plugin 'cleanup'"), std::string::npos) << error;
  // A name no plugin provides lists the valid ones.
  error = error_of([&] { compile(options_for("normalize,frobnicate")); });
  EXPECT_NE(error.find("unknown pass 'frobnicate'"), std::string::npos) << error;
  EXPECT_NE(error.find("valid passes:"), std::string::npos) << error;
}

TEST(Compile, BadPipelineAndPluginAreNamedErrors) {
  std::string error = error_of([&] { compile(options_for("missing.yaml")); });
  EXPECT_NE(error.find("cannot read the pipeline file 'missing.yaml'"), std::string::npos) << error;
  EXPECT_NE(error.find("default, o0"), std::string::npos) << error;
  CompileOptions o = options_for("o0");
  o.plugins = {"/nonexistent/librelax-nothing.so"};
  error = error_of([&] { compile(o); });
  EXPECT_NE(error.find("/nonexistent/librelax-nothing.so"), std::string::npos) << error;
}

TEST(Compile, InstrumentsWorkInEveryCompile) {
  fs::path dir = fs::temp_directory_path() / ("relax-compile-test-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  // A YAML pipeline asking for dumps and timing through its instruments.
  std::ofstream(dir / "p.yaml") << "passes: [normalize, legalize-ops, annotate-op-pattern, "
                                   "fuse-ops, fuse-tir]\n"
                                   "instruments: {time-passes: true, dump-ir-after: [fuse-ops], "
                                   "dump-dir: "
                                << (dir / "dumps").string() << "}\n";
  CompileOptions o = options_for((dir / "p.yaml").string(), "tir-interp");
  o.stats = true;
  CompileResult r = compile(o);
  std::vector<std::string> dumps;
  for (const auto& e : fs::directory_iterator(dir / "dumps")) dumps.push_back(e.path().filename());
  ASSERT_EQ(dumps.size(), 1u);
  EXPECT_NE(dumps[0].find("fuse-ops-after"), std::string::npos) << dumps[0];
  // Every stage is timed: set-up, passes, the instruments around them, codegen and VM
  // codegen; they account for the total.
  ASSERT_GE(r.stages.size(), 7u);
  EXPECT_EQ(r.stages.front().stage, "set-up (pipeline, plugins, targets)");
  EXPECT_EQ(r.stages[1].stage, "pass normalize");
  EXPECT_EQ(r.stages.back().stage, "vm codegen");
  EXPECT_NE(r.stages[r.stages.size() - 2].stage.find("codegen tir-interp"), std::string::npos);
  double sum = 0;
  for (const auto& s : r.stages) sum += s.ms;
  EXPECT_LE(sum, r.total_ms * 1.001);
  EXPECT_NE(r.stats.find("stats: main:"), std::string::npos) << r.stats;
  // A failing pass writes the reproducer the options name.
  CompileOptions bad = options_for("normalize,legalize-ops,fuse-ops{max-depth=0}", "tir-interp");
  bad.reproducer = (dir / "repro.rx").string();
  std::string error = error_of([&] { compile(bad); });
  EXPECT_TRUE(fs::exists(dir / "repro.rx")) << error;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace relax
