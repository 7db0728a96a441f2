// The C++ SDK for Relax plugins (DESIGN.md §7).
//
// A pass plugin is one source file:
//
//   #include "relax/sdk/plugin.h"
//   static void register_passes(relax::transform::PluginRegistrar& r) {
//     r.add_pass({"my-pass", "what it does", relax::transform::Granularity::kFunction,
//                 {{"depth", relax::transform::OptionType::kInt, int64_t(4), "how deep"}}},
//                relax::transform::FunctionTransform(my_pass));
//   }
//   RELAX_PLUGIN("mine", "1.0.0", register_passes)
//
// A backend plugin registers its target kind the same way, with the attributes its build
// function reads (relax/transform/target_kind.h), and registers that build function:
//
//   r.add_target_kind({"mygpu", relax::transform::kDeviceVulkan, "vulkan", /*gpu=*/true,
//                      {{"max-threads-per-block", relax::transform::TargetAttrType::kInt,
//                        "256", "threads in one workgroup"}},
//                      "my GPU through Vulkan", "relax.backend.mygpu.build", "gpu"});
//   relax::runtime::Registry::register_func("relax.backend.mygpu.build", build, true);
//
// The core validates every target of the kind against these attributes before compiling and
// passes the build function the validated attribute string (defaults filled in).
//
// built with relax_add_plugin(mine SOURCES mine.cc) (sdk/cmake/RelaxPlugin.cmake) into
// librelax-mine.so. An exception thrown by the register function is reported by the host,
// with the plugin's path, and whatever was registered is removed.
#pragma once

#include <exception>

#include "relax/transform/plugin.h"
#include "relax/transform/plugin_abi.h"

namespace relax::sdk {

/// The host's registrar, from the table the host passes to the register function.
inline transform::PluginRegistrar& registrar(const RelaxPluginHost* host) {
  return *static_cast<transform::PluginRegistrar*>(host->context);
}

/// Calls `fn(registrar)` and turns an exception into the host's error report.
template <class F>
int run_register(const RelaxPluginHost* host, F&& fn) noexcept {
  try {
    fn(registrar(host));
    return 0;
  } catch (const Error& e) {
    host->set_error(host->context, e.message().c_str());
  } catch (const std::exception& e) {
    host->set_error(host->context, e.what());
  } catch (...) {
    host->set_error(host->context, "unknown exception");
  }
  return 1;
}

}  // namespace relax::sdk

/// Defines the entry point relax_plugin_info() of a C++ plugin named NAME (a string literal,
/// the short name) at VERSION, registering through FN(relax::transform::PluginRegistrar&).
#define RELAX_PLUGIN(NAME, VERSION, FN)                                                           \
  extern "C" RELAX_PLUGIN_EXPORT const RelaxPluginInfo* relax_plugin_info(void) {                 \
    static const RelaxPluginInfo info = {                                                         \
        sizeof(RelaxPluginInfo),                                                                  \
        RELAX_PLUGIN_ABI_MAJOR,                                                                   \
        RELAX_PLUGIN_ABI_MINOR,                                                                   \
        NAME,                                                                                     \
        VERSION,                                                                                  \
        RELAX_SDK_VERSION,                                                                        \
        [](const RelaxPluginHost* host) -> int { return ::relax::sdk::run_register(host, FN); }}; \
    return &info;                                                                                 \
  }
