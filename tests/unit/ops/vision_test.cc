// vision.non_max_suppression: inference, its errors, and the runtime builtin it legalises to,
// run in the VM against boxes whose overlaps are worked out by hand.
#include "relax/op/vision.h"

#include "ops_test_common.h"
#include "relax/text/parser.h"
#include "relax/runtime/builtins.h"
#include "relax/runtime/registry.h"
#include "relax/runtime/vm.h"
#include "relax/target/build.h"

namespace relax::ops_test {
namespace {

TEST(NonMaxSuppression, InferenceAndErrors) {
  OpRunner r;
  auto boxes = r.param("boxes", sym0({1, 4}), kF32);  // not rank 3
  auto b3 = r.param("b3", {1, 6, 4}, kF32);
  auto scores = r.param("scores", {1, 2, 6}, kF32);
  auto m = r.param("m", std::vector<int64_t>{}, kI64);
  auto t = r.param("t", std::vector<int64_t>{}, kF32);
  EXPECT_EQ(r.infer(op::non_max_suppression(b3, scores, m, t, t)), "Tensor(ndim=2, int64)");
  EXPECT_ERROR_HAS(op::non_max_suppression(boxes, scores, m, t, t),
                   "'boxes' must be [batch, boxes, 4]");
  auto b5 = r.param("b5", {1, 6, 5}, kF32);
  EXPECT_ERROR_HAS(op::non_max_suppression(b5, scores, m, t, t), "4 coordinates per box, got 5");
  EXPECT_ERROR_HAS(op::non_max_suppression(b3, scores, t, t, t),
                   "'max_output_boxes_per_class' must be an integer tensor");
  EXPECT_ERROR_HAS(op::non_max_suppression(b3, scores, m, t, t, 2),
                   "center_point_box must be 0 or 1");
}

runtime::NDArray nms(const runtime::NDArray& boxes, const runtime::NDArray& scores, int64_t max_out,
                     double iou, double score, int center) {
  std::string src = R"(
@I.ir_module
class Module:
    @R.function
    def main(b: R.Tensor(ndim=3, dtype="float32"), s: R.Tensor(ndim=3, dtype="float32"), m: R.Tensor((), "int64"), iou: R.Tensor((), "float32"), st: R.Tensor((), "float32")) -> R.Tensor(ndim=2, dtype="int64"):
        y = R.vision.non_max_suppression(b, s, m, iou, st, center_point_box=CENTER)
        return y
)";
  src.replace(src.find("CENTER"), 6, std::to_string(center));
  auto vm = runtime::VirtualMachine::create(relax::build(parse_module(src), relax::BuildOptions{"tir-interp", "o0"}));
  std::vector<runtime::Value> args = {runtime::Value(boxes), runtime::Value(scores),
                                      runtime::Value(array_of({}, kI64, {double(max_out)})),
                                      runtime::Value(array_of({}, kF32, {iou})),
                                      runtime::Value(array_of({}, kF32, {score}))};
  return vm->invoke("main", args).as_tensor();
}

TEST(NonMaxSuppression, KeepsBestBoxesPerClassAndSuppressesOverlaps) {
  // Boxes (y1, x1, y2, x2): 0 and 1 overlap with IoU 0.9/1.1 = 0.82; 2 is apart; 3 is box 2
  // with its corners flipped (IoU 1 with box 2); 4 has zero area.
  auto boxes =
      array_of({1, 5, 4}, kF32, {0, 0, 1, 1, 0, 0.1, 1, 1.1, 0, 5, 1, 6, 1, 6, 0, 5, 2, 2, 2, 3});
  // Class 0 prefers box 1, then 0, 2, 3, 4; class 1 scores box 4 highest.
  auto scores = array_of({1, 2, 5}, kF32, {0.8, 0.9, 0.7, 0.6, 0.5, 0.1, 0.2, 0.3, 0.4, 0.95});
  // IoU threshold 0.5: box 0 falls to box 1, box 3 to box 2; box 4 suppresses nothing.
  EXPECT_TRUE(tensor_close_to(nms(boxes, scores, 10, 0.5, 0.0, 0), {6, 3},
                              {0, 0, 1, 0, 0, 2, 0, 0, 4, 0, 1, 4, 0, 1, 3, 0, 1, 1}));
  // Threshold 0.85 keeps box 0; score threshold 0.55 drops box 4 of class 0 and most of class 1.
  EXPECT_TRUE(tensor_close_to(nms(boxes, scores, 10, 0.85, 0.55, 0), {4, 3},
                              {0, 0, 1, 0, 0, 0, 0, 0, 2, 0, 1, 4}));
  // At most one box per class; zero boxes.
  EXPECT_TRUE(tensor_close_to(nms(boxes, scores, 1, 0.5, 0.0, 0), {2, 3}, {0, 0, 1, 0, 1, 4}));
  EXPECT_TRUE(tensor_close_to(nms(boxes, scores, 0, 0.5, 0.0, 0), {0, 3}, {}));
  // Centre format: (x_c, y_c, w, h) of boxes 0 and 1 above.
  auto centred = array_of({1, 2, 4}, kF32, {0.5, 0.5, 1, 1, 0.6, 0.5, 1, 1});
  auto two = array_of({1, 1, 2}, kF32, {0.8, 0.9});
  EXPECT_TRUE(tensor_close_to(nms(centred, two, 10, 0.5, 0.0, 1), {1, 3}, {0, 0, 1}));
  EXPECT_TRUE(tensor_close_to(nms(centred, two, 10, 0.9, 0.0, 1), {2, 3}, {0, 0, 1, 0, 0, 0}));
}

TEST(NonMaxSuppression, BuiltinRejectsMismatchedShapes) {
  runtime::register_builtins();
  runtime::PackedFunc f = runtime::Registry::get("vm.builtin.non_max_suppression");
  ASSERT_TRUE(f.defined());
  auto boxes = array_of({1, 3, 4}, kF32, std::vector<double>(12, 0));
  auto scores = array_of({1, 1, 2}, kF32, {0.5, 0.5});
  std::vector<runtime::Value> args = {runtime::Value(boxes),
                                      runtime::Value(scores),
                                      runtime::Value(array_of({}, kI64, {1})),
                                      runtime::Value(array_of({}, kF32, {0.5})),
                                      runtime::Value(array_of({}, kF32, {0})),
                                      runtime::Value(int64_t(0))};
  std::string msg = test::error_of([&] { f(args); });
  EXPECT_NE(msg.find("vm.builtin.non_max_suppression: expected boxes [batch, n, 4] and scores"),
            std::string::npos)
      << msg;
}

}  // namespace
}  // namespace relax::ops_test
