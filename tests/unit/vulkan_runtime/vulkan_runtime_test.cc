// The Vulkan runtime through the VM's interfaces: device attributes, copies with byte offsets,
// kernels with offsets, push-constant and uniform-buffer parameter blocks, workspaces, buffers
// past maxStorageBufferRange, two threads, free right after a dispatch, refused libraries and
// wrong arguments.
#include <cstring>
#include <iostream>
#include <numeric>
#include <thread>

#include "vk_test_util.h"

namespace relax::vktest {
namespace {

using runtime::Value;

gpu::Library copy_library() {
  gpu::Library lib;
  lib.format = "spirv";
  lib.kernels = {offset_copy_kernel()};
  lib.functions = {offset_copy_function()};
  return lib;
}

TEST(VulkanRuntime, DeviceAttributes) {
  RX_REQUIRE_VULKAN_DEVICE();
  EXPECT_FALSE(api().attribute(kVk, kRxDeviceName).as_string().empty());
  EXPECT_GT(api().attribute(kVk, kRxDeviceTotalMemory).as_int(), 0);
  EXPECT_GE(api().attribute(kVk, kRxDeviceMaxThreadsPerBlock).as_int(), 64);
  EXPECT_GT(api().attribute(kVk, kRxDeviceWarpSize).as_int(), 0);
  EXPECT_GE(api().attribute(kVk, kRxDeviceCount).as_int(), 1);
  EXPECT_GT(max_storage_buffer_range(), 0u);
  EXPECT_EQ(api().attribute(DLDevice{kDLVulkan, 99}, kRxDeviceExists).as_int(), 0);
  std::cout << "device: " << api().attribute(kVk, kRxDeviceDescription).as_string() << "\n";
}

TEST(VulkanRuntime, CopiesHonourByteOffsets) {
  RX_REQUIRE_VULKAN_DEVICE();
  std::vector<float> src(32);
  std::iota(src.begin(), src.end(), 1.0f);
  DevBuffer a(64 * 4), b(64 * 4);
  std::vector<int64_t> s8{8}, s16{16};
  // Host -> device: src[4..20) to a at element 10.
  DLTensor h = host(src, s16, kF32);
  h.byte_offset = 4 * 4;
  DLTensor da = view(a, s16, kF32, 10 * 4);
  api().copy(h, da);
  // Device -> device: a[12..20) to b[40..48).
  DLTensor from = view(a, s8, kF32, 12 * 4), to = view(b, s8, kF32, 40 * 4);
  api().copy(from, to);
  // Within one buffer, overlapping: b[40..48) to b[44..52).
  DLTensor from2 = view(b, s8, kF32, 40 * 4), to2 = view(b, s8, kF32, 44 * 4);
  api().copy(from2, to2);
  // Device -> host with an offset on both sides.
  std::vector<float> out(20, -1.0f);
  DLTensor ho = host(out, s8, kF32);
  ho.byte_offset = 2 * 4;
  DLTensor db = view(b, s8, kF32, 44 * 4);
  api().copy(db, ho);
  EXPECT_EQ(out[0], -1.0f);
  EXPECT_EQ(out[1], -1.0f);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(out[size_t(2 + i)], float(7 + i)) << i;  // src[6 + i]
  EXPECT_EQ(out[10], -1.0f);
}

TEST(VulkanRuntime, KernelWithOffsets) {
  RX_REQUIRE_VULKAN_DEVICE();
  runtime::Module m = load(copy_library());
  runtime::PackedFunc f = m->get_function("double_it");
  ASSERT_TRUE(f.defined());
  const int64_t n = 100;  // two work-groups, the second partly idle
  DevBuffer xb((n + 16) * 4), yb((n + 8) * 4);
  std::vector<float> xs(size_t(n + 16)), init(size_t(n + 8), -7.0f);
  std::iota(xs.begin(), xs.end(), 0.0f);
  std::vector<int64_t> sx{n + 16}, sy{n + 8}, sn{n};
  DLTensor hx = host(xs, sx, kF32), hy = host(init, sy, kF32);
  DLTensor dx = view(xb, sx, kF32, 0), dy = view(yb, sy, kF32, 0);
  api().copy(hx, dx);
  api().copy(hy, dy);
  DLTensor x = view(xb, sn, kF32, 16 * 4), y = view(yb, sn, kF32, 5 * 4);
  f.call(arg(x), arg(y));
  std::vector<float> out(size_t(n + 8));
  DLTensor ho = host(out, sy, kF32);
  api().copy(dy, ho);
  for (int64_t i = 0; i < n + 8; ++i) {
    float want = (i >= 5 && i < 5 + n) ? 2.0f * float(i - 5 + 16) : -7.0f;
    ASSERT_EQ(out[size_t(i)], want) << i;
  }
}

/// Runs scalar_sum with `k` scalars 1..k into out[3 + i] and checks the 64 values.
void check_scalar_sum(int k) {
  gpu::Library lib;
  lib.format = "spirv";
  lib.kernels = {scalar_sum_kernel(k)};
  gpu::FunctionTable f;
  f.name = "sum";
  f.num_slots = k;
  f.params.push_back({gpu::ParamSpec::Kind::kBuffer, "out", kI32, {{-1, 70}}, -1});
  gpu::Step launch;
  launch.kind = gpu::Step::Kind::kLaunch;
  launch.kernel = 0;
  launch.grid = {c(1), c(1), c(1)};
  launch.args.push_back({gpu::LaunchArg::Kind::kParam, 0, {}});
  for (int i = 0; i < k; ++i) {
    f.params.push_back({gpu::ParamSpec::Kind::kScalar, "s" + std::to_string(i), kI32, {}, i});
    launch.args.push_back({gpu::LaunchArg::Kind::kScalar, 0, slot(i)});
  }
  f.steps = {launch};
  lib.functions = {f};
  runtime::Module m = load(lib);
  DevBuffer ob(80 * 4);
  std::vector<int64_t> s70{70}, s80{80};
  std::vector<int32_t> zero(80, 0);
  DLTensor h = host(zero, s80, kI32), whole = view(ob, s80, kI32, 0);
  api().copy(h, whole);
  std::vector<Value> args{arg(view(ob, s70, kI32, 3 * 4))};
  int64_t weighted = 0;
  for (int i = 0; i < k; ++i) {
    args.push_back(Value(int64_t(i + 1)));
    weighted += int64_t(i + 1) * (i + 1);
  }
  m->get_function("sum")(runtime::Args(args));
  api().copy(whole, h);
  for (int i = 0; i < 64; ++i)
    ASSERT_EQ(zero[size_t(3 + i)], weighted + i) << "k=" << k << " i=" << i;
  EXPECT_EQ(zero[2], 0);
  EXPECT_EQ(zero[67], 0);
}

TEST(VulkanRuntime, ScalarsInPushConstants) {
  RX_REQUIRE_VULKAN_DEVICE();
  check_scalar_sum(8);
  check_scalar_sum(24);  // 100 bytes: still push constants
}

TEST(VulkanRuntime, ScalarsInUniformBuffer) {
  RX_REQUIRE_VULKAN_DEVICE();
  check_scalar_sum(40);  // 164 bytes > 128: the uniform-buffer parameter block
}

TEST(VulkanRuntime, WorkspaceBetweenDependentLaunches) {
  RX_REQUIRE_VULKAN_DEVICE();
  gpu::Library lib = copy_library();
  gpu::FunctionTable& f = lib.functions[0];
  f.name = "quadruple";
  f.num_workspaces = 1;
  gpu::Step alloc;
  alloc.kind = gpu::Step::Kind::kAlloc;
  alloc.slot = 0;
  alloc.value =
      gpu::Expr{{{gpu::ExprOp::kSlot, 0}, {gpu::ExprOp::kConst, 4}, {gpu::ExprOp::kMul, 0}}};
  gpu::Step first = f.steps[0], second = f.steps[0];
  first.args[1] = {gpu::LaunchArg::Kind::kWorkspace, 0, {}};
  second.args[0] = {gpu::LaunchArg::Kind::kWorkspace, 0, {}};
  f.steps = {alloc, first, second};
  runtime::Module m = load(lib);
  const int64_t n = 1000;
  std::vector<float> xs(static_cast<size_t>(n)), out(static_cast<size_t>(n));
  std::iota(xs.begin(), xs.end(), 1.0f);
  std::vector<int64_t> sn{n};
  DevBuffer xb(n * 4), yb(n * 4);
  DLTensor hx = host(xs, sn, kF32), x = view(xb, sn, kF32, 0), y = view(yb, sn, kF32, 0);
  api().copy(hx, x);
  m->get_function("quadruple").call(arg(x), arg(y));
  DLTensor ho = host(out, sn, kF32);
  api().copy(y, ho);
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(out[size_t(i)], 4.0f * float(i + 1)) << i;
}

TEST(VulkanRuntime, BufferOverStorageRangeLimit) {
  RX_REQUIRE_VULKAN_DEVICE();
  uint64_t limit = max_storage_buffer_range();
  ASSERT_GT(limit, 0u);
  uint64_t bytes = limit + (1 << 20);
  std::unique_ptr<DevBuffer> big;
  try {
    big = std::make_unique<DevBuffer>(bytes);
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot allocate"), std::string::npos) << e.what();
    return;
  }
  runtime::Module m = load(copy_library());
  runtime::PackedFunc f = m->get_function("double_it");
  DevBuffer small(bytes - (1 << 19));  // under the allocation limit, over the range
  std::vector<int64_t> sn{int64_t(limit / 4 + 1024)};
  DLTensor x = view(*big, sn, kF32, 0), y = view(small, sn, kF32, 0);
  std::string e = error_of([&] { f.call(arg(x), arg(y)); });
  EXPECT_NE(e.find("offset_copy"), std::string::npos) << e;
  EXPECT_NE(e.find("parameter 'x'"), std::string::npos) << e;
  EXPECT_NE(e.find("maxStorageBufferRange " + std::to_string(limit)), std::string::npos) << e;
  // A small view far inside the big buffer is bound from its (aligned) offset and works.
  std::vector<int64_t> s64{64};
  std::vector<float> xs(64), out(64);
  std::iota(xs.begin(), xs.end(), 3.0f);
  uint64_t far = limit + 4096 + 12;
  DLTensor hx = host(xs, s64, kF32), xf = view(*big, s64, kF32, far),
           yf = view(*big, s64, kF32, 20);
  api().copy(hx, xf);
  f.call(arg(xf), arg(yf));
  DLTensor ho = host(out, s64, kF32);
  api().copy(yf, ho);
  for (int i = 0; i < 64; ++i) ASSERT_EQ(out[size_t(i)], 2.0f * xs[size_t(i)]) << i;
}

TEST(VulkanRuntime, TwoThreadsCallOneFunction) {
  RX_REQUIRE_VULKAN_DEVICE();
  runtime::Module m = load(copy_library());
  runtime::PackedFunc f = m->get_function("double_it");
  std::vector<std::string> failures(2);
  auto work = [&](int t) {
    try {
      const int64_t n = 257;
      std::vector<int64_t> sn{n};
      DevBuffer xb(n * 4), yb(n * 4);
      DLTensor x = view(xb, sn, kF32, 0), y = view(yb, sn, kF32, 0);
      std::vector<float> xs(static_cast<size_t>(n)), out(static_cast<size_t>(n));
      for (int it = 0; it < 100; ++it) {
        for (int64_t i = 0; i < n; ++i) xs[size_t(i)] = float(t * 100000 + it * 1000 + i);
        DLTensor hx = host(xs, sn, kF32), ho = host(out, sn, kF32);
        api().copy(hx, x);
        f.call(arg(x), arg(y));
        api().copy(y, ho);
        for (int64_t i = 0; i < n; ++i)
          if (out[size_t(i)] != 2.0f * xs[size_t(i)]) {
            failures[size_t(t)] =
                "iteration " + std::to_string(it) + " element " + std::to_string(i);
            return;
          }
      }
    } catch (const std::exception& e) {
      failures[size_t(t)] = e.what();
    }
  };
  std::thread a(work, 0), b(work, 1);
  a.join();
  b.join();
  EXPECT_EQ(failures[0], "");
  EXPECT_EQ(failures[1], "");
}

TEST(VulkanRuntime, FreeRightAfterDispatch) {
  RX_REQUIRE_VULKAN_DEVICE();
  runtime::Module m = load(copy_library());
  runtime::PackedFunc f = m->get_function("double_it");
  const int64_t n = 4096;
  std::vector<int64_t> sn{n};
  std::vector<float> xs(size_t(n), 1.5f), out(static_cast<size_t>(n));
  DevBuffer keep(n * 4);
  DLTensor y = view(keep, sn, kF32, 0);
  for (int round = 0; round < 20; ++round) {
    auto xb = std::make_unique<DevBuffer>(n * 4);
    DLTensor x = view(*xb, sn, kF32, 0), hx = host(xs, sn, kF32);
    api().copy(hx, x);
    f.call(arg(x), arg(y));
    xb.reset();  // freed while the dispatch reading it may still be queued
    auto scratch = std::make_unique<DevBuffer>(n * 4);  // may reuse the memory
    DLTensor s = view(*scratch, sn, kF32, 0);
    f.call(arg(y), arg(s));
    scratch.reset();
  }
  api().synchronize(kVk);
  DLTensor ho = host(out, sn, kF32);
  api().copy(y, ho);
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(out[size_t(i)], 3.0f) << i;
}

TEST(VulkanRuntime, RefusesLibraryWithUnknownRequirement) {
  RX_REQUIRE_VULKAN_DEVICE();
  gpu::Library lib = copy_library();
  lib.requirements["float16"] = "1";
  lib.requirements["tensor-cores-of-the-future"] = "1";
  std::string e = error_of([&] { load(lib); });
  EXPECT_NE(e.find("tensor-cores-of-the-future"), std::string::npos) << e;
  EXPECT_NE(e.find(api().attribute(kVk, kRxDeviceName).as_string()), std::string::npos) << e;
  EXPECT_EQ(e.find("float16"), std::string::npos) << "lavapipe has float16: " << e;
  lib.requirements = {{"shared-bytes", "100000000"}};
  e = error_of([&] { load(lib); });
  EXPECT_NE(e.find("shared-bytes 100000000"), std::string::npos) << e;
}

TEST(VulkanRuntime, RefusesKernelOverDeviceLimits) {
  RX_REQUIRE_VULKAN_DEVICE();
  gpu::Library lib = copy_library();
  lib.kernels[0].block = {4096, 1, 1};
  std::string e = error_of([&] { load(lib); });
  EXPECT_NE(e.find("kernel 'offset_copy'"), std::string::npos) << e;
  EXPECT_NE(e.find("exceed"), std::string::npos) << e;
  lib = copy_library();
  lib.kernels[0].code = {1, 2, 3, 4};
  e = error_of([&] { load(lib); });
  EXPECT_NE(e.find("not SPIR-V"), std::string::npos) << e;
}

TEST(VulkanRuntime, WrongArguments) {
  RX_REQUIRE_VULKAN_DEVICE();
  runtime::Module m = load(copy_library());
  runtime::PackedFunc f = m->get_function("double_it");
  EXPECT_FALSE(m->get_function("no_such_function").defined());
  std::vector<int64_t> sn{16}, s8{8};
  DevBuffer xb(64), yb(64);
  DLTensor x = view(xb, sn, kF32, 0), y = view(yb, sn, kF32, 0), y8 = view(yb, s8, kF32, 0);
  std::string e = error_of([&] { f.call(arg(x)); });
  EXPECT_NE(e.find("double_it"), std::string::npos) << e;
  e = error_of([&] { f.call(arg(x), arg(y8)); });
  EXPECT_NE(e.find("argument 1 (\"y\")"), std::string::npos) << e;
  EXPECT_NE(e.find("shape"), std::string::npos) << e;
  DLTensor yi = view(yb, sn, kI32, 0);
  e = error_of([&] { f.call(arg(x), arg(yi)); });
  EXPECT_NE(e.find("argument 1 (\"y\")"), std::string::npos) << e;
  EXPECT_NE(e.find("dtype int32, expected float32"), std::string::npos) << e;
  std::vector<float> hs(16);
  DLTensor h = host(hs, sn, kF32);
  e = error_of([&] { f.call(arg(h), arg(y)); });
  EXPECT_NE(e.find("argument 0 (\"x\")"), std::string::npos) << e;
  EXPECT_NE(e.find("device"), std::string::npos) << e;
  e = error_of([&] { f.call(Value(int64_t(3)), arg(y)); });
  EXPECT_NE(e.find("argument 0 (\"x\")"), std::string::npos) << e;
  EXPECT_NE(e.find("expected a tensor"), std::string::npos) << e;
}

TEST(VulkanRuntime, ViewsPastTheEndOfTheirBuffer) {
  RX_REQUIRE_VULKAN_DEVICE();
  DevBuffer b(64);
  std::vector<int64_t> s16{16};
  std::vector<float> hs(16);
  DLTensor h = host(hs, s16, kF32), past = view(b, s16, kF32, 8);
  std::string e = error_of([&] { api().copy(h, past); });
  EXPECT_NE(e.find("64 bytes at byte offset 8 pass the end of its buffer of 64 bytes"),
            std::string::npos)
      << e;
  runtime::Module m = load(copy_library());
  DLTensor x = view(b, s16, kF32, 0);
  e = error_of([&] { m->get_function("double_it").call(arg(x), arg(past)); });
  EXPECT_NE(e.find("parameter 'y'"), std::string::npos) << e;
  EXPECT_NE(e.find("pass the end of its buffer"), std::string::npos) << e;
}

TEST(VulkanRuntime, AllocationOverDeviceLimit) {
  RX_REQUIRE_VULKAN_DEVICE();
  std::string e = error_of([&] { DevBuffer huge(uint64_t(1) << 50); });
  EXPECT_NE(e.find("cannot allocate 1125899906842624 bytes"), std::string::npos) << e;
}

}  // namespace
}  // namespace relax::vktest
