// Builders for the vision ops ("relax.vision.*"). Each returns an unnormalised Call (see
// op/op.h).
#pragma once

#include <cstdint>

#include "relax/ir/expr.h"

namespace relax::op {

/// Non-maximum suppression per batch and class (ONNX NonMaxSuppression): boxes [B, N, 4],
/// scores [B, C, N]; max_output_boxes_per_class (int scalar tensor), iou_threshold and
/// score_threshold (float scalar tensors). Boxes are corners [y1, x1, y2, x2] (either corner
/// first) or, with center_point_box = 1, [x_center, y_center, width, height]. The result is
/// int64 [num_selected, 3] of (batch, class, box) rows: data-dependent, so only its rank is
/// inferred (computed by the runtime builtin vm.builtin.non_max_suppression).
Expr non_max_suppression(Expr boxes, Expr scores, Expr max_output_boxes_per_class,
                         Expr iou_threshold, Expr score_threshold, int64_t center_point_box = 0);

}  // namespace relax::op
