// Running the built relax-driver from a test: a fresh temporary directory per test, the
// command run through the shell, stdout/stderr captured and the exit code decoded.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace relax::test {

namespace fs = std::filesystem;

inline const std::string kDriverPath = RELAX_BINARY_DIR "/bin/relax-driver";

struct DriverResult {
  int rc;
  std::string out;
  std::string err;
};

inline std::string read_text_file(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// A gtest fixture with a private directory (dir_) and run() for relax-driver.
class DriverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("relax-driver-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  /// Runs `program` (default relax-driver) with `args` (shell syntax) from `cwd` (default the
  /// test directory); stdout and stderr captured separately.
  DriverResult run(const std::string& args, const std::string& program = kDriverPath,
                   const fs::path& cwd = {}) {
    std::string out = (dir_ / "stdout").string(), err = (dir_ / "stderr").string();
    std::string cmd = "cd '" + (cwd.empty() ? dir_ : cwd).string() + "' && " + program + " " +
                      args + " >" + out + " 2>" + err;
    int status = std::system(cmd.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_text_file(out),
            read_text_file(err)};
  }

  fs::path dir_;
};

/// A DriverTest whose tests need the LLVM backend: skipped in a build without it.
class LLVMDriverTest : public DriverTest {
 protected:
  void SetUp() override {
#ifndef RELAX_HAVE_LLVM_BACKEND
    GTEST_SKIP() << "built without the LLVM backend";
#endif
    DriverTest::SetUp();
  }
};

}  // namespace relax::test
