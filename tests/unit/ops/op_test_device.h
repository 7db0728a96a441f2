// The device half of the op-table harness (op_test_util.h), active in relax_ops_<kind>_tests
// (mode kDevice with the device kind "<kind>", op_test_mode.h: a GPU backend plugin's target
// kind, e.g. "vulkan" or "opencl"; tests/device_op_tests.cmake: relax_add_device_op_tests).
// OpRunner::run also:
//  1. loads the kind's codegen plugin (librelax-<kind>.so from RELAX_PLUGIN_DIR, once), resolves
//     the target "<kind>" (its validated attributes give the GPU limits, targets.h gpu_limits);
//  2. schedules the legalised kernel with the default GPU rules for those limits and builds it
//     with the kind's build function (TargetKind::build_function: (attrs, "kernel", func) ->
//     (format, bytes)), as a compile does (target/gpu_compile.cc);
//  3. loads the library with the module loader of its format, from the kind's runtime plugin
//     (librelax-<kind>-runtime.so, loaded once by its relax_runtime_plugin_init);
//  4. allocates device tensors through the device runtime of the kind's device type, copies the
//     inputs in, calls "kernel" with fresh outputs, copies them back and compares them with the
//     reference interpreter's outputs on the unscheduled function: integers and bools exactly,
//     float32 within 1e-5 (relative and absolute) unless device_tolerance() lists the op,
//     float16 within 1e-3. It returns the device outputs, so each test's own reference check
//     applies to them too.
// No device (the runtime plugin does not load, no runtime for the device type, or its
// kRxDeviceExists is 0): the codegen still runs (steps 1-2), then the test is skipped with the
// reason — unless RELAX_REQUIRE_DEVICE=1 is set, which turns the skip into a failure.
// An op the backend rejects (a relax::Error or std::exception from the build, the load or the
// call) passes when expected_device_error(op, dtype) names a substring of the message: the
// backend's list of known, intended refusals (vulkan_expected_errors / opencl_expected_errors
// below; each backend fills its own). Listed but not raised is a failure too, so lists stay
// accurate.
#pragma once

#include <dlfcn.h>

#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "relax/kernel/gpu_rules.h"
#include "relax/runtime/device_api.h"
#include "relax/runtime/module.h"
#include "relax/runtime/registry.h"
#include "relax/target/targets.h"
#include "relax/transform/plugin.h"
#include "op_test_mode.h"

namespace relax::ops_test {

/// The target kind under test.
inline const std::string& device_kind() { return op_test_mode().device_kind; }

/// Comparison tolerance of a float output.
struct DeviceTolerance {
  double rtol = 1e-5;
  double atol = 1e-5;
};

/// The tolerance for the outputs of `op` in `dtype`: float16 1e-3; float32 1e-5 except for the
/// ops below, whose device math libraries may differ from the host's by a few ULP (exp, log,
/// tanh, ... ; 1e-4) or, for trigonometry, by the absolute error Vulkan allows (2^-11 on
/// [-pi, pi]; 5e-4).
inline DeviceTolerance device_tolerance(const std::string& op, DataType dtype) {
  if (dtype == DataType::Float(16)) return {1e-3, 1e-3};
  if (dtype != DataType::Float(32)) return {};
  static const std::map<std::string, DeviceTolerance> table = {
      {"relax.exp", {1e-4, 1e-4}},           {"relax.log", {1e-4, 1e-4}},
      {"relax.log2", {1e-4, 1e-4}},          {"relax.log10", {1e-4, 1e-4}},
      {"relax.log1p", {1e-4, 1e-4}},         {"relax.expm1", {1e-4, 1e-4}},
      {"relax.sqrt", {1e-5, 1e-5}},          {"relax.rsqrt", {1e-4, 1e-4}},
      {"relax.power", {1e-4, 1e-4}},         {"relax.tanh", {1e-4, 1e-4}},
      {"relax.sinh", {1e-4, 1e-4}},          {"relax.cosh", {1e-4, 1e-4}},
      {"relax.asinh", {1e-4, 1e-4}},         {"relax.acosh", {1e-4, 1e-4}},
      {"relax.atanh", {1e-4, 1e-4}},         {"relax.sigmoid", {1e-4, 1e-4}},
      {"relax.erf", {1e-4, 1e-4}},           {"relax.nn.gelu", {1e-4, 1e-4}},
      {"relax.nn.gelu_tanh", {1e-4, 1e-4}},  {"relax.nn.silu", {1e-4, 1e-4}},
      {"relax.nn.softmax", {1e-4, 1e-4}},    {"relax.nn.log_softmax", {1e-4, 1e-4}},
      {"relax.nn.softplus", {1e-4, 1e-4}},   {"relax.nn.elu", {1e-4, 1e-4}},
      {"relax.nn.selu", {1e-4, 1e-4}},       {"relax.nn.mish", {1e-4, 1e-4}},
      {"relax.nn.layer_norm", {1e-4, 1e-4}}, {"relax.nn.group_norm", {1e-4, 1e-4}},
      {"relax.nn.batch_norm", {1e-4, 1e-4}}, {"relax.nn.rms_norm", {1e-4, 1e-4}},
      {"relax.nn.attention", {1e-4, 1e-4}},  {"relax.std", {1e-4, 1e-4}},
      {"relax.variance", {1e-4, 1e-4}},      {"relax.sin", {1e-4, 5e-4}},
      {"relax.cos", {1e-4, 5e-4}},           {"relax.tan", {1e-4, 5e-4}},
      {"relax.asin", {1e-4, 5e-4}},          {"relax.acos", {1e-4, 5e-4}},
      {"relax.atan", {1e-4, 5e-4}},          {"relax.atan2", {1e-4, 5e-4}},
  };
  auto it = table.find(op);
  return it == table.end() ? DeviceTolerance{} : it->second;
}

/// A refusal the backend is expected to raise: for `op` (with inputs of `dtype`; empty: any
/// dtype), a message containing `text`.
struct ExpectedDeviceError {
  std::string op;
  std::string dtype;
  std::string text;
};

/// The Vulkan backend's intended refusals (filled by the Vulkan backend).
inline const std::vector<ExpectedDeviceError>& vulkan_expected_errors() {
  // arange over float bounds computes in float64, which the vulkan target leaves off by
  // default (float64=0: most GPUs lack it or run it slowly).
  static const std::vector<ExpectedDeviceError> list = {
      {"relax.arange", "float32",
       "float64 needs the device feature 'float64', which the target disables (float64=0)"}};
  return list;
}

/// The OpenCL backend's intended refusals (filled by the OpenCL backend).
inline const std::vector<ExpectedDeviceError>& opencl_expected_errors() {
  static const std::vector<ExpectedDeviceError> list = {};
  return list;
}

/// The substring the backend under test must raise for `op` over `dtype`, or "".
inline std::string expected_device_error(const std::string& op, DataType dtype) {
  static const std::vector<ExpectedDeviceError> none;
  const std::vector<ExpectedDeviceError>& list =
      device_kind() == "vulkan"   ? vulkan_expected_errors()
      : device_kind() == "opencl" ? opencl_expected_errors()
                                  : none;
  for (const ExpectedDeviceError& e : list)
    if (e.op == op && (e.dtype.empty() || e.dtype == dtype.to_string())) return e.text;
  return "";
}

/// The backend under test, set up once per process.
struct DeviceBackend {
  transform::PassRegistry registry;
  transform::PluginManager plugins{registry};
  std::string setup_error;  ///< the codegen plugin or the target failed (a test failure)
  Target target;
  tir::GpuLimits limits;
  int device_type = 0;
  std::string build_function;
  std::string runtime_error;  ///< why the runtime plugin did not load ("" when it did)
};

inline DeviceBackend& device_backend() {
  static DeviceBackend* b = [] {
    auto* b = new DeviceBackend();  // never destroyed: the plugins stay loaded
    const std::string dir = RELAX_PLUGIN_DIR;
    try {
      b->plugins.load_path(dir + "/librelax-" + device_kind() + ".so");
      b->target = resolve_target(device_kind(), b->plugins);
      const transform::TargetKind& kind = find_target_kind(device_kind(), b->plugins);
      b->limits = gpu_limits(b->target);
      b->device_type = kind.device_type;
      b->build_function = kind.build_function;
    } catch (const std::exception& e) {
      b->setup_error = e.what();
      return b;
    }
    const std::string runtime = dir + "/librelax-" + device_kind() + "-runtime.so";
    void* handle = dlopen(runtime.c_str(), RTLD_NOW | RTLD_LOCAL);
    auto init = handle
                    ? reinterpret_cast<int (*)()>(dlsym(handle, runtime::kRuntimePluginInitSymbol))
                    : nullptr;
    if (!handle)
      b->runtime_error = dlerror();
    else if (!init)
      b->runtime_error = runtime + ": no " + runtime::kRuntimePluginInitSymbol;
    else if (init() != 0)
      b->runtime_error = runtime + ": " + RxGetLastError();
    return b;
  }();
  return *b;
}

/// Why the device cannot run kernels ("" when it can).
inline std::string device_missing(const DeviceBackend& b) {
  if (!b.runtime_error.empty()) return "the runtime plugin did not load: " + b.runtime_error;
  runtime::DeviceAPI* api = runtime::DeviceAPI::find(b.device_type);
  if (!api) return "no device runtime for device type " + std::to_string(b.device_type);
  runtime::Value v = api->attribute(DLDevice{DLDeviceType(b.device_type), 0}, kRxDeviceExists);
  if (!v.is(runtime::ValueKind::kInt) && !v.is(runtime::ValueKind::kBool))
    return "the device runtime does not answer kRxDeviceExists";
  return v.as_int() ? "" : "no " + device_kind() + " device present";
}

/// Builds, loads and runs `func` on the device (see the file comment); returns the outputs.
/// `skipped` is set when the test must skip after this call.
inline std::vector<runtime::NDArray> run_device_kernel(
    const DeviceBackend& b, const Ref<tir::PrimFunc>& scheduled,
    const std::vector<tir::InterpArg>& args, size_t first_out,
    const std::vector<runtime::NDArray>& interp_outs, std::string& skipped) {
  runtime::PackedFunc build = runtime::Registry::get(b.build_function);
  RX_CHECK(build.defined()) << device_kind() << ": build function " << b.build_function
                            << " is not registered";
  runtime::Tuple lib = build(std::vector<runtime::Value>{runtime::Value(b.target.attr_string()),
                                                         runtime::Value("kernel"),
                                                         runtime::Value::from_object(scheduled)})
                           .as_tuple();
  if (std::string why = device_missing(b); !why.empty()) {
    skipped = why;
    return interp_outs;
  }
  const std::string& bytes = lib[1].as_string();
  runtime::Module module = runtime::load_module(
      lib[0].as_string(), {reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()});
  runtime::PackedFunc kernel = module->get_function("kernel");
  RX_CHECK(kernel.defined()) << "the " << device_kind() << " library has no function 'kernel'";
  DLDevice dev{DLDeviceType(b.device_type), 0};
  std::vector<runtime::Value> values;
  std::vector<runtime::NDArray> device_outs;
  for (size_t i = 0; i < args.size(); ++i) {
    if (auto* t = std::get_if<runtime::NDArray>(&args[i])) {
      runtime::NDArray d = runtime::NDArray::empty(t->shape(), t->dtype(), dev);
      if (i >= first_out && i < first_out + interp_outs.size()) {
        runtime::NDArray fill = runtime::NDArray::empty(t->shape(), t->dtype());
        std::memset(fill.data(), 0xFF, fill.nbytes());
        d.copy_from(fill);
        device_outs.push_back(d);
      } else {
        d.copy_from(*t);
      }
      values.emplace_back(d);
    } else if (auto* n = std::get_if<int64_t>(&args[i])) {
      values.emplace_back(*n);
    } else {
      values.emplace_back(std::get<double>(args[i]));
    }
  }
  kernel(values);
  runtime::DeviceAPI::get(b.device_type).synchronize(dev);
  std::vector<runtime::NDArray> outs;
  for (const runtime::NDArray& d : device_outs) {
    runtime::NDArray h = runtime::NDArray::empty(d.shape(), d.dtype());
    h.copy_from(d);
    outs.push_back(h);
  }
  return outs;
}

/// The device run of one op (OpRunner::run in mode kDevice).
inline std::vector<runtime::NDArray> run_device_and_compare(
    const std::string& op, const Ref<tir::PrimFunc>& func, const std::vector<tir::InterpArg>& args,
    size_t first_out, const std::vector<runtime::NDArray>& interp_outs) {
  DeviceBackend& b = device_backend();
  if (!b.setup_error.empty()) {
    ADD_FAILURE() << device_kind() << " backend: " << b.setup_error;
    return interp_outs;
  }
  DataType dtype = interp_outs.empty() ? DataType::Float(32) : interp_outs[0].dtype();
  for (const tir::InterpArg& a : args)
    if (auto* t = std::get_if<runtime::NDArray>(&a)) {
      dtype = t->dtype();
      break;
    }
  const std::string expected = expected_device_error(op, dtype);
  std::string skipped, error;
  std::vector<runtime::NDArray> outs;
  try {
    tir::GpuScheduled s = tir::apply_default_gpu_schedule(func, b.limits, op);
    outs = run_device_kernel(b, s.func, args, first_out, interp_outs, skipped);
  } catch (const std::exception& e) {
    error = e.what();
  }
  // (With no device the load and the call did not run: a refusal expected there is unknown.)
  if (!expected.empty() && (!error.empty() || skipped.empty())) {
    EXPECT_NE(error.find(expected), std::string::npos)
        << op << " (" << dtype.to_string() << ") on " << device_kind() << ": expected an error "
        << "containing \"" << expected << "\", got "
        << (error.empty() ? std::string("none") : "\"" + error + "\"");
    return interp_outs;
  }
  if (!error.empty()) {
    ADD_FAILURE() << op << " (" << dtype.to_string() << ") on " << device_kind() << ": " << error;
    return interp_outs;
  }
  if (!skipped.empty()) {
    const char* require = std::getenv("RELAX_REQUIRE_DEVICE");
    if (require && std::string(require) == "1")
      ADD_FAILURE() << device_kind() << " device required (RELAX_REQUIRE_DEVICE=1): " << skipped;
    else
      [&] { GTEST_SKIP() << "no " << device_kind() << " device: " << skipped; }();
    return interp_outs;
  }
  for (size_t k = 0; k < outs.size() && k < interp_outs.size(); ++k) {
    DeviceTolerance tol = device_tolerance(op, outs[k].dtype());
    EXPECT_TRUE(tensors_close(outs[k], interp_outs[k], tol.rtol, tol.atol))
        << op << ": " << device_kind() << " output " << k << " against the interpreter's";
  }
  EXPECT_EQ(outs.size(), interp_outs.size()) << op << ": device outputs";
  return outs;
}

}  // namespace relax::ops_test
