// The harness of the operator-library tests: build an op call over parameters with static or
// symbolic shapes, legalise it through its OpInfo::legalize, lower the PrimFunc it produces,
// run it in the reference interpreter, and compare with a reference the test computes with
// plain loops (never the compute DSL).
//
// The binary's mode (op_test_mode.h) adds a backend: in relax_ops_<kind>_tests each kernel also
// runs on a GPU backend's device (op_test_device.h); in relax_ops_gpu_tests in the interpreter's
// GPU mode (op_test_gpu.h).
//
// In relax_ops_llvm_tests (tests/CMakeLists.txt) OpRunner::run also compiles the legalised (unscheduled) kernel
// with the LLVM backend plugin — the default CPU schedule applied, as in a real build — runs it
// on fresh outputs, checks them against the interpreter's (bit-exact for integers and bools,
// within a small tolerance for floats, NaN equal to NaN) and returns the LLVM outputs, so each
// test's own reference check applies to the compiled kernel too.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "../../common/error_of.h"
#include "../../common/tensor_compare.h"
#include "relax/arith/analyzer.h"
#include "relax/ir/block_builder.h"
#include "relax/ir/op.h"
#include "relax/kernel/interpreter.h"
#include "relax/kernel/lower.h"
#include "relax/op/op.h"
#include "relax/runtime/ndarray.h"
#include "relax/support/diagnostic.h"
#include "relax/tir/expr_functor.h"

#include "op_test_mode.h"
#include "relax/runtime/module.h"
#include "relax/runtime/registry.h"
#include "relax/transform/plugin.h"

namespace relax::ops_test {

using tir::int_imm;
using tir::PrimExpr;
inline constexpr DataType kF32 = DataType::Float(32);
inline constexpr DataType kI32 = DataType::Int(32);
inline constexpr DataType kI64 = DataType::Int(64);
inline constexpr DataType kBool = DataType::Bool();

/// The value of IEEE binary16 bits `h` (written here, independent of the interpreter's own
/// conversion).
inline double half_to_double(uint16_t h) {
  double sign = (h & 0x8000) ? -1.0 : 1.0;
  int exp = (h >> 10) & 0x1F, mant = h & 0x3FF;
  if (exp == 0) return sign * std::ldexp(double(mant), -24);  // zero or subnormal
  if (exp == 31) return mant ? std::nan("") : sign * INFINITY;
  return sign * std::ldexp(double(1024 + mant), exp - 25);
}

/// `v` rounded to the nearest binary16 (ties to even; overflow to infinity), as bits.
inline uint16_t double_to_half(double v) {
  uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  if (std::isnan(v)) return sign | 0x7E00;
  double a = std::fabs(v);
  if (a < 0x1p-14) {
    // The subnormal grid m * 2^-24; m == 1024 rounds up into the smallest normal, whose bits
    // are exactly 1024.
    return sign | uint16_t(std::nearbyint(a * 0x1p24));
  }
  int e;
  std::frexp(a, &e);
  int exp = e - 1;  // a = 1.f * 2^exp
  // The 11-bit significand, rounded to nearest even (the scaling is exact).
  double m = std::nearbyint(std::ldexp(a, 10 - exp));
  if (m == 2048) {
    m = 1024;
    ++exp;
  }
  if (exp > 15) return sign | 0x7C00;
  return sign | uint16_t((exp + 15) << 10) | uint16_t(int(m) - 1024);
}

/// `v` rounded to float16 and back: the reference value of an op that is exact in half.
inline double round_to_half(double v) { return half_to_double(double_to_half(v)); }

/// Host data for references: a shape and row-major values as doubles.
struct Host {
  std::vector<int64_t> shape;
  std::vector<double> data;
  size_t size() const { return data.size(); }
  double operator[](size_t i) const { return data[i]; }
};

inline int64_t numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

/// Reads an array into doubles: float16/32/64, int8/16/32/64, uint8/16/32 and bool.
inline Host host_of(const runtime::NDArray& a) {
  Host h{a.shape(), std::vector<double>(size_t(a.numel()))};
  DataType t = a.dtype();
  const char* p = static_cast<const char*>(a.data());
  for (size_t i = 0; i < h.data.size(); ++i) {
    double v = 0;
    if (t == DataType::Float(32))
      v = reinterpret_cast<const float*>(p)[i];
    else if (t == DataType::Float(64))
      v = reinterpret_cast<const double*>(p)[i];
    else if (t == DataType::Int(32))
      v = double(reinterpret_cast<const int32_t*>(p)[i]);
    else if (t == DataType::Int(64))
      v = double(reinterpret_cast<const int64_t*>(p)[i]);
    else if (t == DataType::Int(8))
      v = reinterpret_cast<const int8_t*>(p)[i];
    else if (t == DataType::UInt(8) || t.is_bool())
      v = reinterpret_cast<const uint8_t*>(p)[i];
    else if (t == DataType::Float(16))
      v = half_to_double(reinterpret_cast<const uint16_t*>(p)[i]);
    else if (t == DataType::Int(16))
      v = reinterpret_cast<const int16_t*>(p)[i];
    else if (t == DataType::UInt(16))
      v = reinterpret_cast<const uint16_t*>(p)[i];
    else if (t == DataType::UInt(32))
      v = reinterpret_cast<const uint32_t*>(p)[i];
    else
      ADD_FAILURE() << "host_of: unsupported dtype " << t.to_string();
    h.data[i] = v;
  }
  return h;
}

/// An NDArray of `dtype` (as host_of) holding `values`: floats rounded to nearest even; integer
/// values must fit the type.
inline runtime::NDArray array_of(const std::vector<int64_t>& shape, DataType t,
                                 const std::vector<double>& values) {
  runtime::NDArray a = runtime::NDArray::empty(shape, t);
  char* p = static_cast<char*>(a.data());
  for (size_t i = 0; i < values.size(); ++i) {
    double v = values[i];
    if (t == DataType::Float(32))
      reinterpret_cast<float*>(p)[i] = float(v);
    else if (t == DataType::Float(64))
      reinterpret_cast<double*>(p)[i] = v;
    else if (t == DataType::Int(32))
      reinterpret_cast<int32_t*>(p)[i] = int32_t(v);
    else if (t == DataType::Int(64))
      reinterpret_cast<int64_t*>(p)[i] = int64_t(v);
    else if (t == DataType::Int(8))
      reinterpret_cast<int8_t*>(p)[i] = int8_t(v);
    else if (t == DataType::UInt(8) || t.is_bool())
      reinterpret_cast<uint8_t*>(p)[i] = uint8_t(v);
    else if (t == DataType::Float(16))
      reinterpret_cast<uint16_t*>(p)[i] = double_to_half(v);
    else if (t == DataType::Int(16))
      reinterpret_cast<int16_t*>(p)[i] = int16_t(v);
    else if (t == DataType::UInt(16))
      reinterpret_cast<uint16_t*>(p)[i] = uint16_t(v);
    else if (t == DataType::UInt(32))
      reinterpret_cast<uint32_t*>(p)[i] = uint32_t(v);
    else
      ADD_FAILURE() << "array_of: unsupported dtype " << t.to_string();
  }
  return a;
}

/// Deterministic random data: uniform in [lo, hi) for floats, integers in [lo, hi] for integer
/// dtypes, 0/1 for bool.
inline runtime::NDArray random(const std::vector<int64_t>& shape, DataType t, uint32_t seed,
                               double lo = -1, double hi = 1) {
  std::mt19937 gen(seed);
  std::vector<double> v(size_t(numel(shape)));
  for (auto& x : v) {
    if (t.is_float())
      x = std::uniform_real_distribution<double>(lo, hi)(gen);
    else if (t.is_bool())
      x = double(gen() & 1);
    else
      x = double(std::uniform_int_distribution<int64_t>(int64_t(lo), int64_t(hi))(gen));
  }
  runtime::NDArray a = array_of(shape, t, v);
  return a;
}

/// Row-major strides of `shape`.
inline std::vector<int64_t> strides_of(const std::vector<int64_t>& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (size_t k = shape.size(); k-- > 1;) s[k - 1] = s[k] * shape[k];
  return s;
}

/// The multi-index of flat index `flat` in `shape`.
inline std::vector<int64_t> unravel(int64_t flat, const std::vector<int64_t>& shape) {
  std::vector<int64_t> idx(shape.size());
  for (size_t k = shape.size(); k-- > 0;) {
    idx[k] = shape[k] == 0 ? 0 : flat % shape[k];
    flat = shape[k] == 0 ? 0 : flat / shape[k];
  }
  return idx;
}

/// The flat offset in `shape` of an output index under NumPy broadcasting (right-aligned,
/// size-1 dims read 0).
inline int64_t broadcast_offset(const std::vector<int64_t>& out_idx,
                                const std::vector<int64_t>& shape) {
  int64_t off = 0;
  size_t lead = out_idx.size() - shape.size();
  for (size_t k = 0; k < shape.size(); ++k)
    off = off * shape[k] + (shape[k] == 1 ? 0 : out_idx[lead + k]);
  return off;
}

// Results are checked with EXPECT_TRUE(tensor_close_to(got, shape, want_values[, rtol, atol]))
// (tests/common/tensor_compare.h; rtol = atol = 1e-5 by default).
using test::tensor_close_to;
using test::tensors_close;

/// `args` with the outputs (args[first_out], ..., `count` of them) replaced by fresh arrays
/// filled with 0xFF bytes; the fresh arrays are appended to `outs`.
inline std::vector<tir::InterpArg> with_fresh_outputs(std::vector<tir::InterpArg> args,
                                                      size_t first_out, size_t count,
                                                      std::vector<runtime::NDArray>& outs) {
  for (size_t i = first_out; i < first_out + count && i < args.size(); ++i) {
    auto* a = std::get_if<runtime::NDArray>(&args[i]);
    if (!a) continue;
    runtime::NDArray o = runtime::NDArray::empty(a->shape(), a->dtype());
    std::memset(o.data(), 0xFF, o.nbytes());
    outs.push_back(o);
    args[i] = o;
  }
  return args;
}

/// Loads the LLVM codegen and runtime plugins (once per process).
inline void load_llvm_backend() {
  static transform::PassRegistry registry;
  static transform::PluginManager plugins(registry);
  static const bool loaded = [] {
    plugins.load_path(std::string(RELAX_PLUGIN_DIR) + "/librelax-llvm.so");
    plugins.load_path(std::string(RELAX_PLUGIN_DIR) + "/librelax-llvm-runtime.so");
    return true;
  }();
  (void)loaded;
}

/// Compiles `func` with the LLVM backend (default schedule), runs it on `args` with the outputs
/// (args[first_out], ..., one per entry of `interp_outs`) replaced by fresh arrays, and checks
/// the results against the interpreter's `interp_outs`. Returns the LLVM outputs.
inline std::vector<runtime::NDArray> run_llvm_and_compare(
    const Ref<tir::PrimFunc>& func, std::vector<tir::InterpArg> args, size_t first_out,
    const std::vector<runtime::NDArray>& interp_outs) {
  load_llvm_backend();
  runtime::PackedFunc build = runtime::Registry::get("relax.backend.llvm.build");
  if (!build.defined()) {
    ADD_FAILURE() << "relax.backend.llvm.build is not registered";
    return interp_outs;
  }
  runtime::Tuple lib =
      build(std::vector<runtime::Value>{runtime::Value(""), runtime::Value("kernel"),
                                        runtime::Value::from_object(func)})
          .as_tuple();
  const std::string& bytes = lib[1].as_string();
  runtime::Module module = runtime::load_module(
      lib[0].as_string(), {reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()});
  runtime::PackedFunc kernel = module->get_function("kernel");
  if (!kernel.defined()) {
    ADD_FAILURE() << "the LLVM library has no function 'kernel'";
    return interp_outs;
  }
  std::vector<runtime::NDArray> outs;
  std::vector<runtime::Value> values;
  for (const tir::InterpArg& a : with_fresh_outputs(args, first_out, interp_outs.size(), outs)) {
    if (auto* t = std::get_if<runtime::NDArray>(&a))
      values.emplace_back(*t);
    else if (auto* n = std::get_if<int64_t>(&a))
      values.emplace_back(*n);
    else
      values.emplace_back(std::get<double>(a));
  }
  kernel(values);
  for (size_t k = 0; k < outs.size(); ++k)
    EXPECT_TRUE(tensors_close(outs[k], interp_outs[k], 1e-5, 1e-5))
        << "LLVM output " << k << " against the interpreter's";
  return outs;
}

/// True when an input parameter has a non-constant dimension.
inline bool has_symbolic_input(const std::vector<std::pair<Ref<Var>, runtime::NDArray>>& inputs) {
  for (const auto& [v, a] : inputs) {
    const TensorStructInfo* t = tensor_info(v);
    if (!t || !t->shape) continue;
    for (const auto& d : *t->shape)
      if (!tir::as_const_int(d)) return true;
  }
  return false;
}

}  // namespace relax::ops_test

// The backend halves use the helpers above.
#include "op_test_gpu.h"
#include "op_test_device.h"

namespace relax::ops_test {

/// The op under test: declares parameters, legalises a call over them and runs the kernel.
class OpRunner {
 public:
  /// A parameter of the function holding the call.
  Ref<Var> param(const std::string& name, std::vector<PrimExpr> shape, DataType dtype) {
    Ref<Var> v = make_var(name, tensor_sinfo(std::move(shape), dtype));
    params_.push_back(v);
    return v;
  }
  Ref<Var> param(const std::string& name, const std::vector<int64_t>& shape, DataType dtype) {
    return param(name, const_shape(shape), dtype);
  }

  /// The struct info `call` is inferred to have (as text), or the inference error.
  std::string infer(const Expr& call) {
    BlockBuilder bb;
    try {
      return to_string(get_struct_info(bb.normalize(call)));
    } catch (const relax::Error& e) {
      return std::string("error: ") + e.what();
    }
  }

  /// Legalises `call`, lowers the PrimFunc and runs it with each parameter bound to its array
  /// in `inputs`; returns the outputs (one per tensor of the call's result).
  std::vector<runtime::NDArray> run(
      const Expr& call, const std::vector<std::pair<Ref<Var>, runtime::NDArray>>& inputs) {
    BlockBuilder bb;
    bb.begin_function("main", params_);
    Expr norm = bb.normalize(call);
    auto* c = norm.as<Call>();
    EXPECT_NE(c, nullptr);
    if (!c) return {};
    auto* op = c->op.as<Op>();
    EXPECT_TRUE(op && op->info->legalize) << describe(c->op) << " has no legalisation";
    if (!op || !op->info->legalize) return {};
    record_coverage(op->info->name, inputs);
    Expr legal = bb.normalize(op->info->legalize(bb, *c));
    legalized = legal;
    EXPECT_EQ(to_string(get_struct_info(legal)), to_string(get_struct_info(norm)))
        << "the legalised call changes the struct info";
    auto* tir_call = legal.as<Call>();
    EXPECT_TRUE(tir_call && tir_call->op.same_as(get_op("relax.call_tir")))
        << "legalised to " << describe(legal);
    if (!tir_call) return {};
    auto* gv = tir_call->args[0].as<GlobalVar>();
    Ref<tir::PrimFunc> func(bb.module().find(gv->name).as<tir::PrimFunc>());
    EXPECT_TRUE(func.defined());
    prim_func = func;
    lowered = tir::lower(func);

    // Bind the symbolic variables of the parameters from the arrays' shapes.
    std::unordered_map<const tir::Var*, int64_t> env;
    std::unordered_map<const VarNode*, runtime::NDArray> data;
    for (const auto& [v, a] : inputs) {
      data[v.get()] = a;
      const TensorStructInfo* t = tensor_info(v);
      for (size_t k = 0; k < t->shape->size(); ++k) {
        if (auto* sv = (*t->shape)[k].as<tir::Var>()) env[sv] = a.shape()[k];
      }
    }
    auto eval = [&](const PrimExpr& e) {
      PrimExpr s = tir::substitute(e, [&](const tir::Var* v) -> PrimExpr {
        auto it = env.find(v);
        return it == env.end() ? PrimExpr() : int_imm(it->second);
      });
      arith::Analyzer ana;
      PrimExpr folded = ana.simplify(s);  // kept alive: c points into it
      const int64_t* c = tir::as_const_int(folded);
      EXPECT_NE(c, nullptr) << "cannot evaluate " << tir::to_string(e);
      return c ? *c : int64_t(0);
    };
    std::vector<tir::InterpArg> args;
    auto* arg_tuple = tir_call->args[1].as<Tuple>();
    for (const Expr& a : arg_tuple->fields) {
      if (auto* k = a.as<Constant>()) {
        args.push_back(k->data);
      } else if (auto* v = a.as<VarNode>(); v && data.count(v)) {
        args.push_back(data[v]);
      } else {
        ADD_FAILURE() << "no input for argument " << describe(a);
        return {};
      }
    }
    std::vector<runtime::NDArray> outs;
    std::vector<StructInfo> out_sinfo;
    const StructInfo& res = tir_call->sinfo_args[0];
    if (auto* ts = res.as<TupleStructInfo>())
      out_sinfo = ts->fields;
    else
      out_sinfo.push_back(res);
    const size_t first_out = args.size();
    for (const auto& s : out_sinfo) {
      auto* t = s.as<TensorStructInfo>();
      std::vector<int64_t> shape;
      for (const auto& d : *t->shape) shape.push_back(eval(d));
      runtime::NDArray o = runtime::NDArray::empty(shape, t->dtype);
      std::memset(o.data(), 0xFF, o.nbytes());  // unwritten elements show up as NaN / -1
      outs.push_back(o);
      args.push_back(o);
    }
    if (tir_call->args.size() == 3) {
      for (const auto& v : tir_call->args[2].as<ShapeExpr>()->values) args.push_back(eval(v));
    }
    tir::interpret(lowered, args);
    switch (op_test_mode().backend) {
      case OpTestBackend::kLlvm: return run_llvm_and_compare(func, args, first_out, outs);
      case OpTestBackend::kGpu:
        return run_gpu_and_compare(op->info->name, has_symbolic_input(inputs), func, args,
                                   first_out, outs);
      case OpTestBackend::kDevice:
        return run_device_and_compare(op->info->name, func, args, first_out, outs);
      case OpTestBackend::kInterpreter: break;
    }
    return outs;
  }

  /// run() for a call with one output.
  runtime::NDArray run1(const Expr& call,
                        const std::vector<std::pair<Ref<Var>, runtime::NDArray>>& inputs) {
    auto outs = run(call, inputs);
    EXPECT_EQ(outs.size(), 1u);
    return outs.empty() ? runtime::NDArray() : outs[0];
  }

  Expr legalized;
  Ref<tir::PrimFunc> prim_func, lowered;

 private:
  /// With RELAX_OPS_COVERAGE=<file> in the environment, appends "<op> static|symbolic" for each
  /// run (symbolic when an input parameter has a non-constant dimension): the per-op audit of
  /// which ops the tests run with which shapes.
  static void record_coverage(const std::string& op,
                              const std::vector<std::pair<Ref<Var>, runtime::NDArray>>& inputs) {
    const char* path = std::getenv("RELAX_OPS_COVERAGE");
    if (!path) return;
    if (FILE* f = std::fopen(path, "a")) {
      std::fprintf(f, "%s %s\n", op.c_str(), has_symbolic_input(inputs) ? "symbolic" : "static");
      std::fclose(f);
    }
  }

  std::vector<Ref<Var>> params_;
};

/// The message of the error that inferring `call` throws.
inline std::string infer_error(const Expr& call) {
  BlockBuilder bb;
  return test::error_of([&] { bb.normalize(call); });
}

#define EXPECT_ERROR_HAS(call, text)                                            \
  EXPECT_NE(::relax::ops_test::infer_error(call).find(text), std::string::npos) \
      << ::relax::ops_test::infer_error(call)

}  // namespace relax::ops_test
