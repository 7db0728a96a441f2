// relax-driver run's benchmarking flags (what bench/compare.sh uses): --executable runs a
// compiled model on a test directory's data sets, --warmup runs untimed first, --json prints
// the latency (and with --check the largest absolute error) as one JSON line.
#include "../../common/driver_runner.h"
#include "onnx_test_util.h"

namespace relax::onnx_test {
namespace {

using test::DriverResult;
namespace fs = std::filesystem;

class DriverBenchFlagsTest : public test::LLVMDriverTest {
 protected:
  /// dir_/case: y = a - b over [2, 3], one data set whose output is `expected`; and the model
  /// compiled to dir_/sub.rxe.
  std::string sub_case(const std::vector<float>& expected) {
    Model m;
    m.input("a", {2, 3}).input("b", {2, 3}).output("y", 2);
    m.node("Sub", {"a", "b"}, {"y"});
    fs::path dir = dir_ / "case";
    fs::create_directories(dir / "test_data_set_0");
    std::ofstream(dir / "model.onnx", std::ios::binary) << m.proto.SerializeAsString();
    auto write = [&](const std::string& file, const onnx::TensorProto& t) {
      std::ofstream(dir / "test_data_set_0" / file, std::ios::binary) << t.SerializeAsString();
    };
    write("input_0.pb", Model::tensor_f32("a", {2, 3}, {1, 2, 3, 4, 5, 6}));
    write("input_1.pb", Model::tensor_f32("b", {2, 3}, {1, 1, 1, 1, 1, 1}));
    write("output_0.pb", Model::tensor_f32("y", {2, 3}, expected));
    DriverResult c = run("compile " + (dir / "model.onnx").string() + " -o sub.rxe");
    EXPECT_EQ(c.rc, 0) << c.err;
    return dir.string();
  }
};

TEST_F(DriverBenchFlagsTest, ExecutableOnATestDirectoryWithJson) {
  std::string dir = sub_case({0, 1, 2, 3.5f, 4, 5});
  DriverResult r =
      run("run " + dir + " --executable sub.rxe --check --atol 1 --warmup 2 --repeat 3 --json");
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("{\"first_ms\":"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(",\"warmup\":2,\"runs\":3,\"median_ms\":"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"match\":true,\"max_abs_err\":5.000e-01}"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("latency:"), std::string::npos) << "--json replaces the latency line";

  // The default tolerances reject the same output: match false, exit status 1.
  r = run("run " + dir + " --executable sub.rxe --check --json");
  EXPECT_EQ(r.rc, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("\"runs\":0,\"match\":false,\"max_abs_err\":5.000e-01}"), std::string::npos)
      << r.out;
}

TEST_F(DriverBenchFlagsTest, WarmupAndJsonOnAnExecutableWithInputs) {
  std::string dir = sub_case({0, 1, 2, 3, 4, 5});
  std::string inputs = " --input a=" + dir + "/test_data_set_0/input_0.pb --input b=" + dir +
                       "/test_data_set_0/input_1.pb";
  DriverResult r = run("run sub.rxe" + inputs + " --warmup 1 --repeat 4 --json");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find(",\"warmup\":1,\"runs\":4,\"median_ms\":"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("max_abs_err"), std::string::npos) << "no reference without --check";

  // A time budget cuts the runs short, after one run.
  r = run("run sub.rxe" + inputs + " --warmup 5 --repeat 100000 --max-seconds 0.000001 --json");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find(",\"warmup\":5,\"runs\":1,\"median_ms\":"), std::string::npos) << r.out;

  r = run("run sub.rxe" + inputs + " --warmup 2 --repeat 3");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("latency: after 2 warm-up runs; over 3 runs: mean "), std::string::npos)
      << r.out;
}

TEST_F(DriverBenchFlagsTest, ExecutableNeedsATestDirectory) {
  sub_case({0, 1, 2, 3, 4, 5});
  DriverResult r = run("run sub.rxe --executable sub.rxe");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("run --executable sub.rxe: only with a test directory (model.onnx and "
                       "test_data_set_N/), got sub.rxe"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace relax::onnx_test
