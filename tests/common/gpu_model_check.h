// A model of the zoo (../shared/models/test/NAME) through relax-driver on a GPU backend, as a
// user runs it: compiled with --target KIND, run with the backend's device runtime plugin
// against the reference outputs (--check) with a trace whose kernel events must name KIND as
// their device (the host's kernels name the host target, "llvm"). The fixture of the
// backends' model tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>

#include "driver_runner.h"
#include "json_reader.h"

namespace relax::test {

class GpuModelTest : public DriverTest {
 protected:
  /// In SetUp: skips the test when `why` says there is no device, or fails it when the
  /// environment variable `require` (RELAX_REQUIRE_VULKAN, ...) is 1.
  void require_device(const std::string& why, const char* require) {
    if (why.empty()) return;
    const char* req = std::getenv(require);
    if (req && std::string(req) == "1") FAIL() << require << "=1 but " << why;
    GTEST_SKIP() << why;
  }

  void expect_model_runs_on(const std::string& kind, const std::string& model) {
    fs::path dir = fs::path(RELAX_SOURCE_DIR) / ".." / "shared" / "models" / "test" / model;
    if (!fs::exists(dir / "model.onnx")) GTEST_SKIP() << dir << " is missing";
    DriverResult c = run("compile '" + (dir / "model.onnx").string() + "' --target " + kind +
                         " -o model.rxe");
    ASSERT_EQ(c.rc, 0) << c.err;
    EXPECT_NE(c.err.find("target " + kind), std::string::npos) << c.err;
    // The VM finds kernel-library loaders on its own, not yet device runtimes: name the plugin.
    DriverResult r = run("--plugin " + kind + "-runtime run '" + dir.string() +
                         "' --executable model.rxe --check --trace trace.json");
    EXPECT_EQ(r.rc, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("match"), std::string::npos) << r.out;
    json::Value doc = json::parse(read_text_file(dir_ / "trace.json"));
    std::set<std::string> devices;
    for (const json::Value& e : doc.at("traceEvents").array)
      if (e.at("ph").string == "X" && e.at("cat").string == "kernel")
        devices.insert(e.at("args").at("device").string);
    EXPECT_TRUE(devices.count(kind)) << devices.size();
    for (const std::string& d : devices) EXPECT_TRUE(d == kind || d == "llvm") << d;
  }
};

}  // namespace relax::test
