// relax-driver run DIR --check: a model directory in the ONNX backend-test layout (model.onnx,
// test_data_set_N/input_K.pb, output_K.pb), built with the onnx protobuf API, run through the
// driver with its outputs compared against output_K.pb.
#include <limits>

#include "../../common/driver_runner.h"
#include "onnx_test_util.h"

namespace relax::onnx_test {
namespace {

using test::DriverResult;
using test::DriverTest;
namespace fs = std::filesystem;

class DriverCheckTest : public DriverTest {
 protected:
  /// Writes `model` and one data set (inputs, outputs as TensorProtos) under dir_/case.
  std::string write_case(const Model& model, const std::vector<onnx::TensorProto>& inputs,
                         const std::vector<onnx::TensorProto>& outputs) {
    fs::path dir = dir_ / "case";
    fs::create_directories(dir / "test_data_set_0");
    std::ofstream m(dir / "model.onnx", std::ios::binary);
    model.proto.SerializeToOstream(&m);
    auto write = [&](const std::string& file, const onnx::TensorProto& t) {
      std::ofstream out(dir / "test_data_set_0" / file, std::ios::binary);
      t.SerializeToOstream(&out);
    };
    for (size_t i = 0; i < inputs.size(); ++i) write("input_" + std::to_string(i) + ".pb", inputs[i]);
    for (size_t i = 0; i < outputs.size(); ++i)
      write("output_" + std::to_string(i) + ".pb", outputs[i]);
    return dir.string();
  }
  /// a - b over [2, 3] tensors; the data files list b first, so only names can match them.
  std::string sub_case(const std::vector<float>& expected) {
    Model m;
    m.input("a", {2, 3}).input("b", {2, 3}).output("y", 2);
    m.node("Sub", {"a", "b"}, {"y"});
    float nan = std::numeric_limits<float>::quiet_NaN();
    return write_case(m,
                      {Model::tensor_f32("b", {2, 3}, {1, 1, 1, 1, 1, 1}),
                       Model::tensor_f32("a", {2, 3}, {1, 2, 3, 4, 5, nan})},
                      {Model::tensor_f32("y", {2, 3}, expected)});
  }
};

TEST_F(DriverCheckTest, MatchingOutputsPass) {
  float nan = std::numeric_limits<float>::quiet_NaN();
  // 3.00001 is within the default tolerances (atol 1e-4); NaN equals NaN.
  std::string dir = sub_case({0, 1, 2, 3.00001f, 4, nan});
  DriverResult r = run("run " + dir + " --check");
  EXPECT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("test_data_set_0 output 0 'y': ok ((2, 3) float32"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("check: 1 of 1 test data sets match"), std::string::npos) << r.out;
}

TEST_F(DriverCheckTest, MismatchFailsWithTheFirstIndex) {
  float nan = std::numeric_limits<float>::quiet_NaN();
  std::string dir = sub_case({0, 1, 2, 3, 4.5f, nan});
  DriverResult r = run("run " + dir + " --check");
  EXPECT_EQ(r.rc, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("MISMATCH: 1 of 6 elements differ"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("first at index [1, 1]: got 4, expected 4.5"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("check: 0 of 1 test data sets match"), std::string::npos) << r.out;
  // A looser tolerance accepts it.
  EXPECT_EQ(run("run " + dir + " --check --atol 0.6").rc, 0);
}

TEST_F(DriverCheckTest, ShapeAndDtypeMustMatch) {
  Model m;
  m.input("x", {2, 3}).output("y", 2);
  m.node("Identity", {"x"}, {"y"});
  onnx::TensorProto x = Model::tensor_f32("x", {2, 3}, {1, 2, 3, 4, 5, 6});
  std::string dir = write_case(m, {x}, {Model::tensor_f32("y", {3, 2}, {1, 2, 3, 4, 5, 6})});
  DriverResult r = run("run " + dir + " --check");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.out.find("MISMATCH: shape (2, 3), expected (3, 2)"), std::string::npos) << r.out;

  dir = write_case(m, {x}, {Model::tensor_i64("y", {2, 3}, {1, 2, 3, 4, 5, 6})});
  r = run("run " + dir + " --check");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.out.find("MISMATCH: dtype float32, expected int64"), std::string::npos) << r.out;
}

TEST_F(DriverCheckTest, CheckNeedsATestDirectory) {
  Model m;
  m.input("x", {2}).output("y", 1);
  m.node("Identity", {"x"}, {"y"});
  std::string model = m.save("driver_check_plain");
  DriverResult r = run("run " + model + " --check");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("is not a test directory"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace relax::onnx_test
