// Which backend the op-table harness (op_test_util.h) runs each kernel on besides the reference
// interpreter. The op-test sources compile once (the object library relax_ops_test_objects,
// tests/CMakeLists.txt) and link into one binary per mode: relax_ops_tests (interpreter only),
// relax_ops_llvm_tests, relax_ops_gpu_tests and relax_ops_<kind>_tests. Each binary but the
// first links tests/common/op_test_mode.cc, compiled with RELAX_OPS_TEST_BACKEND (and, for a
// device, RELAX_OPS_TEST_DEVICE="<kind>"), which sets the mode before main runs; a test file
// outside the op table that needs a mode (tests/unit/gpu/gpu_rules_fuzz_test.cc) sets it the
// same way.
#pragma once

#include <string>

namespace relax::ops_test {

enum class OpTestBackend {
  kInterpreter,  ///< the reference interpreter only
  kLlvm,         ///< also compiled by the LLVM backend plugin (op_test_util.h)
  kGpu,          ///< also under the default GPU rules in the interpreter's GPU mode (op_test_gpu.h)
  kDevice,       ///< also built and run on a GPU backend's device (op_test_device.h)
};

struct OpTestMode {
  OpTestBackend backend = OpTestBackend::kInterpreter;
  std::string device_kind;  ///< the target kind under kDevice ("vulkan", "opencl", ...)
};

/// The process's mode (the interpreter only unless a mode file set it at start-up).
inline OpTestMode& op_test_mode() {
  static OpTestMode mode;
  return mode;
}

/// Sets the mode at static-initialisation time: `const bool x = set_op_test_mode({...});`.
inline bool set_op_test_mode(OpTestMode mode) {
  op_test_mode() = std::move(mode);
  return true;
}

}  // namespace relax::ops_test
