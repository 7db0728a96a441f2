// The OpenCL backend end to end through relax-driver: models of the zoo
// (../shared/models/test) compiled with --target opencl and run on the device against their
// reference outputs (--check: rtol 1e-3, atol 1e-4); and the runtime plugin on a machine
// without an OpenCL driver (simulated with RELAX_OPENCL_LIBRARY): it loads and every use
// says "no OpenCL device: ..." with the reason.
#include <filesystem>

#include "../../common/gpu_model_check.h"
#include "opencl_test_util.h"

namespace relax::opencl_test {
namespace {

namespace fs = std::filesystem;

class OpenCLModel : public test::GpuModelTest, public ::testing::WithParamInterface<std::string> {
 protected:
  void SetUp() override {
    test::GpuModelTest::SetUp();
    static const std::string why = no_device_reason();
    require_device(why.empty() ? why : "no OpenCL device: " + why, "RELAX_REQUIRE_OPENCL");
  }
};

TEST_P(OpenCLModel, CompilesAndMatchesTheReference) { expect_model_runs_on("opencl", GetParam()); }

INSTANTIATE_TEST_SUITE_P(Zoo, OpenCLModel,
                         ::testing::Values("mlp", "small_cnn", "tiny_transformer",
                                           "mobilenet_v2_w025"));

/// Runs `test` of this binary in a child process with `env` set ("NAME=value ..."); its exit
/// status (0: the test passed).
int run_child(const std::string& env, const std::string& test) {
  std::string cmd = "RELAX_OPENCL_CHILD=1 " + env + " /proc/" + std::to_string(::getpid()) +
                    "/exe --gtest_filter=" + test + " > /dev/null 2>&1";
  return std::system(cmd.c_str());
}

bool in_child() { return std::getenv("RELAX_OPENCL_CHILD") != nullptr; }

// In a child with RELAX_OPENCL_LIBRARY naming a missing file: the plugins load, every use says
// why there is no device.
TEST(OpenCLNoDriver, PluginLoadsAndReportsNoDevice) {
  if (in_child()) {
    std::string why = no_device_reason();
    EXPECT_NE(why.find("no OpenCL device: cannot open /nonexistent/libOpenCL.so.1"),
              std::string::npos)
        << why;
    return;
  }
  EXPECT_EQ(run_child("RELAX_OPENCL_LIBRARY=/nonexistent/libOpenCL.so.1",
                      "OpenCLNoDriver.PluginLoadsAndReportsNoDevice"),
            0);
}

// RELAX_OPENCL_DEVICE=P:D: a device that does not exist, or a malformed value, is "no OpenCL
// device" listing the devices there are; 0:0 picks the first device of the first platform.
TEST(OpenCLDeviceSelection, EnvironmentPicksOrExplains) {
  if (in_child()) {
    std::string sel = std::getenv("RELAX_OPENCL_DEVICE");
    std::string why = no_device_reason();
    if (sel == "0:0") {
      EXPECT_EQ(why, "");
    } else {
      EXPECT_NE(why.find("RELAX_OPENCL_DEVICE=" + sel), std::string::npos) << why;
      EXPECT_NE(why.find(sel == "9:9" ? "names no device" : "is not P:D"), std::string::npos)
          << why;
      EXPECT_NE(why.find("\n  0:0 "), std::string::npos) << why;  // the listing
    }
    return;
  }
  if (!no_device_reason().empty()) GTEST_SKIP() << "no OpenCL device";
  for (const char* sel : {"9:9", "abc", "0:0"})
    EXPECT_EQ(run_child(std::string("RELAX_OPENCL_DEVICE=") + sel,
                        "OpenCLDeviceSelection.EnvironmentPicksOrExplains"),
              0)
        << sel;
}

}  // namespace
}  // namespace relax::opencl_test
