/* librelax-test-failing.so: a plugin whose register function fails with a message. */
#include "relax/transform/plugin_abi.h"

static int register_plugin(const RelaxPluginHost* host) {
  host->set_error(host->context, "the test-failing plugin always fails to register");
  return 3;
}

RELAX_PLUGIN_EXPORT const RelaxPluginInfo* relax_plugin_info(void) {
  static const RelaxPluginInfo info = {sizeof(RelaxPluginInfo),
                                       RELAX_PLUGIN_ABI_MAJOR,
                                       RELAX_PLUGIN_ABI_MINOR,
                                       "test-failing",
                                       "0.0.1",
                                       RELAX_SDK_VERSION,
                                       &register_plugin};
  return &info;
}
