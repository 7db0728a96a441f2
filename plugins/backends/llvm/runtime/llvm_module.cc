// The LLVM backend's runtime half (librelax-llvm-runtime.so): the module loader for the
// "llvm-so" library format, through the C ABI only (c_abi.h), so that it needs nothing but
// librelax_runtime.
//
// Loading: the shared-object bytes go to an anonymous memory file (memfd_create), or, where
// that is unavailable, to a private temporary file (mkstemps, mode 0600) that is unlinked as
// soon as it is open; the library is dlopen'ed RTLD_NOW | RTLD_LOCAL from /proc/self/fd/N, so
// nothing is left on disk. The fd stays open while the library is loaded: dlopen returns an
// already-loaded object whose name matches, and a closed fd's number (so the same
// /proc/self/fd/N) comes back for the next library, which then resolved to the previous one. Its `__rx_set_last_error`
// pointer is then set to RxSetLastError and its `__rx_parallel_for` pointer to RxParallelFor (a
// library without that symbol predates parallel launches and is loaded all the same). Each kernel
// is found by name as the exported symbol
// `__rx_kernel_<name>`, an RxPackedCFunc. A module is dlclose'd when the runtime releases it
// (after the last function taken from it is gone).
//
// Registration: relax_plugin_info() (plugin_abi.h) registers the loader when a host loads the
// plugin; relax_runtime_plugin_init() does the same for the runtime's own discovery of runtime
// plugins (a library format without a loader) and for any host that only knows the C ABI;
// RxLLVMRuntimeRegister() is its older name.
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "../cpu_features.h"
#include "relax/runtime/c_abi.h"
#include "relax/transform/plugin_abi.h"

namespace {

constexpr const char* kFormat = "llvm-so";
constexpr const char* kKernelPrefix = "__rx_kernel_";
constexpr const char* kSetLastErrorSymbol = "__rx_set_last_error";
constexpr const char* kParallelForSymbol = "__rx_parallel_for";

int fail(const std::string& message, int status = kRxError) {
  RxSetLastError(("llvm-so loader: " + message).c_str());
  return status;
}

bool write_all(int fd, const uint8_t* bytes, uint64_t n) {
  while (n > 0) {
    ssize_t w = write(fd, bytes, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    bytes += w;
    n -= uint64_t(w);
  }
  return true;
}

/// A loaded library: the dlopen handle and the fd its /proc/self/fd/N name refers to, open
/// until the library is closed (see the header comment).
struct LoadedLibrary {
  void* handle;
  int fd;
};

/// An fd holding the bytes, not visible in any directory; -1 with `error` set on failure.
int open_private_file(const uint8_t* bytes, uint64_t nbytes, std::string* error) {
  int fd = -1;
#ifdef MFD_CLOEXEC
  fd = memfd_create("relax-llvm-kernels", MFD_CLOEXEC);
  if (fd >= 0) {
    if (write_all(fd, bytes, nbytes)) return fd;
    close(fd);
  }
#endif
  const char* base = std::getenv("TMPDIR");
  std::string path = std::string(base && *base ? base : "/tmp") + "/relax-llvm-XXXXXX.so";
  fd = mkstemps(path.data(), 3);
  if (fd < 0) {
    *error = "cannot create a temporary file " + path + ": " + std::strerror(errno);
    return -1;
  }
  unlink(path.c_str());
  if (!write_all(fd, bytes, nbytes)) {
    *error = "cannot write the library: " + std::string(std::strerror(errno));
    close(fd);
    return -1;
  }
  return fd;
}

int load(void*, const uint8_t* bytes, uint64_t nbytes, void** out) {
  if (!bytes || !out) return fail("null argument", kRxBadArgument);
  if (nbytes < 4 || std::memcmp(bytes, "\x7f" "ELF", 4) != 0)
    return fail("the library is not an ELF shared object (" + std::to_string(nbytes) + " bytes)");
  std::string error;
  int fd = open_private_file(bytes, nbytes, &error);
  if (fd < 0) return fail(error);
  std::string path = "/proc/self/fd/" + std::to_string(fd);
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    close(fd);
    const char* e = dlerror();
    return fail(std::string("dlopen failed: ") + (e ? e : "unknown error"));
  }
  void* slot = dlsym(handle, kSetLastErrorSymbol);
  if (!slot) {
    dlclose(handle);
    close(fd);
    return fail(std::string("the library has no ") + kSetLastErrorSymbol +
                " (not built by the Relax LLVM backend?)");
  }
  // A library built for CPU features this CPU lacks would die of SIGILL in its first kernel.
  if (auto* list = static_cast<const char*>(dlsym(handle, relax::llvm_cpu::kFeaturesSymbol))) {
    std::string features = list;  // a copy: the library is closed before the message is built
    std::string lacking = relax::llvm_cpu::missing(features);
    if (!lacking.empty()) {
      dlclose(handle);
      close(fd);
      return fail("the kernels were compiled for CPU features this CPU lacks: " + lacking +
                  " (they need " + features +
                  "); compile again for this machine (--target llvm) or for a CPU both have "
                  "(--target llvm,mcpu=x86-64-v3 for any AVX2 machine)");
    }
  }
  using SetLastError = void (*)(const char*);
  *static_cast<SetLastError*>(slot) = &RxSetLastError;
  if (void* parallel = dlsym(handle, kParallelForSymbol))
    *static_cast<decltype(&RxParallelFor)*>(parallel) = &RxParallelFor;
  *out = new LoadedLibrary{handle, fd};
  return kRxOk;
}

int get_function(void*, void* module, const char* name, RxPackedCFunc* func, void** func_self) {
  if (!module || !name || !func || !func_self) return fail("null argument", kRxBadArgument);
  std::string symbol = std::string(kKernelPrefix) + name;
  void* handle = static_cast<LoadedLibrary*>(module)->handle;
  *func = reinterpret_cast<RxPackedCFunc>(dlsym(handle, symbol.c_str()));
  *func_self = nullptr;
  return kRxOk;
}

void release(void*, void* module) {
  if (!module) return;
  auto* lib = static_cast<LoadedLibrary*>(module);
  dlclose(lib->handle);
  close(lib->fd);
  delete lib;
}

int register_loader() {
  RxModuleLoader loader;
  std::memset(&loader, 0, sizeof(loader));
  loader.struct_size = sizeof(RxModuleLoader);
  loader.abi_version = RX_ABI_VERSION;
  loader.format = kFormat;
  loader.self = nullptr;
  loader.load = &load;
  loader.get_function = &get_function;
  loader.release = &release;
  return RxRegisterModuleLoader(&loader);
}

int register_plugin(const RelaxPluginHost* host) {
  int status = register_loader();
  if (status != 0 && host && host->set_error) host->set_error(host->context, RxGetLastError());
  return status;
}

}  // namespace

RX_RUNTIME_PLUGIN_ABI_VERSION()

extern "C" {

/// Registers the "llvm-so" module loader; 0 or an RxStatus (message in RxGetLastError). The
/// entry point the runtime calls when it discovers this plugin by its file name.
RELAX_PLUGIN_EXPORT int relax_runtime_plugin_init(void) { return register_loader(); }

/// The older name of relax_runtime_plugin_init.
RELAX_PLUGIN_EXPORT int RxLLVMRuntimeRegister(void) { return register_loader(); }

RELAX_PLUGIN_EXPORT const RelaxPluginInfo* relax_plugin_info(void) {
  static const RelaxPluginInfo info = {sizeof(RelaxPluginInfo), RELAX_PLUGIN_ABI_MAJOR,
                                       RELAX_PLUGIN_ABI_MINOR,  "llvm-runtime",
                                       "0.1.0",                 RELAX_SDK_VERSION,
                                       &register_plugin};
  return &info;
}

}  // extern "C"
