// relax-driver end to end: the built executable run on files, checking output, messages and
// exit codes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "relax/text/printer.h"
#include "relax/target/compile.h"
#include "relax/transform/pipeline.h"
#include "relax/transform/plugin.h"
#include "relax/transform/plugin_abi.h"
#include "../../common/driver_runner.h"
#include "transform_test_util.h"

namespace relax::transform {
namespace {

/// The host's plugin ABI as the driver prints it ("1.1").
const std::string kHostAbi =
    std::to_string(RELAX_PLUGIN_ABI_MAJOR) + "." + std::to_string(RELAX_PLUGIN_ABI_MINOR);

namespace fs = std::filesystem;

const std::string kPlugins = RELAX_BINARY_DIR "/tests/plugins";

using Result = relax::test::DriverResult;
using relax::test::read_text_file;

class Driver : public relax::test::DriverTest {
 protected:
  /// Writes `mod` as text into the test directory.
  std::string write_module(const IRModule& mod, const std::string& name) {
    fs::path p = dir_ / name;
    std::ofstream(p) << print_module(mod);
    return p.string();
  }

  std::string plugin(const std::string& name) { return kPlugins + "/librelax-" + name + ".so"; }
};

TEST_F(Driver, HelpAndUsageErrors) {
  Result help = run("--help");
  EXPECT_EQ(help.rc, 0);
  EXPECT_NE(help.out.find("Subcommands:"), std::string::npos);
  EXPECT_EQ(run("opt --help").rc, 0);
  EXPECT_NE(run("opt --help").out.find("--dump-ir-after"), std::string::npos);
  Result bad = run("frobnicate");
  EXPECT_EQ(bad.rc, 1);
  EXPECT_EQ(run("opt").rc, 1);  // FILE is required
}

TEST_F(Driver, RunsThePluginPassAndRefusesTheBadPlugins) {
  std::string in = write_module(test::make_chain_module(2, 2), "in.rx");
  Result r = run("opt " + in + " --plugin " + plugin("test-passes") +
                 " --passes='rename-vars{prefix=renamed_,start=1},to-non-dataflow'");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("renamed_1: R.Tensor((n, 4), dtype=\"float32\") = R.add(x, x)"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("R.dataflow"), std::string::npos);
  // A plugin that cannot be loaded is an error (exit 1) naming it and why.
  std::string bad_abi = fs::canonical(plugin("test-bad-abi")).string();
  r = run("--plugin " + plugin("test-bad-abi") + " opt " + in + " --passes=normalize");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("relax-driver: error: refusing plugin '" + bad_abi +
                       "': it was built for plugin ABI 2.7 but this Relax provides ABI " + kHostAbi),
            std::string::npos)
      << r.err;
  r = run("--plugin " + plugin("test-no-entry") + " opt " + in + " --passes=normalize");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("does not export the entry point relax_plugin_info()"), std::string::npos)
      << r.err;
  r = run("opt " + in + " --plugin " + plugin("test-failing") + " --passes=normalize");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("its register function failed (code 3): the test-failing plugin always "
                       "fails to register"),
            std::string::npos)
      << r.err;
}

TEST_F(Driver, PassesAndPluginsListings) {
  Result passes = run("passes --plugin-dir " + kPlugins + " --plugin test-passes");
  ASSERT_EQ(passes.rc, 0) << passes.err;
  EXPECT_NE(passes.out.find(
                "rename-vars (function; plugin test-passes)\n    Rename every binding variable to "
                "<prefix><N>\n    prefix: string = v  -- the new names' prefix\n"),
            std::string::npos)
      << passes.out;
  EXPECT_NE(passes.out.find("to-non-dataflow (dataflow-block; core)\n"), std::string::npos);
  Result plugins = run("plugins --plugin " + plugin("test-passes"));
  EXPECT_NE(plugins.out.find("test-passes 1.2.3 (ABI " + kHostAbi + ", SDK " RELAX_SDK_VERSION "), loaded\n"),
            std::string::npos)
      << plugins.out;
  EXPECT_NE(plugins.out.find("    provides: passes: rename-vars, count-bindings, test-fail, "
                             "test-break-well-formed\n"),
            std::string::npos)
      << plugins.out;
}

TEST_F(Driver, PrintRoundTripsAndReportsParseErrors) {
  IRModule mod = test::make_chain_module(3);
  std::string in = write_module(mod, "in.rx");
  Result r = run("print " + in);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out, print_module(mod));
  std::ofstream(dir_ / "bad.rx")
      << "@R.function\ndef f(x: R.Tensor((2,), \"float32\")):\n    return R.nope(x)\n";
  Result bad = run("print " + (dir_ / "bad.rx").string());
  EXPECT_EQ(bad.rc, 1);
  EXPECT_NE(bad.err.find("bad.rx:3:"), std::string::npos) << bad.err;
}

TEST_F(Driver, JobsOneAndTwoGiveByteIdenticalOutput) {
  std::string in = write_module(test::make_chain_module(200, 6), "in200.rx");
  Result one = run("opt " + in +
                   " --jobs 1 --passes=normalize,to-non-dataflow,attach-global-symbol,rename-vars"
                   " --plugin " +
                   plugin("test-passes") + " -o " + (dir_ / "j1.rx").string());
  Result two = run("opt " + in +
                   " --jobs 2 --passes=normalize,to-non-dataflow,attach-global-symbol,rename-vars"
                   " --plugin " +
                   plugin("test-passes") + " -o " + (dir_ / "j2.rx").string());
  ASSERT_EQ(one.rc, 0) << one.err;
  ASSERT_EQ(two.rc, 0) << two.err;
  std::string a = read_text_file(dir_ / "j1.rx"), b = read_text_file(dir_ / "j2.rx");
  EXPECT_GT(a.size(), 10000u);
  EXPECT_EQ(a, b);
}

TEST_F(Driver, TimePassesAndDumpIrAfter) {
  std::string in = write_module(test::make_chain_module(2), "in.rx");
  Result r =
      run("opt " + in +
          " --passes=normalize,to-non-dataflow --time-passes --dump-ir-after=to-non-dataflow");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("# -----// IR Dump After to-non-dataflow //----- #\n"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("IR Dump After normalize"), std::string::npos);
  EXPECT_NE(r.err.find("===- Compile timing report -===\n"), std::string::npos);
  EXPECT_NE(r.err.find("%  pass normalize\n"), std::string::npos) << r.err;

  Result d =
      run("opt " + in + " --passes=normalize,to-non-dataflow --dump-ir-after=all --dump-dir " +
          (dir_ / "dumps").string());
  ASSERT_EQ(d.rc, 0) << d.err;
  EXPECT_TRUE(fs::exists(dir_ / "dumps" / "00-normalize-after.rx"));
  EXPECT_EQ(read_text_file(dir_ / "dumps" / "01-to-non-dataflow-after.rx"),
            "# IR Dump After to-non-dataflow\n" + d.out);
  EXPECT_EQ(run("opt " + in + " --passes=normalize --dump-ir-after=nosuch").err,
            "relax-driver: error: unknown pass 'nosuch' to dump around; valid passes: all, "
            "attach-global-symbol, call-tir-rewrite, device-placement, gpu-host-fallback, kill-after-last-use, lambda-lift, legalize-ops, "
            "normalize, remove-unused-functions, run-codegen, to-non-dataflow, vm-shape-lower\n");
}

TEST_F(Driver, VerifyEachAndTheReproducer) {
  std::string in = write_module(test::make_chain_module(2), "in.rx");
  std::string p = " --plugin " + plugin("test-passes");
  Result broken = run("opt " + in + p +
                      " --passes=normalize,test-break-well-formed --verify-each --reproducer " +
                      (dir_ / "r1.rx").string());
  EXPECT_EQ(broken.rc, 1);
  EXPECT_NE(broken.err.find("the module is not well formed after pass 'test-break-well-formed'"),
            std::string::npos)
      << broken.err;
  Result unchecked =
      run("opt " + in + p + " --passes=normalize,test-break-well-formed --no-verify-each");
  EXPECT_EQ(unchecked.rc, 0) << unchecked.err;

  std::string repro = (dir_ / "repro.rx").string();
  Result failed =
      run("opt " + in + p +
          " --passes='normalize,test-fail{function=f1,message=boom}' --reproducer " + repro);
  EXPECT_EQ(failed.rc, 1);
  EXPECT_EQ(failed.err, "relax-driver: note: reproducer written to " + repro +
                            "\nrelax-driver: error: boom (in function 'f1')\n");
  std::string text = read_text_file(repro);
  std::string line =
      "# relax-reproducer: --passes='test-fail{function=f1,message=boom,internal=false}'\n";
  ASSERT_NE(text.find(line), std::string::npos) << text;
  // Replaying the reproducer with its recorded pipeline fails the same way.
  Result replay =
      run("opt " + repro + p + " --passes='test-fail{function=f1,message=boom,internal=false}'" +
          " --reproducer " + (dir_ / "again.rx").string());
  EXPECT_EQ(replay.rc, 1);
  EXPECT_NE(replay.err.find("relax-driver: error: boom (in function 'f1')"), std::string::npos)
      << replay.err;

  Result internal = run("opt " + in + p + " --passes='test-fail{internal=true}' --reproducer " +
                        (dir_ / "r3.rx").string());
  EXPECT_EQ(internal.rc, 2);
  EXPECT_NE(internal.err.find("relax-driver: internal error: internal error at "),
            std::string::npos)
      << internal.err;
}

TEST_F(Driver, PipelineFilesPrintTheirEffectiveFormAndRoundTrip) {
  PassRegistry reg = make_core_registry();
  PluginManager plugins(reg);  // the shipped pipelines name the optimisation plugins
  plugins.add_search_dir(RELAX_PLUGIN_DIR);
  for (const auto& entry : fs::directory_iterator(RELAX_SOURCE_DIR "/config/pipelines")) {
    SCOPED_TRACE(entry.path().string());
    Result r = run("pipeline " + entry.path().string());
    ASSERT_EQ(r.rc, 0) << r.err;
    Pipeline p = load_pipeline_file(entry.path().string(), reg, &plugins);
    EXPECT_EQ(r.out, p.to_yaml() + "# one line: " + p.to_line() + "\n");
    std::string load;  // the one-line form has no plugin list: name them on the command line
    for (const std::string& name : p.plugins) load += "--plugin " + name + " ";
    Result line = run(load + "pipeline --passes='" + p.to_line() + "'");
    EXPECT_NE(line.out.find("# one line: " + p.to_line() + "\n"), std::string::npos);
  }
  std::ofstream(dir_ / "bad.yaml") << "plugins: [no-such-plugin]\npasses: [normalize]\n";
  Result missing = run("pipeline " + (dir_ / "bad.yaml").string() + " --plugin-dir " + kPlugins);
  EXPECT_EQ(missing.rc, 1);
  EXPECT_EQ(missing.err.rfind(
                "relax-driver: " + (dir_ / "bad.yaml").string() +
                    ":1:11: error: plugin 'no-such-plugin' named by the pipeline cannot be loaded: "
                    "plugin 'no-such-plugin' not found; searched: " +
                    kPlugins + "/librelax-no-such-plugin.so, ",
                0),
            0u)
      << missing.err;
  // The list names every plugin in the searched directories (the backends' too), sorted.
  EXPECT_NE(missing.err.find("; plugins available there: "), std::string::npos) << missing.err;
  EXPECT_NE(missing.err.find("test-bad-abi, test-failing, test-no-entry, test-passes"), std::string::npos)
      << missing.err;
  std::ofstream(dir_ / "uses.yaml")
      << "plugins: [test-passes]\npasses:\n  - rename-vars: {prefix: q}\n";
  Result uses = run("pipeline " + (dir_ / "uses.yaml").string() + " --plugin-dir " + kPlugins);
  EXPECT_EQ(uses.rc, 0) << uses.err;
  EXPECT_NE(uses.out.find("# one line: rename-vars{prefix=q,start=0}\n"), std::string::npos)
      << uses.out;
}

}  // namespace
}  // namespace relax::transform
