# cmake -DROOT=<source> -P check_includes.cmake: runs the plugin include check of
# RelaxPlugin.cmake on tests/sdk/bad_include_plugin.cc.txt (which includes a core/src file);
# the ctest sdk.include_check expects the failure naming the file and the include.
include(${ROOT}/sdk/cmake/RelaxPlugin.cmake)
_relax_scan_plugin_includes(bad "${ROOT}/core/include;${ROOT}/sdk/include"
                             ${ROOT}/tests/sdk/bad_include_plugin.cc.txt)
message(STATUS "include check passed (unexpected)")
