/* A C99 client of the runtime's C ABI, compiled and run by c_abi_test.cc
 * (CAbi.HeaderCompilesAsC99AndACClientRuns). It proves that c_abi.h is plain C and that a C
 * program can register, find and call packed functions, including the runtime's builtins. */
#include <stdio.h>
#include <string.h>

#include "relax/runtime/c_abi.h"

static int add(void* self, const RxAny* args, int32_t nargs, RxAny* ret) {
  (void)self;
  if (nargs != 2 || args[0].type_code != kRxInt || args[1].type_code != kRxInt) {
    RxSetLastError("add: expected two ints");
    return kRxBadArgument;
  }
  *ret = RxAnyInt(args[0].value.v_int64 + args[1].value.v_int64);
  return 0;
}

int main(void) {
  RxObjectHandle f = NULL;
  RxAny args[2];
  RxAny ret = RxAnyNull();
  int32_t ndim = 0;
  const int64_t* dims = NULL;

  if (RxGetABIVersion() != RX_ABI_VERSION) return 1;
  if (RxRegisterGlobalFunc("c_client.add", add, NULL, NULL, 0) != 0) return 2;
  if (RxGetGlobalFunc("c_client.add", &f) != 0) return 3;
  args[0] = RxAnyInt(3);
  args[1] = RxAnyInt(4);
  if (RxFuncCall(f, args, 2, &ret) != 0 || ret.type_code != kRxInt) return 4;
  printf("c client: %lld", (long long)ret.value.v_int64);
  if (RxFuncCall(f, args, 1, &ret) == 0) return 5; /* the C error comes back as a status */
  if (strstr(RxGetLastError(), "add: expected two ints") == NULL) return 6;
  RxObjectRelease(f);

  /* A builtin implemented in C++: make_shape over an empty heap with immediates. */
  /* A builtin implemented in C++: make_shape(null heap, ndim 1, use-immediate, 3). */
  if (RxGetGlobalFunc("vm.builtin.make_shape", &f) != 0) return 7;
  {
    RxAny shape_args[4];
    shape_args[0] = RxAnyNull();
    shape_args[1] = RxAnyInt(1);
    shape_args[2] = RxAnyInt(0);
    shape_args[3] = RxAnyInt(3);
    if (RxFuncCall(f, shape_args, 4, &ret) != 0 || ret.type_code != kRxObject) return 8;
  }
  if (RxShapeGetData(ret.value.v_object, &ndim, &dims) != 0 || ndim != 1) return 9;
  printf(" %lld", (long long)dims[0]);
  RxObjectRelease(ret.value.v_object);
  RxObjectRelease(f);
  if (RxGetGlobalFunc("c_client.missing", &f) != kRxNotFound || f != NULL) return 10;
  printf(" not-found ok\n");
  return 0;
}
