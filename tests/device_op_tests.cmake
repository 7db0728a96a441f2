# relax_add_device_op_tests(<kind> <plugin targets...>): the op tests once more, each kernel
# also scheduled with the default GPU rules for the target <kind>, built by its codegen plugin,
# run on its device through its runtime plugin and checked against the interpreter
# (tests/unit/ops/op_test_device.h, RELAX_OPS_TEST_DEVICE="<kind>"): the binary
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
  file(GLOB_RECURSE _ops_tests CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/unit/ops/*.cc)
  foreach(kind ${_kinds})
    set(_t relax_ops_${kind}_tests)
    add_executable(${_t} ${_ops_tests})
    target_link_libraries(${_t} PRIVATE relax_compiler GTest::gtest GTest::gtest_main
                          ${CMAKE_DL_LIBS})
    get_property(_plugins GLOBAL PROPERTY RELAX_DEVICE_OP_TEST_PLUGINS_${kind})
    if(_plugins)
      add_dependencies(${_t} ${_plugins})
    endif()
    target_compile_definitions(${_t} PRIVATE
      RELAX_SOURCE_DIR="${PROJECT_SOURCE_DIR}" RELAX_BINARY_DIR="${PROJECT_BINARY_DIR}"
      RELAX_OPS_TEST_DEVICE="${kind}" RELAX_PLUGIN_DIR="${RELAX_PLUGIN_OUTPUT_DIR}")
    gtest_discover_tests(${_t} TEST_PREFIX "${kind}." PROPERTIES LABELS ${kind}
      DISCOVERY_TIMEOUT 60)
  endforeach()
endfunction()
