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
#ifdef RELAX_HAVE_GPU_COMMON
#include <cstring>
#include <map>

#include "../../../plugins/backends/vulkan/spirv_abi.h"
#include "lavapipe_runner.h"
#include "launch_table.h"
#include "relax/kernel/interpreter.h"
#include "relax/kernel/lower.h"
#include "relax/runtime/ndarray.h"
#endif

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

#ifdef RELAX_HAVE_GPU_COMMON
// The library of relax.backend.vulkan.build through gpu_common's executor (execute) onto the
// test runner's Vulkan device: a symbolic-shape kernel (its shape reaches the SPIR-V as an
// appended scalar) with every tensor placed 3 elements into its allocation (element offsets
// in the parameter block), against the interpreter.
TEST(VulkanPlugin, LibraryRunsThroughTheExecutor) {
  if (!VulkanRunner::get().available()) GTEST_SKIP() << VulkanRunner::get().why();
  plugins();
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
  EXPECT_EQ(lib.kernels[0].scalar_dtypes.size(), 1u);  // n, appended
  EXPECT_EQ(lib.requirements.count("int64"), 1u);

  const int64_t n = 1000, off = 3;
  std::vector<std::vector<float>> mem(3, std::vector<float>(size_t(n + off), -7.0f));
  for (int64_t i = 0; i < n; ++i) {
    mem[0][size_t(off + i)] = float(i) * 0.5f;
    mem[1][size_t(off + i)] = float(i % 7) - 3.0f;
  }
  std::vector<int64_t> shape{n};
  std::vector<DLTensor> ts(3);
  std::vector<RxAny> args;
  for (size_t i = 0; i < 3; ++i) {
    ts[i].data = mem[i].data();
    ts[i].device = {kDLCPU, 0};
    ts[i].ndim = 1;
    ts[i].dtype = DLDataType{kDLFloat, 32, 1};
    ts[i].shape = shape.data();
    ts[i].byte_offset = uint64_t(off) * 4;
    args.push_back(RxAnyTensor(&ts[i]));
  }
  std::vector<std::pair<void*, size_t>> host;
  std::map<void*, int> index;
  std::vector<Dispatch> ds;
  gpu::ExecCallbacks cb;
  std::vector<std::vector<char>> workspaces;
  cb.alloc_workspace = [&](uint64_t nbytes) {
    workspaces.emplace_back(nbytes);
    return static_cast<void*>(workspaces.back().data());
  };
  cb.free_workspace = [](void*) {};
  cb.launch = [&](const gpu::Launch& l) {
    const gpu::KernelInfo& k = lib.kernels.at(size_t(l.kernel));
    Dispatch d;
    d.code.resize(k.code.size() / 4);
    std::memcpy(d.code.data(), k.code.data(), k.code.size());
    d.entry = k.name;
    d.grid = l.grid;
    for (const gpu::BufferArg& b : l.buffers) {
      auto [it, fresh] = index.emplace(b.data, int(host.size()));
      size_t whole = size_t(b.elem_offset) * gpu::dtype_bytes(b.dtype) + b.nbytes;
      if (fresh) host.emplace_back(b.data, whole);
      d.buffers.push_back(it->second);
    }
    ParamBlockLayout layout = param_block_layout(k.scalar_dtypes, l.buffers.size());
    d.params.assign(layout.size, 0);
    d.uniform = layout.uses_uniform_buffer();
    for (size_t s = 0; s < l.scalars.size(); ++s)
      std::memcpy(&d.params[layout.scalar_offsets[s]], &l.scalars[s], k.scalar_dtypes[s].bits / 8);
    for (size_t b = 0; b < l.buffers.size(); ++b) {
      auto o = int32_t(l.buffers[b].elem_offset);
      std::memcpy(&d.params[layout.offset_offsets[b]], &o, 4);
    }
    ds.push_back(std::move(d));
  };
  gpu::execute(lib, lib.functions[0], args.data(), int32_t(args.size()), kDLCPU, cb);
  VulkanRunner::get().run(host, ds);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(mem[2][size_t(off + i)], mem[0][size_t(off + i)] * mem[1][size_t(off + i)] + 1.0f) << i;
  EXPECT_EQ(mem[2][0], -7.0f);  // before the offset: untouched
}
#endif

}  // namespace
}  // namespace relax::vulkan::test
