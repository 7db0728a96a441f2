// librelax-vulkan.so through the plugin interface a session uses: the target kind "vulkan"
// (device, schedule rules, attribute schema and the limits the core reads from it) and the
// packed functions relax.backend.vulkan.emit_spirv / .build, whose library the Vulkan runtime
// loads and runs.
#include <gtest/gtest.h>

#include <memory>

#include "device_runner.h"
#include "gpu_common/launch_table.h"
#include "relax/kernel/gpu_rules.h"
#include "relax/runtime/registry.h"
#include "relax/target/targets.h"
#include "relax/text/parser.h"
#include "relax/transform/plugin.h"
#include "spirv_test_util.h"
#include "vulkan_runtime/vk_test_util.h"

namespace relax::vulkan::test {
namespace {

transform::PluginManager& plugins() { return vulkan_plugins(); }

const char* kAdd = R"(
@T.prim_func
def add(A: T.Buffer((1000,), "float32"), B: T.Buffer((1000,), "float32")):
    for i in range(1000):
        with T.block("b"):
            vi = T.axis.spatial(1000, i)
            B[vi] = T.exp(A[vi]) + T.float32(1)
)";

TEST(VulkanPlugin, TargetKindAndLimits) {
  const transform::TargetKind& k = find_target_kind("vulkan", plugins());
  EXPECT_EQ(k.device_type, transform::kDeviceVulkan);
  EXPECT_TRUE(k.gpu);
  EXPECT_EQ(k.schedule_rules, "gpu");
  EXPECT_EQ(k.build_function, "relax.backend.vulkan.build");
  Target t = resolve_target("vulkan", plugins());
  tir::GpuLimits l = gpu_limits(t);
  EXPECT_EQ(l.max_threads_per_block, 256);
  EXPECT_EQ(l.max_shared_memory_bytes, 16384);
  EXPECT_EQ(l.max_grid, (std::array<int64_t, 3>{65535, 65535, 65535}));
  EXPECT_EQ(l.max_block, (std::array<int64_t, 3>{1024, 1024, 64}));
  EXPECT_EQ(t.attr("int64"), "1");
  EXPECT_EQ(t.attr("float16"), "0");
  EXPECT_EQ(t.attr("float64"), "0");
  Target t2 = resolve_target("vulkan,float16=1,max-threads-per-block=512", plugins());
  EXPECT_EQ(gpu_limits(t2).max_threads_per_block, 512);
  std::string e = error_of([] { resolve_target("vulkan,float16=maybe", plugins()); });
  EXPECT_NE(e.find("float16"), std::string::npos) << e;
  e = error_of([] { resolve_target("vulkan,no-such-attr=1", plugins()); });
  EXPECT_NE(e.find("no-such-attr"), std::string::npos) << e;
}

TEST(VulkanPlugin, EmitSpirvThroughThePackedFunction) {
  plugins();
  Ref<tir::PrimFunc> f = parse_prim_func(kAdd, "<test>");
  Ref<tir::PrimFunc> scheduled = tir::apply_default_gpu_schedule(f, vulkan_limits(), "add").func;
  runtime::PackedFunc emit = runtime::Registry::get("relax.backend.vulkan.emit_spirv");
  ASSERT_TRUE(emit.defined());
  Target t = resolve_target("vulkan", plugins());
  std::vector<runtime::Value> args{runtime::Value(t.attr_string()), runtime::Value("add"),
                                   runtime::Value::from_object(scheduled)};
  std::string text = emit(args).as_string();
  EXPECT_NE(text.find("; kernel add_kernel0"), std::string::npos) << text;
  EXPECT_NE(text.find("OpEntryPoint GLCompute %1 \"add_kernel0\""), std::string::npos) << text;
  // A feature switched off in the target reaches the codegen.
  Target no_f16 = resolve_target("vulkan,storage16=0", plugins());
  Ref<tir::PrimFunc> h = parse_prim_func(R"(
@T.prim_func
def h(A: T.Buffer((64,), "float16"), B: T.Buffer((64,), "float16")):
    for i in range(64):
        with T.block("b"):
            vi = T.axis.spatial(64, i)
            B[vi] = A[vi] + A[vi]
)", "<test>");
  Ref<tir::PrimFunc> hs = tir::apply_default_gpu_schedule(h, vulkan_limits(), "h").func;
  std::vector<runtime::Value> hargs{runtime::Value(no_f16.attr_string()), runtime::Value("h"),
                                    runtime::Value::from_object(hs)};
  std::string e = error_of([&] { emit(hargs); });
  EXPECT_NE(e.find("storage16=0"), std::string::npos) << e;
  EXPECT_NE(e.find("h_kernel0"), std::string::npos) << e;
}

TEST(VulkanPlugin, BuildGivesASpirvLibrary) {
  plugins();
  Ref<tir::PrimFunc> f = parse_prim_func(kAdd, "<test>");
  Ref<tir::PrimFunc> scheduled = tir::apply_default_gpu_schedule(f, vulkan_limits(), "add").func;
  runtime::PackedFunc build = runtime::Registry::get("relax.backend.vulkan.build");
  ASSERT_TRUE(build.defined());
  Target t = resolve_target("vulkan", plugins());
  std::vector<runtime::Value> args{runtime::Value(t.attr_string()), runtime::Value("add"),
                                   runtime::Value::from_object(scheduled)};
  runtime::Tuple lib = build(args).as_tuple();
  EXPECT_EQ(lib[0].as_string(), "spirv");
  EXPECT_FALSE(lib[1].as_string().empty());
}

// The library of relax.backend.vulkan.build loaded by the Vulkan runtime: a symbolic-shape
// kernel (its shape reaches the SPIR-V as a scalar of the parameter block) with every tensor a
// view 3 elements into its device allocation (element offsets in the parameter block),
// against the expected values; the elements before the views stay untouched.
TEST(VulkanPlugin, LibraryRunsOnTheVulkanRuntime) {
  RX_REQUIRE_VULKAN_DEVICE();
  Ref<tir::PrimFunc> f = parse_prim_func(R"(
@T.prim_func
def add(a: T.handle, b: T.handle, c: T.handle):
    n = T.int64()
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    C = T.match_buffer(c, (n,), "float32")
    for i in range(n):
        with T.block("add"):
            vi = T.axis.spatial(n, i)
            C[vi] = A[vi] * B[vi] + T.float32(1)
)", "<test>");
  Ref<tir::PrimFunc> scheduled = tir::apply_default_gpu_schedule(f, vulkan_limits(), "add").func;
  Target t = resolve_target("vulkan", plugins());
  std::vector<runtime::Value> bargs{runtime::Value(t.attr_string()), runtime::Value("add"),
                                    runtime::Value::from_object(scheduled)};
  runtime::Tuple built = runtime::Registry::get("relax.backend.vulkan.build")(bargs).as_tuple();
  const std::string& bytes = built[1].as_string();
  gpu::Library lib = gpu::deserialize(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  ASSERT_EQ(lib.kernels.size(), 1u);
  EXPECT_EQ(lib.kernels[0].scalar_dtypes.size(), 1u);  // n
  EXPECT_EQ(lib.requirements.count("int64"), 1u);
  runtime::PackedFunc add = vktest::load(lib)->get_function("add");
  ASSERT_TRUE(add.defined());

  const int64_t n = 1000, off = 3;
  std::vector<std::vector<float>> mem(3, std::vector<float>(size_t(n + off), -7.0f));
  for (int64_t i = 0; i < n; ++i) {
    mem[0][size_t(off + i)] = float(i) * 0.5f;
    mem[1][size_t(off + i)] = float(i % 7) - 3.0f;
  }
  std::vector<int64_t> whole{n + off}, shape{n};
  std::vector<std::unique_ptr<vktest::DevBuffer>> dev;
  std::vector<runtime::Value> args;
  for (size_t i = 0; i < 3; ++i) {
    dev.push_back(std::make_unique<vktest::DevBuffer>(uint64_t(n + off) * 4));
    DLTensor h = vktest::host(mem[i], whole, vktest::kF32);
    DLTensor d = vktest::view(*dev[i], whole, vktest::kF32, 0);
    vktest::api().copy(h, d);
    args.push_back(vktest::arg(vktest::view(*dev[i], shape, vktest::kF32, uint64_t(off) * 4)));
  }
  add(runtime::Args(args.data(), args.size()));
  std::vector<float> out(size_t(n + off), 0.0f);
  DLTensor ho = vktest::host(out, whole, vktest::kF32);
  DLTensor dc = vktest::view(*dev[2], whole, vktest::kF32, 0);
  vktest::api().copy(dc, ho);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(out[size_t(off + i)], mem[0][size_t(off + i)] * mem[1][size_t(off + i)] + 1.0f) << i;
  EXPECT_EQ(out[0], -7.0f);  // before the view: untouched
}

}  // namespace
}  // namespace relax::vulkan::test
