// The OpenCL runtime plugin's entry points (librelax-opencl-runtime.so): registers the device
// runtime for kDLOpenCL ("opencl") and the "opencl-c" module loader (cl_runtime.h). Loading
// never touches OpenCL: a machine without a driver loads the plugin and gets "no OpenCL
// device: ..." at the first allocation or call.
#include "cl_runtime.h"
#include "relax/runtime/c_abi.h"
#include "relax/transform/plugin_abi.h"

namespace {

int register_all() {
  int st = relax::opencl::register_device_runtime();
  if (st != 0) return st;
  return relax::opencl::register_module_loader();
}

int register_plugin(const RelaxPluginHost* host) {
  int status = register_all();
  if (status != 0 && host && host->set_error) host->set_error(host->context, RxGetLastError());
  return status;
}

}  // namespace

// The C ABI version this plugin was built against, checked before its init runs.
RX_RUNTIME_PLUGIN_ABI_VERSION()

extern "C" {

RELAX_PLUGIN_EXPORT int relax_runtime_plugin_init(void) { return register_all(); }

RELAX_PLUGIN_EXPORT const RelaxPluginInfo* relax_plugin_info(void) {
  static const RelaxPluginInfo info = {sizeof(RelaxPluginInfo),
                                       RELAX_PLUGIN_ABI_MAJOR,
                                       RELAX_PLUGIN_ABI_MINOR,
                                       "opencl-runtime",
                                       "0.1.0",
                                       RELAX_SDK_VERSION,
                                       &register_plugin};
  return &info;
}

}  // extern "C"
