// Helpers for the Relay frontend tests: Relay text written to a temporary file, imported
// through the plugin (librelax-relay.so from the plugin directory), and run on the
// tir-interp target; references are Relax script modules (text/parser.h) run the same way,
// or values written in the test.
#pragma once

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "../../common/error_of.h"
#include "../../common/tensor_compare.h"
#include "relax/runtime/vm.h"
#include "relax/support/diagnostic.h"
#include "relax/target/build.h"
#include "relax/text/parser.h"
#include "relax/transform/frontend.h"
#include "relax/transform/pass.h"
#include "relax/transform/plugin.h"

namespace relax::relay_test {

using runtime::NDArray;
using test::error_of;
using test::tensor_close_to;
using test::tensors_close;

inline const transform::Frontend& frontend() {
  static transform::PassRegistry registry;
  static transform::PluginManager plugins(registry);
  static const transform::Frontend* fe = [] {
    plugins.load_path(std::string(RELAX_PLUGIN_DIR) + "/librelax-relay.so");
    return transform::find_frontend("x.relay");
  }();
  return *fe;
}

/// A directory of this process's files, removed at exit.
inline std::filesystem::path temp_dir() {
  static const std::filesystem::path dir = [] {
    auto d = std::filesystem::temp_directory_path() / ("relax_relay_tests_" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(std::filesystem::temp_directory_path() / ("relax_relay_tests_" + std::to_string(::getpid())), ec);
    });
    return d;
  }();
  return dir;
}

/// Writes `text` to <tmp>/<stem>.relay and returns the path.
inline std::string write_relay(const std::string& stem, const std::string& text) {
  std::string path = (temp_dir() / (stem + ".relay")).string();
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  return path;
}

inline IRModule import_text(const std::string& text, const std::string& stem = "t") {
  return frontend().import(write_relay(stem, text), {});
}

/// The message of the error importing `text` raises.
inline std::string import_error(const std::string& text, const std::string& stem = "bad") {
  return error_of([&] { import_text(text, stem); });
}

/// Runs `func` of `mod` on the interpreter; a tuple result gives its fields.
inline std::vector<NDArray> run_all(const IRModule& mod, const std::vector<NDArray>& inputs,
                                    const std::string& func = "main") {
  auto vm = runtime::VirtualMachine::create(build(mod, relax::BuildOptions{"tir-interp", "o0"}));
  std::vector<runtime::Value> args(inputs.begin(), inputs.end());
  runtime::Value r = vm->invoke(func, args);
  if (!r.is(runtime::ValueKind::kTuple)) return {r.as_tensor()};
  std::vector<NDArray> out;
  for (const runtime::Value& v : r.as_tuple().fields()) out.push_back(v.as_tensor());
  return out;
}

inline NDArray run(const IRModule& mod, const std::vector<NDArray>& inputs) { return run_all(mod, inputs)[0]; }

inline NDArray f32(const std::vector<int64_t>& shape, const std::vector<float>& values) {
  NDArray t = NDArray::empty(shape, DataType::Float(32));
  EXPECT_EQ(size_t(t.numel()), values.size());
  std::copy(values.begin(), values.end(), t.data_as<float>());
  return t;
}

template <class T>
NDArray ints(const std::vector<int64_t>& shape, const std::vector<T>& values, DataType dt) {
  NDArray t = NDArray::empty(shape, dt);
  EXPECT_EQ(size_t(t.numel()), values.size());
  std::copy(values.begin(), values.end(), t.data_as<T>());
  return t;
}

/// Uniform values in [lo, hi) (float32), fixed seed per call site.
inline NDArray random_f32(const std::vector<int64_t>& shape, unsigned seed, float lo = -1, float hi = 1) {
  NDArray t = NDArray::empty(shape, DataType::Float(32));
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  for (int64_t k = 0; k < t.numel(); ++k) t.data_as<float>()[k] = dist(gen);
  return t;
}

/// Imports `relay`, parses `rx` (Relax script) and checks that both mains give the same
/// outputs on `inputs`.
inline void expect_same(const std::string& relay, const std::string& rx, const std::vector<NDArray>& inputs,
                        double tol = 1e-5, const std::string& stem = "same") {
  IRModule got_mod = import_text(relay, stem);
  IRModule want_mod = parse_module(rx, stem + ".rx");
  std::vector<NDArray> got = run_all(got_mod, inputs), want = run_all(want_mod, inputs);
  ASSERT_EQ(got.size(), want.size());
  for (size_t k = 0; k < got.size(); ++k) EXPECT_TRUE(tensors_close(got[k], want[k], tol, tol)) << "output " << k;
}

}  // namespace relax::relay_test

namespace relax::relay_test {

/// Whether `text` contains `part` (the whole text in the failure message).
inline ::testing::AssertionResult has(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "expected to find\n  " << part << "\nin\n  " << text;
}

}  // namespace relax::relay_test
