// Target kinds (relax/transform/target_kind.h, relax/target/targets.h): the registry, the
// validation of a target against its kind's schema (messages, defaults, lists, bool forms),
// registration by a plugin and its roll-back, resolution through a compile session (the
// plugin loaded on demand), GPU limits, and targets in pipeline files.
#include <gtest/gtest.h>

#include "../../common/error_of.h"
#include "relax/target/compile.h"
#include "relax/target/targets.h"
#include "relax/text/parser.h"
#include "relax/transform/pipeline.h"
#include "relax/transform/plugin.h"

namespace relax {
namespace {

using test::error_of;
using transform::TargetAttrType;
using transform::TargetKind;
using transform::TargetKindRegistry;
using transform::validate_target;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TargetKind toy_kind() {
  TargetKind k;
  k.name = "toy";
  k.device_type = transform::kDeviceVulkan;
  k.device_name = "vulkan";
  k.gpu = true;
  k.build_function = "test.toy.build";
  k.schedule_rules = "gpu";
  k.attrs = {{"lanes", TargetAttrType::kInt, "4", "vector lanes"},
             {"fast", TargetAttrType::kBool, "", "fast math"},
             {"arch", TargetAttrType::kString, "", "the chip"},
             {"grid", TargetAttrType::kIntList, "8x8x1", "grid limits"},
             {"dtypes", TargetAttrType::kStringList, "float32", "dtypes"}};
  return k;
}

const TargetKind& core_kind(const transform::PassRegistry& r) {
  const TargetKind* k = r.target_kinds().find(kTirInterpTarget);
  EXPECT_NE(k, nullptr);
  return *k;
}

TEST(TargetKind, RegistryFindsSortsAndRemoves) {
  TargetKindRegistry kinds;
  kinds.add(toy_kind());
  register_core_target_kinds(kinds);
  EXPECT_EQ(kinds.names(), (std::vector<std::string>{"tir-interp", "toy"}));
  ASSERT_NE(kinds.find("toy"), nullptr);
  EXPECT_EQ(kinds.find("toy")->device_type, 7);
  EXPECT_EQ(kinds.find("nope"), nullptr);
  EXPECT_TRUE(kinds.remove("toy"));
  EXPECT_FALSE(kinds.remove("toy"));
  EXPECT_EQ(kinds.names(), (std::vector<std::string>{"tir-interp"}));
}

TEST(TargetKind, DuplicateKindNamesBothRegistrants) {
  TargetKindRegistry kinds;
  register_core_target_kinds(kinds);
  TargetKind again = toy_kind();
  again.name = "tir-interp";
  again.plugin = "mine";
  EXPECT_EQ(
      error_of([&] { kinds.add(again); }),
      "error: target kind 'tir-interp' is registered twice: by the core and by plugin 'mine'");
}

TEST(TargetKind, ValidationFillsDefaultsInDeclarationOrder) {
  TargetKind k = toy_kind();
  Target t = validate_target(Target::parse("toy,arch=gfx90a,fast=true"), k);
  EXPECT_EQ(t.str(), "toy,lanes=4,fast=1,arch=gfx90a,grid=8x8x1,dtypes=float32");
  // No default and not given: absent.
  EXPECT_FALSE(validate_target(Target::parse("toy"), k).attr("arch"));
  EXPECT_FALSE(validate_target(Target::parse("toy"), k).attr("fast"));
  // Validation is idempotent.
  EXPECT_EQ(validate_target(t, k), t);
}

TEST(TargetKind, BoolFormsNormaliseToZeroOrOne) {
  TargetKind k = toy_kind();
  for (auto [given, expected] :
       std::vector<std::pair<std::string, std::string>>{{"fast", "1"},
                                                        {"fast=1", "1"},
                                                        {"fast=true", "1"},
                                                        {"fast=0", "0"},
                                                        {"fast=false", "0"}}) {
    EXPECT_EQ(validate_target(Target::parse("toy," + given), k).attr("fast"), expected) << given;
  }
  EXPECT_EQ(
      error_of([&] { validate_target(Target::parse("toy,fast=yes"), k); }),
      "error: target \"toy,fast=yes\": attribute fast=yes: expected a bool (0, 1, true or false)");
}

TEST(TargetKind, UnknownAttributeListsTheValidOnes) {
  EXPECT_EQ(error_of([] { validate_target(Target::parse("toy,foo=1"), toy_kind()); }),
            "error: target \"toy,foo=1\": unknown attribute \"foo\"; toy takes: lanes, fast, arch, "
            "grid, dtypes");
}

TEST(TargetKind, BadlyTypedValuesNameAttributeValueAndType) {
  TargetKind k = toy_kind();
  EXPECT_EQ(
      error_of([&] { validate_target(Target::parse("toy,lanes=four"), k); }),
      "error: target \"toy,lanes=four\": attribute lanes=four: expected an int (a decimal int64)");
  EXPECT_TRUE(contains(error_of([&] { validate_target(Target::parse("toy,lanes=4.5"), k); }),
                       "lanes=4.5: expected an int"));
  EXPECT_TRUE(contains(
      error_of([&] { validate_target(Target::parse("toy,lanes=99999999999999999999"), k); }),
      "expected an int"));
  EXPECT_EQ(error_of([&] { validate_target(Target::parse("toy,grid=8,8"), k); }),
            "error: target \"toy,grid=8,8=1\": unknown attribute \"8\"; toy takes: lanes, fast, "
            "arch, grid, dtypes (an int list is written 1024x1024x64)");
  EXPECT_EQ(
      error_of([&] { validate_target(Target::parse("toy,grid=8x"), k); }),
      "error: target \"toy,grid=8x\": attribute grid=8x: expected an int list (ints separated by "
      "'x', e.g. 1024x1024x64)");
  EXPECT_TRUE(contains(error_of([&] { validate_target(Target::parse("toy,dtypes=a::b"), k); }),
                       "dtypes=a::b: expected a string list (strings separated by ':'"));
}

TEST(TargetKind, ListsParse) {
  EXPECT_EQ(transform::parse_target_int_list("2147483647x65535x1"),
            (std::vector<int64_t>{2147483647, 65535, 1}));
  EXPECT_EQ(transform::parse_target_int_list("-3"), (std::vector<int64_t>{-3}));
  EXPECT_FALSE(transform::parse_target_int_list(""));
  EXPECT_FALSE(transform::parse_target_int_list("1x"));
  EXPECT_EQ(validate_target(Target::parse("toy,dtypes=float16:int8"), toy_kind()).attr("dtypes"),
            "float16:int8");
}

TEST(TargetKind, GpuIsTheKindsOrTheGpuAttribute) {
  transform::PassRegistry r;
  register_core_target_kinds(r.target_kinds());
  const TargetKind& interp = core_kind(r);
  EXPECT_FALSE(transform::is_gpu(validate_target(Target::parse("tir-interp"), interp), interp));
  EXPECT_TRUE(transform::is_gpu(validate_target(Target::parse("tir-interp,gpu"), interp), interp));
  EXPECT_TRUE(transform::is_gpu(Target::parse("tir-interp,gpu=true"), interp));
  EXPECT_TRUE(transform::is_gpu(Target::parse("toy"), toy_kind()));
}

TEST(TargetKind, BadDeclarationsAreInternalErrors) {
  TargetKindRegistry kinds;
  TargetKind k = toy_kind();
  k.attrs.push_back({"lanes", TargetAttrType::kInt, "", ""});
  EXPECT_THROW(kinds.add(k), InternalError);
  k = toy_kind();
  k.attrs[0].default_value = "four";
  EXPECT_THROW(kinds.add(k), InternalError);
  k = toy_kind();
  k.schedule_rules = "fast";
  EXPECT_THROW(kinds.add(k), InternalError);
  EXPECT_TRUE(kinds.names().empty());
}

TEST(TargetKind, PluginRegistrarRecordsAndRollsBack) {
  transform::PassRegistry r;
  register_core_target_kinds(r.target_kinds());
  transform::PluginRegistrar registrar(r, "toys");
  registrar.add_target_kind(toy_kind());
  ASSERT_NE(r.target_kinds().find("toy"), nullptr);
  EXPECT_EQ(r.target_kinds().find("toy")->plugin, "toys");
  ASSERT_EQ(registrar.target_kinds().size(), 1u);
  EXPECT_EQ(registrar.target_kinds()[0].attrs.size(), 5u);
  // A second kind of the same name fails and leaves the first.
  EXPECT_TRUE(contains(error_of([&] { registrar.add_target_kind(toy_kind()); }),
                       "registered twice: by plugin 'toys' and by plugin 'toys'"));
  registrar.roll_back();
  EXPECT_EQ(r.target_kinds().find("toy"), nullptr);
  EXPECT_NE(r.target_kinds().find("tir-interp"), nullptr);  // not the registrar's
}

TEST(TargetKind, CoreTirInterpDeclaresTheGpuLimits) {
  transform::PassRegistry r = make_core_registry();
  const TargetKind& k = core_kind(r);
  EXPECT_EQ(k.device_type, transform::kDeviceCPU);
  EXPECT_EQ(k.schedule_rules, "none");
  EXPECT_EQ(k.attr_names(), (std::vector<std::string>{
                                "gpu", "max-threads-per-block", "max-shared-memory-bytes",
                                "max-grid", "max-block", "subgroup-size", "buffer-alignment"}));
  tir::GpuLimits defaults;
  tir::GpuLimits l = gpu_limits(validate_target(Target::parse("tir-interp,gpu=1"), k));
  EXPECT_EQ(l.max_threads_per_block, defaults.max_threads_per_block);
  EXPECT_EQ(l.max_grid, defaults.max_grid);
  EXPECT_EQ(l.max_block, defaults.max_block);
  EXPECT_EQ(l.max_shared_memory_bytes, defaults.max_shared_memory_bytes);
  EXPECT_EQ(l.subgroup_size, defaults.subgroup_size);
  EXPECT_EQ(l.buffer_alignment, defaults.buffer_alignment);
  l = gpu_limits(
      validate_target(Target::parse("tir-interp,gpu=1,max-threads-per-block=256,max-grid=65535x1x1,"
                                    "subgroup-size=64,max-shared-memory-bytes=16384"),
                      k));
  EXPECT_EQ(l.max_threads_per_block, 256);
  EXPECT_EQ(l.max_grid, (std::array<int64_t, 3>{65535, 1, 1}));
  EXPECT_EQ(l.subgroup_size, 64);
  EXPECT_EQ(l.max_shared_memory_bytes, 16384);
  EXPECT_TRUE(contains(l.target, "max-threads-per-block=256"));
  EXPECT_EQ(gpu_limits(Target::parse("x,dtypes=float32:float16")).dtypes,
            (std::vector<std::string>{"float32", "float16"}));
}

TEST(TargetKind, ResolveLoadsTheKindAndRejectsBadLimits) {
  Compiler c;
  EXPECT_EQ(resolve_target("tir-interp,gpu=true", c.plugins()).attr("gpu"), "1");
  EXPECT_EQ(error_of([&] { resolve_target("tir-interp,max-grid=1x2", c.plugins()); }),
            "error: target \"tir-interp,max-grid=1x2\": attribute max-grid=1x2: expected three "
            "ints x, y and z separated by 'x' (e.g. "
            "1024x1024x64)");
  EXPECT_TRUE(contains(error_of([&] { resolve_target("tir-interp,subgroup-size=0", c.plugins()); }),
                       "attribute subgroup-size=0: expected a positive limit"));
  std::string unknown = error_of([&] { resolve_target("frobnicator,x=1", c.plugins()); });
  EXPECT_TRUE(contains(unknown,
                       "target \"frobnicator,x=1\": unknown target kind \"frobnicator\"; "
                       "known kinds: "))
      << unknown;
  EXPECT_TRUE(contains(unknown, "tir-interp")) << unknown;
  EXPECT_TRUE(contains(unknown, "librelax-frobnicator.so")) << unknown;
}

TEST(TargetKind, LLVMKindComesFromItsPlugin) {
  Compiler c;
  ASSERT_EQ(c.registry().target_kinds().find("llvm"), nullptr);  // not loaded yet
  std::vector<std::string> available;
  for (const TargetKind& k : available_target_kinds(c.plugins())) available.push_back(k.name);
  if (std::find(available.begin(), available.end(), "llvm") == available.end())
    GTEST_SKIP() << "built without the LLVM backend";
  EXPECT_EQ(c.registry().target_kinds().find("llvm"), nullptr);  // a scan loads nothing
  Target t = resolve_target("llvm,mcpu=znver3,jit=true", c.plugins());
  EXPECT_EQ(t.attr("mcpu"), "znver3");
  EXPECT_EQ(t.attr("jit"), "1");
  EXPECT_EQ(t.attr("opt-level"), "3");
  const TargetKind* k = c.registry().target_kinds().find("llvm");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->plugin, "llvm");
  EXPECT_EQ(k->build_function, "relax.backend.llvm.build");
  EXPECT_EQ(k->schedule_rules, "cpu");
  ASSERT_NE(c.plugins().find("llvm"), nullptr);
  EXPECT_EQ(c.plugins().find("llvm")->target_kinds, (std::vector<std::string>{"llvm"}));
  EXPECT_TRUE(contains(c.plugins().find("llvm")->provides(), "targets: llvm"));
  std::string error = error_of([&] { resolve_target("llvm,foo=1", c.plugins()); });
  EXPECT_TRUE(contains(error,
                       "target \"llvm,foo=1\": unknown attribute \"foo\"; llvm takes: "
                       "mcpu, mtriple, opt-level, jit, "))
      << error;
}

// ---- Targets in compile() and in pipeline files.

const char* kAdd = R"(
@R.function
def main(x: R.Tensor((4,), "float32")):
    y = R.add(x, x)
    return y
)";

TEST(TargetKind, CompileValidatesBeforeAnyPassAndRecordsTheHost) {
  CompileOptions o;
  o.module = parse_module(kAdd);
  o.pipeline = "o0";
  o.target = "tir-interp,bogus=1";
  o.dump_ir_before = {"all"};
  std::ostringstream log;
  o.log = &log;
  EXPECT_TRUE(
      contains(error_of([&] { compile(o); }),
               "unknown attribute \"bogus\"; tir-interp takes: gpu, max-threads-per-block"));
  EXPECT_EQ(log.str(), "");  // failed before the first pass
  o.dump_ir_before.clear();
  o.target = "tir-interp";
  EXPECT_EQ(compile(o).host, "");  // a CPU target needs none
  o.target = "tir-interp,gpu=1";
  CompileResult r = compile(o);
  EXPECT_EQ(r.target, "tir-interp,gpu=1");
  EXPECT_EQ(r.host, "tir-interp");  // the interpreter hosts itself
  o.host = "tir-interp,gpu=1";
  EXPECT_TRUE(
      contains(error_of([&] { compile(o); }), "host target \"tir-interp,gpu=1\" is a GPU target"));
  o.host = "tir-interp,gpu=x";
  EXPECT_TRUE(contains(error_of([&] { compile(o); }), "attribute gpu=x: expected a bool"));
}

TEST(TargetKind, PipelineTargetAsStringOrMap) {
  transform::PassRegistry r = make_core_registry();
  transform::Pipeline p = transform::parse_pipeline_yaml(
      "target: {kind: tir-interp, gpu: true, max-grid: [65535, 1, 1]}\n"
      "host: {kind: tir-interp}\npasses: [normalize]\n",
      "t.yaml", r);
  EXPECT_EQ(p.target, "tir-interp,gpu=true,max-grid=65535x1x1");
  EXPECT_EQ(p.host, "tir-interp");
  EXPECT_TRUE(contains(p.to_yaml(), "host: tir-interp\n"));
  transform::Pipeline again = transform::parse_pipeline_yaml(p.to_yaml(), "again.yaml", r);
  EXPECT_EQ(again, p);
  // Known kinds are validated at the line of the target.
  std::string error = error_of([&] {
    transform::parse_pipeline_yaml("passes: [normalize]\ntarget: {kind: tir-interp, foo: 1}\n",
                                   "t.yaml", r);
  });
  EXPECT_TRUE(contains(error, "t.yaml:2:9"));
  EXPECT_TRUE(contains(error, "'target': target \"tir-interp,foo=1\": unknown attribute \"foo\""))
      << error;
  error = error_of(
      [&] { transform::parse_pipeline_yaml("target: {gpu: 1}\npasses: []\n", "t.yaml", r); });
  EXPECT_TRUE(contains(error, "'target' as a map needs a 'kind'")) << error;
  error = error_of([&] {
    transform::parse_pipeline_yaml("target: tir-interp,gpu=2\npasses: []\n", "t.yaml", r);
  });
  EXPECT_TRUE(contains(error, "attribute gpu=2: expected a bool")) << error;
  // An unknown kind is left to compile(), which loads its plugin.
  EXPECT_EQ(
      transform::parse_pipeline_yaml("target: {kind: vulkan, arch: x}\npasses: []\n", "t.yaml", r)
          .target,
      "vulkan,arch=x");
}

}  // namespace
}  // namespace relax
