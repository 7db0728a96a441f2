/* librelax-test-bad-abi.so: a plugin built for another ABI major; the host must refuse it
 * without calling its register function. Plain C, as a vendor's plugin may be. */
#include "relax/transform/plugin_abi.h"

static int register_plugin(const RelaxPluginHost* host) {
  (void)host;
  return 0;
}

RELAX_PLUGIN_EXPORT const RelaxPluginInfo* relax_plugin_info(void) {
  static const RelaxPluginInfo info = {
      sizeof(RelaxPluginInfo), RELAX_PLUGIN_ABI_MAJOR + 1, 7, "test-bad-abi", "0.0.1", "9.9.9",
      &register_plugin};
  return &info;
}
