// Replays every fuzz regression input (fuzz/regressions/<target>/) and every reproducer of
// ../shared/reliability through the built relax-driver, asserting the driver's contract: exit 0
// or 1 (a user error, with a message on stderr), never 2 (internal error) nor a signal.
//
// How an input reaches the driver follows its fuzz target (fuzz/fuzz_*.cc):
//   fuzz_onnx, *.onnx   compile FILE -o x.rxe, then run x.rxe when it compiled
//   fuzz_rx, *.rx       compile FILE -o x.rxe, then run x.rxe when it compiled
//   fuzz_relay, *.relay compile FILE -o x.rxe, then run x.rxe when it compiled
//   fuzz_pipeline       first byte even: the rest as pipeline YAML file; odd: as a one-line
//   *.yaml              pipeline FILE
//   fuzz_rxe            run FILE (payload size and checksum fixed first, as the target does)
//   fuzz_tensor         first byte even: the rest as .npy, odd: as .pb; run mlp.rx --input
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "../../common/driver_runner.h"
#include "relax/runtime/executable.h"

namespace relax::test {
namespace {

std::vector<fs::path> files_in(const fs::path& dir) {
  std::vector<fs::path> out;
  if (!fs::is_directory(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().filename().string().front() != '.' &&
        e.path().extension() != ".md") {
      out.push_back(e.path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void write_bytes(const fs::path& p, const std::string& bytes) {
  std::ofstream(p, std::ios::binary) << bytes;
}

std::string quote(const fs::path& p) { return "'" + p.string() + "'"; }

class ReplayTest : public DriverTest {
 protected:
  // Runs one driver command for `input`; fails the test unless it exits 0 or 1 with a
  // message on stderr for 1.
  DriverResult expect_contract(const fs::path& input, const std::string& args) {
    DriverResult r = run(args);
    EXPECT_TRUE(r.rc == 0 || r.rc == 1)
        << input << ": `relax-driver " << args << "` exited " << r.rc << "\nstderr: "
        << r.err.substr(0, 2000);
    if (r.rc == 1) {
      EXPECT_NE(r.err.find("error"), std::string::npos) << input << ": no error message";
      EXPECT_LT(r.err.size(), 20000u) << input << ": the error message is too long";
    }
    return r;
  }

  void compile_and_run(const fs::path& input) {
    DriverResult r = expect_contract(input, "compile " + quote(input) + " -o x.rxe");
    if (r.rc == 0) expect_contract(input, "run x.rxe");
  }

  void replay(const std::string& target, const fs::path& input) {
    SCOPED_TRACE(input.string());
    std::string bytes = read_bytes(input);
    if (target == "fuzz_onnx" || target == "fuzz_rx" || target == "fuzz_relay") {
      fs::path copy = dir_ / ("model." + target.substr(5));
      write_bytes(copy, bytes);
      compile_and_run(copy);
    } else if (target == "fuzz_pipeline") {
      if (bytes.empty()) return;
      std::string text = bytes.substr(1);
      if (uint8_t(bytes[0]) % 2 == 0) {
        write_bytes(dir_ / "p.yaml", text);
        expect_contract(input, "pipeline p.yaml");
      } else {
        write_bytes(dir_ / "line.txt", text);
        expect_contract(input, "pipeline \"$(cat line.txt)\"");
      }
    } else if (target == "fuzz_rxe") {
      constexpr size_t kHeader = 32;
      if (bytes.size() >= kHeader) {
        uint64_t payload = bytes.size() - kHeader;
        std::memcpy(bytes.data() + 16, &payload, 8);
        auto* p = reinterpret_cast<const uint8_t*>(bytes.data()) + kHeader;
        uint64_t sum = runtime::fnv1a64(std::span<const uint8_t>(p, payload));
        std::memcpy(bytes.data() + 24, &sum, 8);
      }
      write_bytes(dir_ / "x.rxe", bytes);
      expect_contract(input, "run x.rxe");
    } else if (target == "fuzz_tensor") {
      if (bytes.empty()) return;
      std::string file = uint8_t(bytes[0]) % 2 == 0 ? "x.npy" : "x.pb";
      write_bytes(dir_ / file, bytes.substr(1));
      expect_contract(input, "run '" RELAX_SOURCE_DIR "/examples/mlp/mlp.rx' --target tir-interp "
                             "--input x=" + file);
    } else if (input.extension() == ".yaml") {
      expect_contract(input, "pipeline " + quote(input));
    } else {
      compile_and_run(input);
    }
  }
};

TEST_F(ReplayTest, FuzzRegressionsKeepTheDriverContract) {
  fs::path root = fs::path(RELAX_SOURCE_DIR) / "fuzz" / "regressions";
  size_t n = 0;
  for (const char* target : {"fuzz_onnx", "fuzz_rx", "fuzz_pipeline", "fuzz_rxe", "fuzz_tensor",
                             "fuzz_relay"}) {
    for (const auto& f : files_in(root / target)) {
      replay(target, f);
      ++n;
    }
  }
  EXPECT_GT(n, 0u) << "no regression inputs under " << root;
}

TEST_F(ReplayTest, SharedReproducersKeepTheDriverContract) {
  fs::path dir = fs::path(RELAX_SOURCE_DIR) / ".." / "shared" / "reliability";
  auto files = files_in(dir);
  if (files.empty()) GTEST_SKIP() << "no reproducers in " << dir;
  for (const auto& f : files) replay("", f);
}

}  // namespace
}  // namespace relax::test
