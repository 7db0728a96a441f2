// Real kernels for the OpenCL backend tests: Relax calls legalised by the core's legalize-ops
// pass (elementwise static and symbolic, casts of every dtype pair, the unary intrinsics,
// reductions, softmax, matmul, conv2d, float16, bool, int64, bfloat16), scheduled with the
// default GPU rules for the opencl target's limits. Shared by the codegen test (no device)
// and the runtime tests (PoCL).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "relax/kernel/gpu_rules.h"
#include "relax/target/compile.h"
#include "relax/text/parser.h"
#include "relax/transform/pass_context.h"

namespace relax::opencl_test {

/// One test case: parameters (name, shape text, dtype) and the Relax expression over them.
struct Case {
  std::string name;
  std::vector<std::tuple<std::string, std::string, std::string>> params;
  std::string expr;
};

inline std::vector<std::string> cast_dtypes() {
  return {"bool",   "int8",   "int16",   "int32",    "int64",   "uint8",  "uint16",
          "uint32", "uint64", "float16", "bfloat16", "float32", "float64"};
}

inline std::vector<std::string> unary_ops() {
  return {"exp",    "log",     "sqrt",  "rsqrt", "sin",     "cos",   "tan",   "asin",
          "acos",   "atan",    "sinh",  "cosh",  "tanh",    "asinh", "acosh", "atanh",
          "erf",    "sigmoid", "floor", "ceil",  "round",   "trunc", "abs",   "negative",
          "square", "sign",    "isnan", "isinf", "isfinite"};
}

/// The catalogue.
inline std::vector<Case> cases() {
  std::vector<Case> c;
  auto f32 = [](const char* n, const char* s) {
    return std::make_tuple(std::string(n), std::string(s), std::string("float32"));
  };
  c.push_back({"add_static", {f32("x", "(4, 33)"), f32("y", "(4, 33)")}, "R.add(x, y)"});
  c.push_back({"add_symbolic", {f32("x", "(\"n\", 33)"), f32("y", "(\"n\", 33)")}, "R.add(x, y)"});
  c.push_back({"mul_broadcast", {f32("x", "(5, 7)"), f32("y", "(7,)")}, "R.multiply(x, y)"});
  c.push_back({"min_f32", {f32("x", "(64,)"), f32("y", "(64,)")}, "R.minimum(x, y)"});
  c.push_back({"max_f32", {f32("x", "(64,)"), f32("y", "(64,)")}, "R.maximum(x, y)"});
  c.push_back({"pow_f32", {f32("x", "(64,)"), f32("y", "(64,)")}, "R.power(x, y)"});
  c.push_back({"fmod_f32", {f32("x", "(64,)"), f32("y", "(64,)")}, "R.mod(x, y)"});
  c.push_back({"floor_mod_f32", {f32("x", "(64,)"), f32("y", "(64,)")}, "R.floor_mod(x, y)"});
  for (const std::string& op : unary_ops())
    c.push_back({"unary_" + op, {f32("x", "(3, 50)")}, "R." + op + "(x)"});
  for (const std::string& from : cast_dtypes())
    for (const std::string& to : cast_dtypes())
      if (from != to)
        c.push_back({"cast_" + from + "_" + to,
                     {{"x", "(37,)", from}},
                     "R.astype(x, dtype=\"" + to + "\")"});
  auto i64 = [](const char* n, const char* s) {
    return std::make_tuple(std::string(n), std::string(s), std::string("int64"));
  };
  auto i32 = [](const char* n, const char* s) {
    return std::make_tuple(std::string(n), std::string(s), std::string("int32"));
  };
  c.push_back({"floordiv_i64", {i64("x", "(40,)"), i64("y", "(40,)")}, "R.floor_divide(x, y)"});
  c.push_back({"floormod_i64", {i64("x", "(40,)"), i64("y", "(40,)")}, "R.floor_mod(x, y)"});
  c.push_back({"floordiv_i32", {i32("x", "(40,)"), i32("y", "(40,)")}, "R.floor_divide(x, y)"});
  c.push_back({"mod_i32", {i32("x", "(40,)"), i32("y", "(40,)")}, "R.mod(x, y)"});
  c.push_back({"divide_i32", {i32("x", "(40,)"), i32("y", "(40,)")}, "R.divide(x, y)"});
  c.push_back({"shift_i32", {i32("x", "(40,)"), i32("y", "(40,)")}, "R.left_shift(x, y)"});
  c.push_back({"bitxor_i64", {i64("x", "(40,)"), i64("y", "(40,)")}, "R.bitwise_xor(x, y)"});
  c.push_back({"add_i8", {{"x", "(40,)", "int8"}, {"y", "(40,)", "int8"}}, "R.add(x, y)"});
  c.push_back(
      {"mul_u16", {{"x", "(40,)", "uint16"}, {"y", "(40,)", "uint16"}}, "R.multiply(x, y)"});
  c.push_back({"less_bool", {f32("x", "(40,)"), f32("y", "(40,)")}, "R.less(x, y)"});
  c.push_back(
      {"logical_and", {{"x", "(40,)", "bool"}, {"y", "(40,)", "bool"}}, "R.logical_and(x, y)"});
  c.push_back({"where",
               {{"c", "(40,)", "bool"}, f32("x", "(40,)"), f32("y", "(40,)")},
               "R.where(c, x, y)"});
  c.push_back(
      {"add_f16", {{"x", "(4, 33)", "float16"}, {"y", "(4, 33)", "float16"}}, "R.add(x, y)"});
  c.push_back({"exp_f16", {{"x", "(4, 33)", "float16"}}, "R.exp(x)"});
  c.push_back({"sum_f16", {{"x", "(4, 300)", "float16"}}, "R.sum(x, axis=[1])"});
  c.push_back(
      {"add_bf16", {{"x", "(4, 33)", "bfloat16"}, {"y", "(4, 33)", "bfloat16"}}, "R.add(x, y)"});
  c.push_back(
      {"mul_f64", {{"x", "(4, 33)", "float64"}, {"y", "(4, 33)", "float64"}}, "R.multiply(x, y)"});
  c.push_back({"sum_rows", {f32("x", "(6, 300)")}, "R.sum(x, axis=[1])"});
  c.push_back({"sum_symbolic", {f32("x", "(\"n\", \"m\")")}, "R.sum(x, axis=[1])"});
  c.push_back({"max_cols", {f32("x", "(300, 6)")}, "R.max(x, axis=[0])"});
  c.push_back({"mean_all", {f32("x", "(17, 19)")}, "R.mean(x)"});
  c.push_back({"sum_i64", {i64("x", "(5, 70)")}, "R.sum(x, axis=[1])"});
  c.push_back({"softmax", {f32("x", "(8, 100)")}, "R.nn.softmax(x, axis=1)"});
  c.push_back({"matmul", {f32("x", "(16, 40)"), f32("w", "(40, 24)")}, "R.matmul(x, w)"});
  c.push_back(
      {"matmul_symbolic", {f32("x", "(\"n\", 40)"), f32("w", "(40, 24)")}, "R.matmul(x, w)"});
  c.push_back({"conv2d",
               {f32("x", "(1, 3, 10, 10)"), f32("w", "(4, 3, 3, 3)")},
               "R.nn.conv2d(x, w, padding=[1, 1, 1, 1])"});
  c.push_back({"transpose", {f32("x", "(5, 7, 3)")}, "R.permute_dims(x, axes=[2, 0, 1])"});
  c.push_back({"take", {f32("x", "(10, 4)"), i64("i", "(6,)")}, "R.take(x, i, axis=0)"});
  return c;
}

/// The module of one case.
inline std::string module_text(const Case& c) {
  std::string params;
  for (const auto& [n, s, t] : c.params)
    params += (params.empty() ? "" : ", ") + n + ": R.Tensor(" + s + ", \"" + t + "\")";
  return "@I.ir_module\nclass Module:\n    @R.function\n    def main(" + params +
         "):\n        with R.dataflow():\n            r = " + c.expr +
         "\n            R.output(r)\n        return r\n";
}

/// The PrimFuncs legalize-ops makes of a case, by name.
inline std::vector<std::pair<std::string, Ref<tir::PrimFunc>>> legalized(const Case& c) {
  transform::PassRegistry registry = make_core_registry();
  transform::PassContext ctx;
  IRModule m = registry.create("legalize-ops")(parse_module(module_text(c)), ctx);
  std::vector<std::pair<std::string, Ref<tir::PrimFunc>>> out;
  for (const auto& e : m.functions())
    if (auto* f = e.func.as<tir::PrimFunc>()) out.emplace_back(e.gv->name, Ref<tir::PrimFunc>(f));
  return out;
}

/// The limits of the opencl target with its defaults.
inline tir::GpuLimits opencl_limits() {
  tir::GpuLimits l;
  l.max_threads_per_block = 256;
  l.max_block = {256, 256, 64};
  l.max_shared_memory_bytes = 16384;
  l.target = "opencl";
  return l;
}

/// `f` scheduled with the default GPU rules.
inline Ref<tir::PrimFunc> scheduled(const Ref<tir::PrimFunc>& f, const std::string& name) {
  return tir::apply_default_gpu_schedule(f, opencl_limits(), name).func;
}

}  // namespace relax::opencl_test
