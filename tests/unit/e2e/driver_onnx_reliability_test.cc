// ONNX reproducers of ../shared/reliability replayed through relax-driver: each used to crash
// (a segfault), reserve gigabytes, trip UBSan, pass silently or give a misleading message. Now
// `compile` exits 1 with a message naming the file, the node or tensor, and what was expected,
// or (a valid deeply nested model) compiles.
#include "../../common/driver_runner.h"

namespace relax::test {
namespace {

const std::string kDir = RELAX_SOURCE_DIR "/../shared/reliability/";

class DriverOnnxReliability : public DriverTest {
 protected:
  /// Compiles reproducer `name`; expects exit 1 and a message naming the file and holding every
  /// one of `parts`.
  void expect_user_error(const std::string& name, const std::vector<std::string>& parts) {
    std::string model = kDir + name;
    if (!fs::exists(model)) GTEST_SKIP() << model << " missing";
    DriverResult r = run("compile " + model + " -o m.rxe");
    EXPECT_EQ(r.rc, 1) << name << ": " << r.err;
    EXPECT_NE(r.err.find(name), std::string::npos) << r.err;
    for (const std::string& part : parts) EXPECT_NE(r.err.find(part), std::string::npos) << r.err;
  }
};

TEST_F(DriverOnnxReliability, Scan8ScanInputOfRankZeroIsAnError) {
  // Used to segfault reading dim 0 of a rank-0 input.
  expect_user_error("fuzz_b70f8eb9d0f8b82f81f2ef0ceeb53461241bf496.onnx",
                    {"Scan", "scan input 'x' has rank 0", "expected rank >= 2"});
}

TEST_F(DriverOnnxReliability, HugeInitializerIsRefusedBeforeAllocating) {
  // (2^40, 3) float32 with no data: used to reserve 13 TB first, naming neither file nor tensor.
  expect_user_error("huge_init.onnx", {"tensor 'w'", "0 bytes of raw data", "13194139533312"});
}

TEST_F(DriverOnnxReliability, OverflowingInitializerShapeIsAnError) {
  // (2^32, 2^32, 16): the element count overflowed int64 (UBSan).
  expect_user_error("overflow_init.onnx", {"tensor 'w'", "(4294967296, 4294967296, 16) is too large"});
}

TEST_F(DriverOnnxReliability, NegativeInputDimIsAnError) {
  // Used to become a symbolic dim silently.
  expect_user_error("neg_dims.onnx", {"graph input 'x'", "dim 0 is -5", "expected a size >= 0"});
}

TEST_F(DriverOnnxReliability, MissingExternalDataFileIsNamed) {
  expect_user_error("extdata_missing.onnx", {"tensor 'w'", "'nonexistent.bin'", "no such file"});
}

TEST_F(DriverOnnxReliability, IntegerScaleOfQuantizeLinearIsAnError) {
  // An int8 y_scale made the importer convert 255.0 to int8 (UBSan); now it is refused.
  expect_user_error("fuzz_45b37d19f1a927b630ff0e48108f496bd873de98.onnx",
                    {"QuantizeLinear", "y_scale", "expected a float tensor"});
}

TEST_F(DriverOnnxReliability, DeeplyNestedValidModelCompiles) {
  // Nested past protobuf's default recursion limit of 100: used to be "truncated or corrupt".
  std::string model = kDir + "deep_if.onnx";
  if (!fs::exists(model)) GTEST_SKIP() << model << " missing";
  DriverResult r = run("compile " + model + " -O0 -o m.rxe");
  EXPECT_EQ(r.rc, 0) << r.err;
}

}  // namespace
}  // namespace relax::test
