// Out-of-range indices of the ONNX gathers and scatters through relax-driver: constant ones
// refused at import, run-time ones refused by the run (exit 1) with a message naming the node,
// the index and its position; in-range ones (negative included) still compute. The models are
// data/*.onnx (data/make_models.py).
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "../../common/driver_runner.h"
#include "relax/runtime/tensor_io.h"

namespace relax::test {
namespace {

const std::string kData = RELAX_SOURCE_DIR "/tests/unit/reliability/data/";

class IndexChecksTest : public LLVMDriverTest {
 protected:
  // Writes an int64 tensor of `shape` holding `values` to dir_/name.
  void save_indices(const std::string& name, std::vector<int64_t> shape,
                    const std::vector<int64_t>& values) {
    runtime::NDArray a = runtime::NDArray::empty(shape, DataType::Int(64));
    std::copy(values.begin(), values.end(), a.data_as<int64_t>());
    runtime::save_npy((dir_ / name).string(), a);
  }
  void save_ones(const std::string& name, std::vector<int64_t> shape) {
    runtime::NDArray a = runtime::NDArray::empty(shape, DataType::Float(32));
    for (int64_t k = 0; k < a.numel(); ++k) a.data_as<float>()[k] = 1;
    runtime::save_npy((dir_ / name).string(), a);
  }
  void expect_compiles(const std::string& model) {
    DriverResult r = run("compile " + kData + model + ".onnx -o x.rxe");
    ASSERT_EQ(r.rc, 0) << r.err;
  }
  void expect_refused(const DriverResult& r, const std::vector<std::string>& parts) {
    EXPECT_EQ(r.rc, 1) << r.out << r.err;
    for (const auto& p : parts) EXPECT_NE(r.err.find(p), std::string::npos) << p << "\n" << r.err;
  }
};

TEST_F(IndexChecksTest, GatherIndicesAreCheckedAtRunTime) {
  expect_compiles("gather_rt");
  save_indices("ok.npy", {2}, {1, -1});
  DriverResult ok = run("run x.rxe --input i=ok.npy");
  ASSERT_EQ(ok.rc, 0) << ok.err;
  EXPECT_NE(ok.out.find("[3, 4, 5, 9, 10, 11]"), std::string::npos) << ok.out;
  save_indices("bad.npy", {2}, {1, 7});
  expect_refused(run("run x.rxe --input i=bad.npy"),
                 {"node 'gather_rows' (Gather)", "index 7 at position [1]",
                  "axis 0 of size 4 (expected -4 <= index < 4)"});
  save_indices("neg.npy", {2}, {-5, 0});
  expect_refused(run("run x.rxe --input i=neg.npy"), {"(Gather)", "index -5 at position [0]"});
}

TEST_F(IndexChecksTest, GatherElementsAndGatherNdIndicesAreCheckedAtRunTime) {
  expect_compiles("gather_elements_rt");
  save_indices("ok.npy", {4, 2}, {0, 2, 1, -1, 2, 0, 0, 0});
  DriverResult ok = run("run x.rxe --input i=ok.npy");
  ASSERT_EQ(ok.rc, 0) << ok.err;
  EXPECT_NE(ok.out.find("[0, 2, 4, 5, 8, 6, 9, 9]"), std::string::npos) << ok.out;
  save_indices("bad.npy", {4, 2}, {0, 2, 1, -1, 2, 3, 0, 0});
  expect_refused(run("run x.rxe --input i=bad.npy"),
                 {"node 'ge' (GatherElements)", "index 3 at position [2, 1]", "axis 1 of size 3"});

  expect_compiles("gather_nd_rt");
  save_indices("nd_ok.npy", {2, 2}, {0, 2, 3, -1});
  ok = run("run x.rxe --input i=nd_ok.npy");
  ASSERT_EQ(ok.rc, 0) << ok.err;
  EXPECT_NE(ok.out.find("[2, 11]"), std::string::npos) << ok.out;
  save_indices("nd_bad.npy", {2, 2}, {0, 2, 4, 0});
  expect_refused(run("run x.rxe --input i=nd_bad.npy"),
                 {"node 'gnd' (GatherND)", "index 4 at position [1, 0]", "axis 0 of size 4"});
}

TEST_F(IndexChecksTest, ScatterIndicesAreCheckedAtRunTime) {
  save_ones("u.npy", {1, 3});
  expect_compiles("scatter_elements_rt");
  save_indices("ok.npy", {1, 3}, {0, 3, -1});
  DriverResult ok = run("run x.rxe --input i=ok.npy --input u=u.npy");
  ASSERT_EQ(ok.rc, 0) << ok.err;
  save_indices("bad.npy", {1, 3}, {0, -5, 1});
  expect_refused(run("run x.rxe --input i=bad.npy --input u=u.npy"),
                 {"node 'se' (ScatterElements)", "index -5 at position [0, 1]"});

  expect_compiles("scatter_nd_rt");
  save_indices("nd_ok.npy", {1, 1}, {2});
  ok = run("run x.rxe --input i=nd_ok.npy --input u=u.npy");
  ASSERT_EQ(ok.rc, 0) << ok.err;
  save_indices("nd_bad.npy", {1, 1}, {9});
  expect_refused(run("run x.rxe --input i=nd_bad.npy --input u=u.npy"),
                 {"node 'snd' (ScatterND)", "index 9 at position [0, 0]"});
}

TEST_F(IndexChecksTest, ConstantIndicesAreCheckedAtImport) {
  expect_refused(run("compile " + kData + "gather_elements_const.onnx -o x.rxe"),
                 {"gather_elements_const.onnx", "node 'ge_const' (GatherElements)",
                  "index -4 at position [2, 0] of the indices 'i'", "axis 1 of size 3"});
  expect_refused(run("compile " + kData + "gather_nd_const.onnx -o x.rxe"),
                 {"node 'gnd_const' (GatherND)", "index 3 at position [0, 1]"});
  // The reproducer of the issue: a constant index 100 into 4 rows.
  std::string oob = RELAX_SOURCE_DIR "/../shared/reliability/gather_oob.onnx";
  if (fs::exists(oob)) {
    expect_refused(run("compile " + oob + " -o x.rxe"), {"(Gather)", "index 100 at position [0]"});
    expect_refused(run("run " + oob), {"(Gather)", "index 100"});
  }
}

TEST_F(IndexChecksTest, RelaxTakeAndGatherElementsCheckConstantIndices) {
  auto module = [](const std::string& call) {
    return "@I.ir_module\nclass Module:\n    @R.function\n"
           "    def main(x: R.Tensor((4, 3), \"float32\")):\n"
           "        with R.dataflow():\n            y = " + call + "\n            R.output(y)\n"
           "        return y\n";
  };
  std::ofstream(dir_ / "take.rx") << module("R.take(x, R.const([1, 4], \"int64\"), axis=0)");
  expect_refused(run("compile take.rx -o x.rxe"),
                 {"take.rx:6", "relax.take: constant index 4 (element 1 of 'indices')",
                  "axis 0 of size 4"});
  std::ofstream(dir_ / "ok.rx") << module("R.take(x, R.const([1, -4], \"int64\"), axis=0)");
  EXPECT_EQ(run("compile ok.rx -o x.rxe").rc, 0);
  std::ofstream(dir_ / "ge.rx") << module(
      "R.gather_elements(x, R.const([[0], [1], [2], [-9]], \"int64\"), axis=1)");
  expect_refused(run("compile ge.rx -o x.rxe"),
                 {"relax.gather_elements: constant index -9 (element 3", "axis 1 of size 3"});
}

}  // namespace
}  // namespace relax::test
