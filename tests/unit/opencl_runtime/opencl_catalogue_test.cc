// Every kernel of the catalogue (opencl_kernels.h) compiled into one OpenCL library, run on
// the device (PoCL here) and compared with the reference interpreter on the unscheduled
// function. Integers and booleans exactly; float32 elementwise arithmetic and casts exactly
// (OpenCL's +, -, *, / and conversions are correctly rounded; division with
// -cl-fp32-correctly-rounded-divide-sqrt); transcendentals, reductions, matmul and conv within
// rtol 1e-4 / atol 1e-5; float16 within 2e-3 (a float16 sum 0.1: it rounds after every
// addition, in another order); bfloat16 within 1e-2.
#include "opencl_test_util.h"

namespace relax::opencl_test {
namespace {

struct Compiled {
  runtime::Module module;
  std::map<std::string, std::vector<std::pair<std::string, Ref<tir::PrimFunc>>>> funcs;  // by case
};

const Compiled& catalogue() {
  static Compiled c = [] {
    Compiled out;
    std::vector<std::pair<std::string, Ref<tir::PrimFunc>>> all;
    for (const Case& k : cases())
      for (auto& [name, f] : legalized(k)) {
        std::string full = k.name + "_" + name;
        all.emplace_back(full, f);
        out.funcs[k.name].emplace_back(full, f);
      }
    out.module = load(build_library(all));
    return out;
  }();
  return c;
}

bool starts(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }
bool has(const std::string& s, const char* p) { return s.find(p) != std::string::npos; }

class OpenCLCatalogue : public OpenCLTest, public ::testing::WithParamInterface<std::string> {};

TEST_P(OpenCLCatalogue, MatchesInterpreter) {
  const std::string& name = GetParam();
  const Compiled& c = catalogue();
  auto it = c.funcs.find(name);
  ASSERT_NE(it, c.funcs.end());
  for (const auto& [fname, f] : it->second) {
    DataType out = f->buffer_of(f->params.back())->dtype;
    bool elementwise = starts(name, "unary_") || starts(name, "cast_") || starts(name, "add_") ||
                       starts(name, "mul_") || starts(name, "min_") || starts(name, "max_f") ||
                       starts(name, "pow") || starts(name, "fmod") || starts(name, "floor_mod_f") ||
                       starts(name, "less") || starts(name, "where");
    bool exact_float = starts(name, "cast_") || starts(name, "add_") || starts(name, "mul_") ||
                       starts(name, "min_") || starts(name, "max_f") || starts(name, "less") ||
                       starts(name, "where");
    double rtol = 1e-4, atol = 1e-5;
    if (!out.is_float() || exact_float) rtol = atol = 0;
    if (out.code == DataType::kFloat && out.bits == 16) rtol = atol = exact_float ? 0 : 2e-3;
    // A float16 sum rounds after every addition: its error depends on the order (a tree on
    // the device, a loop in the interpreter).
    if (out.code == DataType::kFloat && out.bits == 16 && has(name, "sum")) rtol = atol = 0.1;
    if (out.code == DataType::kBFloat) rtol = atol = exact_float ? 0 : 1e-2;
    bool nonzero = has(name, "div") || has(name, "mod");
    bool shift = has(name, "shift");
    int64_t bound = name == "take" ? 10 : 0;  // the indices
    expect_device_matches(c.module, fname, f, elementwise, nonzero, shift, rtol, atol, bound);
  }
}

// The float16 kernels with native half arithmetic (target fp16=1), where the device has
// cl_khr_fp16 (NVIDIA's OpenCL; not PoCL): each operation rounds to half as the interpreter's.
TEST_F(OpenCLTest, NativeHalfArithmeticMatchesInterpreter) {
  if (ocl_stat("fp16") == 0) GTEST_SKIP() << "the device has no cl_khr_fp16";
  std::vector<std::pair<std::string, Ref<tir::PrimFunc>>> funcs;
  for (const Case& k : cases())
    if (has(k.name, "f16") || has(k.name, "float16"))
      for (auto& [name, f] : legalized(k)) funcs.emplace_back(k.name + "_" + name, f);
  runtime::Module m = load(build_library(funcs, "fp16=1"));
  for (const auto& [name, f] : funcs) {
    DataType out = f->buffer_of(f->params.back())->dtype;
    bool exact = starts(name, "cast_") || starts(name, "add_");
    double tol = !out.is_float() || exact ? 0 : has(name, "sum") ? 0.1 : 2e-3;
    expect_device_matches(m, name, f, starts(name, "cast_") || starts(name, "add_"), false, false,
                          tol, tol);
  }
}

std::vector<std::string> case_names() {
  std::vector<std::string> n;
  for (const Case& c : cases()) n.push_back(c.name);
  return n;
}

INSTANTIATE_TEST_SUITE_P(Kernels, OpenCLCatalogue, ::testing::ValuesIn(case_names()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

}  // namespace
}  // namespace relax::opencl_test
