// librelax-vulkan.so through the plugin interface a session uses: the target kind "vulkan"
// (device, schedule rules, attribute schema and the limits the core reads from it) and the
// packed functions relax.backend.vulkan.emit_spirv / .build.
#include <gtest/gtest.h>

#include "relax/kernel/gpu_rules.h"
#include "relax/runtime/registry.h"
#include "relax/target/targets.h"
#include "relax/text/parser.h"
#include "relax/transform/plugin.h"
#include "spirv_test_util.h"

namespace relax::vulkan::test {
namespace {

transform::PluginManager& plugins() {
  static transform::PassRegistry registry;
  static transform::PluginManager manager(registry);
  static bool loaded = [] {
    manager.load_path(std::string(RELAX_PLUGIN_DIR) + "/librelax-vulkan.so");
    return true;
  }();
  (void)loaded;
  return manager;
}

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
#ifdef RELAX_HAVE_GPU_COMMON
  runtime::Tuple lib = build(args).as_tuple();
  EXPECT_EQ(lib[0].as_string(), "spirv");
  EXPECT_FALSE(lib[1].as_string().empty());
#else
  std::string e = error_of([&] { build(args); });
  EXPECT_NE(e.find("relax_gpu_common"), std::string::npos) << e;
#endif
}

}  // namespace
}  // namespace relax::vulkan::test
