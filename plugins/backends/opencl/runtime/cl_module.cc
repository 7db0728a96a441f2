// The "opencl-c" module loader (cl_runtime.h): a kernel library (gpu_common's container, the
// program source in module_code) whose functions run their launch tables with gpu::execute on
// the OpenCL device.
//
// The program is built at the first call of any of its functions, under the module's mutex:
// the device's requirements checked first (float64 -> cl_khr_fp64, float16 -> cl_khr_fp16,
// threads and local memory per work-group), then the binary cache (cl_cache.h) tried, then the
// source compiled with "-cl-std=CL1.2" (plus -cl-fp32-correctly-rounded-divide-sqrt where the
// device offers it; never a fast-math option) and its binary stored. A failed build is an
// error with the build log and the kernel at the first error line. Each launch checks the
// work-group size against CL_KERNEL_WORK_GROUP_SIZE and the device's limits, then sets the
// arguments (buffers, scalars, element offsets) and enqueues under the kernel's mutex
// (clSetKernelArg is not thread-safe on one cl_kernel); the one in-order queue orders
// dependent launches.
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

#include "cl_cache.h"
#include "cl_runtime.h"
#include "launch_table.h"
#include "relax/runtime/c_abi.h"

namespace relax::opencl {

namespace {

constexpr const char* kFormat = "opencl-c";

struct Kernel {
  cl_kernel kernel = nullptr;
  size_t max_work_group = 0;
  std::mutex mutex;
};

struct Module;

/// The closure state of one function taken from a module.
struct Function {
  Module* module;
  size_t index;
};

struct Module {
  gpu::Library lib;
  std::vector<std::unique_ptr<Function>> functions;
  std::mutex build_mutex;
  bool built = false;
  std::string build_error;  // a failed build fails every later call the same way
  cl_program program = nullptr;
  std::vector<std::unique_ptr<Kernel>> kernels;

  ~Module() {
    const ClApi* api = cl_api(nullptr);
    if (!api) return;
    for (auto& k : kernels)
      if (k->kernel) api->clReleaseKernel(k->kernel);
    if (program) api->clReleaseProgram(program);
  }
};

int fail(const std::string& message, int status = kRxError) {
  RxSetLastError(("opencl: " + message).c_str());
  return status;
}

/// The kernel holding line `line` (1-based) of the source, or "".
std::string kernel_at_line(const gpu::Library& lib, long line) {
  std::string src(lib.module_code.begin(), lib.module_code.end());
  std::string found;
  long n = 1;
  for (size_t pos = 0; pos < src.size() && n <= line; ++pos) {
    if (src.compare(pos, 5, "void ") == 0 && (pos == 0 || src[pos - 1] == '\n')) {
      size_t open = src.find('(', pos);
      if (open != std::string::npos) found = src.substr(pos + 5, open - pos - 5);
    }
    if (src[pos] == '\n') ++n;
  }
  return found;
}

/// The kernel holding the first "<file>:<line>:<column>:" a build log names, or "".
std::string failing_kernel(const gpu::Library& lib, const std::string& log) {
  auto digits = [&](size_t& p) {
    size_t start = p;
    while (p < log.size() && std::isdigit(static_cast<unsigned char>(log[p]))) ++p;
    return p > start;
  };
  for (size_t c = log.find(':'); c != std::string::npos; c = log.find(':', c + 1)) {
    size_t p = c + 1;
    if (!digits(p) || p >= log.size() || log[p] != ':') continue;
    size_t q = p + 1;
    if (!digits(q) || q >= log.size() || log[q] != ':') continue;
    long line = std::strtol(log.c_str() + c + 1, nullptr, 10);
    return line > 0 ? kernel_at_line(lib, line) : "";
  }
  return "";
}

std::string build_options(const ClDevice& d) {
  std::string o = "-cl-std=CL1.2";
  if (d.correctly_rounded_div_sqrt) o += " -cl-fp32-correctly-rounded-divide-sqrt";
  return o;
}

void check_requirements(const gpu::Library& lib, const ClDevice& d) {
  auto req = [&](const char* k) -> std::string {
    auto it = lib.requirements.find(k);
    return it == lib.requirements.end() ? "" : it->second;
  };
  if (req("float64") == "1" && !d.fp64)
    throw std::runtime_error(
        "the kernels use float64, but " + d.name +
        " has no cl_khr_fp64 (compile with float32, or for a device with fp64)");
  if (req("float16") == "1" && !d.fp16)
    throw std::runtime_error("the kernels use half arithmetic (target fp16=1), but " + d.name +
                             " has no cl_khr_fp16 (compile with fp16=0)");
  if (std::string t = req("max-threads-per-block"); !t.empty() && std::stoull(t) > d.max_work_group)
    throw std::runtime_error(
        "the kernels use work-groups of " + t + " work-items, but " + d.name + " allows " +
        std::to_string(d.max_work_group) +
        " (compile with max-threads-per-block=" + std::to_string(d.max_work_group) + ")");
  if (std::string s = req("shared-bytes"); !s.empty() && std::stoull(s) > d.local_mem)
    throw std::runtime_error("the kernels use " + s +
                             " bytes of local memory per work-group, but " + d.name + " has " +
                             std::to_string(d.local_mem));
}

/// Builds `m`'s program from the cache or the source, then its kernels.
void build(Module& m) {
  const ClDevice& d = cl_device();
  const ClApi& api = *d.api;
  check_requirements(m.lib, d);
  std::string source(m.lib.module_code.begin(), m.lib.module_code.end());
  std::string options = build_options(d);
  const char* tag = std::getenv("RELAX_OPENCL_CACHE_TAG");
  std::array<uint8_t, 32> key = cache_key({source, options, d.name, d.vendor, d.driver_version,
                                           d.platform_name, d.platform_version, tag ? tag : ""});
  std::string dir = cache_dir();
  cl_int st = CL_SUCCESS;
  if (std::optional<std::vector<uint8_t>> bin = cache_read(dir, key)) {
    const unsigned char* p = bin->data();
    size_t n = bin->size();
    cl_int bin_status = CL_SUCCESS;
    cl_program prog =
        api.clCreateProgramWithBinary(d.context, 1, &d.device, &n, &p, &bin_status, &st);
    if (st == CL_SUCCESS && bin_status == CL_SUCCESS &&
        api.clBuildProgram(prog, 1, &d.device, options.c_str(), nullptr, nullptr) == CL_SUCCESS) {
      m.program = prog;
      ++cl_stats().cache_hits;
    } else {
      if (prog) api.clReleaseProgram(prog);
      ++cl_stats().cache_rejects;
      std::fprintf(stderr,
                   "relax opencl: warning: %s refused the cached program %s/%s.bin; "
                   "rebuilding it\n",
                   d.name.c_str(), dir.c_str(), hex(key).c_str());
    }
  }
  if (!m.program) {
    const char* src = source.c_str();
    size_t len = source.size();
    cl_program prog = api.clCreateProgramWithSource(d.context, 1, &src, &len, &st);
    cl_check(st, "clCreateProgramWithSource");
    st = api.clBuildProgram(prog, 1, &d.device, options.c_str(), nullptr, nullptr);
    if (st != CL_SUCCESS) {
      size_t n = 0;
      api.clGetProgramBuildInfo(prog, d.device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
      std::string log(n, '\0');
      if (n)
        api.clGetProgramBuildInfo(prog, d.device, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
      while (!log.empty() && log.back() == '\0') log.pop_back();
      api.clReleaseProgram(prog);
      std::string kernel = failing_kernel(m.lib, log);
      throw std::runtime_error("clBuildProgram failed: " + cl_error_name(st) + " on " + d.name +
                               (kernel.empty() ? "" : " in kernel " + kernel) + " (options " +
                               options + "); build log:\n" + log);
    }
    m.program = prog;
    ++cl_stats().builds;
    size_t size = 0;
    if (api.clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, nullptr) ==
            CL_SUCCESS &&
        size > 0) {
      std::vector<uint8_t> bin(size);
      unsigned char* p = bin.data();
      if (api.clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof(p), &p, nullptr) == CL_SUCCESS &&
          cache_write(dir, key, bin))
        ++cl_stats().cache_writes;
    }
  }
  for (const gpu::KernelInfo& info : m.lib.kernels) {
    auto k = std::make_unique<Kernel>();
    k->kernel = api.clCreateKernel(m.program, info.name.c_str(), &st);
    cl_check(st, "clCreateKernel", " (kernel " + info.name + ")");
    st = api.clGetKernelWorkGroupInfo(k->kernel, d.device, CL_KERNEL_WORK_GROUP_SIZE,
                                      sizeof(size_t), &k->max_work_group, nullptr);
    cl_check(st, "clGetKernelWorkGroupInfo", " (kernel " + info.name + ")");
    m.kernels.push_back(std::move(k));
  }
}

void launch(Module& m, const gpu::Launch& l) {
  const ClDevice& d = cl_device();
  const ClApi& api = *d.api;
  const gpu::KernelInfo& info = m.lib.kernels.at(size_t(l.kernel));
  Kernel& k = *m.kernels.at(size_t(l.kernel));
  uint64_t threads = uint64_t(info.block[0]) * info.block[1] * info.block[2];
  std::string where = " (kernel " + info.name + ")";
  if (threads > k.max_work_group)
    throw std::runtime_error(
        "kernel " + info.name + ": a work-group of " + std::to_string(threads) + " work-items (" +
        std::to_string(info.block[0]) + "x" + std::to_string(info.block[1]) + "x" +
        std::to_string(info.block[2]) + ") is above the kernel's limit on " + d.name +
        " (CL_KERNEL_WORK_GROUP_SIZE = " + std::to_string(k.max_work_group) + ")");
  for (int i = 0; i < 3; ++i)
    if (info.block[size_t(i)] > d.max_item_sizes[i])
      throw std::runtime_error("kernel " + info.name + ": work-group dimension " +
                               std::to_string(i) + " of " + std::to_string(info.block[size_t(i)]) +
                               " is above the device's limit (" +
                               std::to_string(d.max_item_sizes[i]) + ")");
  size_t local[3], global[3];
  for (int i = 0; i < 3; ++i) {
    local[i] = info.block[size_t(i)];
    global[i] = size_t(l.grid[size_t(i)]) * local[i];
  }
  std::lock_guard<std::mutex> lock(k.mutex);
  cl_uint arg = 0;
  for (const gpu::BufferArg& b : l.buffers) {
    cl_mem mem = static_cast<ClBuffer*>(b.data)->mem;
    cl_check(api.clSetKernelArg(k.kernel, arg++, sizeof(cl_mem), &mem), "clSetKernelArg", where);
  }
  for (size_t i = 0; i < l.scalars.size(); ++i) {
    if (info.scalar_dtypes.at(i).bits == 64) {
      cl_long v = l.scalars[i];
      cl_check(api.clSetKernelArg(k.kernel, arg++, sizeof(v), &v), "clSetKernelArg", where);
    } else {
      auto v = cl_int(l.scalars[i]);
      cl_check(api.clSetKernelArg(k.kernel, arg++, sizeof(v), &v), "clSetKernelArg", where);
    }
  }
  for (const gpu::BufferArg& b : l.buffers) {
    auto off = cl_int(b.elem_offset);
    cl_check(api.clSetKernelArg(k.kernel, arg++, sizeof(off), &off), "clSetKernelArg", where);
  }
  cl_check(
      api.clEnqueueNDRangeKernel(d.queue, k.kernel, 3, nullptr, global, local, 0, nullptr, nullptr),
      "clEnqueueNDRangeKernel", where);
  ++cl_stats().launches;
}

int call(void* self, const RxAny* args, int32_t nargs, RxAny* ret) {
  auto* f = static_cast<Function*>(self);
  Module& m = *f->module;
  const gpu::FunctionTable& fn = m.lib.functions[f->index];
  try {
    {
      std::lock_guard<std::mutex> lock(m.build_mutex);
      if (!m.built && m.build_error.empty()) {
        try {
          build(m);
          m.built = true;
        } catch (const std::exception& e) {
          m.build_error = e.what();
        }
      }
      if (!m.built) throw std::runtime_error(m.build_error);
    }
    const ClDevice& d = cl_device();
    gpu::ExecCallbacks cb;
    cb.alloc_workspace = [&d](uint64_t n) -> void* {
      cl_int st = CL_SUCCESS;
      cl_mem mem = d.api->clCreateBuffer(d.context, CL_MEM_READ_WRITE, n ? n : 1, nullptr, &st);
      cl_check(st, "clCreateBuffer", " (a workspace of " + std::to_string(n) + " bytes)");
      return new ClBuffer{mem, n};
    };
    cb.free_workspace = [&d](void* h) {
      auto* b = static_cast<ClBuffer*>(h);
      d.api->clReleaseMemObject(b->mem);  // kept alive by OpenCL until queued launches finish
      delete b;
    };
    cb.launch = [&m](const gpu::Launch& l) { launch(m, l); };
    gpu::execute(m.lib, fn, args, nargs, kDLOpenCL, cb);
  } catch (const std::exception& e) {
    return fail("function \"" + fn.name + "\": " + e.what());
  }
  *ret = RxAnyNull();
  return kRxOk;
}

int load(void*, const uint8_t* bytes, uint64_t nbytes, void** out) {
  if (!bytes || !out) return fail("null argument", kRxBadArgument);
  auto m = std::make_unique<Module>();
  try {
    m->lib = gpu::deserialize(bytes, nbytes);
  } catch (const std::exception& e) {
    return fail(std::string("cannot load the kernel library: ") + e.what());
  }
  if (m->lib.format != kFormat)
    return fail("the kernel library has format \"" + m->lib.format + "\", expected \"" + kFormat +
                "\"");
  for (size_t i = 0; i < m->lib.functions.size(); ++i)
    m->functions.push_back(std::make_unique<Function>(Function{m.get(), i}));
  *out = m.release();
  return kRxOk;
}

int get_function(void*, void* module, const char* name, RxPackedCFunc* func, void** func_self) {
  if (!module || !name || !func || !func_self) return fail("null argument", kRxBadArgument);
  auto* m = static_cast<Module*>(module);
  *func = nullptr;
  *func_self = nullptr;
  for (size_t i = 0; i < m->lib.functions.size(); ++i)
    if (m->lib.functions[i].name == name) {
      *func = &call;
      *func_self = m->functions[i].get();
    }
  return kRxOk;
}

void release(void*, void* module) { delete static_cast<Module*>(module); }

/// relax.opencl.stats(name: str) -> int: builds, cache_hits, cache_writes, cache_rejects,
/// launches (counts since the plugin loaded); fp16 / fp64: 1 when the device has
/// cl_khr_fp16 / cl_khr_fp64; "device" -> the device's description (a string).
int stats(void*, const RxAny* args, int32_t nargs, RxAny* ret) {
  if (nargs != 1 || args[0].type_code != kRxString)
    return fail("relax.opencl.stats takes one string", kRxBadArgument);
  std::string k = args[0].value.v_str;
  ClStats& s = cl_stats();
  if (k == "device") {
    static thread_local std::string text;
    try {
      const ClDevice& d = cl_device();
      text = d.name + " | " + d.platform_name + " | " + d.driver_version;
    } catch (const std::exception& e) {
      text = e.what();
    }
    *ret = RxAnyString(text.c_str());
    return kRxOk;
  }
  if (k == "fp16" || k == "fp64") {
    try {
      const ClDevice& d = cl_device();
      *ret = RxAnyInt(k == "fp16" ? d.fp16 : d.fp64);
    } catch (const std::exception& e) {
      return fail(e.what());
    }
    return kRxOk;
  }
  uint64_t v = k == "builds"          ? s.builds.load()
               : k == "cache_hits"    ? s.cache_hits.load()
               : k == "cache_writes"  ? s.cache_writes.load()
               : k == "cache_rejects" ? s.cache_rejects.load()
               : k == "launches"      ? s.launches.load()
                                      : UINT64_MAX;
  if (v == UINT64_MAX)
    return fail("relax.opencl.stats: unknown counter \"" + k + "\"", kRxBadArgument);
  *ret = RxAnyInt(int64_t(v));
  return kRxOk;
}

}  // namespace

int register_module_loader() {
  RxModuleLoader loader;
  std::memset(&loader, 0, sizeof(loader));
  loader.struct_size = sizeof(RxModuleLoader);
  loader.abi_version = RX_ABI_VERSION;
  loader.format = kFormat;
  loader.load = &load;
  loader.get_function = &get_function;
  loader.release = &release;
  int st = RxRegisterModuleLoader(&loader);
  if (st != 0) return st;
  return RxRegisterGlobalFunc("relax.opencl.stats", &stats, nullptr, nullptr, 1);
}

}  // namespace relax::opencl
