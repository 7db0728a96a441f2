// The model zoo end to end (../shared/models/test, see its README): each model.onnx imported
// by the ONNX frontend plugin, built for the LLVM backend, run on test_data_set_0/input_0.pb
// and compared with PyTorch's output_0.pb (rtol 1e-3, atol 1e-4). Models whose batch dim is
// symbolic run once more at batch 3 (the input tiled along axis 0), each slice of the output
// checked against the reference: one compile serves every batch.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

#include "../../common/tensor_compare.h"
#include "relax/ir/struct_info.h"
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

const std::string kZoo = RELAX_SOURCE_DIR "/../shared/models/test";

/// Loads the ONNX frontend once per process.
const transform::Frontend& onnx_frontend() {
  static transform::PassRegistry registry;
  static transform::PluginManager plugins(registry);
  static const transform::Frontend* fe = [] {
    plugins.load_path(std::string(RELAX_PLUGIN_DIR) + "/librelax-onnx.so");
    return transform::find_frontend("model.onnx");
  }();
  return *fe;
}

/// PyTorch's tolerances for float32 outputs.
constexpr double kRtol = 1e-3, kAtol = 1e-4;

NDArray tile_batch(const NDArray& x, int64_t times) {
  std::vector<int64_t> shape = x.shape();
  shape[0] *= times;
  NDArray out = NDArray::empty(shape, x.dtype());
  for (int64_t t = 0; t < times; ++t) {
    std::memcpy(static_cast<char*>(out.data()) + t * x.nbytes(), x.data(), x.nbytes());
  }
  return out;
}

class ModelZoo : public ::testing::TestWithParam<std::string> {};

TEST_P(ModelZoo, MatchesTheReferenceAtBatch1AndBatch3) {
#ifndef RELAX_HAVE_LLVM_BACKEND
  GTEST_SKIP() << "built without the LLVM backend";
#endif
  fs::path dir = fs::path(kZoo) / GetParam();
  if (!fs::exists(dir / "model.onnx")) GTEST_SKIP() << dir << " is missing";
  IRModule mod = onnx_frontend().import((dir / "model.onnx").string(), {});
  NDArray input = runtime::load_tensor_proto((dir / "test_data_set_0" / "input_0.pb").string());
  NDArray want = runtime::load_tensor_proto((dir / "test_data_set_0" / "output_0.pb").string());
  ASSERT_EQ(input.dtype(), DataType::Float(32));
  ASSERT_EQ(want.dtype(), DataType::Float(32));

  BuildOptions options;
  options.target = "llvm";
  auto vm = runtime::VirtualMachine::create(build(mod, options));
  NDArray got = vm->invoke("main", {input}).as_tensor();
  EXPECT_TRUE(test::tensors_close(got, want, kRtol, kAtol)) << GetParam() << " batch 1";

  // The batch dim of main's first parameter: symbolic for the dynamic-batch exports.
  auto* main = mod.lookup("main").as<Function>();
  ASSERT_NE(main, nullptr);
  const TensorStructInfo* p = tensor_info(main->params[0]);
  ASSERT_TRUE(p && p->shape);
  if (tir::as_const_int((*p->shape)[0])) return;  // a static batch: nothing more to run
  NDArray got3 = vm->invoke("main", {tile_batch(input, 3)}).as_tensor();
  std::vector<int64_t> shape3 = want.shape();
  shape3[0] *= 3;
  ASSERT_EQ(got3.shape(), shape3);
  for (int64_t b = 0; b < 3; ++b) {
    NDArray slice = got3.view(want.shape(), want.dtype(), b * int64_t(want.nbytes()));
    EXPECT_TRUE(test::tensors_close(slice, want, kRtol, kAtol))
        << GetParam() << " batch 3, slice " << b;
  }
}

INSTANTIATE_TEST_SUITE_P(Test, ModelZoo,
                         ::testing::Values("mlp", "small_cnn", "mobilenet_v2_w025",
                                           "tiny_transformer"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace relax
