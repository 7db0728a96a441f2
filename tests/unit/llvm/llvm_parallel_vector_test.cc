// The LLVM backend's parallel loops (codegen_parallel.cc), widened vector loops
// (codegen_vector.cc) and in-process JIT (llvm_jit.cc): each kernel is compiled, loaded, run
// and compared with tir::interpret on the same inputs; the IR checks look at what the codegen
// itself emitted (opt-level=0: LLVM's own vectorizer does not run).
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "../../common/error_of.h"
#include "llvm_test_util.h"
#include "relax/kernel/interpreter.h"
#include "relax/kernel/lower.h"
#include "relax/kernel/schedule.h"
#include "relax/op/compute.h"
#include "relax/runtime/module.h"
#include "relax/runtime/registry.h"
#include "relax/tir/intrin.h"
#include "relax/transform/plugin.h"

namespace relax::tir {
namespace {

using runtime::NDArray;
using runtime::Value;

constexpr DataType kF32 = DataType::Float(32);
constexpr DataType kI32 = DataType::Int(32);

class LLVMParallelVector : public LLVMPluginTest {
 protected:
  static runtime::Module build(const std::string& name, const Ref<PrimFunc>& f,
                               const std::string& options = "") {
    return LLVMPluginTest::build({{name, f}}, options);
  }
  static std::string emit_ir(const Ref<PrimFunc>& f, const std::string& options = "opt-level=0") {
    runtime::PackedFunc ir = runtime::Registry::get("relax.backend.llvm.emit_ir");
    return ir(std::vector<Value>{Value(options), Value("k"), Value::from_object(f)}).as_string();
  }
};

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

// ---- Parallel loops.

/// C = A * 2 + B over a symbolic length, the loop parallel.
Ref<PrimFunc> parallel_elementwise() {
  Ref<Var> n = var("n");
  te::Tensor A = te::placeholder({n}, kF32, "A");
  te::Tensor B = te::placeholder({n}, kF32, "B");
  te::Tensor C = te::compute(
      {n}, [&](const auto& i) { return A(i[0]) * float_imm(2) + B(i[0]); }, "C");
  Schedule s(te::create_prim_func({A, B, C}));
  s.parallel(s.get_loops(s.get_block("C"))[0]);
  return lower(s.func());
}

TEST_F(LLVMParallelVector, ParallelElementwiseOverManyChunks) {
  Ref<PrimFunc> f = parallel_elementwise();
  std::string ir = emit_ir(f);
  EXPECT_NE(ir.find("@__rx_parallel_for"), std::string::npos) << ir;
  EXPECT_NE(ir.find("define internal i32 @__rx_kernel_k.parallel.0(i64"), std::string::npos) << ir;
  runtime::Module m = build("add", f);
  for (int64_t n : {1, 3, 1000, 200003}) {
    SCOPED_TRACE(n);
    expect_matches_interpreter(
        m, "add", f,
        {random_array({n}, kF32, 1), random_array({n}, kF32, 2), NDArray::empty({n}, kF32)});
  }
}

TEST_F(LLVMParallelVector, ParallelReductionOverTheOuterSpatialAxis) {
  // S[i] = sum_k A[i, k] * s + t: scalar parameters and shape variables travel in the closure.
  Ref<Var> n = var("n"), m = var("m");
  Ref<Var> s = var("s", kI32);
  te::Tensor A = te::placeholder({n, m}, kI32, "A");
  te::Axis k = te::reduce_axis(m, "k");
  te::Tensor S = te::compute(
      {n}, [&](const auto& i) { return te::sum(A(i[0], k) * s, {k}); }, "S");
  Schedule sch(te::create_prim_func({A, S}, {s}));
  sch.parallel(sch.get_loops(sch.get_block("S"))[0]);
  Ref<PrimFunc> f = lower(sch.func());
  runtime::Module mod = build("rowsum", f);
  for (auto [N, M] : std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {257, 33}, {4000, 7}}) {
    SCOPED_TRACE(N);
    expect_matches_interpreter(
        mod, "rowsum", f,
        {random_array({N, M}, kI32, 3), NDArray::empty({N}, kI32), Value(int64_t(-3))});
  }
}

TEST_F(LLVMParallelVector, NestedParallelLoopsLaunchOnlyTheOutermost) {
  // for i in parallel(n): for j in parallel(m): C[i * m + j] = A[i * m + j] + i
  Ref<Var> n = var("n"), m = var("m");
  Ref<Buffer> A = decl_buffer({n, m}, kI32, "A");
  Ref<Buffer> C = decl_buffer({n, m}, kI32, "C");
  Ref<Var> i = var("i"), j = var("j");
  Stmt body =
      make_ref<For>(i, int_imm(0), PrimExpr(n), ForKind::kParallel,
                    make_ref<For>(j, int_imm(0), PrimExpr(m), ForKind::kParallel,
                                  buffer_store(C, buffer_load(A, {i, j}) + cast(kI32, i), {i, j})));
  Ref<PrimFunc> f = lower(make_prim_func({A, C}, body));
  std::string ir = emit_ir(f);
  EXPECT_EQ(count(ir, "define internal i32 @__rx_kernel_k.parallel."), 1u) << ir;
  runtime::Module mod = build("nested", f);
  for (auto [N, M] : std::vector<std::pair<int64_t, int64_t>>{{1, 5}, {300, 301}}) {
    expect_matches_interpreter(mod, "nested", f,
                               {random_array({N, M}, kI32, 4), NDArray::empty({N, M}, kI32)});
  }
}

TEST_F(LLVMParallelVector, AssertInsideAParallelBodyReturnsItsMessage) {
  // A heap buffer of symbolic size lives around the loop (freed on the error path too).
  Ref<Var> n = var("n");
  Ref<Buffer> A = decl_buffer({n}, kF32, "A");
  Ref<Buffer> C = decl_buffer({n}, kF32, "C");
  Ref<Var> i = var("i"), t_data = var("T", DataType::Handle());
  Ref<Buffer> T = make_buffer(t_data, kF32, {PrimExpr(n)}, "T");
  Stmt loop = make_ref<For>(
      i, int_imm(0), PrimExpr(n), ForKind::kParallel,
      make_ref<AssertStmt>(ge(buffer_load(A, {i}), float_imm(0)), "A must not be negative",
                           seq_stmt({buffer_store(T, sqrt(buffer_load(A, {i})), {i}),
                                     buffer_store(C, buffer_load(T, {i}), {i})})));
  Ref<PrimFunc> f = lower(make_prim_func(
      {A, C},
      make_ref<Allocate>(t_data, kF32, std::vector<PrimExpr>{PrimExpr(n)}, "global", loop)));
  runtime::Module mod = build("checked", f);
  NDArray a = random_array({50000}, kF32, 5);
  for (int64_t k = 0; k < a.numel(); ++k) a.data_as<float>()[k] = std::fabs(a.data_as<float>()[k]);
  expect_matches_interpreter(mod, "checked", f, {a, NDArray::empty({50000}, kF32)});
  a.data_as<float>()[31337] = -1;
  runtime::PackedFunc k = mod->get_function("checked");
  std::string e = relax::test::error_of([&] { k.call(a, NDArray::empty({50000}, kF32)); });
  EXPECT_NE(e.find("kernel 'checked': A must not be negative"), std::string::npos) << e;
  a.data_as<float>()[31337] = 1;
  expect_matches_interpreter(mod, "checked", f, {a, NDArray::empty({50000}, kF32)});
}

// ---- Vectorized loops.

/// C = f(A, B) elementwise over a constant length, split by `lanes` with the inner loop
/// vectorized (a predicate guards the tail when `lanes` does not divide `len`).
Ref<PrimFunc> vectorized_elementwise(DataType dtype, int64_t len, int64_t lanes) {
  te::Tensor A = te::placeholder({int_imm(len)}, dtype, "A");
  te::Tensor B = te::placeholder({int_imm(len)}, dtype, "B");
  te::Tensor C = te::compute(
      {int_imm(len)},
      [&](const auto& i) -> PrimExpr {
        PrimExpr a = A(i[0]), b = B(i[0]);
        if (dtype.is_float()) return select(gt(a, b), a * b + exp(a), sqrt(abs(b)) - a);
        return select(gt(a, b), a * b + floordiv(a, int_imm(7, kI32)), b - a * int_imm(3, kI32));
      },
      "C");
  Schedule s(te::create_prim_func({A, B, C}));
  std::vector<LoopRV> parts = s.split(s.get_loops(s.get_block("C"))[0], {-1, lanes});
  s.vectorize(parts[1]);
  return lower(s.func());
}

TEST_F(LLVMParallelVector, VectorizedLoopsOfFloatsAndIntsAreWidened) {
  for (DataType dtype : {kF32, kI32}) {
    for (int64_t lanes : {4, 8, 16}) {
      SCOPED_TRACE(dtype.to_string() + " x" + std::to_string(lanes));
      Ref<PrimFunc> f = vectorized_elementwise(dtype, 64, lanes);
      std::string ir = emit_ir(f);
      std::string vec = "<" + std::to_string(lanes) + (dtype.is_float() ? " x float>" : " x i32>");
      EXPECT_NE(ir.find("load " + vec), std::string::npos) << ir;
      EXPECT_NE(ir.find("store " + vec), std::string::npos) << ir;
      runtime::Module mod = build("vec", f);
      expect_matches_interpreter(mod, "vec", f,
                                 {random_array({64}, dtype, 6), random_array({64}, dtype, 7),
                                  NDArray::empty({64}, dtype)});
    }
  }
}

TEST_F(LLVMParallelVector, VectorizedTailUsesMasks) {
  // 37 split by 8: the last vector iteration has 5 active lanes (masked loads and stores).
  for (DataType dtype : {kF32, kI32}) {
    SCOPED_TRACE(dtype.to_string());
    Ref<PrimFunc> f = vectorized_elementwise(dtype, 37, 8);
    std::string ir = emit_ir(f);
    EXPECT_NE(ir.find("@llvm.masked.store"), std::string::npos) << ir;
    EXPECT_NE(ir.find("@llvm.masked.load"), std::string::npos) << ir;
    runtime::Module mod = build("tail", f);
    expect_matches_interpreter(
        mod, "tail", f,
        {random_array({37}, dtype, 8), random_array({37}, dtype, 9), NDArray::empty({37}, dtype)});
  }
}

TEST_F(LLVMParallelVector, VectorizedLoopsThatCannotBeWidenedStayCorrect) {
  // for i in vectorized(16): S[0] = S[0] + A[i]      (a reduction: lanes would collide)
  // for j in vectorized(15): A2[j + 1] = A2[j] * 2   (reads what the previous iteration wrote)
  Ref<Buffer> A = decl_buffer({int_imm(16)}, kF32, "A");
  Ref<Buffer> S = decl_buffer({int_imm(1)}, kF32, "S");
  Ref<Buffer> A2 = decl_buffer({int_imm(16)}, kF32, "A2");
  Ref<Var> i = var("i"), j = var("j");
  Stmt sum = make_ref<For>(
      i, int_imm(0), int_imm(16), ForKind::kVectorized,
      buffer_store(S, buffer_load(S, {int_imm(0)}) + buffer_load(A, {i}), {int_imm(0)}));
  Stmt scan = make_ref<For>(j, int_imm(0), int_imm(15), ForKind::kVectorized,
                            buffer_store(A2, buffer_load(A2, {j}) * float_imm(2), {j + 1}));
  Ref<PrimFunc> f = lower(make_prim_func({A, S, A2}, seq_stmt({sum, scan})));
  runtime::Module mod = build("serial", f);
  NDArray s = NDArray::empty({1}, kF32);
  s.data_as<float>()[0] = 0.5f;
  expect_matches_interpreter(mod, "serial", f,
                             {random_array({16}, kF32, 10), s, random_array({16}, kF32, 11)});
}

TEST_F(LLVMParallelVector, DefaultScheduleParallelAndVectorizedFromTheBackend) {
  // An unscheduled kernel gets the backend's default schedule: a parallel outer loop and a
  // vectorized inner one with a predicate for a symbolic length.
  Ref<Var> n = var("n");
  te::Tensor A = te::placeholder({n}, kF32, "A");
  te::Tensor C = te::compute(
      {n}, [&](const auto& i) { return A(i[0]) * A(i[0]) - float_imm(1); }, "C");
  Ref<PrimFunc> raw = te::create_prim_func({A, C});
  runtime::Module mod = build("sq", raw);
  for (int64_t len : {1, 9, 100001})
    expect_matches_interpreter(mod, "sq", lower(raw),
                               {random_array({len}, kF32, 12), NDArray::empty({len}, kF32)});
}

// ---- The in-process JIT.

TEST_F(LLVMParallelVector, JITMatchesTheSharedObject) {
  struct Case {
    std::string name;
    Ref<PrimFunc> f;
    std::vector<Value> args;
  };
  std::vector<Case> cases = {
      {"par",
       parallel_elementwise(),
       {random_array({30001}, kF32, 13), random_array({30001}, kF32, 14),
        NDArray::empty({30001}, kF32)}},
      {"vec",
       vectorized_elementwise(kF32, 37, 8),
       {random_array({37}, kF32, 15), random_array({37}, kF32, 16), NDArray::empty({37}, kF32)}},
  };
  runtime::PackedFunc build_fn = runtime::Registry::get("relax.backend.llvm.build");
  std::vector<Value> args{Value("jit=1")};
  for (const Case& c : cases) {
    args.emplace_back(c.name);
    args.push_back(Value::from_object(c.f));
  }
  runtime::Tuple lib = build_fn(args).as_tuple();
  ASSERT_EQ(lib[0].as_string(), "llvm-bc");
  const std::string& bytes = lib[1].as_string();
  ASSERT_EQ(bytes.compare(0, 2, "BC"), 0) << "not a bitcode file";
  runtime::Module jit = runtime::load_module(
      "llvm-bc", {reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()});
  EXPECT_EQ(jit->format(), "llvm-bc");
  EXPECT_FALSE(jit->get_function("missing").defined());
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    runtime::Module so = build(c.name, c.f);
    std::vector<NDArray> from_jit = expect_matches_interpreter(jit, c.name, c.f, c.args);
    std::vector<NDArray> from_so = expect_matches_interpreter(so, c.name, c.f, c.args);
    ASSERT_EQ(from_jit.size(), from_so.size());
    for (size_t k = 0; k < from_jit.size(); ++k)
      EXPECT_EQ(std::memcmp(from_jit[k].data(), from_so[k].data(), size_t(from_so[k].numel() * 4)),
                0);
  }
  // A function keeps the JIT alive after the module handle is gone; errors still report.
  runtime::PackedFunc par = jit->get_function("par");
  jit = runtime::Module();
  NDArray a = random_array({8}, kF32, 17), b = random_array({8}, kF32, 18),
          c = NDArray::empty({8}, kF32);
  par.call(a, b, c);
  EXPECT_FLOAT_EQ(c.data_as<float>()[3], a.data_as<float>()[3] * 2 + b.data_as<float>()[3]);
  std::string e = relax::test::error_of([&] { par.call(a, NDArray::empty({9}, kF32), c); });
  EXPECT_NE(e.find("kernel 'par'"), std::string::npos) << e;
}

TEST_F(LLVMParallelVector, MalformedBitcodeIsAClearError) {
  std::string junk = "BC\xc0\xde this is not a module";
  std::string e = relax::test::error_of([&] {
    runtime::load_module("llvm-bc", {reinterpret_cast<const uint8_t*>(junk.data()), junk.size()});
  });
  EXPECT_NE(e.find("llvm-bc loader: the library is not valid LLVM bitcode"), std::string::npos)
      << e;
}

TEST_F(LLVMParallelVector, RuntimePluginExportsItsInitFunction) {
  void* h = dlopen((std::string(RELAX_PLUGIN_DIR) + "/librelax-llvm-runtime.so").c_str(),
                   RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(h, nullptr) << dlerror();
  auto init = reinterpret_cast<int (*)()>(dlsym(h, "relax_runtime_plugin_init"));
  ASSERT_NE(init, nullptr);
  EXPECT_EQ(init(), 0) << RxGetLastError();
  EXPECT_TRUE(runtime::has_module_loader("llvm-so"));
  EXPECT_NE(dlsym(h, "RxLLVMRuntimeRegister"), nullptr);
  dlclose(h);
}

}  // namespace
}  // namespace relax::tir
