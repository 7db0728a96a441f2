// relax-driver over the compile API, as a user types it: the default pipeline without -p,
// -O0, pipelines by name, YAML instruments in `compile`, plugins listed and found on demand,
// and a plugin that fails to load.
#include "../../common/driver_runner.h"

namespace relax::test {
namespace {

const std::string kModel = RELAX_SOURCE_DIR "/../shared/models/test/small_cnn/model.onnx";
const std::string kMlp = RELAX_SOURCE_DIR "/examples/mlp/mlp.rx";

class DriverCompile : public DriverTest {
 protected:
  /// The packed functions an executable calls (kernels and builtins), from `inspect`.
  std::string kernels_of(const std::string& rxe) {
    DriverResult r = run("inspect " + rxe);
    EXPECT_EQ(r.rc, 0) << r.err;
    size_t begin = r.out.find("packed functions"), end = r.out.find("kernel libraries");
    return r.out.substr(begin, end - begin);
  }
  /// "stats: main: N kernel launches ..." of a compile with --stats.
  std::string stats_of(const std::string& args) {
    DriverResult r = run("compile " + args + " --stats -o out.rxe");
    EXPECT_EQ(r.rc, 0) << r.err;
    size_t at = r.err.find("stats: main:");
    return at == std::string::npos ? "" : r.err.substr(at, r.err.find('\n', at) - at);
  }
};

TEST_F(DriverCompile, DefaultIsTheOptimisingPipeline) {
  if (!fs::exists(kModel)) GTEST_SKIP() << kModel << " missing";
  ASSERT_EQ(run("compile " + kModel + " -o none.rxe").rc, 0);
  ASSERT_EQ(run("compile " + kModel + " -p default -o named.rxe").rc, 0);
  DriverResult file =
      run("compile " + kModel + " -p " RELAX_SOURCE_DIR "/config/pipelines/default.yaml -o file.rxe");
  ASSERT_EQ(file.rc, 0) << file.err;
  std::string none = kernels_of("none.rxe");
  EXPECT_EQ(none, kernels_of("named.rxe"));
  EXPECT_EQ(none, kernels_of("file.rxe"));
  // -O0 is the minimum build: the o0 pipeline, more launches than the default.
  std::string o0 = stats_of(kModel + " -O0"), p_o0 = stats_of(kModel + " -p o0");
  std::string dflt = stats_of(kModel);
  EXPECT_EQ(o0, p_o0);
  auto launches = [](const std::string& s) { return std::stoi(s.substr(s.find(':', 6) + 2)); };
  ASSERT_FALSE(o0.empty());
  ASSERT_FALSE(dflt.empty());
  EXPECT_GT(launches(o0), launches(dflt)) << o0 << " vs " << dflt;
}

TEST_F(DriverCompile, YamlInstrumentsWorkInCompile) {
  std::ofstream(dir_ / "p.yaml") << "plugins: [fusion]\npasses: [normalize, legalize-ops, "
                                    "annotate-op-pattern, fuse-ops, fuse-tir]\n"
                                    "instruments: {dump-ir-after: [fuse-ops], time-passes: true}\n";
  DriverResult r = run("compile " + kMlp + " -p p.yaml -o m.rxe");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("IR Dump After fuse-ops"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("Compile timing report"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("codegen llvm"), std::string::npos) << r.err;
  // opt takes -p too, and the same instruments.
  r = run("opt " + kMlp + " -p p.yaml --dump-ir-before=fuse-tir");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("IR Dump Before fuse-tir"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("@I.ir_module"), std::string::npos);
}

TEST_F(DriverCompile, PluginPassesAreFoundOnDemand) {
  DriverResult r = run("opt " + kMlp + " --passes=normalize,legalize-ops,annotate-op-pattern,fuse-ops");
  EXPECT_EQ(r.rc, 0) << r.err;
  r = run("passes");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("fuse-ops (module; plugin fusion)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("legalize-ops (module; core)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("static-plan-block-memory"), std::string::npos) << r.out;
  r = run("plugins");
  ASSERT_EQ(r.rc, 0) << r.err;
  for (const char* want : {"fusion 0.1.0 (ABI 1.", "provides: passes: annotate-op-pattern",
                           "frontends: onnx (.onnx)", "targets: llvm", "search path:"})
    EXPECT_NE(r.out.find(want), std::string::npos) << want << "\n" << r.out;
  r = run("targets");
  EXPECT_NE(r.out.find("llvm (device cpu, cpu; plugin llvm"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("tir-interp (device cpu, cpu; core)"), std::string::npos) << r.out;
  r = run("frontends");
  EXPECT_NE(r.out.find("onnx (.onnx) (plugin onnx"), std::string::npos) << r.out;
}

TEST_F(DriverCompile, RefusedPluginsAreListedAndAFailingPluginIsAnError) {
  std::string bad = RELAX_BINARY_DIR "/tests/plugins";
  DriverResult r = run("--plugin-dir " + bad + " plugins");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("REFUSED"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("test-bad-abi"), std::string::npos) << r.out;
  r = run("--plugin " + bad + "/librelax-test-bad-abi.so passes");
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_NE(r.err.find("librelax-test-bad-abi.so"), std::string::npos) << r.err;
  r = run("--plugin nosuchplugin compile " + kMlp + " -o m.rxe");
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_NE(r.err.find("plugin 'nosuchplugin' not found"), std::string::npos) << r.err;
}

TEST_F(DriverCompile, FailingPassWritesAReproducerInCompile) {
  DriverResult r = run("compile " + kMlp +
                       " --passes='normalize,legalize-ops,fuse-ops{max-depth=0}' --reproducer "
                       "repro.rx -o m.rxe");
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_NE(r.err.find("reproducer written to repro.rx"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::exists(dir_ / "repro.rx"));
}

TEST_F(DriverCompile, BadRunDimsAreUserErrors) {
  ASSERT_EQ(run("compile " + kMlp + " -O0 -o m.rxe").rc, 0);
  for (const char* dim : {"n=abc", "n=-3", "=4", "n=99999999999999999999"}) {
    DriverResult r = run(std::string("run m.rxe --dim ") + dim);
    EXPECT_EQ(r.rc, 1) << dim << ": " << r.err;
    EXPECT_NE(r.err.find("--dim"), std::string::npos) << r.err;
  }
}

TEST_F(DriverCompile, BadTargetsAndOutputDirsAreUserErrors) {
  // An mcpu LLVM does not know, or one without 64-bit support, used to abort inside LLVM.
  DriverResult r = run("compile " + kMlp + " -O0 --target llvm,mcpu=notacpu -o m.rxe");
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_NE(r.err.find("unknown mcpu 'notacpu'"), std::string::npos) << r.err;
  r = run("compile " + kMlp + " -O0 --target llvm,mcpu=i386 -o m.rxe");
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_NE(r.err.find("mcpu 'i386' cannot run 64-bit code"), std::string::npos) << r.err;
  ASSERT_EQ(run("compile " + kMlp + " -O0 -o m.rxe").rc, 0);
  std::ofstream(dir_ / "a_file") << "x";
  r = run("run m.rxe --output-dir a_file");
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_NE(r.err.find("--output-dir a_file: exists and is not a directory"), std::string::npos)
      << r.err;
}

TEST_F(DriverCompile, DamagedModelsFromTheReliabilitySetAreCleanErrors) {
  // Reproducers of ../shared/reliability that used to abort (a node with neither a name nor
  // outputs: the message threw while being built) or end as internal errors (Conv weights of
  // rank < 2, nodes without outputs or required inputs).
  for (const char* name :
       {"term_a.onnx", "term_b.onnx", "conv_w_rank0.onnx", "conv_w_rank1.onnx", "noout_node.onnx",
        "fuzz_22990043179f3c96e0bc74629a3de4120f8f257a.onnx",
        "fuzz_49513db3cb292eba95a483fef79a110517fe5e70.onnx",
        "fuzz_b4423351c99fda1c03ddf0fd6a711257ca838d81.onnx",
        "fuzz_ce8bf9095ef0352020718e3362d9c88b65b7ac75.onnx"}) {
    std::string model = RELAX_SOURCE_DIR "/../shared/reliability/" + std::string(name);
    if (!fs::exists(model)) continue;
    DriverResult r = run("compile " + model + " -o m.rxe");
    EXPECT_EQ(r.rc, 1) << name << ": " << r.err;
    EXPECT_NE(r.err.find(name), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace relax::test
