/* librelax-test-old-minor.so: a plugin built against the previous minor of the plugin ABI (it
 * declares RELAX_PLUGIN_ABI_MINOR - 1 and reads only the host fields of that minor, checking
 * RELAX_PLUGIN_HOST_HAS for newer ones): it must load. Plain C. */
#include "relax/transform/plugin_abi.h"

static int register_plugin(const RelaxPluginHost* host) {
  /* A plugin of minor 0 knows struct_size, abi_major, abi_minor, context and set_error. */
  if (host->abi_major != RELAX_PLUGIN_ABI_MAJOR) return 1;
  if (RELAX_PLUGIN_HOST_HAS(host, c_abi_version) && host->c_abi_version == 0) {
    host->set_error(host->context, "a host of minor >= 1 gives its C ABI version");
    return 1;
  }
  return 0;
}

RELAX_PLUGIN_EXPORT const RelaxPluginInfo* relax_plugin_info(void) {
  static const RelaxPluginInfo info = {sizeof(RelaxPluginInfo), RELAX_PLUGIN_ABI_MAJOR,
                                       RELAX_PLUGIN_ABI_MINOR - 1, "test-old-minor", "0.0.1",
                                       "0.0.9", &register_plugin};
  return &info;
}
