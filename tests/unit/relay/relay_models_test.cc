// The two model-sized Relay programs of tests/relay/models (a ResNet-style stage and a
// transformer encoder block, weights in #[metadata]; scripts/make_relay_models.py writes them
// and the same weights as ONNX) compiled and run through relax-driver, matching the ONNX path;
// and relax-driver print / compile / run on .relay files, errors included.
#include <gtest/gtest.h>

#include "../../common/driver_runner.h"
#include "relax/runtime/tensor_io.h"
#include "relay_test_util.h"

namespace relax::relay_test {
namespace {

using test::DriverResult;

const std::string kModels = std::string(RELAX_SOURCE_DIR) + "/tests/relay/models/";

class RelayDriverTest : public test::LLVMDriverTest {
 protected:
  /// Runs `model` (a .relay, .onnx or .rxe) on the model's input; returns output 0.
  NDArray run_model(const std::string& model, const std::string& input, const std::string& out_dir) {
    DriverResult r = run("run '" + model + "' -i x='" + input + "' --output-dir " + out_dir);
    EXPECT_EQ(r.rc, 0) << r.err;
    return runtime::load_tensor((dir_ / out_dir / "output_0.npy").string());
  }

  void check_model(const std::string& name) {
    std::string input = kModels + name + "_input.npy";
    NDArray relay = run_model(kModels + name + ".relay", input, "relay");
    NDArray onnx = run_model(kModels + name + ".onnx", input, "onnx");
    EXPECT_TRUE(tensors_close(relay, onnx, 1e-4, 1e-4));
    // Compiled to an executable first, then run.
    DriverResult c = run("compile '" + kModels + name + ".relay' -o m.rxe");
    ASSERT_EQ(c.rc, 0) << c.err;
    NDArray compiled = run_model((dir_ / "m.rxe").string(), input, "rxe");
    EXPECT_TRUE(tensors_close(compiled, onnx, 1e-4, 1e-4));
  }
};

#ifdef RELAX_HAVE_ONNX_FRONTEND
TEST_F(RelayDriverTest, ResNetStageMatchesTheOnnxPath) { check_model("resnet_stage"); }
TEST_F(RelayDriverTest, TransformerBlockMatchesTheOnnxPath) { check_model("transformer_block"); }
#endif

TEST_F(RelayDriverTest, PrintShowsTheRelaxResult) {
  DriverResult r = run("print '" + kModels + "resnet_stage.relay'");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(has(r.out, "def main(x: R.Tensor((1, 8, 16, 16), dtype=\"float32\"))"));
  EXPECT_TRUE(has(r.out, "R.nn.conv2d("));
  EXPECT_TRUE(has(r.out, "R.nn.batch_norm("));
}

// TVM's `mod.astext()` saved as .txt: the first bytes (`#[version`) choose the Relay frontend;
// another .txt is still "no frontend reads .txt files".
TEST_F(RelayDriverTest, TxtStartingWithTheVersionIsRelay) {
  std::filesystem::copy_file(kModels + "resnet_stage.relay", dir_ / "model.txt");
  DriverResult r = run("print model.txt");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(has(r.out, "R.nn.conv2d("));
  std::ofstream(dir_ / "notes.txt") << "just some notes\n";
  DriverResult n = run("print notes.txt");
  EXPECT_EQ(n.rc, 1);
  EXPECT_TRUE(has(n.err, "notes.txt: no frontend reads .txt files")) << n.err;
}

TEST_F(RelayDriverTest, ErrorsNameTheFileAndPlace) {
  std::ofstream(dir_ / "bad.relay") << "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(2), float32]) {\n  nn.nope(%x)\n}\n";
  DriverResult r = run("compile bad.relay -o bad.rxe");
  EXPECT_NE(r.rc, 0);
  EXPECT_TRUE(has(r.err, "bad.relay:3:3: unsupported Relay operators (1): nn.nope (line 3)"));
}

}  // namespace
}  // namespace relax::relay_test
