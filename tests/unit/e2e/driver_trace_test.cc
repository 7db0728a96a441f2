// What the driver shows of its work: --trace (the Chrome trace JSON of a compile — every pass
// and stage — and of a run — every kernel and builtin call, the invoke), --time-passes
// accounting for the whole compile, and printing with large constants elided.
#include <set>

#include "../../common/driver_runner.h"
#include "../../common/json_reader.h"

namespace relax::test {
namespace {

const char* kModule = R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 8), "float32"), w: R.Tensor((8, 3), "float32")):
        y = R.matmul(x, w)
        z = R.nn.relu(R.add(y, R.const(1.0, "float32")))
        return R.nn.softmax(z, axis=1)
)";

/// The trace at `path`, parsed; its events by category.
std::map<std::string, std::vector<json::Value>> events_by_category(const fs::path& path) {
  json::Value doc = json::parse(read_text_file(path));
  std::map<std::string, std::vector<json::Value>> out;
  for (const json::Value& e : doc.at("traceEvents").array) {
    if (e.at("ph").string != "X") continue;
    EXPECT_GE(e.at("dur").number, 0);
    EXPECT_GE(e.at("ts").number, 0);
    EXPECT_EQ(e.at("pid").number, 1);
    out[e.at("cat").string].push_back(e);
  }
  return out;
}

using DriverTrace = DriverTest;

TEST_F(DriverTrace, CompileTraceHasEveryPassAndStage) {
  std::ofstream(dir_ / "m.rx") << kModule;
  DriverResult r = run("compile m.rx --target tir-interp -o m.rxe --trace c.json");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.err.find("Total:"), std::string::npos) << "no table without --time-passes";
  auto cats = events_by_category(dir_ / "c.json");
  ASSERT_EQ(cats["compile"].size() >= 2, true);
  std::set<std::string> passes;
  for (const json::Value& e : cats["pass"]) passes.insert(e.at("name").string);
  EXPECT_TRUE(passes.count("legalize-ops")) << "passes traced: " << passes.size();
  EXPECT_TRUE(passes.count("call-tir-rewrite"));
  ASSERT_EQ(cats["codegen"].size(), 1u);
  EXPECT_NE(cats["codegen"][0].at("name").string.find("codegen tir-interp"), std::string::npos);
  // The whole compile encloses its stages.
  const json::Value* whole = nullptr;
  for (const json::Value& e : cats["compile"])
    if (e.at("name").string == "compile") whole = &e;
  ASSERT_NE(whole, nullptr);
  double begin = whole->at("ts").number, end = begin + whole->at("dur").number;
  for (const json::Value& e : cats["pass"]) {
    EXPECT_GE(e.at("ts").number, begin);
    EXPECT_LE(e.at("ts").number + e.at("dur").number, end + 1);
  }
  EXPECT_EQ(whole->at("args").at("target").string, "tir-interp");
}

TEST_F(DriverTrace, RunTraceHasEveryKernelCall) {
  std::ofstream(dir_ / "m.rx") << kModule;
  ASSERT_EQ(run("compile m.rx --target tir-interp -o m.rxe").rc, 0);
  DriverResult r = run("run m.rxe --repeat 3 --trace r.json");
  ASSERT_EQ(r.rc, 0) << r.err;
  auto cats = events_by_category(dir_ / "r.json");
  EXPECT_EQ(cats["run"].size(), 3u) << "one event per invoke";
  // Each invoke calls the same kernels: their count is a multiple of 3.
  ASSERT_FALSE(cats["kernel"].empty());
  EXPECT_EQ(cats["kernel"].size() % 3, 0u);
  std::set<std::string> kernels;
  for (const json::Value& e : cats["kernel"]) kernels.insert(e.at("name").string);
  bool matmul = false;
  for (const std::string& k : kernels) matmul |= k.find("matmul") != std::string::npos;
  EXPECT_TRUE(matmul) << "kernels traced: " << kernels.size();
  // Each kernel names the device (its target) it ran on: the CPU of a single-device executable.
  EXPECT_EQ(cats["kernel"][0].at("args").at("device").string, "cpu");
  EXPECT_EQ(cats["compile"].size(), 1u) << "the executable's load";
  // An unwritable trace path is a user error naming it.
  r = run("run m.rxe --trace " + (dir_ / "no" / "such" / "dir.json").string());
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("cannot open the file for writing"), std::string::npos) << r.err;
}

TEST_F(DriverTrace, TimePassesAccountsForTheCompile) {
  std::ofstream(dir_ / "m.rx") << kModule;
  DriverResult r = run("compile m.rx --target tir-interp -o m.rxe --time-passes");
  ASSERT_EQ(r.rc, 0) << r.err;
  // "<sum> ms  in the stages above" and "<total> ms  total compile time": the stages account
  // for most of it (a loaded machine preempts the process between stages, time that only the
  // total sees: the bound is loose, not a timing test; a missing stage of this compile's
  // passes, codegen or writing would show as a gap far larger than it).
  auto number_before = [&](const std::string& label) {
    size_t at = r.err.find(label);
    EXPECT_NE(at, std::string::npos) << r.err;
    size_t line = r.err.rfind('\n', at);
    return std::stod(r.err.substr(line == std::string::npos ? 0 : line + 1));
  };
  double sum = number_before(" ms  in the stages above");
  double total = number_before(" ms  total compile time");
  EXPECT_GT(total, 0);
  EXPECT_LE(sum, total + 0.5) << r.err;
  EXPECT_GE(sum, 0.75 * total - 5.0) << r.err;
}

const char* kBigConstant = R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32")):
        return (x, metadata["relax.expr.Constant"][0])

metadata = {
    "relax.expr.Constant": [
        R.const_elided((2, 3), "float32"),
    ]
}
)";

TEST_F(DriverTrace, PrintElidesLargeConstantsAndTheTextParses) {
  const std::string model = RELAX_SOURCE_DIR "/../shared/models/test/mobilenet_v2_w025/model.onnx";
  if (!fs::exists(model)) GTEST_SKIP() << "no " << model;
  DriverResult full = run("print " + model + " --show-constants");
  DriverResult elided = run("print " + model + " -o e.rx");
  ASSERT_EQ(full.rc, 0) << full.err;
  ASSERT_EQ(elided.rc, 0) << elided.err;
  std::string text = read_text_file(dir_ / "e.rx");
  EXPECT_LT(text.size() * 50, full.out.size()) << "elided: " << text.size();
  EXPECT_NE(text.find("R.const_elided((100, 1280), \"float32\")"), std::string::npos);
  // The elided text reads back: zero-filled placeholders of the declared shapes.
  DriverResult r = run("compile e.rx --target tir-interp -o e.rxe");
  EXPECT_EQ(r.rc, 0) << r.err;
}

TEST_F(DriverTrace, ElidedConstantsReadBackAsZeros) {
  std::ofstream(dir_ / "m.rx") << kBigConstant;
  DriverResult r = run("run m.rx --target tir-interp");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("output 1: tensor (2, 3) float32 [0, 0, 0, 0, 0, 0]"), std::string::npos)
      << r.out;
  // Bad placeholders are named.
  std::string bad = kBigConstant;
  bad.replace(bad.rfind("(2, 3)"), 6, "(2, -3)");
  std::ofstream(dir_ / "neg.rx") << bad;
  r = run("print neg.rx");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("R.const_elided: negative dimension -3"), std::string::npos) << r.err;
  bad = kBigConstant;
  bad.replace(bad.rfind("(2, 3)"), 6, "(65536, 65536, 4)");
  std::ofstream(dir_ / "huge.rx") << bad;
  r = run("print huge.rx");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("would exceed 4 GiB"), std::string::npos) << r.err;
}

TEST_F(DriverTrace, ProgressLineOnlyOnATerminal) {
  if (std::system("command -v script >/dev/null 2>&1") != 0) GTEST_SKIP() << "no script(1)";
  std::ofstream(dir_ / "m.rx") << kModule;
  // script(1) gives the driver a terminal; its output is what the terminal received.
  auto on_tty = [&](const std::string& args) {
    return run("-qec \"" + kDriverPath + " " + args + "\" /dev/null", "TERM=xterm script");
  };
  DriverResult r = on_tty("compile m.rx --target tir-interp -o m.rxe");
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("[relax] import m.rx"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[relax] pass 1/"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[relax] codegen tir-interp (4 kernels)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[relax] writing m.rxe"), std::string::npos) << r.out;
  r = on_tty("run m.rxe --repeat 2");
  EXPECT_NE(r.out.find("[relax] run 2/2"), std::string::npos) << r.out;
  r = on_tty("compile m.rx --target tir-interp -o m.rxe --quiet");
  EXPECT_EQ(r.out.find("[relax]"), std::string::npos) << r.out;
  // Not a terminal: nothing.
  r = run("compile m.rx --target tir-interp -o m.rxe");
  EXPECT_EQ(r.err.find("[relax]"), std::string::npos) << r.err;
}

TEST_F(DriverTrace, AnExecutableRunsAgainstTestDataWithoutTheModel) {
  // A deployment copies the .rxe and the test data, not the model (scripts/device-bundle.sh).
  const fs::path model = RELAX_SOURCE_DIR "/../shared/models/test/mlp";
  if (!fs::exists(model)) GTEST_SKIP() << "no " << model;
  ASSERT_EQ(run("compile " + (model / "model.onnx").string() + " --target tir-interp -o m.rxe").rc, 0);
  fs::create_directories(dir_ / "data");
  fs::copy(model / "test_data_set_0", dir_ / "data" / "test_data_set_0");
  DriverResult r = run("run data --executable m.rxe --check");
  EXPECT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("check: 1 of 1 test data sets match"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace relax::test
