// relax-driver's command line itself: `run --json` keeping stdout for JSON, float16/bfloat16
// inputs and outputs of `run`.
#include <cmath>
#include <vector>

#include "../../common/driver_runner.h"

namespace relax::test {
namespace {

/// x and x + x over float16 and bfloat16: doubling is exact, so each second output is twice
/// the first, element by element, whatever the random inputs.
const char* kHalfModule = R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float16"), y: R.Tensor((4,), "bfloat16")):
        return (x, R.add(x, x), y, R.add(y, y))
)";

/// The elements `run` printed for output `i`: "output I: tensor (4,) float16 [a, b, ...]".
std::vector<double> printed_output(const std::string& out, int i) {
  std::string label = "output " + std::to_string(i) + ": ";
  size_t at = out.find(label);
  if (at == std::string::npos) return {};
  size_t open = out.find('[', at), close = out.find(']', at);
  std::vector<double> values;
  std::stringstream ss(out.substr(open + 1, close - open - 1));
  for (std::string v; std::getline(ss, v, ',');) values.push_back(std::stod(v));
  return values;
}

using DriverCli = DriverTest;

TEST_F(DriverCli, RunJsonPrintsOnlyJsonOnStdout) {
  std::ofstream(dir_ / "h.rx") << kHalfModule;
  DriverResult r = run("run h.rx --target tir-interp --repeat 3 --json");
  ASSERT_EQ(r.rc, 0) << r.err;
  std::stringstream lines(r.out);
  int n = 0;
  for (std::string line; std::getline(lines, line); ++n) {
    ASSERT_FALSE(line.empty());
    EXPECT_EQ(line.front(), '{') << line;
    EXPECT_EQ(line.back(), '}') << line;
    EXPECT_NE(line.find("\"median_ms\":"), std::string::npos) << line;
  }
  EXPECT_EQ(n, 1) << r.out;
  EXPECT_NE(r.err.find("output 0: tensor (4,) float16"), std::string::npos) << r.err;
}

TEST_F(DriverCli, RunMakesAndPrintsFloat16AndBfloat16) {
  std::ofstream(dir_ / "h.rx") << kHalfModule;
  std::vector<std::string> targets = {"tir-interp"};
#ifdef RELAX_HAVE_LLVM_BACKEND
  targets.push_back("llvm");
#endif
  for (const std::string& target : targets) {
    DriverResult r = run("run h.rx --target " + target);
    ASSERT_EQ(r.rc, 0) << target << ": " << r.err;
    for (int i : {0, 2}) {
      std::vector<double> x = printed_output(r.out, i), twice = printed_output(r.out, i + 1);
      ASSERT_EQ(x.size(), 4u) << target << ": " << r.out;
      ASSERT_EQ(twice.size(), 4u) << target << ": " << r.out;
      for (size_t k = 0; k < 4; ++k) {
        EXPECT_TRUE(std::isfinite(x[k]) && x[k] >= -1 && x[k] <= 1) << target << ": " << r.out;
        // Printed to 6 digits: the rounding of the print, not of the arithmetic.
        EXPECT_NEAR(twice[k], 2 * x[k], 1e-5) << target << ": " << r.out;
      }
    }
  }
}

}  // namespace
}  // namespace relax::test
