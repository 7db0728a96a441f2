// The OpenCL entry points the runtime uses, opened with dlopen from libOpenCL.so.1 (the ICD
// loader) so that the plugin loads, and reports "no OpenCL device", on a machine without one.
// Only the OpenCL headers are used at build time (CL_TARGET_OPENCL_VERSION=120).
#pragma once

#include <CL/cl.h>

#include <string>

namespace relax::opencl {

#define RELAX_CL_FUNCTIONS(X)                                                                      \
  X(clGetPlatformIDs)                                                                              \
  X(clGetPlatformInfo) X(clGetDeviceIDs) X(clGetDeviceInfo) X(clCreateContext) X(clReleaseContext) \
      X(clCreateCommandQueue) X(clReleaseCommandQueue) X(clCreateBuffer) X(clReleaseMemObject)     \
          X(clEnqueueReadBuffer) X(clEnqueueWriteBuffer) X(clEnqueueCopyBuffer) X(clFinish)        \
              X(clCreateProgramWithSource) X(clCreateProgramWithBinary) X(clBuildProgram)          \
                  X(clGetProgramBuildInfo) X(clGetProgramInfo) X(clReleaseProgram)                 \
                      X(clCreateKernel) X(clReleaseKernel) X(clSetKernelArg)                       \
                          X(clGetKernelWorkGroupInfo) X(clEnqueueNDRangeKernel)

/// The function table; every pointer is set once load() succeeds.
struct ClApi {
#define RELAX_X(name) decltype(&::name) name = nullptr;
  RELAX_CL_FUNCTIONS(RELAX_X)
#undef RELAX_X
};

/// The table, opened on first use (thread-safe); null with `*error` set when libOpenCL.so.1
/// (or $RELAX_OPENCL_LIBRARY) cannot be opened or lacks a function.
const ClApi* cl_api(std::string* error);

/// "CL_INVALID_VALUE" for -30, ...; "CL error <n>" for an unknown code.
std::string cl_error_name(cl_int code);

}  // namespace relax::opencl
