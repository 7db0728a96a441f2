// The OpenCL backend end to end through relax-driver: models of the zoo
// (../shared/models/test) compiled with --target opencl and run on the device against their
// reference outputs (--check: rtol 1e-3, atol 1e-4); and the runtime plugin on a machine
// without an OpenCL driver (simulated with RELAX_OPENCL_LIBRARY): it loads and every use
// says "no OpenCL device: ..." with the reason.
#include <filesystem>

#include "../../common/driver_runner.h"
#include "opencl_test_util.h"

namespace relax::opencl_test {
namespace {

namespace fs = std::filesystem;

class OpenCLModel : public test::DriverTest, public ::testing::WithParamInterface<std::string> {
 protected:
  void SetUp() override {
    static const std::string why = no_device_reason();
    if (!why.empty()) {
      const char* req = std::getenv("RELAX_REQUIRE_OPENCL");
      if (req && std::string(req) == "1") FAIL() << "RELAX_REQUIRE_OPENCL=1 but " << why;
      GTEST_SKIP() << "no OpenCL device: " << why;
    }
    test::DriverTest::SetUp();
  }
};

TEST_P(OpenCLModel, CompilesAndMatchesTheReference) {
  fs::path dir = fs::path(RELAX_SOURCE_DIR) / ".." / "shared" / "models" / "test" / GetParam();
  if (!fs::exists(dir / "model.onnx")) GTEST_SKIP() << dir << " is missing";
  test::DriverResult c =
      run("compile '" + (dir / "model.onnx").string() + "' --target opencl -o model.rxe");
  ASSERT_EQ(c.rc, 0) << c.err;
  EXPECT_NE(c.err.find("target opencl"), std::string::npos) << c.err;
  // The VM finds kernel-library loaders on its own, not yet device runtimes: name the plugin.
  test::DriverResult r = run("--plugin opencl-runtime run '" + dir.string() +
                             "' --executable model.rxe --check");
  EXPECT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("match"), std::string::npos) << r.out;
}

INSTANTIATE_TEST_SUITE_P(Zoo, OpenCLModel, ::testing::Values("mlp", "small_cnn"));

// In a child process (this binary again) with RELAX_OPENCL_LIBRARY naming a missing file.
TEST(OpenCLNoDriver, PluginLoadsAndReportsNoDevice) {
  if (const char* lib = std::getenv("RELAX_OPENCL_LIBRARY"); lib && *lib) {
    std::string why = no_device_reason();
    EXPECT_NE(why.find("no OpenCL device: cannot open"), std::string::npos) << why;
    EXPECT_NE(why.find(lib), std::string::npos) << why;
    return;
  }
  std::string cmd =
      "RELAX_OPENCL_LIBRARY=/nonexistent/libOpenCL.so.1 /proc/" + std::to_string(::getpid()) +
      "/exe --gtest_filter=OpenCLNoDriver.PluginLoadsAndReportsNoDevice > /dev/null 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
}

}  // namespace
}  // namespace relax::opencl_test
