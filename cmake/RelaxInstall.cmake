# The install layout of the SDK (docs/sdk.md), included by the top-level CMakeLists.txt after
# every target exists. The libraries and core headers are installed by core/CMakeLists.txt, the
# driver by tools/, the plugins by relax_add_plugin(); this file adds the SDK headers, the CMake
# package (RelaxConfig.cmake, its version file, the export sets, RelaxPlugin.cmake) and the
# pkg-config files. Component `runtime` (cmake --install build --component runtime) is the
# deploy-only part: librelax_runtime, the runtime plugins, c_abi.h and dlpack.h.
include(CMakePackageConfigHelpers)

set(RELAX_CMAKE_INSTALL_DIR lib/cmake/Relax)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/sdk/include/ DESTINATION include)

# c_abi.h includes <dlpack/dlpack.h>: ship it with the runtime so that a deploy machine needs
# no dlpack package to build a runtime plugin.
find_path(RELAX_DLPACK_INCLUDE_DIR dlpack/dlpack.h REQUIRED)
install(FILES ${RELAX_DLPACK_INCLUDE_DIR}/dlpack/dlpack.h DESTINATION include/dlpack
        COMPONENT runtime)

install(EXPORT RelaxRuntimeTargets NAMESPACE Relax:: DESTINATION ${RELAX_CMAKE_INSTALL_DIR}
        FILE RelaxRuntimeTargets.cmake COMPONENT runtime)
install(EXPORT RelaxCompilerTargets NAMESPACE Relax:: DESTINATION ${RELAX_CMAKE_INSTALL_DIR}
        FILE RelaxCompilerTargets.cmake)

# The ABI versions, read from the headers that define them (docs/sdk.md, "Versioning").
file(STRINGS ${PROJECT_SOURCE_DIR}/core/include/relax/transform/plugin_abi.h _abi
     REGEX "#define RELAX_PLUGIN_ABI_(MAJOR|MINOR) ")
string(REGEX REPLACE ".*MAJOR ([0-9]+).*" "\\1" RELAX_PLUGIN_ABI_MAJOR "${_abi}")
string(REGEX REPLACE ".*MINOR ([0-9]+).*" "\\1" RELAX_PLUGIN_ABI_MINOR "${_abi}")
file(STRINGS ${PROJECT_SOURCE_DIR}/core/include/relax/runtime/c_abi.h _abi
     REGEX "#define RX_ABI_VERSION_(MAJOR|MINOR) ")
string(REGEX REPLACE ".*MAJOR ([0-9]+).*" "\\1" RELAX_C_ABI_MAJOR "${_abi}")
string(REGEX REPLACE ".*MINOR ([0-9]+).*" "\\1" RELAX_C_ABI_MINOR "${_abi}")

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/RelaxConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/RelaxConfig.cmake INSTALL_DESTINATION ${RELAX_CMAKE_INSTALL_DIR})
# The plugin ABI major must match: a different minor of the same major is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/RelaxConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/RelaxConfig.cmake
              ${PROJECT_BINARY_DIR}/cmake/RelaxConfigVersion.cmake
        DESTINATION ${RELAX_CMAKE_INSTALL_DIR} COMPONENT runtime)
install(FILES ${PROJECT_SOURCE_DIR}/sdk/cmake/RelaxPlugin.cmake
        DESTINATION ${RELAX_CMAKE_INSTALL_DIR} COMPONENT runtime)

foreach(_pc relax-runtime relax-compiler)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/${_pc}.pc.in ${PROJECT_BINARY_DIR}/pkgconfig/${_pc}.pc
                 @ONLY)
endforeach()
install(FILES ${PROJECT_BINARY_DIR}/pkgconfig/relax-runtime.pc DESTINATION lib/pkgconfig
        COMPONENT runtime)
install(FILES ${PROJECT_BINARY_DIR}/pkgconfig/relax-compiler.pc DESTINATION lib/pkgconfig)
