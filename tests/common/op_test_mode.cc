// The op-table harness's mode for one op-test binary (tests/unit/ops/op_test_mode.h), compiled
// into it with RELAX_OPS_TEST_BACKEND=<kLlvm|kGpu|kDevice> and, for kDevice,
// RELAX_OPS_TEST_DEVICE="<kind>" (tests/CMakeLists.txt, tests/device_op_tests.cmake).
#include "../unit/ops/op_test_mode.h"

#ifndef RELAX_OPS_TEST_DEVICE
#define RELAX_OPS_TEST_DEVICE ""
#endif

namespace relax::ops_test {
namespace {
[[maybe_unused]] const bool mode_set =
    set_op_test_mode({OpTestBackend::RELAX_OPS_TEST_BACKEND, RELAX_OPS_TEST_DEVICE});
}  // namespace
}  // namespace relax::ops_test
