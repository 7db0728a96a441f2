// The OpenCL code generator without a device: every kernel of the catalogue
// (opencl_kernels.h) turned into OpenCL C through the plugin (relax.backend.opencl.source),
// checked by clang-15 as OpenCL C 1.2 (-fsyntax-only; skipped without clang-15 unless
// RELAX_REQUIRE_OPENCL=1), golden checks of what the source must hold, the target kind's
// schema, and the errors for what OpenCL C cannot express.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "../../common/error_of.h"
#include "opencl_kernels.h"
#include "relax/runtime/registry.h"
#include "relax/target/targets.h"
#include "relax/tir/intrin.h"
#include "relax/transform/plugin.h"

namespace relax::opencl_test {
namespace {

transform::PluginManager& plugins() {
  static transform::PassRegistry registry;
  static transform::PluginManager p(registry);
  static bool loaded = [] {
    p.load_path(std::string(RELAX_PLUGIN_DIR) + "/librelax-opencl.so");
    return true;
  }();
  (void)loaded;
  return p;
}

std::string source_of(const std::vector<std::pair<std::string, Ref<tir::PrimFunc>>>& funcs,
                      const std::string& attrs = "") {
  plugins();
  std::vector<runtime::Value> args{runtime::Value(attrs)};
  for (const auto& [name, f] : funcs) {
    args.emplace_back(name);
    args.push_back(runtime::Value::from_object(scheduled(f, name)));
  }
  return runtime::Registry::get("relax.backend.opencl.source")(args).as_string();
}

bool require_opencl() {
  const char* v = std::getenv("RELAX_REQUIRE_OPENCL");
  return v && std::string(v) == "1";
}

/// clang-15's verdict on `source` as OpenCL C 1.2: "" when it accepts it, else its messages.
/// nullopt when clang-15 is absent.
std::optional<std::string> clang_check(const std::string& source, const std::string& tag) {
  if (std::system("clang-15 --version > /dev/null 2>&1") != 0) return std::nullopt;
  std::string dir = std::string(RELAX_BINARY_DIR) + "/opencl_codegen_test";
  std::system(("mkdir -p " + dir).c_str());
  std::string path = dir + "/" + tag + ".cl", log = dir + "/" + tag + ".log";
  std::ofstream(path) << source;
  std::string cmd =
      "clang-15 -x cl -cl-std=CL1.2 -fsyntax-only -Xclang -finclude-default-header "
      "-Werror=implicit-function-declaration " +
      path + " > " + log + " 2>&1";
  int rc = std::system(cmd.c_str());
  std::ifstream in(log);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return rc == 0 ? std::string() : (text.empty() ? std::string("clang failed") : text);
}

TEST(OpenCLCodegen, EveryCatalogueKernelIsValidOpenCL12) {
  std::string all;
  int kernels = 0;
  std::vector<std::pair<std::string, Ref<tir::PrimFunc>>> funcs;
  for (const Case& c : cases()) {
    for (auto& [name, f] : legalized(c)) funcs.emplace_back(c.name + "_" + name, f);
  }
  std::string src = source_of(funcs);
  for (size_t p = src.find("__kernel "); p != std::string::npos; p = src.find("__kernel ", p + 1))
    ++kernels;
  EXPECT_GE(kernels, int(funcs.size()));
  std::optional<std::string> verdict = clang_check(src, "catalogue");
  if (!verdict) {
    if (require_opencl()) FAIL() << "clang-15 is absent and RELAX_REQUIRE_OPENCL=1";
    GTEST_SKIP() << "clang-15 is absent: the OpenCL C syntax check is skipped";
  }
  EXPECT_EQ(*verdict, "") << "clang-15 rejects the generated OpenCL C (source in "
                          << RELAX_BINARY_DIR << "/opencl_codegen_test/catalogue.cl)";
}

TEST(OpenCLCodegen, Fp16ExtensionProgramIsValid) {
  std::vector<std::pair<std::string, Ref<tir::PrimFunc>>> funcs;
  for (const Case& c : cases())
    if (c.name.find("f16") != std::string::npos || c.name.find("float16") != std::string::npos)
      for (auto& [name, f] : legalized(c)) funcs.emplace_back(c.name + "_" + name, f);
  std::string src = source_of(funcs, "fp16=1");
  EXPECT_NE(src.find("#pragma OPENCL EXTENSION cl_khr_fp16 : enable"), std::string::npos);
  std::optional<std::string> verdict = clang_check(src, "fp16");
  if (!verdict) GTEST_SKIP() << "clang-15 is absent";
  EXPECT_EQ(*verdict, "");
}

std::string source_of_case(const std::string& name, const std::string& attrs = "") {
  for (const Case& c : cases())
    if (c.name == name) return source_of(legalized(c), attrs);
  ADD_FAILURE() << "no case " << name;
  return "";
}

TEST(OpenCLCodegen, GoldenSignatureAndWorkGroupSize) {
  std::string src = source_of_case("add_symbolic");
  EXPECT_NE(src.find("#pragma OPENCL FP_CONTRACT OFF"), std::string::npos);
  EXPECT_NE(src.find("__kernel __attribute__((reqd_work_group_size(256, 1, 1)))"),
            std::string::npos)
      << src;
  // Buffers (inputs const), then the shape variable as a scalar, then one offset per buffer.
  EXPECT_NE(src.find("const __global float* restrict b_x"), std::string::npos) << src;
  EXPECT_NE(src.find("long v_n"), std::string::npos) << src;
  EXPECT_NE(src.find("int o_x"), std::string::npos) << src;
  EXPECT_NE(src.find("get_group_id(0)"), std::string::npos);
  EXPECT_NE(src.find("get_local_id(0)"), std::string::npos);
  EXPECT_EQ(src.find("cl_khr_fp64"), std::string::npos) << "fp64 enabled without a double";
}

TEST(OpenCLCodegen, GoldenReductionUsesLocalMemoryAndBarriers) {
  std::string src = source_of_case("sum_rows");
  EXPECT_NE(src.find("__local float"), std::string::npos) << src;
  EXPECT_NE(src.find("barrier(CLK_LOCAL_MEM_FENCE);"), std::string::npos) << src;
}

TEST(OpenCLCodegen, GoldenRoundIsRintAndCastsSaturate) {
  EXPECT_NE(source_of_case("unary_round").find("rint("), std::string::npos);
  std::string c = source_of_case("cast_float32_int32");
  EXPECT_NE(c.find("((int)rx_f2long((float)"), std::string::npos) << c;
  EXPECT_NE(c.find("isnan(x) ? 0L : convert_long_sat_rtz(x)"), std::string::npos);
  EXPECT_NE(source_of_case("cast_float32_uint64").find("rx_f2ulong("), std::string::npos);
  EXPECT_NE(source_of_case("min_f32").find("rx_min_float("), std::string::npos);
}

TEST(OpenCLCodegen, GoldenHalfBfloatBoolStorage) {
  std::string h = source_of_case("add_f16");
  EXPECT_NE(h.find("__global half* restrict"), std::string::npos) << h;
  EXPECT_NE(h.find("vload_half("), std::string::npos);
  EXPECT_NE(h.find("vstore_half_rte("), std::string::npos);
  EXPECT_NE(h.find("rx_rh("), std::string::npos);
  std::string b = source_of_case("add_bf16");
  EXPECT_NE(b.find("__global ushort* restrict"), std::string::npos) << b;
  EXPECT_NE(b.find("rx_f2bf("), std::string::npos);
  std::string l = source_of_case("logical_and");
  EXPECT_NE(l.find("__global uchar* restrict"), std::string::npos) << l;
  std::string d = source_of_case("mul_f64");
  EXPECT_NE(d.find("#pragma OPENCL EXTENSION cl_khr_fp64 : enable"), std::string::npos);
}

TEST(OpenCLCodegen, Float64WithFp64OffIsAnErrorNamingTheKernel) {
  std::string e = test::error_of([] { source_of_case("mul_f64", "fp64=0"); });
  EXPECT_NE(e.find("OpenCL kernel"), std::string::npos) << e;
  EXPECT_NE(e.find("float64"), std::string::npos) << e;
  EXPECT_NE(e.find("fp64=0"), std::string::npos) << e;
}

TEST(OpenCLCodegen, ExternCallIsAnErrorNamingTheKernelAndTheCall) {
  using namespace tir;
  Ref<Buffer> a = decl_buffer({int_imm(64)}, DataType::Float(32), "A");
  Ref<Buffer> b = decl_buffer({int_imm(64)}, DataType::Float(32), "B");
  Ref<tir::Var> i = make_ref<tir::Var>("i", DataType::Int(64));
  PrimExpr call = make_ref<tir::Call>(DataType::Float(32), Intrinsic::kExtern,
                                      std::vector<PrimExpr>{buffer_load(a, {i})}, "my_fn");
  Stmt body = make_ref<For>(i, int_imm(0), int_imm(64), ForKind::kThreadBinding,
                            buffer_store(b, call, {i}), "threadIdx.x");
  Ref<tir::PrimFunc> f = make_prim_func({a, b}, body);
  std::string e = test::error_of([&] {
    plugins();
    std::vector<runtime::Value> args{runtime::Value(""), runtime::Value("ext"),
                                     runtime::Value::from_object(f)};
    runtime::Registry::get("relax.backend.opencl.source")(args);
  });
  EXPECT_NE(e.find("OpenCL kernel ext_kernel0"), std::string::npos) << e;
  EXPECT_NE(e.find("my_fn"), std::string::npos) << e;
}

TEST(OpenCLCodegen, TargetKindSchema) {
  plugins();
  const transform::TargetKind* k = plugins().registry().target_kinds().find("opencl");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->device_type, 4);
  EXPECT_TRUE(k->gpu);
  EXPECT_EQ(k->schedule_rules, "gpu");
  EXPECT_EQ(k->build_function, "relax.backend.opencl.build");
  Target t = resolve_target("opencl", plugins());
  tir::GpuLimits l = gpu_limits(t);
  EXPECT_EQ(l.max_threads_per_block, 256);
  EXPECT_EQ(l.max_shared_memory_bytes, 16384);
  EXPECT_EQ(t.attr("fp16").value_or(""), "0");
  EXPECT_EQ(t.attr("fp64").value_or(""), "1");
}

}  // namespace
}  // namespace relax::opencl_test
