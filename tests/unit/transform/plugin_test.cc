// Plugin loading: the good plugin's passes, and each refusal with its message.
#include "relax/transform/plugin.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "../../common/error_of.h"
#include "relax/target/compile.h"
#include "relax/transform/pass_context.h"
#include "transform_test_util.h"

namespace relax::transform {
namespace {

/// The host's plugin ABI as the refusal prints it ("1.1").
const std::string kHostAbi =
    std::to_string(RELAX_PLUGIN_ABI_MAJOR) + "." + std::to_string(RELAX_PLUGIN_ABI_MINOR);

namespace fs = std::filesystem;
const std::string kPluginDir = RELAX_BINARY_DIR "/tests/plugins";
std::string plugin_path(const std::string& name) {
  return kPluginDir + "/librelax-" + name + ".so";
}

TEST(Plugins, LoadsThePassPluginAndRunsItsPass) {
  PassRegistry reg = make_core_registry();
  PluginManager plugins(reg);
  const LoadedPlugin& p = plugins.load(plugin_path("test-passes"));
  EXPECT_EQ(p.name, "test-passes");
  EXPECT_EQ(p.version, "1.2.3");
  EXPECT_EQ(p.sdk_version, RELAX_SDK_VERSION);
  EXPECT_EQ(p.abi_major, uint32_t(RELAX_PLUGIN_ABI_MAJOR));
  EXPECT_EQ(p.passes, (std::vector<std::string>{"rename-vars", "count-bindings", "test-fail",
                                                "test-break-well-formed"}));
  EXPECT_EQ(reg.find("rename-vars")->plugin, "test-passes");
  // Loading the same file again gives the same plugin.
  EXPECT_EQ(&plugins.load(plugin_path("test-passes")), &p);

  PassContext ctx;
  IRModule out = reg.create("rename-vars", {{"prefix", std::string("t")}, {"start", int64_t(3)}})(
      test::make_chain_module(2, 2), ctx);
  for (const auto& e : out.functions()) {
    const auto& bindings = e.func.as<Function>()->body.as<SeqExpr>()->blocks[0]->bindings;
    ASSERT_EQ(bindings.size(), 3u);
    EXPECT_EQ(bindings[0]->var->name, "t3");
    EXPECT_EQ(bindings[2]->var->name, "t5");
  }
}

TEST(Plugins, FoundByShortNameInSearchDirsNeverInTheCurrentDirectory) {
  PassRegistry reg;
  PluginManager by_dir(reg);
  by_dir.add_search_dir(kPluginDir);
  EXPECT_EQ(by_dir.load("test-passes").name, "test-passes");

  PassRegistry reg2;
  ::setenv("RELAX_PLUGIN_PATH", ("/nonexistent:" + kPluginDir).c_str(), 1);
  PluginManager by_env(reg2);
  EXPECT_EQ(by_env.search_dirs().at(1), kPluginDir);
  EXPECT_EQ(by_env.search_dirs().back(), PluginManager::default_plugin_dir());
  EXPECT_EQ(by_env.load("test-passes").name, "test-passes");
  ::unsetenv("RELAX_PLUGIN_PATH");

  PassRegistry reg3;
  PluginManager in_cwd(reg3);
  fs::path old = fs::current_path();
  fs::current_path(kPluginDir);
  std::string msg = test::error_of([&] { in_cwd.load("test-passes"); });
  fs::current_path(old);
  std::string expected =
      "error: plugin 'test-passes' not found; searched: " + PluginManager::default_plugin_dir() +
      "/librelax-test-passes.so; plugins available there: ";
  EXPECT_EQ(msg.rfind(expected, 0), 0u) << msg;
}

TEST(Plugins, RefusesAnotherAbiMajor) {
  PassRegistry reg;
  PluginManager plugins(reg);
  std::string path = fs::canonical(plugin_path("test-bad-abi")).string();
  EXPECT_EQ(test::error_of([&] { plugins.load(path); }),
            "error: refusing plugin '" + path +
                "': it was built for plugin ABI 2.7 but this Relax provides ABI " + kHostAbi + " (the major "
                "versions must match; "
                "rebuild the plugin against this SDK)");
  EXPECT_TRUE(plugins.loaded().empty());
  EXPECT_TRUE(reg.names().empty());
}

TEST(Plugins, RefusesALibraryWithoutTheEntryPoint) {
  PassRegistry reg;
  PluginManager plugins(reg);
  std::string path = fs::canonical(plugin_path("test-no-entry")).string();
  EXPECT_EQ(test::error_of([&] { plugins.load(path); }),
            "error: refusing plugin '" + path +
                "': it does not export the entry point relax_plugin_info() (not a Relax plugin)");
}

TEST(Plugins, RefusesAFailingRegisterFunctionAndUndoesItsRegistrations) {
  PassRegistry reg;
  PluginManager plugins(reg);
  std::string path = fs::canonical(plugin_path("test-failing")).string();
  EXPECT_EQ(test::error_of([&] { plugins.load(path); }),
            "error: refusing plugin '" + path +
                "': its register function failed (code 3): the test-failing plugin always fails to "
                "register");
  // A C++ plugin whose registration throws halfway: what it registered first is removed.
  PassRegistry taken;
  taken.add({"count-bindings", "", Granularity::kModule, {}},
            ModuleTransform([](const IRModule& m, const PassOptions&, PassContext&) { return m; }));
  PluginManager clash(taken);
  std::string good = fs::canonical(plugin_path("test-passes")).string();
  EXPECT_EQ(test::error_of([&] { clash.load(good); }),
            "error: refusing plugin '" + good +
                "': its register function failed (code 1): pass 'count-bindings' is registered "
                "twice: by the core "
                "and by plugin 'test-passes'");
  EXPECT_EQ(taken.names(), std::vector<std::string>{"count-bindings"});  // rename-vars rolled back
}

TEST(Plugins, ReportsTheLoadersReason) {
  PassRegistry reg;
  PluginManager plugins(reg);
  EXPECT_EQ(test::error_of([&] { plugins.load("/nonexistent/librelax-x.so"); }),
            "error: cannot load plugin '/nonexistent/librelax-x.so': /nonexistent/librelax-x.so: "
            "cannot open shared "
            "object file: No such file or directory");
  fs::path junk =
      fs::temp_directory_path() / ("librelax-junk-" + std::to_string(::getpid()) + ".so");
  std::ofstream(junk) << std::string(256, 'x');  // long enough for the loader to read a header
  // Checked before the loader sees it (runtime/shared_object.h).
  std::string msg = test::error_of([&] { plugins.load(junk.string()); });
  EXPECT_EQ(msg, "error: refusing plugin '" + fs::weakly_canonical(junk).string() +
                     "': not an ELF file")
      << msg;
  fs::remove(junk);
}

}  // namespace
}  // namespace relax::transform
