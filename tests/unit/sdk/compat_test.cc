// ABI compatibility of plugins (docs/sdk.md, "Versioning"): a compiler plugin built against the
// previous plugin-ABI minor loads; one of another major is refused naming both versions; a
// library without relax_plugin_info is refused naming the symbol. Runtime plugins written in C
// and built by another compiler (clang): one loads and its function runs; one of another C ABI
// major is refused naming both versions before its init runs; one without
// relax_runtime_plugin_init is refused naming the symbol. The registrar lists what a plugin adds.
#include <gtest/gtest.h>

#include "../../common/error_of.h"
#include "relax/runtime/module.h"
#include "relax/runtime/registry.h"
#include "relax/target/compile.h"
#include "relax/transform/plugin.h"

namespace relax {
namespace {

const std::string kSdkDir = RELAX_SDK_TEST_DIR;
const std::string kPluginDir = RELAX_TEST_PLUGIN_DIR;

std::string abi(int major, int minor) { return std::to_string(major) + "." + std::to_string(minor); }

TEST(PluginAbi, PluginOfThePreviousMinorLoads) {
  static_assert(RELAX_PLUGIN_ABI_MINOR >= 1, "the test needs a previous minor");
  transform::PassRegistry registry;
  transform::PluginManager plugins(registry);
  const transform::LoadedPlugin& p = plugins.load(kSdkDir + "/librelax-test-old-minor.so");
  EXPECT_EQ(p.name, "test-old-minor");
  EXPECT_EQ(p.abi_major, uint32_t(RELAX_PLUGIN_ABI_MAJOR));
  EXPECT_EQ(p.abi_minor, uint32_t(RELAX_PLUGIN_ABI_MINOR - 1));
}

TEST(PluginAbi, PluginOfAnotherMajorIsRefusedWithBothVersions) {
  transform::PassRegistry registry;
  transform::PluginManager plugins(registry);
  std::string msg =
      test::error_of([&] { plugins.load(kPluginDir + "/librelax-test-bad-abi.so"); });
  EXPECT_NE(msg.find("plugin ABI " + abi(RELAX_PLUGIN_ABI_MAJOR + 1, 7)), std::string::npos) << msg;
  EXPECT_NE(msg.find("provides ABI " + abi(RELAX_PLUGIN_ABI_MAJOR, RELAX_PLUGIN_ABI_MINOR)),
            std::string::npos)
      << msg;
}

TEST(PluginAbi, LibraryWithoutTheEntryPointIsRefusedNamingIt) {
  transform::PassRegistry registry;
  transform::PluginManager plugins(registry);
  std::string msg =
      test::error_of([&] { plugins.load(kPluginDir + "/librelax-test-no-entry.so"); });
  EXPECT_NE(msg.find("relax_plugin_info()"), std::string::npos) << msg;
}

TEST(RuntimePluginAbi, CRuntimePluginFromAnotherCompilerLoads) {
  std::string path = kSdkDir + "/librelax-ctest-runtime.so";
  EXPECT_EQ(runtime::load_runtime_plugin(path), "") << RELAX_TEST_OTHER_CC;
  runtime::PackedFunc f = runtime::Registry::get("ctest.add_one");
  ASSERT_TRUE(f.defined());
  EXPECT_EQ(f.call(int64_t(41)).as_int(), 42);
  // Loaded once: a second load reports the same (success) without running init again.
  EXPECT_EQ(runtime::load_runtime_plugin(path), "");
}

TEST(RuntimePluginAbi, CRuntimePluginOfAnotherMajorIsRefusedWithBothVersions) {
  std::string msg = runtime::load_runtime_plugin(kSdkDir + "/librelax-ctest-badmajor-runtime.so");
  EXPECT_NE(msg.find("built for the runtime C ABI " + abi(RX_ABI_VERSION_MAJOR + 1, 0)),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("provides " + abi(RX_ABI_VERSION_MAJOR, RX_ABI_VERSION_MINOR)),
            std::string::npos)
      << msg;
}

TEST(RuntimePluginAbi, RuntimePluginWithoutInitIsRefusedNamingIt) {
  std::string msg = runtime::load_runtime_plugin(kSdkDir + "/librelax-ctest-noinit-runtime.so");
  EXPECT_NE(msg.find("does not export relax_runtime_plugin_init()"), std::string::npos) << msg;
  EXPECT_NE(msg.find("librelax-ctest-noinit-runtime.so"), std::string::npos) << msg;
}

TEST(RuntimePluginAbi, ScanListsARuntimeOnlyPluginWithWhatItProvides) {
  setenv("RELAX_PLUGIN_PATH", kSdkDir.c_str(), 1);
  transform::PassRegistry registry;
  transform::PluginManager plugins(registry);
  bool seen_good = false, seen_bad = false;
  for (const auto& a : plugins.scan()) {
    if (a.path.find("librelax-ctest-runtime.so") != std::string::npos) {
      seen_good = true;
      EXPECT_TRUE(a.refused.empty()) << a.refused;
      EXPECT_TRUE(a.info.runtime_only);
      EXPECT_EQ(a.info.abi_major, uint32_t(RX_ABI_VERSION_MAJOR));
    }
    if (a.path.find("librelax-ctest-badmajor-runtime.so") != std::string::npos) {
      seen_bad = true;
      EXPECT_NE(a.refused.find("C ABI"), std::string::npos) << a.refused;
    }
  }
  unsetenv("RELAX_PLUGIN_PATH");
  EXPECT_TRUE(seen_good);
  EXPECT_TRUE(seen_bad);
}

TEST(Registrar, RecordsCodegensAndFunctions) {
  transform::PassRegistry registry;
  transform::PluginManager plugins(registry);
  const transform::LoadedPlugin& p = plugins.load(kSdkDir + "/librelax-test-byoc.so");
  EXPECT_EQ(p.codegens, std::vector<std::string>{"testlib"});
  EXPECT_NE(p.provides().find("codegens: testlib"), std::string::npos) << p.provides();
  EXPECT_TRUE(transform::find_codegen("testlib").has_value());
  EXPECT_EQ(transform::find_codegen("testlib")->plugin, "test-byoc");
}

}  // namespace
}  // namespace relax
