/* librelax-ctest-runtime.so: a runtime plugin in C99 built by another compiler (clang, see
 * tests/sdk/CMakeLists.txt) against c_abi.h only. Its init registers the global packed function
 * "ctest.add_one" (x + 1 for an int). With RX_TEST_BAD_MAJOR it claims the next C ABI major
 * (the runtime must refuse it naming both versions); with RX_TEST_NO_INIT it lacks the init
 * function (refused naming the symbol). */
#include "relax/runtime/c_abi.h"

#ifndef RX_TEST_NO_INIT
static int add_one(void* self, const RxAny* args, int32_t nargs, RxAny* ret) {
  (void)self;
  if (nargs != 1 || args[0].type_code != kRxInt) {
    RxSetLastError("ctest.add_one: one int argument expected");
    return kRxBadArgument;
  }
  *ret = RxAnyInt(args[0].value.v_int64 + 1);
  return kRxOk;
}
#endif

#ifdef RX_TEST_BAD_MAJOR
RX_PLUGIN_VISIBLE uint32_t relax_runtime_plugin_abi_version(void) {
  return (uint32_t)(((RX_ABI_VERSION_MAJOR + 1) << 8) | 0);
}
#else
RX_RUNTIME_PLUGIN_ABI_VERSION()
#endif

#ifndef RX_TEST_NO_INIT
RX_PLUGIN_VISIBLE int relax_runtime_plugin_init(void) {
  return RxRegisterGlobalFunc("ctest.add_one", &add_one, 0, 0, 1);
}
#endif
