// check_shared_object: sound libraries pass; truncated, foreign and non-ELF files are refused
// before dlopen (which would die of SIGBUS on a truncated one), and the plugin loader and the
// driver report them with the path.
#include "relax/runtime/shared_object.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

namespace relax::runtime {
namespace {

namespace fs = std::filesystem;

const std::string kPlugin = RELAX_PLUGIN_DIR "/librelax-cleanup.so";

std::vector<uint8_t> bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(SharedObject, ABuiltPluginPasses) {
  ASSERT_TRUE(fs::exists(kPlugin)) << kPlugin;
  EXPECT_EQ(check_shared_object_file(kPlugin), "");
  std::vector<uint8_t> b = bytes_of(kPlugin);
  EXPECT_EQ(check_shared_object(b.data(), b.size()), "");
}

TEST(SharedObject, TruncatedAndForeignFilesAreRefused) {
  std::vector<uint8_t> b = bytes_of(kPlugin);
  ASSERT_GT(b.size(), 4096u);
  EXPECT_NE(check_shared_object(b.data(), b.size() / 2).find("truncated"), std::string::npos);
  EXPECT_NE(check_shared_object(b.data(), 100).find("truncated"), std::string::npos);
  EXPECT_NE(check_shared_object(b.data(), 10).find("too short"), std::string::npos);
  const std::string text = "#!/bin/sh\necho not a library, but long enough for a header........\n";
  EXPECT_EQ(check_shared_object(reinterpret_cast<const uint8_t*>(text.data()), text.size()),
            "not an ELF file");
  std::vector<uint8_t> exe = b;
  exe[16] = 2;  // e_type = ET_EXEC
  exe[17] = 0;
  EXPECT_NE(check_shared_object(exe.data(), exe.size()).find("not a shared object"),
            std::string::npos);
  std::vector<uint8_t> arm = b;
  arm[18] = 0xB7;  // e_machine = EM_AARCH64 on x86-64 (or the reverse)
  arm[19] = 0;
  if (arm[18] != b[18]) {
    EXPECT_NE(check_shared_object(arm.data(), arm.size()).find("another machine"),
              std::string::npos);
  }
}

TEST(SharedObject, TheDriverRefusesATruncatedPluginWithItsPath) {
  fs::path dir = fs::temp_directory_path() / ("relax-so-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::vector<uint8_t> b = bytes_of(kPlugin);
  fs::path cut = dir / "librelax-cut.so";
  std::ofstream(cut, std::ios::binary).write(reinterpret_cast<const char*>(b.data()),
                                             std::streamsize(b.size() / 3));
  std::string cmd = std::string(RELAX_BINARY_DIR "/bin/relax-driver --plugin ") + cut.string() +
                    " passes >" + (dir / "out").string() + " 2>" + (dir / "err").string();
  int status = std::system(cmd.c_str());
  std::ifstream err(dir / "err");
  std::string message((std::istreambuf_iterator<char>(err)), std::istreambuf_iterator<char>());
  ASSERT_TRUE(WIFEXITED(status)) << "the driver died of a signal";
  EXPECT_EQ(WEXITSTATUS(status), 1) << message;
  EXPECT_NE(message.find("refusing plugin '" + fs::weakly_canonical(cut).string() + "': truncated"),
            std::string::npos)
      << message;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace relax::runtime
