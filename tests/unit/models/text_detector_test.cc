// text_detector (the bench model of ../shared/models, height and width dynamic) compiled once
// for the LLVM backend and run at three sizes: 320x320 against PyTorch's output, 256x384 and
// 480x320 against ONNX Runtime's. The model (1.6 MB) is not committed: the test makes it with
// tests/data/onnx_compat/text_detector_case.py (torch, make_models.py, ort_ref.sh) and is
// skipped when that cannot run.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "../../common/tensor_compare.h"
#include "relax/runtime/tensor_io.h"
#include "relax/runtime/vm.h"
#include "relax/target/build.h"
#include "relax/transform/frontend.h"
#include "relax/transform/pass.h"
#include "relax/transform/plugin.h"

namespace relax {
namespace {

namespace fs = std::filesystem;
using runtime::NDArray;

const transform::Frontend& onnx_frontend() {
  static transform::PassRegistry registry;
  static transform::PluginManager plugins(registry);
  static const transform::Frontend* fe = [] {
    plugins.load_path(std::string(RELAX_PLUGIN_DIR) + "/librelax-onnx.so");
    return transform::find_frontend("model.onnx");
  }();
  return *fe;
}

TEST(TextDetector, CompilesOnceAndRunsAtThreeSizes) {
#ifndef RELAX_HAVE_LLVM_BACKEND
  GTEST_SKIP() << "built without the LLVM backend";
#endif
  fs::path out = fs::temp_directory_path() / ("relax-text-detector-" + std::to_string(::getpid()));
  fs::create_directories(out);
  std::string cmd = "/usr/bin/python3 " RELAX_SOURCE_DIR
                    "/tests/data/onnx_compat/text_detector_case.py '" + out.string() + "'";
  if (std::system(cmd.c_str()) != 0) {
    fs::remove_all(out);
    GTEST_SKIP() << "cannot make the text_detector case (torch, make_models.py or ONNX Runtime "
                    "missing): " << cmd;
  }
  IRModule mod = onnx_frontend().import((out / "text_detector" / "model.onnx").string(), {});
  BuildOptions options;
  options.target = "llvm";
  auto vm = runtime::VirtualMachine::create(build(mod, options));
  struct Case {
    fs::path dir;
    std::vector<int64_t> shape;
  };
  for (const Case& c : {Case{out / "text_detector" / "test_data_set_0", {1, 1, 320, 320}},
                        Case{out / "ort" / "test_data_set_0", {1, 1, 256, 384}},
                        Case{out / "ort" / "test_data_set_1", {1, 1, 480, 320}}}) {
    NDArray input = runtime::load_tensor_proto((c.dir / "input_0.pb").string());
    NDArray want = runtime::load_tensor_proto((c.dir / "output_0.pb").string());
    ASSERT_EQ(want.shape(), c.shape) << c.dir;
    NDArray got = vm->invoke("main", {input}).as_tensor();
    EXPECT_TRUE(test::tensors_close(got, want, 1e-3, 1e-4)) << c.dir;
  }
  fs::remove_all(out);
}

}  // namespace
}  // namespace relax
