// Helpers shared by the tests of the LLVM backend's default CPU schedule rules
// (schedule_rules*_test.cc, llvm_injective_math_test.cc): applying the rules through the
// backend's packed function, finding loops, and checking that a scheduled function computes
// exactly what the unscheduled one does.
#pragma once

#include <cstring>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include "llvm_test_util.h"
#include "relax/kernel/lower.h"
#include "relax/tir/stmt_functor.h"

namespace relax::tir {

/// LLVMPluginTest plus the default CPU schedule (relax.backend.llvm.default_schedule).
class ScheduleTest : public LLVMPluginTest {
 protected:
  /// `f` with the default rules applied; `options` are the target's schedule knobs
  /// ("mr=4,nr=16,...").
  static Ref<PrimFunc> schedule(const Ref<PrimFunc>& f, const std::string& options = "") {
    runtime::PackedFunc fn = runtime::Registry::get("relax.backend.llvm.default_schedule");
    EXPECT_TRUE(fn.defined());
    return fn(std::vector<runtime::Value>{runtime::Value::from_object(f), runtime::Value(options)})
        .as_object_of<PrimFunc>();
  }
};

/// The loops of `f` of kind `kind`, outermost first.
inline std::vector<const For*> loops_of_kind(const Ref<PrimFunc>& f, ForKind kind) {
  std::vector<const For*> out;
  post_order_visit(f->body, [&](const Stmt& s) {
    if (auto* l = s.as<For>(); l && l->kind == kind) out.insert(out.begin(), l);
  });
  return out;
}

/// A loop's constant extent, or -1 when it is symbolic.
inline int64_t extent_of(const For* f) {
  const int64_t* c = as_const_int(f->extent);
  return c ? *c : -1;
}

/// Floats in [-2, 2).
inline runtime::NDArray random_f32(const std::vector<int64_t>& shape, uint32_t seed) {
  return random_array(shape, DataType::Float(32), seed);
}

/// An output buffer filled with 0xFF bytes (NaNs), so an element nobody writes shows.
inline runtime::NDArray poisoned_f32(const std::vector<int64_t>& shape) {
  runtime::NDArray o = runtime::NDArray::empty(shape, DataType::Float(32));
  std::memset(o.data(), 0xFF, o.nbytes());
  return o;
}

/// Lowers both functions (lower() verifies), runs them in the interpreter on copies of `args`
/// and expects every buffer to agree exactly (NaN matching NaN: the poisoned outputs).
inline void expect_same_results(const Ref<PrimFunc>& before, const Ref<PrimFunc>& after,
                                const std::vector<runtime::NDArray>& args) {
  Ref<PrimFunc> lb = lower(before), la = lower(after);
  std::vector<InterpArg> a1, a2;
  for (const runtime::NDArray& a : args) {
    a1.emplace_back(a.copy());
    a2.emplace_back(a.copy());
  }
  interpret(lb, a1);
  interpret(la, a2);
  for (size_t i = 0; i < args.size(); ++i)
    EXPECT_TRUE(relax::test::tensors_close(std::get<runtime::NDArray>(a2[i]),
                                           std::get<runtime::NDArray>(a1[i]), 0, 0))
        << "argument " << i;
}

}  // namespace relax::tir
