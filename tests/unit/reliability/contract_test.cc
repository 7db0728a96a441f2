// The driver's contract on the bad command lines of ../shared/reliability/README.md: exit 1
// with a message naming the option, file or value at fault — never a signal, an LLVM abort or
// an internal error (exit 2).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../../common/driver_runner.h"

namespace relax::test {
namespace {

const std::string kMlp = RELAX_SOURCE_DIR "/examples/mlp/mlp.rx";

class ContractTest : public LLVMDriverTest {
 protected:
  void expect_user_error(const std::string& args, const std::vector<std::string>& parts) {
    DriverResult r = run(args);
    EXPECT_EQ(r.rc, 1) << args << "\n" << r.err;
    for (const auto& p : parts) EXPECT_NE(r.err.find(p), std::string::npos) << p << "\n" << r.err;
  }
};

TEST_F(ContractTest, UnknownOrUnfitCpuIsAUserError) {
  expect_user_error("compile " + kMlp + " --target llvm,mcpu=i386 -o x.rxe", {"mcpu 'i386'"});
  expect_user_error("compile " + kMlp + " --target llvm,mcpu=no-such-cpu -o x.rxe",
                    {"unknown mcpu 'no-such-cpu'"});
}

TEST_F(ContractTest, TruncatedPluginIsRefusedWithItsPath) {
  fs::path so = fs::path(RELAX_PLUGIN_DIR) / "librelax-fusion.so";
  ASSERT_TRUE(fs::exists(so)) << so;
  ASSERT_EQ(std::system(("head -c 5000 '" + so.string() + "' > '" + (dir_ / "t.so").string() +
                         "'").c_str()),
            0);
  expect_user_error("--plugin ./t.so passes", {"t.so", "truncated"});
}

TEST_F(ContractTest, BadDimsAndOutputDirAreUserErrors) {
  ASSERT_EQ(run("compile " + kMlp + " -o mlp.rxe").rc, 0);
  expect_user_error("run mlp.rxe --dim n=abc", {"--dim n=abc"});
  expect_user_error("run mlp.rxe --dim n=-1", {"--dim n=-1"});
  expect_user_error("run mlp.rxe --dim n=999999999999",
                    {"parameter x", "--dim n=999999999999", "999999999999, 64"});
  std::ofstream(dir_ / "afile") << "x";
  expect_user_error("run mlp.rxe --output-dir afile", {"--output-dir afile"});
}

TEST_F(ContractTest, DuplicateYamlKeysAreErrors) {
  std::ofstream(dir_ / "p.yaml") << "passes: [normalize]\ntarget: llvm\npasses: [legalize-ops]\n";
  expect_user_error("pipeline p.yaml", {"p.yaml:3", "'passes' appears twice"});
}

TEST_F(ContractTest, PrintedPipelinesWithControlCharactersLoadAgain) {
  // An option value with a tab and a 0xff byte: printed YAML must read back the same.
  std::ofstream(dir_ / "p.yaml") << "passes:\n  - remove-unused-functions: {entry: \"main\\tx\\xff\"}\n";
  DriverResult first = run("pipeline p.yaml");
  ASSERT_EQ(first.rc, 0) << first.err;
  std::string yaml = first.out.substr(0, first.out.find("# one line"));
  std::ofstream(dir_ / "again.yaml") << yaml;
  DriverResult second = run("pipeline again.yaml");
  ASSERT_EQ(second.rc, 0) << second.err << "\n" << yaml;
  EXPECT_EQ(second.out, first.out);
}

TEST_F(ContractTest, RunawayRecursionErrorStaysShort) {
  std::ofstream(dir_ / "rec.rx") << R"(@I.ir_module
class Module:
    @R.function
    def f(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        y = Module.f(x)
        return y

    @R.function
    def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        y = Module.f(x)
        return y
)";
  DriverResult r = run("run rec.rx");
  EXPECT_EQ(r.rc, 1) << r.err.substr(0, 1000);
  EXPECT_NE(r.err.find("call stack overflow"), std::string::npos) << r.err.substr(0, 1000);
  EXPECT_NE(r.err.find("nested calls], called from 'main'"), std::string::npos)
      << r.err.substr(0, 1000);
  EXPECT_LT(r.err.size(), 1000u);
}

}  // namespace
}  // namespace relax::test
