// relax-driver and target kinds: `targets` lists every kind (the core's, and the plugins' on
// the search path, loaded or not) with its attributes; --target and --host are validated
// against the kind's schema before anything is compiled; a pipeline file's target may be a map.
#include <fstream>

#include "../../common/driver_runner.h"

namespace relax::test {
namespace {

const char* kAddModule = R"(@R.function
def main(x: R.Tensor((4,), "float32")):
    y = R.add(x, x)
    return y
)";

class DriverTargets : public DriverTest {
 protected:
  void SetUp() override {
    DriverTest::SetUp();
    std::ofstream(dir_ / "add.rx") << kAddModule;
  }
  bool has(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
  }
};

TEST_F(DriverTargets, ListsEveryKindWithItsAttributes) {
  DriverResult r = run("targets");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(has(r.out, "tir-interp (device cpu, cpu; core)\n")) << r.out;
  for (const char* attr :
       {"    gpu: bool = 0  -- ", "    max-threads-per-block: int = 1024  -- ",
        "    max-shared-memory-bytes: int = 49152",
        "    max-grid: int list = 2147483647x65535x65535", "    max-block: int list = 1024x1024x64",
        "    subgroup-size: int = 32", "    buffer-alignment: int = 64"})
    EXPECT_TRUE(has(r.out, attr)) << attr << "\n" << r.out;
#ifdef RELAX_HAVE_LLVM_BACKEND
  // Listed from the plugin's scan: not loaded.
  EXPECT_TRUE(has(r.out, "llvm (device cpu, cpu; plugin llvm)\n")) << r.out;
  for (const char* attr : {"    mcpu: string  -- target CPU", "    opt-level: int = 3  -- ",
                           "    jit: bool = 0  -- ", "    schedule: string = default  -- "})
    EXPECT_TRUE(has(r.out, attr)) << attr << "\n" << r.out;
#endif
}

TEST_F(DriverTargets, UnknownAttributeFailsListingTheValidOnes) {
  DriverResult r = run("compile add.rx -O0 --target tir-interp,foo=1 -o add.rxe");
  EXPECT_EQ(r.rc, 1);
  EXPECT_TRUE(has(r.err,
                  "error: target \"tir-interp,foo=1\": unknown attribute \"foo\"; "
                  "tir-interp takes: gpu, max-threads-per-block, max-shared-memory-bytes, "
                  "max-grid, max-block, subgroup-size, buffer-alignment\n"))
      << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "add.rxe"));
#ifdef RELAX_HAVE_LLVM_BACKEND
  r = run("compile add.rx --target llvm,foo=1 -o add.rxe");
  EXPECT_EQ(r.rc, 1);
  EXPECT_TRUE(has(r.err,
                  "error: target \"llvm,foo=1\": unknown attribute \"foo\"; llvm takes: "
                  "mcpu, mtriple, opt-level, jit, linker, num-threads, schedule, "))
      << r.err;
  r = run("compile add.rx -O0 --target llvm,opt-level=2,register-blocking=false -o add.rxe");
  EXPECT_EQ(r.rc, 0) << r.err;
#endif
}

TEST_F(DriverTargets, BadValuesNameAttributeValueAndType) {
  DriverResult r = run("compile add.rx -O0 --target tir-interp,gpu=2 -o add.rxe");
  EXPECT_EQ(r.rc, 1);
  EXPECT_TRUE(has(r.err,
                  "error: target \"tir-interp,gpu=2\": attribute gpu=2: expected a bool "
                  "(0, 1, true or false)"))
      << r.err;
  r = run("compile add.rx -O0 --target tir-interp,gpu=1,max-block=1024x1024 -o add.rxe");
  EXPECT_EQ(r.rc, 1);
  EXPECT_TRUE(has(r.err, "attribute max-block=1024x1024: expected three ints")) << r.err;
  r = run("compile add.rx -O0 --target frobnicator -o add.rxe");
  EXPECT_EQ(r.rc, 1);
  EXPECT_TRUE(has(r.err, "unknown target kind \"frobnicator\"; known kinds: ")) << r.err;
  EXPECT_TRUE(has(r.err, "tir-interp")) << r.err;
}

TEST_F(DriverTargets, HostIsValidatedAndMustBeACpuTarget) {
  DriverResult r = run("compile add.rx -O0 --target tir-interp --host tir-interp,gpu=1 -o a.rxe");
  EXPECT_EQ(r.rc, 1);
  EXPECT_TRUE(has(r.err, "host target \"tir-interp,gpu=1\" is a GPU target")) << r.err;
  r = run("run add.rx -O0 --target tir-interp --host tir-interp,foo");
  EXPECT_EQ(r.rc, 1);
  EXPECT_TRUE(has(r.err, "unknown attribute \"foo\"")) << r.err;
  r = run("run add.rx -O0 --target tir-interp,gpu=1 --host tir-interp");
  EXPECT_EQ(r.rc, 0) << r.err;
}

TEST_F(DriverTargets, PipelineTargetAsAMap) {
  std::ofstream(dir_ / "p.yaml")
      << "target: {kind: tir-interp, gpu: true, max-grid: [65535, 65535, 1]}\n"
         "passes: [normalize]\n";
  DriverResult r = run("compile add.rx -p p.yaml -o add.rxe");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(has(r.err, "(target tir-interp,gpu=true,max-grid=65535x65535x1, host tir-interp)"))
      << r.err;
  r = run("run add.rxe");
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(has(r.out, "output 0: tensor (4,) float32")) << r.out;
  std::ofstream(dir_ / "bad.yaml") << "passes: [normalize]\ntarget: {kind: tir-interp, gpu: 2}\n";
  r = run("compile add.rx -p bad.yaml -o add.rxe");
  EXPECT_EQ(r.rc, 1);
  EXPECT_TRUE(has(r.err,
                  "bad.yaml:2:9: error: 'target': target \"tir-interp,gpu=2\": attribute "
                  "gpu=2: expected a bool"))
      << r.err;
}

}  // namespace
}  // namespace relax::test
