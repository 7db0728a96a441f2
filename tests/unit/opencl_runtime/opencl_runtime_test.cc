// The OpenCL runtime on a device (PoCL here): copies with byte offsets, the binary cache (a
// second load builds nothing; a changed source or driver key rebuilds; a corrupt file is
// ignored with a warning), work-group limits, two threads, and error messages.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "../../common/error_of.h"
#include "launch_table.h"
#include "opencl_test_util.h"
#include "relax/tir/intrin.h"

namespace relax::opencl_test {
namespace {

TEST_F(OpenCLTest, CopiesWithByteOffsets) {
  runtime::NDArray h = input({64}, DataType::Float(32), 1, false, false, false);
  runtime::NDArray d = runtime::NDArray::empty({64}, DataType::Float(32), kCL);
  d.copy_from(h);
  runtime::NDArray back = d.copy_to(runtime::kCPU);
  EXPECT_TRUE(test::tensors_close(back, h, 0, 0));
  // A view 16 elements in: device-to-host and device-to-device honour byte_offset.
  DLTensor view = *d.dltensor();
  int64_t shape[1] = {16};
  view.shape = shape;
  view.byte_offset = 16 * 4;
  runtime::NDArray v = runtime::NDArray::borrow(view);
  runtime::NDArray vh = v.copy_to(runtime::kCPU);
  for (int i = 0; i < 16; ++i) EXPECT_EQ(vh.data_as<float>()[i], h.data_as<float>()[16 + i]);
  runtime::NDArray d2 = runtime::NDArray::empty({16}, DataType::Float(32), kCL);
  d2.copy_from(v);
  runtime::NDArray d2h = d2.copy_to(runtime::kCPU);
  for (int i = 0; i < 16; ++i) EXPECT_EQ(d2h.data_as<float>()[i], h.data_as<float>()[16 + i]);
}

const Case& case_named(const std::string& name) {
  static const std::vector<Case> all = cases();
  for (const Case& c : all)
    if (c.name == name) return c;
  throw std::runtime_error("no case " + name);
}

/// A fresh cache directory for this test (RELAX_CACHE_DIR), so earlier runs do not count.
std::string fresh_cache_dir() {
  std::string dir = std::string(RELAX_BINARY_DIR) + "/opencl_test_cache/" +
                    ::testing::UnitTest::GetInstance()->current_test_info()->name() + "-" +
                    std::to_string(::getpid());
  std::filesystem::remove_all(dir);
  setenv("RELAX_CACHE_DIR", dir.c_str(), 1);
  return dir + "/opencl";
}

/// Loads the library of `case_name` and runs its (first) function once against the
/// interpreter.
void load_and_run(const std::string& case_name, const std::pair<std::string, std::string>& lib) {
  runtime::Module m = load(lib);
  auto funcs = legalized(case_named(case_name));
  expect_device_matches(m, funcs[0].first, funcs[0].second, false, false, false, 1e-5, 1e-6);
}

std::pair<std::string, std::string> library_of(const std::string& case_name,
                                               const std::string& attrs = "") {
  return build_library(legalized(case_named(case_name)), attrs);
}

std::vector<std::filesystem::path> cache_files(const std::string& dir) {
  std::vector<std::filesystem::path> out;
  if (!std::filesystem::exists(dir)) return out;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".bin") out.push_back(e.path());
  return out;
}

TEST_F(OpenCLTest, SecondLoadBuildsNothing) {
  std::string dir = fresh_cache_dir();
  auto lib = library_of("add_static");
  int64_t builds = ocl_stat("builds"), hits = ocl_stat("cache_hits");
  load_and_run("add_static", lib);
  EXPECT_EQ(ocl_stat("builds"), builds + 1);
  EXPECT_EQ(cache_files(dir).size(), 1u);
  load_and_run("add_static", lib);  // a new module of the same library: from the cache
  EXPECT_EQ(ocl_stat("builds"), builds + 1);
  EXPECT_EQ(ocl_stat("cache_hits"), hits + 1);
}

TEST_F(OpenCLTest, ChangedSourceOrDriverKeyRebuilds) {
  std::string dir = fresh_cache_dir();
  auto lib = library_of("add_static");
  int64_t builds = ocl_stat("builds");
  load_and_run("add_static", lib);
  load_and_run("mul_broadcast", library_of("mul_broadcast"));  // another source
  EXPECT_EQ(ocl_stat("builds"), builds + 2);
  setenv("RELAX_OPENCL_CACHE_TAG", "driver-2", 1);  // as a new driver version would
  load_and_run("add_static", lib);
  unsetenv("RELAX_OPENCL_CACHE_TAG");
  EXPECT_EQ(ocl_stat("builds"), builds + 3);
  EXPECT_EQ(cache_files(dir).size(), 3u);
  load_and_run("add_static", lib);  // the first entry is still there
  EXPECT_EQ(ocl_stat("builds"), builds + 3);
}

TEST_F(OpenCLTest, CorruptCacheFileIsIgnoredWithAWarning) {
  std::string dir = fresh_cache_dir();
  auto lib = library_of("add_static");
  load_and_run("add_static", lib);
  std::vector<std::filesystem::path> files = cache_files(dir);
  ASSERT_EQ(files.size(), 1u);
  for (int variant = 0; variant < 3; ++variant) {
    if (variant == 0) {  // a flipped byte in the middle
      std::fstream f(files[0], std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(std::streamoff(std::filesystem::file_size(files[0]) / 2));
      f.put('\x5a');
    } else if (variant == 1) {  // truncated
      std::filesystem::resize_file(files[0], 7);
    } else {  // garbage of the right length
      std::ofstream(files[0], std::ios::binary | std::ios::trunc) << std::string(4096, 'x');
    }
    int64_t builds = ocl_stat("builds");
    ::testing::internal::CaptureStderr();
    load_and_run("add_static", lib);
    std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("ignoring the cached OpenCL program"), std::string::npos) << err;
    EXPECT_EQ(ocl_stat("builds"), builds + 1) << "variant " << variant;
    // Rebuilt and rewritten: the next load is a hit again.
    int64_t hits = ocl_stat("cache_hits");
    load_and_run("add_static", lib);
    EXPECT_EQ(ocl_stat("cache_hits"), hits + 1);
  }
}

TEST_F(OpenCLTest, TwoThreadsShareAModule) {
  auto funcs = legalized(case_named("softmax"));
  runtime::Module m = load(build_library(funcs));
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 10; ++i)
        expect_device_matches(m, funcs[0].first, funcs[0].second, false, false, false, 1e-4, 1e-5,
                              0, uint32_t(100 * t + i));
    });
  for (std::thread& t : threads) t.join();
}

TEST_F(OpenCLTest, ArgumentErrorsNameTheFunctionAndTheArgument) {
  auto funcs = legalized(case_named("add_static"));
  runtime::Module m = load(build_library(funcs));
  runtime::PackedFunc fn = m->get_function(funcs[0].first);
  runtime::NDArray cpu = runtime::NDArray::empty({4, 33}, DataType::Float(32));
  runtime::NDArray dev = runtime::NDArray::empty({4, 33}, DataType::Float(32), kCL);
  std::vector<runtime::Value> args{runtime::Value(cpu), runtime::Value(dev), runtime::Value(dev)};
  std::string e = test::error_of([&] { fn(args); });
  EXPECT_NE(e.find(funcs[0].first), std::string::npos) << e;
  EXPECT_NE(e.find("device"), std::string::npos) << e;
  runtime::NDArray wrong = runtime::NDArray::empty({4, 32}, DataType::Float(32), kCL);
  args = {runtime::Value(dev), runtime::Value(wrong), runtime::Value(dev)};
  e = test::error_of([&] { fn(args); });
  EXPECT_NE(e.find("shape"), std::string::npos) << e;
}

/// `lib` with its gpu::Library edited by `edit`.
std::pair<std::string, std::string> edited(const std::pair<std::string, std::string>& lib,
                                           const std::function<void(gpu::Library&)>& edit) {
  gpu::Library l =
      gpu::deserialize(reinterpret_cast<const uint8_t*>(lib.second.data()), lib.second.size());
  edit(l);
  std::vector<uint8_t> bytes = gpu::serialize(l);
  return {lib.first, std::string(bytes.begin(), bytes.end())};
}

/// A kernel of 2048 work-items per work-group (threadIdx.x extent 2048), compiled for a
/// target that allows it.
std::pair<std::string, std::pair<std::string, std::string>> big_work_group_library() {
  using namespace tir;
  Ref<Buffer> a = decl_buffer({int_imm(2048)}, DataType::Float(32), "A");
  Ref<tir::Var> i = make_ref<tir::Var>("i", DataType::Int(64));
  Stmt body = make_ref<For>(i, int_imm(0), int_imm(2048), ForKind::kThreadBinding,
                            buffer_store(a, float_imm(1.0), {i}), "threadIdx.x");
  Ref<tir::PrimFunc> f = make_prim_func({a}, body);
  return {"big", build_library({{"big", f}}, "max-threads-per-block=8192,max-block=8192x8192x64")};
}

TEST_F(OpenCLTest, WorkGroupAboveTheDeviceLimitIsAnError) {
  auto [name, lib] = big_work_group_library();
  // Pretend the device allows 1024 (PoCL allows 4096): the library's requirement is checked
  // against CL_DEVICE_MAX_WORK_GROUP_SIZE before anything is built.
  lib = edited(lib, [](gpu::Library& l) { l.requirements["max-threads-per-block"] = "1000000"; });
  runtime::Module m = load(lib);
  runtime::NDArray a = runtime::NDArray::empty({2048}, DataType::Float(32), kCL);
  std::vector<runtime::Value> args{runtime::Value(a)};
  std::string e = test::error_of([&] { m->get_function(name)(args); });
  EXPECT_NE(e.find("work-groups of 1000000 work-items"), std::string::npos) << e;
  EXPECT_NE(e.find("max-threads-per-block="), std::string::npos) << e;
}

TEST_F(OpenCLTest, WorkGroupAboveTheKernelLimitIsAnError) {
  auto [name, lib] = big_work_group_library();
  // A block past CL_KERNEL_WORK_GROUP_SIZE reaches the launch (no library requirement): the
  // check there names the kernel, the size and the limit.
  lib = edited(lib, [](gpu::Library& l) {
    l.requirements.erase("max-threads-per-block");
    l.kernels[0].block = {100000, 1, 1};
  });
  runtime::Module m = load(lib);
  runtime::NDArray a = runtime::NDArray::empty({2048}, DataType::Float(32), kCL);
  std::vector<runtime::Value> args{runtime::Value(a)};
  std::string e = test::error_of([&] { m->get_function(name)(args); });
  EXPECT_NE(e.find("big_kernel0"), std::string::npos) << e;
  EXPECT_NE(e.find("100000"), std::string::npos) << e;
  EXPECT_NE(e.find("CL_KERNEL_WORK_GROUP_SIZE"), std::string::npos) << e;
}

TEST_F(OpenCLTest, FailedBuildReportsTheLogAndTheKernel) {
  fresh_cache_dir();
  auto funcs = legalized(case_named("add_static"));
  auto lib = edited(build_library(funcs), [](gpu::Library& l) {
    std::string src(l.module_code.begin(), l.module_code.end());
    size_t body = src.find("{", src.find("void " + l.kernels[0].name));
    src.insert(body + 1, "\n  this_is_not_opencl;\n");
    l.module_code.assign(src.begin(), src.end());
  });
  runtime::Module m = load(lib);
  runtime::NDArray x = runtime::NDArray::empty({4, 33}, DataType::Float(32), kCL);
  std::vector<runtime::Value> args{runtime::Value(x), runtime::Value(x), runtime::Value(x)};
  std::string e = test::error_of([&] { m->get_function(funcs[0].first)(args); });
  EXPECT_NE(e.find("clBuildProgram failed: CL_BUILD_PROGRAM_FAILURE"), std::string::npos) << e;
  EXPECT_NE(e.find("this_is_not_opencl"), std::string::npos) << e;  // the log
  EXPECT_NE(e.find("in kernel " + funcs[0].first + "_kernel0"), std::string::npos) << e;
  // The next call fails the same way, without building again.
  int64_t builds = ocl_stat("builds");
  std::string again = test::error_of([&] { m->get_function(funcs[0].first)(args); });
  EXPECT_EQ(again, e);
  EXPECT_EQ(ocl_stat("builds"), builds);
}

TEST_F(OpenCLTest, DeviceAttributes) {
  const char* name = nullptr;
  std::vector<runtime::Value> args{runtime::Value("device")};
  std::string d = runtime::Registry::get("relax.opencl.stats")(args).as_string();
  EXPECT_FALSE(d.empty());
  std::printf("OpenCL device: %s\n", d.c_str());
  (void)name;
  std::string e = test::error_of([] {
    runtime::NDArray::empty({4}, DataType::Float(32), {kDLOpenCL, 3});
  });
  EXPECT_NE(e.find("opencl:3 does not exist"), std::string::npos) << e;
}

}  // namespace
}  // namespace relax::opencl_test
