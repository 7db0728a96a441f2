// Helpers of the OpenCL runtime tests: a fixture that loads both plugins and skips without an
// OpenCL device (unless RELAX_REQUIRE_OPENCL=1), building and loading kernel libraries, inputs
// with special values, and running a function on the device beside tir::interpret.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "../../common/tensor_compare.h"
#include "../opencl_codegen/opencl_kernels.h"
#include "relax/arith/analyzer.h"
#include "relax/kernel/interpreter.h"
#include "relax/kernel/lower.h"
#include "relax/runtime/module.h"
#include "relax/runtime/ndarray.h"
#include "relax/runtime/registry.h"
#include "relax/tir/stmt_functor.h"
#include "relax/transform/plugin.h"

namespace relax::opencl_test {

inline constexpr DLDevice kCL{kDLOpenCL, 0};

inline transform::PluginManager& ocl_plugins() {
  static transform::PassRegistry registry;
  static transform::PluginManager p(registry);
  static bool loaded = [] {
    // Cache files of these tests stay in the build directory.
    setenv("RELAX_CACHE_DIR", (std::string(RELAX_BINARY_DIR) + "/opencl_test_cache").c_str(), 0);
    p.load_path(std::string(RELAX_PLUGIN_DIR) + "/librelax-opencl.so");
    p.load_path(std::string(RELAX_PLUGIN_DIR) + "/librelax-opencl-runtime.so");
    return true;
  }();
  (void)loaded;
  return p;
}

/// "" when an OpenCL device works, else why not.
inline std::string no_device_reason() {
  ocl_plugins();
  try {
    runtime::NDArray a = runtime::NDArray::empty({1}, DataType::Float(32), kCL);
    (void)a;
    return "";
  } catch (const std::exception& e) {
    return e.what();
  }
}

inline int64_t ocl_stat(const std::string& name) {
  std::vector<runtime::Value> args{runtime::Value(name)};
  return runtime::Registry::get("relax.opencl.stats")(args).as_int();
}

class OpenCLTest : public ::testing::Test {
 protected:
  void SetUp() override {
    static const std::string why = no_device_reason();
    if (why.empty()) return;
    const char* req = std::getenv("RELAX_REQUIRE_OPENCL");
    if (req && std::string(req) == "1") FAIL() << "RELAX_REQUIRE_OPENCL=1 but " << why;
    GTEST_SKIP() << "no OpenCL device: " << why;
  }
};

/// The kernel library of `funcs` (each scheduled with the default GPU rules), built by the
/// codegen plugin; (format, bytes).
inline std::pair<std::string, std::string> build_library(
    const std::vector<std::pair<std::string, Ref<tir::PrimFunc>>>& funcs,
    const std::string& attrs = "") {
  ocl_plugins();
  std::vector<runtime::Value> args{runtime::Value(attrs)};
  for (const auto& [name, f] : funcs) {
    args.emplace_back(name);
    args.push_back(runtime::Value::from_object(scheduled(f, name)));
  }
  runtime::Tuple t = runtime::Registry::get("relax.backend.opencl.build")(args).as_tuple();
  return {t[0].as_string(), t[1].as_string()};
}

inline runtime::Module load(const std::pair<std::string, std::string>& lib) {
  return runtime::load_module(
      lib.first, {reinterpret_cast<const uint8_t*>(lib.second.data()), lib.second.size()});
}

/// Random contents of `dtype` with special values (NaN, infinities, zeros, huge) at the start
/// when `specials`; divisors (`nonzero`) avoid 0; shift amounts (`shift`) stay in [0, bits);
/// integers stay in [0, bound) when bound > 0 (indices).
inline runtime::NDArray input(const std::vector<int64_t>& shape, DataType t, uint32_t seed,
                              bool specials, bool nonzero, bool shift, int64_t bound = 0) {
  runtime::NDArray a = runtime::NDArray::empty(shape, t);
  std::mt19937 gen(seed);
  const double special[] = {std::nan(""), INFINITY, -INFINITY, 0.0,  -0.0,
                            3e9,          -1e20,    2.5,       -2.5, 0.5};
  for (int64_t i = 0; i < a.numel(); ++i) {
    double f = std::uniform_real_distribution<double>(-2, 2)(gen);
    if (specials && i < 10) f = special[i];
    int64_t v = std::uniform_int_distribution<int64_t>(-100, 100)(gen);
    if (t.bits == 8 || t.bits == 16) v = std::uniform_int_distribution<int64_t>(-40000, 40000)(gen);
    if (specials && t.is_int() && t.bits >= 32 && i == 1)
      v = t.bits == 32 ? std::numeric_limits<int32_t>::min() : std::numeric_limits<int64_t>::min();
    if (shift) v = std::uniform_int_distribution<int64_t>(0, t.bits - 1)(gen);
    if (nonzero && v == 0) v = 3;
    if (bound > 0) v = std::uniform_int_distribution<int64_t>(0, bound - 1)(gen);
    void* p = static_cast<char*>(a.data()) + i * t.bytes();
    if (t.is_bool())
      *static_cast<uint8_t*>(p) = uint8_t(v & 1);
    else if (t.code == DataType::kFloat && t.bits == 16)
      *static_cast<uint16_t*>(p) = tir::float_to_half(float(f));
    else if (t.code == DataType::kBFloat)
      *static_cast<uint16_t*>(p) = tir::float_to_bfloat16(float(f));
    else if (t.code == DataType::kFloat && t.bits == 32)
      *static_cast<float*>(p) = float(f);
    else if (t.code == DataType::kFloat && t.bits == 64)
      *static_cast<double*>(p) = f;
    else
      std::memcpy(p, &v, size_t(t.bytes()));  // little-endian: the low bytes wrap
  }
  return a;
}

/// Concrete shapes: symbolic dimensions "n" = 5, "m" = 37.
inline std::vector<int64_t> concrete(const std::vector<PrimExpr>& shape,
                                     std::unordered_map<const tir::Var*, int64_t>& env) {
  std::vector<int64_t> out;
  for (const PrimExpr& d : shape) {
    if (auto* v = d.as<tir::Var>(); v && !env.count(v)) env[v] = v->name == "n" ? 5 : 37;
    PrimExpr s = tir::substitute(d, [&](const tir::Var* v) -> PrimExpr {
      auto it = env.find(v);
      return it == env.end() ? PrimExpr() : tir::int_imm(it->second, v->dtype);
    });
    arith::Analyzer ana;
    PrimExpr c = ana.simplify(s);
    const int64_t* k = tir::as_const_int(c);
    EXPECT_NE(k, nullptr) << "cannot evaluate the dimension " << tir::to_string(d);
    out.push_back(k ? *k : 1);
  }
  return out;
}

/// Runs `name` of `module` on the device and `f` (unscheduled) in the interpreter on the same
/// random inputs (every buffer but the last); compares the last buffer with rtol/atol.
inline void expect_device_matches(const runtime::Module& module, const std::string& name,
                                  const Ref<tir::PrimFunc>& f, bool specials, bool nonzero,
                                  bool shift, double rtol, double atol, int64_t bound = 0,
                                  uint32_t seed = 7) {
  std::unordered_map<const tir::Var*, int64_t> env;
  std::vector<tir::InterpArg> interp;
  std::vector<runtime::NDArray> host, dev;
  for (size_t i = 0; i < f->params.size(); ++i) {
    Ref<tir::Buffer> b = f->buffer_of(f->params[i]);
    ASSERT_TRUE(b.defined()) << name << ": scalar parameters are not supported by this test";
    bool out = i + 1 == f->params.size();
    runtime::NDArray h = input(concrete(b->shape, env), b->dtype, seed + uint32_t(i), specials,
                               nonzero && i == 1, shift && i == 1, i == 1 ? bound : 0);
    if (out) std::memset(h.data(), 0xFF, size_t(h.nbytes()));
    host.push_back(h);
    runtime::NDArray d = runtime::NDArray::empty(h.shape(), h.dtype(), kCL);
    d.copy_from(h);
    dev.push_back(d);
    interp.emplace_back(h.copy());
  }
  tir::interpret(tir::lower(f), interp);
  runtime::PackedFunc fn = module->get_function(name);
  ASSERT_TRUE(fn.defined()) << name;
  std::vector<runtime::Value> args;
  for (const runtime::NDArray& d : dev) args.emplace_back(d);
  fn(args);
  runtime::NDArray got = dev.back().copy_to(runtime::kCPU);
  EXPECT_TRUE(test::tensors_close(got, std::get<runtime::NDArray>(interp.back()), rtol, atol))
      << name;
}

}  // namespace relax::opencl_test
