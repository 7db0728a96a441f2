// The OpenCL binary cache without a device (runtime/cl_cache.cc, compiled into this binary):
// SHA-256 against the FIPS 180-4 test vectors, keys that change with every part, and entries
// that round-trip, miss silently when absent and are refused with a warning when damaged.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "cl_cache.h"

namespace relax::opencl {
namespace {

std::string sha(const std::string& s) { return hex(sha256(s.data(), s.size())); }

TEST(OpenCLCache, Sha256TestVectors) {
  EXPECT_EQ(sha(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  // Lengths around the padding boundary (55, 56, 64 bytes) hash without crashing and differ.
  EXPECT_NE(sha(std::string(55, 'x')), sha(std::string(56, 'x')));
  EXPECT_NE(sha(std::string(63, 'x')), sha(std::string(64, 'x')));
}

TEST(OpenCLCache, KeysDependOnEveryPartAndItsBoundaries) {
  auto k = cache_key({"src", "-cl-std=CL1.2", "dev", "drv 1.0"});
  EXPECT_NE(k, cache_key({"src", "-cl-std=CL1.2", "dev", "drv 1.1"}));
  EXPECT_NE(k, cache_key({"src2", "-cl-std=CL1.2", "dev", "drv 1.0"}));
  EXPECT_NE(cache_key({"ab", "c"}), cache_key({"a", "bc"}));  // length-prefixed
  EXPECT_EQ(k, cache_key({"src", "-cl-std=CL1.2", "dev", "drv 1.0"}));
}

TEST(OpenCLCache, EntriesRoundTripAndDamageIsRefusedWithAWarning) {
  std::string dir =
      std::string(RELAX_BINARY_DIR) + "/opencl_cache_unit/" + std::to_string(::getpid()) + "/a/b";
  std::filesystem::remove_all(dir);
  auto key = cache_key({"k"});
  EXPECT_FALSE(cache_read(dir, key).has_value());  // absent: a silent miss
  std::vector<uint8_t> bin = {1, 2, 3, 4, 5, 250};
  ASSERT_TRUE(cache_write(dir, key, bin));  // creates the directories
  ASSERT_EQ(cache_read(dir, key).value_or(std::vector<uint8_t>{}), bin);
  std::string path = dir + "/" + hex(key) + ".bin";
  for (int variant = 0; variant < 3; ++variant) {
    ASSERT_TRUE(cache_write(dir, key, bin));
    if (variant == 0) {
      std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(-33, std::ios::end);  // the last byte of the binary
      f.put('\x7f');
    } else if (variant == 1) {
      std::filesystem::resize_file(path, 20);
    } else {  // another program's entry under this name
      ASSERT_TRUE(cache_write(dir, cache_key({"other"}), bin));
      std::filesystem::rename(dir + "/" + hex(cache_key({"other"})) + ".bin", path);
    }
    ::testing::internal::CaptureStderr();
    EXPECT_FALSE(cache_read(dir, key).has_value()) << "variant " << variant;
    std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("ignoring the cached OpenCL program " + path), std::string::npos) << err;
  }
  // An unwritable directory: a warning and false, never an exception.
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(cache_write("/proc/relax-no-such-dir", key, bin));
  EXPECT_NE(::testing::internal::GetCapturedStderr().find("warning"), std::string::npos);
  std::filesystem::remove_all(std::string(RELAX_BINARY_DIR) + "/opencl_cache_unit/" +
                              std::to_string(::getpid()));
}

}  // namespace
}  // namespace relax::opencl
