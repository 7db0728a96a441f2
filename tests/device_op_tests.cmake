# relax_add_device_op_tests(<kind> <plugin targets...>): the op tests once more, each kernel
# also scheduled with the default GPU rules for the target <kind>, built by its codegen plugin,
# run on its device through its runtime plugin and checked against the interpreter
# (tests/unit/ops/op_test_device.h; mode kDevice "<kind>", tests/unit/ops/op_test_mode.h): the binary
# relax_ops_<kind>_tests, labelled <kind>, test names prefixed "<kind>.", depending on the
# plugin targets (the codegen and runtime plugins, built into RELAX_PLUGIN_OUTPUT_DIR).
#
# A GPU backend calls it from its CMakeLists under plugins/, which CMake reads before tests/:
# the call records the request and tests/CMakeLists.txt creates the targets (when tests are
# built). Included by plugins/backends/gpu_common/CMakeLists.txt and tests/CMakeLists.txt.
include_guard(GLOBAL)

function(relax_add_device_op_tests kind)
  set_property(GLOBAL APPEND PROPERTY RELAX_DEVICE_OP_TEST_KINDS ${kind})
  set_property(GLOBAL PROPERTY RELAX_DEVICE_OP_TEST_PLUGINS_${kind} ${ARGN})
endfunction()

# Creates the binaries recorded so far (tests/CMakeLists.txt, after relax_ops_tests exists).
function(_relax_create_device_op_tests)
  get_property(_kinds GLOBAL PROPERTY RELAX_DEVICE_OP_TEST_KINDS)
  if(NOT _kinds OR NOT TARGET relax_ops_tests)
    return()
  endif()
  list(REMOVE_DUPLICATES _kinds)
  foreach(kind ${_kinds})
    set(_t relax_ops_${kind}_tests)
    relax_add_op_test_binary(${_t} kDevice ${kind})
    get_property(_plugins GLOBAL PROPERTY RELAX_DEVICE_OP_TEST_PLUGINS_${kind})
    if(_plugins)
      add_dependencies(${_t} ${_plugins})
    endif()
    gtest_discover_tests(${_t} TEST_PREFIX "${kind}." PROPERTIES LABELS ${kind}
      DISCOVERY_TIMEOUT 60)
  endforeach()
endfunction()
