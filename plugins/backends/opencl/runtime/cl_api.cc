// Opening the OpenCL ICD loader (cl_api.h).
#include "cl_api.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

namespace relax::opencl {

const ClApi* cl_api(std::string* error) {
  static std::once_flag once;
  static ClApi api;
  static std::string open_error;
  static bool ok = false;
  std::call_once(once, [] {
    const char* env = std::getenv("RELAX_OPENCL_LIBRARY");
    std::string path = env && *env ? env : "libOpenCL.so.1";
    void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      const char* e = dlerror();
      open_error = "cannot open " + path + " (" + (e ? e : "unknown error") +
                   "); install an OpenCL driver and its ICD loader (ocl-icd-libopencl1)";
      return;
    }
#define RELAX_X(name)                                                        \
  api.name = reinterpret_cast<decltype(api.name)>(dlsym(h, #name));          \
  if (!api.name) {                                                           \
    open_error = path + " has no " #name " (not an OpenCL 1.2 ICD loader?)"; \
    return;                                                                  \
  }
    RELAX_CL_FUNCTIONS(RELAX_X)
#undef RELAX_X
    ok = true;  // the handle stays open for the life of the process
  });
  if (!ok) {
    if (error) *error = open_error;
    return nullptr;
  }
  return &api;
}

std::string cl_error_name(cl_int code) {
  switch (code) {
#define RELAX_E(n) \
  case n:          \
    return #n;
    RELAX_E(CL_SUCCESS)
        RELAX_E(CL_DEVICE_NOT_FOUND) RELAX_E(CL_DEVICE_NOT_AVAILABLE) RELAX_E(
            CL_COMPILER_NOT_AVAILABLE) RELAX_E(CL_MEM_OBJECT_ALLOCATION_FAILURE)
            RELAX_E(CL_OUT_OF_RESOURCES) RELAX_E(CL_OUT_OF_HOST_MEMORY) RELAX_E(
                CL_PROFILING_INFO_NOT_AVAILABLE) RELAX_E(CL_MEM_COPY_OVERLAP)
                RELAX_E(CL_IMAGE_FORMAT_MISMATCH) RELAX_E(CL_IMAGE_FORMAT_NOT_SUPPORTED) RELAX_E(
                    CL_BUILD_PROGRAM_FAILURE) RELAX_E(CL_MAP_FAILURE)
                    RELAX_E(CL_MISALIGNED_SUB_BUFFER_OFFSET) RELAX_E(
                        CL_COMPILE_PROGRAM_FAILURE) RELAX_E(CL_LINKER_NOT_AVAILABLE)
                        RELAX_E(CL_LINK_PROGRAM_FAILURE) RELAX_E(CL_INVALID_VALUE) RELAX_E(
                            CL_INVALID_DEVICE_TYPE) RELAX_E(CL_INVALID_PLATFORM)
                            RELAX_E(CL_INVALID_DEVICE) RELAX_E(CL_INVALID_CONTEXT) RELAX_E(
                                CL_INVALID_QUEUE_PROPERTIES) RELAX_E(CL_INVALID_COMMAND_QUEUE)
                                RELAX_E(CL_INVALID_HOST_PTR) RELAX_E(CL_INVALID_MEM_OBJECT) RELAX_E(
                                    CL_INVALID_BINARY) RELAX_E(CL_INVALID_BUILD_OPTIONS)
                                    RELAX_E(CL_INVALID_PROGRAM) RELAX_E(
                                        CL_INVALID_PROGRAM_EXECUTABLE)
                                        RELAX_E(CL_INVALID_KERNEL_NAME) RELAX_E(
                                            CL_INVALID_KERNEL_DEFINITION) RELAX_E(CL_INVALID_KERNEL)
                                            RELAX_E(CL_INVALID_ARG_INDEX) RELAX_E(
                                                CL_INVALID_ARG_VALUE) RELAX_E(CL_INVALID_ARG_SIZE)
                                                RELAX_E(CL_INVALID_KERNEL_ARGS) RELAX_E(
                                                    CL_INVALID_WORK_DIMENSION)
                                                    RELAX_E(CL_INVALID_WORK_GROUP_SIZE) RELAX_E(
                                                        CL_INVALID_WORK_ITEM_SIZE)
                                                        RELAX_E(CL_INVALID_GLOBAL_OFFSET) RELAX_E(
                                                            CL_INVALID_EVENT_WAIT_LIST)
                                                            RELAX_E(CL_INVALID_EVENT) RELAX_E(
                                                                CL_INVALID_OPERATION)
                                                                RELAX_E(CL_INVALID_BUFFER_SIZE)
                                                                    RELAX_E(
                                                                        CL_INVALID_GLOBAL_WORK_SIZE)
#undef RELAX_E
                                                                        default
        : return "CL error " +
          std::to_string(code);
  }
}

}  // namespace relax::opencl
