// Registration of the tensor-manipulation, indexing, scan, sort and einsum ops (internal to
// core/src/op): register_tensor_ops (infer_utils.h) calls each group below.
#pragma once

#include <vector>

#include "relax/ir/expr.h"
#include "relax/ir/op.h"

namespace relax::op_detail {

/// pad, arange, eye, stack, tile, repeat, flip, one_hot, layout_transform (manipulate2.cc).
void register_manipulate2_ops(OpRegistry& reg);
/// gather_elements, gather_nd, scatter_elements, scatter_nd, nonzero (gather_scatter.cc).
void register_gather_scatter_ops(OpRegistry& reg);
/// cumsum, cumprod, sort, argsort, topk (scan_sort.cc).
void register_scan_sort_ops(OpRegistry& reg);
/// einsum (einsum.cc).
void register_einsum_ops(OpRegistry& reg);
/// layout_transform (layout_transform.cc).
void register_layout_transform_ops(OpRegistry& reg);
/// relax.pad and relax.crop, the compact layout rewrites (pad_crop.cc); called by
/// register_layout_transform_ops.
void register_pad_crop_ops(OpRegistry& reg);
/// vision.non_max_suppression (vision.cc).
void register_vision_ops(OpRegistry& reg);

}  // namespace relax::op_detail
