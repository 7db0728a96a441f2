/* The stable C ABI of the Relax runtime (DESIGN.md §6).
 *
 * This is the only interface between the VM, compiled kernels, device runtimes and module
 * loaders that may be built with another compiler or language. It is plain C99: no C++ type,
 * no exception and no allocation convention crosses it.
 *
 * Conventions:
 *  - Every struct starts with `struct_size` (sizeof the struct as its producer saw it) and an
 *    ABI version (RX_ABI_VERSION). A consumer rejects a struct whose major version differs or
 *    that is smaller than the fields it needs.
 *  - Every function returns 0 on success and a non-zero status on failure; the failing side
 *    stores a message with RxSetLastError, which the caller reads with RxGetLastError. The
 *    message is thread-local and valid until the next failing call on the same thread.
 *  - Tensors are DLPack DLTensors. An argument tensor is borrowed for the duration of the call;
 *    a returned tensor is a DLManagedTensor whose ownership passes to the caller. Its first
 *    element is at (char*)data + byte_offset: the VM's memory plan places tensors at offsets
 *    in shared storage, so byte_offset is often non-zero.
 *  - Objects (shapes, tuples, functions, storage, closures, ...) are opaque reference-counted
 *    handles. A handle in an argument is borrowed; a handle in a return value carries one
 *    reference that the caller releases with RxObjectRelease.
 */
#ifndef RELAX_RUNTIME_C_ABI_H_
#define RELAX_RUNTIME_C_ABI_H_

#include <dlpack/dlpack.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** ABI version: the major number changes on any incompatible change, the minor on additions. */
#define RX_ABI_VERSION_MAJOR 1
#define RX_ABI_VERSION_MINOR 2 /* 1.1: RxParallelFor, RxParallelNumThreads;
                                  1.2: kRxDeviceCount, kRxDeviceDescription,
                                  relax_runtime_plugin_abi_version */
/** Encoded as (major << 8) | minor so that it fits the 16-bit field of RxAny. */
#define RX_ABI_VERSION ((RX_ABI_VERSION_MAJOR << 8) | RX_ABI_VERSION_MINOR)
/** The major part of an encoded version. */
#define RX_ABI_MAJOR_OF(version) (((version) >> 8) & 0xff)

/** Status codes returned by every function of this ABI. */
typedef enum {
  kRxOk = 0,
  kRxError = -1,       /**< Generic failure; see RxGetLastError. */
  kRxBadArgument = -2, /**< A null pointer, a wrong type code or an out-of-range value. */
  kRxBadVersion = -3,  /**< A struct with an unsupported size or ABI version. */
  kRxNotFound = -4     /**< A name that is not registered. */
} RxStatus;

/** The type of the value held by an RxAny. */
typedef enum {
  kRxNull = 0,
  kRxInt = 1,             /**< v_int64 */
  kRxFloat = 2,           /**< v_float64 */
  kRxBool = 3,            /**< v_int64 (0 or 1) */
  kRxString = 4,          /**< v_str: NUL-terminated UTF-8, borrowed */
  kRxHandle = 5,          /**< v_handle: an opaque pointer the runtime never dereferences */
  kRxDLTensor = 6,        /**< v_tensor: borrowed DLTensor (arguments only) */
  kRxDLManagedTensor = 7, /**< v_managed: owned DLManagedTensor (return values only) */
  kRxObject = 8,          /**< v_object: shape, tuple, storage or other runtime object */
  kRxFunc = 9             /**< v_object: a packed function, callable with RxFuncCall */
} RxTypeCode;

/** Opaque reference-counted runtime object (a function is an object too). */
typedef void* RxObjectHandle;

/** A tagged value: an argument or return value of a packed function (16 bytes). */
typedef struct RxAny {
  uint32_t struct_size; /**< sizeof(RxAny) */
  uint16_t abi_version; /**< RX_ABI_VERSION */
  int16_t type_code;    /**< an RxTypeCode */
  union {
    int64_t v_int64;
    double v_float64;
    void* v_handle;
    const char* v_str;
    DLTensor* v_tensor;
    DLManagedTensor* v_managed;
    RxObjectHandle v_object;
  } value;
} RxAny;

/** A packed function: `self` is the closure state given at registration. Returns 0 or an
 *  error status after RxSetLastError. `ret` arrives initialised to kRxNull. */
typedef int (*RxPackedCFunc)(void* self, const RxAny* args, int32_t nargs, RxAny* ret);

/** The version of the ABI that the loaded runtime implements (RX_ABI_VERSION). */
uint32_t RxGetABIVersion(void);
/** The message of the last failure on this thread ("" when there was none). */
const char* RxGetLastError(void);
/** Stores `message` as this thread's last error (copied). */
void RxSetLastError(const char* message);

/** Adds a reference to an object handle. */
int RxObjectRetain(RxObjectHandle object);
/** Drops a reference to an object handle (the object dies with its last reference). */
int RxObjectRelease(RxObjectHandle object);
/** Reads a shape object: its rank and a pointer to its dimensions (valid while it lives). */
int RxShapeGetData(RxObjectHandle shape, int32_t* ndim, const int64_t** dims);

/** Registers a C packed function under a global name. `self_deleter` (may be NULL) runs on
 *  `self` when the registration is replaced or the process ends. Fails with kRxError when the
 *  name is taken and `override_existing` is 0. */
int RxRegisterGlobalFunc(const char* name, RxPackedCFunc func, void* self,
                         void (*self_deleter)(void*), int override_existing);
/** Looks up a global packed function (the "vm.builtin.*" functions included). `*out` receives
 *  a retained function handle, or NULL with status kRxNotFound. */
int RxGetGlobalFunc(const char* name, RxObjectHandle* out);
/** Calls a function handle. Strings returned in `ret` stay valid until the next call on this
 *  thread; objects and managed tensors in `ret` are owned by the caller. */
int RxFuncCall(RxObjectHandle func, const RxAny* args, int32_t nargs, RxAny* ret);

/** Device attributes queried through RxDeviceRuntime.get_attr. */
typedef enum {
  kRxDeviceExists = 0,      /**< kRxInt: 1 if the device is present */
  kRxDeviceName = 1,        /**< kRxString */
  kRxDeviceTotalMemory = 2, /**< kRxInt: bytes */
  kRxDeviceMaxThreadsPerBlock = 3,
  kRxDeviceWarpSize = 4,
  /** kRxInt: how many devices of this type the runtime sees (any device_id; since 1.2).
   *  Ids 0..count-1 answer kRxDeviceName and kRxDeviceDescription even when they cannot run
   *  work (kRxDeviceExists says which can). */
  kRxDeviceCount = 5,
  /** kRxString: one line describing the device: its name, kind, memory and limits, or why
   *  it cannot be used (since 1.2). */
  kRxDeviceDescription = 6
} RxDeviceAttr;

/** A device runtime: the functions the VM needs to use one DLPack device type. */
typedef struct RxDeviceRuntime {
  uint32_t struct_size; /**< sizeof(RxDeviceRuntime) */
  uint32_t abi_version; /**< RX_ABI_VERSION */
  int32_t device_type;  /**< the DLDeviceType this runtime serves */
  const char* name;     /**< e.g. "vulkan"; copied at registration */
  void* self;           /**< passed back to every function */
  /** Allocates `nbytes` aligned to `alignment` on `device`; stores the pointer in `*out`. */
  int (*alloc)(void* self, DLDevice device, uint64_t nbytes, uint64_t alignment, void** out);
  /** Frees what alloc returned. */
  int (*free)(void* self, DLDevice device, void* ptr);
  /** Copies the bytes of `from` into `to` (same size, compact). One of them is on this
   *  runtime's device type; the other is on the same type or on the CPU, so this covers
   *  host-to-device, device-to-host and device-to-device. */
  int (*copy)(void* self, const DLTensor* from, DLTensor* to);
  /** Waits until all work queued on `device` is done. */
  int (*synchronize)(void* self, DLDevice device);
  /** Answers an RxDeviceAttr in `*ret`. */
  int (*get_attr)(void* self, DLDevice device, int32_t attr, RxAny* ret);
} RxDeviceRuntime;

/** Registers (or replaces) the runtime for `runtime->device_type`; the table is copied. */
int RxRegisterDeviceRuntime(const RxDeviceRuntime* runtime);

/** A module loader: turns the bytes of a kernel library of one format into functions. */
typedef struct RxModuleLoader {
  uint32_t struct_size; /**< sizeof(RxModuleLoader) */
  uint32_t abi_version; /**< RX_ABI_VERSION */
  const char* format;   /**< the library format tag it loads, e.g. "llvm-so"; copied */
  void* self;           /**< passed back to every function */
  /** Loads a library from `bytes` (borrowed for the call); stores a module in `*out`. */
  int (*load)(void* self, const uint8_t* bytes, uint64_t nbytes, void** out);
  /** Finds a function by name: sets `*func` and `*func_self`, or `*func` to NULL if absent. */
  int (*get_function)(void* self, void* module, const char* name, RxPackedCFunc* func,
                      void** func_self);
  /** Releases a module (after the last function taken from it is gone). */
  void (*release)(void* self, void* module);
} RxModuleLoader;

/** Registers (or replaces) the loader for `loader->format`; the table is copied. */
int RxRegisterModuleLoader(const RxModuleLoader* loader);

/** The body of a parallel loop: runs iterations [begin, end) with the caller's `closure`.
 *  Returns 0, or a non-zero status after RxSetLastError. */
typedef int (*RxParallelBody)(int64_t begin, int64_t end, void* closure);

/** Runs `body` over chunks of [begin, end) on the runtime's thread pool (the caller and its
 *  workers: $RELAX_NUM_THREADS threads, else the hardware concurrency) and waits for all of
 *  them. `grain` is the largest chunk handed to one call (<= 0: the runtime chooses). Calls may
 *  nest (a nested call runs inline on the thread that makes it). Returns 0 when every chunk returned 0; otherwise the
 *  status of the first chunk that failed, with its message as this thread's last error
 *  (chunks not yet started are skipped). An empty range returns 0 without calling `body`. */
int RxParallelFor(int64_t begin, int64_t end, int64_t grain, RxParallelBody body, void* closure);
/** The number of threads RxParallelFor uses. */
int32_t RxParallelNumThreads(void);

/** Runtime plugins: a shared library librelax-<name>-runtime.so found on RELAX_PLUGIN_PATH or in
 *  lib/relax/plugins beside librelax_runtime, exporting
 *    int relax_runtime_plugin_init(void)              required: registers its module loaders,
 *                                                     device runtimes and packed functions; 0,
 *                                                     or a status after RxSetLastError;
 *    uint32_t relax_runtime_plugin_abi_version(void)  since 1.2: RX_ABI_VERSION as built.
 *  The runtime refuses a plugin whose major version differs from its own (naming both) before
 *  calling init; a plugin without the version function predates 1.2 and is taken as 1.x.
 *  RX_RUNTIME_PLUGIN_ABI_VERSION() defines the version function. */
#define RX_RUNTIME_PLUGIN_INIT_SYMBOL "relax_runtime_plugin_init"
#define RX_RUNTIME_PLUGIN_ABI_SYMBOL "relax_runtime_plugin_abi_version"
#if defined(_WIN32)
#define RX_PLUGIN_VISIBLE __declspec(dllexport)
#else
#define RX_PLUGIN_VISIBLE __attribute__((visibility("default")))
#endif
#ifdef __cplusplus
#define RX_EXTERN_C extern "C"
#else
#define RX_EXTERN_C
#endif
#define RX_RUNTIME_PLUGIN_ABI_VERSION()                                    \
  RX_EXTERN_C RX_PLUGIN_VISIBLE uint32_t relax_runtime_plugin_abi_version(void); \
  RX_EXTERN_C RX_PLUGIN_VISIBLE uint32_t relax_runtime_plugin_abi_version(void) { \
    return (uint32_t)RX_ABI_VERSION;                                       \
  }

/** Convenience initialisers for C callers. */
static inline RxAny RxAnyNull(void) {
  RxAny v;
  v.struct_size = (uint32_t)sizeof(RxAny);
  v.abi_version = (uint16_t)RX_ABI_VERSION;
  v.type_code = (int16_t)kRxNull;
  v.value.v_int64 = 0;
  return v;
}
static inline RxAny RxAnyInt(int64_t x) {
  RxAny v = RxAnyNull();
  v.type_code = (int16_t)kRxInt;
  v.value.v_int64 = x;
  return v;
}
static inline RxAny RxAnyFloat(double x) {
  RxAny v = RxAnyNull();
  v.type_code = (int16_t)kRxFloat;
  v.value.v_float64 = x;
  return v;
}
static inline RxAny RxAnyString(const char* s) {
  RxAny v = RxAnyNull();
  v.type_code = (int16_t)kRxString;
  v.value.v_str = s;
  return v;
}
static inline RxAny RxAnyTensor(DLTensor* t) {
  RxAny v = RxAnyNull();
  v.type_code = (int16_t)kRxDLTensor;
  v.value.v_tensor = t;
  return v;
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* RELAX_RUNTIME_C_ABI_H_ */
