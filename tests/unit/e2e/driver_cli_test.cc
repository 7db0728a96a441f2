// relax-driver's command line itself: --version, suggestions for mistyped commands and
// options, the environment variables in the help, `run --json` keeping stdout for JSON,
// float16/bfloat16 inputs and outputs of `run`, and the bash completion script.
#include <cmath>
#include <vector>

#include "../../common/driver_runner.h"
#include "relax/transform/plugin_abi.h"

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

TEST_F(DriverCli, VersionNamesRelaxTheAbiLlvmAndTheCommit) {
  DriverResult r = run("--version");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out.rfind("relax-driver 0.", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("(commit "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("(commit )"), std::string::npos) << r.out;
  std::string abi = "plugin ABI " + std::to_string(RELAX_PLUGIN_ABI_MAJOR) + "." +
                    std::to_string(RELAX_PLUGIN_ABI_MINOR) + "\n";
  EXPECT_NE(r.out.find(abi), std::string::npos) << r.out;
#ifdef RELAX_HAVE_LLVM_BACKEND
  EXPECT_NE(r.out.find("LLVM 15."), std::string::npos) << r.out;
#else
  EXPECT_NE(r.out.find("LLVM none"), std::string::npos) << r.out;
#endif
}

TEST_F(DriverCli, MistypedCommandsAndOptionsGetSuggestions) {
  DriverResult r = run("comple x.rx");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("unknown command 'comple'; did you mean 'compile'?"), std::string::npos)
      << r.err;
  // The typo, not the --output it leaves missing.
  r = run("compile --targt llvm");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("unknown option '--targt' of 'compile'; did you mean '--target'?"),
            std::string::npos)
      << r.err;
  r = run("run x.rx --dump-ir-befor=all");
  EXPECT_NE(r.err.find("did you mean '--dump-ir-before'?"), std::string::npos) << r.err;
  // An abbreviation: every option it begins.
  r = run("run x.rx --dump");
  EXPECT_NE(r.err.find("did you mean '--dump-ir-before', '--dump-ir-after' or '--dump-dir'?"),
            std::string::npos)
      << r.err;
  // Another command's option, and a word like nothing: no guess.
  r = run("compile x.rx -o y.rxe --repeat 3");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("'--repeat' of 'compile'; it is an option of 'run'"), std::string::npos)
      << r.err;
  r = run("frobnicate");
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.err.find("did you mean"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("the commands are: print opt compile run"), std::string::npos) << r.err;
}

TEST_F(DriverCli, HelpNamesInputsAndEnvironment) {
  DriverResult r = run("--help");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("RELAX_PLUGIN_PATH"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("RELAX_NUM_THREADS"), std::string::npos) << r.out;
  r = run("run --help");
  EXPECT_NE(r.out.find("RELAX_PLUGIN_PATH"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("RELAX_NUM_THREADS"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--input"), std::string::npos) << r.out;
  r = run("compile --help");
  EXPECT_NE(r.out.find("RELAX_PLUGIN_PATH"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("RELAX_NUM_THREADS"), std::string::npos) << "compile runs no kernels";
  for (const char* cmd : {"print", "opt", "compile", "run", "inspect"}) {
    r = run(std::string(cmd) + " --help");
    EXPECT_NE(r.out.find("Positionals:\n  file "), std::string::npos) << cmd << "\n" << r.out;
  }
}

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

TEST_F(DriverCli, BashCompletionIsWrittenFromTheCommands) {
  DriverResult r = run("completion bash -o c.bash");
  ASSERT_EQ(r.rc, 0) << r.err;
  std::string script = read_text_file(dir_ / "c.bash");
  EXPECT_NE(script.find("complete -o filenames -o bashdefault -F _relax_driver relax-driver"),
            std::string::npos)
      << script;
  size_t compile = script.find("\n    compile) words=\"");
  ASSERT_NE(compile, std::string::npos) << script;
  std::string line = script.substr(compile, script.find('\n', compile + 1) - compile);
  EXPECT_NE(line.find(" --target "), std::string::npos) << line;
  EXPECT_EQ(line.find(" --json "), std::string::npos) << "a run option: " << line;
  EXPECT_EQ(run("c.bash", "bash -n").rc, 0) << "not valid bash";
  // What bash offers after "relax-driver co" and "relax-driver compile m.rx --ta".
  std::ofstream(dir_ / "complete.sh")
      << "source c.bash\n"
         "COMP_WORDS=(relax-driver co); COMP_CWORD=1; _relax_driver; echo \"${COMPREPLY[*]}\"\n"
         "COMP_WORDS=(relax-driver compile m.rx --ta); COMP_CWORD=3; _relax_driver\n"
         "echo \"${COMPREPLY[*]}\"\n";
  r = run("complete.sh", "bash");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out, "compile completion\n--target\n");
  EXPECT_EQ(run("completion zsh").rc, 1);
}

}  // namespace
}  // namespace relax::test
