// The vision ops: non_max_suppression. Its result size depends on the data (how many boxes
// survive), so inference gives only the rank (int64 [num_selected, 3]) and legalisation is a
// pure packed call of the runtime builtin vm.builtin.non_max_suppression (runtime/
// builtins_vision.cc), as for nonzero and unique.
#include "relax/op/vision.h"

#include "infer_utils.h"
#include "relax/op/op.h"
#include "relax/support/diagnostic.h"
#include "tensor_ops.h"

namespace relax::op_detail {

namespace {

StructInfo infer_non_max_suppression(const Call& call, BlockBuilder&) {
  const TensorStructInfo& boxes = expect_float_tensor(call, 0);
  const TensorStructInfo& scores = expect_float_tensor(call, 1);
  RX_CHECK(boxes.ndim < 0 || boxes.ndim == 3)
      << "relax.vision.non_max_suppression: 'boxes' must be [batch, boxes, 4], got rank "
      << boxes.ndim;
  RX_CHECK(scores.ndim < 0 || scores.ndim == 3)
      << "relax.vision.non_max_suppression: 'scores' must be [batch, classes, boxes], got rank "
      << scores.ndim;
  if (boxes.shape) {
    const int64_t* four = tir::as_const_int((*boxes.shape)[2]);
    RX_CHECK(!four || *four == 4) << "relax.vision.non_max_suppression: 'boxes' must have 4 "
                                  << "coordinates per box, got " << *four;
  }
  const TensorStructInfo& max_out = expect_tensor(call, 2);
  RX_CHECK(max_out.dtype.is_void() || max_out.dtype.is_int() || max_out.dtype.is_uint())
      << "relax.vision.non_max_suppression: 'max_output_boxes_per_class' must be an integer "
      << "tensor, got " << max_out.dtype.to_string();
  for (size_t i = 2; i < 5; ++i) {
    const TensorStructInfo& t = i == 2 ? max_out : expect_float_tensor(call, i);
    RX_CHECK(t.ndim < 0 || t.ndim <= 1)
        << "relax.vision.non_max_suppression: '" << arg_name(call, i)
        << "' must be a scalar, got rank " << t.ndim;
  }
  int64_t center = get_int(call.attrs, "center_point_box", 0);
  RX_CHECK(center == 0 || center == 1)
      << "relax.vision.non_max_suppression: center_point_box must be 0 or 1, got " << center;
  return tensor_sinfo(DataType::Int(64), 2, boxes.vdevice);
}

Expr legalize_non_max_suppression(BlockBuilder&, const Call& call) {
  std::vector<Expr> args = call.args;
  args.push_back(make_prim_value(get_int(call.attrs, "center_point_box", 0)));
  return op::call_pure_packed("vm.builtin.non_max_suppression", std::move(args),
                              {call.struct_info});
}

}  // namespace

void register_vision_ops(OpRegistry& reg) {
  OpInfo& op = reg.register_op("relax.vision.non_max_suppression");
  op.summary =
      "Non-maximum suppression per batch and class (ONNX NonMaxSuppression); "
      "data-dependent shape.";
  op.arg_names = {"boxes", "scores", "max_output_boxes_per_class", "iou_threshold",
                  "score_threshold"};
  op.attrs = {{"center_point_box", AttrSpec::Kind::kInt, int64_t(0), false,
               "0: boxes are corners [y1, x1, y2, x2]; 1: [x_center, y_center, width, height]"}};
  op.infer = infer_non_max_suppression;
  op.pattern = OpPattern::kOpaque;
  op.legalize = legalize_non_max_suppression;
}

}  // namespace relax::op_detail

namespace relax::op {
Expr non_max_suppression(Expr boxes, Expr scores, Expr max_output_boxes_per_class,
                         Expr iou_threshold, Expr score_threshold, int64_t center_point_box) {
  return call_op("relax.vision.non_max_suppression",
                 {std::move(boxes), std::move(scores), std::move(max_output_boxes_per_class),
                  std::move(iou_threshold), std::move(score_threshold)},
                 make_attrs({{"center_point_box", center_point_box}}));
}
}  // namespace relax::op
