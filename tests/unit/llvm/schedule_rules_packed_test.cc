// The register-blocked rule on a kernel whose right operand pack-weights stored in panels
// (schedule_rules.h, kAttrWeightPanel): the column panel is exactly the recorded width, so the
// packed indices w[j // 16, k, j % 16] lower to w[jo, k, ji] (no division left in any access
// to w), and the scheduled kernel computes bit for bit what the unscheduled one does, padding
// columns included.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "relax/text/parser.h"
#include "relax/runtime/registry.h"
#include "relax/kernel/interpreter.h"
#include "relax/kernel/lower.h"
#include "relax/tir/stmt_functor.h"
#include "relax/transform/plugin.h"
#include "schedule_test_util.h"

namespace relax::tir {
namespace {

using runtime::NDArray;
using runtime::Value;

using PackedSchedule = ScheduleTest;

/// x (m x 64) @ w (64 x n) with w packed in panels of `panel` columns: w' is
/// ceil(n / panel) x 64 x panel (3 x 64 x 16 for the default 40 columns).
Ref<PrimFunc> packed_matmul(const std::string& m, int n = 40, int panel = 16) {
  std::string cols = std::to_string(n), p = std::to_string(panel),
              panels = std::to_string((n + panel - 1) / panel);
  return parse_prim_func(R"(
@T.prim_func
def f(x: T.Buffer(()" + m + R"(, 64), "float32"), w: T.Buffer(()" + panels + ", 64, " + p +
                         R"(), "float32"), out: T.Buffer(()" + m + ", " + cols +
                         R"(), "float32")):
    T.func_attr({"weight_panel": )" + p + R"(})
    for i, j, k in T.grid()" + m + ", " + cols + R"(, 64):
        with T.block("matmul"):
            v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
            with T.init():
                out[v_i, v_j] = T.float32(0)
            out[v_i, v_j] = out[v_i, v_j] + x[v_i, v_k] * w[v_j // )" + p + ", v_k, v_j % " + p +
                         R"(]
)");
}

/// Interprets the unscheduled `f` and the lowered schedule `lowered` on copies of `args` and
/// expects bit-identical outputs (the last argument).
void expect_identical_results(const Ref<PrimFunc>& f, const Ref<PrimFunc>& lowered,
                              const std::vector<NDArray>& args) {
  std::vector<InterpArg> want, got;
  for (const NDArray& a : args) want.emplace_back(a.copy()), got.emplace_back(a.copy());
  interpret(lower(f), want);
  interpret(lowered, got);
  const NDArray& w = std::get<NDArray>(want.back());
  const NDArray& g = std::get<NDArray>(got.back());
  EXPECT_EQ(std::memcmp(w.data(), g.data(), w.nbytes()), 0);
}

/// True when some access to the buffer named `name` has a floordiv or floormod in its indices.
bool divides_in_access(const Ref<PrimFunc>& f, const std::string& name) {
  struct Finder : StmtExprVisitor {
    std::string name;
    bool inside = false, found = false;
    using StmtExprVisitor::visit_;
    void visit_(const BufferLoad* op) override {
      bool outer = inside;
      inside = op->buffer->name == name;
      StmtExprVisitor::visit_(op);
      inside = outer;
    }
    void visit_(const FloorDiv* op) override {
      found |= inside;
      StmtExprVisitor::visit_(op);
    }
    void visit_(const FloorMod* op) override {
      found |= inside;
      StmtExprVisitor::visit_(op);
    }
  } finder;
  finder.name = name;
  visit_func(f, finder);
  return finder.found;
}

TEST_F(PackedSchedule, PanelIsTheRecordedWidthAndIndicesSimplify) {
  Ref<PrimFunc> f = packed_matmul("24");
  // nr=8 would give 8-column panels; the recorded 16 wins.
  Ref<PrimFunc> s = schedule(f, "mr=4,nr=8,kc=32");
  bool vector16 = false;
  post_order_visit(s->body, [&](const Stmt& st) {
    if (auto* l = st.as<For>(); l && l->kind == ForKind::kVectorized)
      vector16 |= is_const_int(l->extent, 16);
  });
  EXPECT_TRUE(vector16) << to_string(s);
  Ref<PrimFunc> lowered = lower(s);
  EXPECT_FALSE(divides_in_access(lowered, "w")) << to_string(lowered);
  EXPECT_TRUE(divides_in_access(lower(f), "w")) << "the unscheduled kernel divides";

  expect_identical_results(f, lowered,
                           {random_f32({24, 64}, 1), random_f32({3, 64, 16}, 2),
                            NDArray::empty({24, 40}, DataType::Float(32))});
}

TEST_F(PackedSchedule, PanelWiderThanTheColumnsIsMaskedAndStaysInRegisters) {
  // 24 columns in one packed panel of 32 (pack-weights: two whole vectors, not three half ones):
  // the columns past 24 are masked, the accumulators still live in vector registers across k,
  // and the result matches the unscheduled kernel even with garbage in the padding columns
  // (the masked loads never read them).
  Ref<PrimFunc> f = packed_matmul("16", 24, 32);
  const std::string options = "mr=4,nr=64,kc=128,vector-bits=512";
  runtime::PackedFunc emit_ir = runtime::Registry::get("relax.backend.llvm.emit_ir");
  ASSERT_TRUE(emit_ir.defined());
  std::string ir =
      emit_ir(std::vector<Value>{Value(options), Value("padded"), Value::from_object(f)})
          .as_string();
  EXPECT_NE(ir.find("phi <32 x float>"), std::string::npos) << ir;
  EXPECT_NE(ir.find("llvm.masked.load"), std::string::npos) << ir;
  expect_identical_results(f, lower(schedule(f, options)),
                           {random_f32({16, 64}, 3), random_f32({1, 64, 32}, 4),
                            NDArray::empty({16, 24}, DataType::Float(32))});
}

}  // namespace
}  // namespace relax::tir
