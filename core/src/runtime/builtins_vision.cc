// vm.builtin.non_max_suppression (op/vision.cc), following ONNX NonMaxSuppression as ONNX
// Runtime implements it: per batch and class, the boxes scoring above score_threshold are
// visited by descending score (ties: lower box index first) and kept unless their IoU with a
// box already kept exceeds iou_threshold, until max_output_boxes_per_class are kept. A box of
// zero area suppresses nothing. The result is int64 [num_selected, 3] rows (batch, class, box),
// batches then classes in order.
#include <algorithm>
#include <cmath>
#include <limits>

#include "builtins_internal.h"
#include "relax/support/diagnostic.h"

namespace relax::runtime::builtin {

namespace {

/// Element i of a float32/float64 tensor.
double float_at(const NDArray& t, int64_t i) {
  return t.dtype().bits == 64 ? t.data_as<double>()[i] : double(t.data_as<float>()[i]);
}

NDArray float_tensor(Args args, size_t index, const char* what) {
  NDArray t = tensor_arg("non_max_suppression", args, index, what);
  DataType dt = t.dtype();
  RX_CHECK(t.device().device_type == kDLCPU && t.is_contiguous() && dt.is_float() &&
           (dt.bits == 32 || dt.bits == 64))
      << "vm.builtin.non_max_suppression: '" << what << "' must be a contiguous float32 or float64 "
      << "CPU tensor, got " << Value(t).describe();
  return t;
}

/// The one element of a scalar (or single-element) tensor argument.
double scalar_of(Args args, size_t index, const char* what) {
  NDArray t = tensor_arg("non_max_suppression", args, index, what);
  RX_CHECK(t.numel() == 1 && t.device().device_type == kDLCPU)
      << "vm.builtin.non_max_suppression: '" << what << "' must hold one value on the CPU, got "
      << Value(t).describe();
  DataType dt = t.dtype();
  if (dt.is_float()) return float_at(float_tensor(args, index, what), 0);
  RX_CHECK(dt.is_int() && (dt.bits == 64 || dt.bits == 32))
      << "vm.builtin.non_max_suppression: '" << what << "' must be int32, int64 or float, got "
      << dt.to_string();
  return dt.bits == 64 ? double(*t.data_as<int64_t>()) : double(*t.data_as<int32_t>());
}

struct Box {
  double y1, x1, y2, x2;
  double area() const { return (y2 - y1) * (x2 - x1); }
};

bool suppresses(const Box& a, const Box& b, double iou_threshold) {
  double ah = a.area(), bh = b.area();
  if (ah <= 0 || bh <= 0) return false;
  double iy = std::min(a.y2, b.y2) - std::max(a.y1, b.y1);
  double ix = std::min(a.x2, b.x2) - std::max(a.x1, b.x1);
  if (iy <= 0 || ix <= 0) return false;
  double inter = iy * ix;
  return inter / (ah + bh - inter) > iou_threshold;
}

}  // namespace

void register_vision_builtins() {
  define("non_max_suppression", [](Args args) -> Value {
    check_num_args("vm.builtin.non_max_suppression", args, 6);
    NDArray boxes = float_tensor(args, 0, "boxes");
    NDArray scores = float_tensor(args, 1, "scores");
    double max_out = scalar_of(args, 2, "max_output_boxes_per_class");
    double iou = scalar_of(args, 3, "iou_threshold");
    double score_min = scalar_of(args, 4, "score_threshold");
    int64_t center = int_arg("non_max_suppression", args, 5, "center_point_box");
    const std::vector<int64_t>& bs = boxes.shape();
    const std::vector<int64_t>& ss = scores.shape();
    RX_CHECK(bs.size() == 3 && bs[2] == 4 && ss.size() == 3 && ss[0] == bs[0] && ss[2] == bs[1])
        << "vm.builtin.non_max_suppression: expected boxes [batch, n, 4] and scores [batch, "
        << "classes, n], got " << Value(boxes).describe() << " and " << Value(scores).describe();
    RX_CHECK(iou >= 0 && iou <= 1)
        << "vm.builtin.non_max_suppression: iou_threshold " << iou << " is outside [0, 1]";
    int64_t batches = bs[0], n = bs[1], classes = ss[1];
    int64_t limit = max_out <= 0 ? 0 : int64_t(std::min<double>(max_out, double(n)));
    std::vector<Box> all(size_t(batches * n));
    for (int64_t i = 0; i < batches * n; ++i) {
      double c[4];
      for (int k = 0; k < 4; ++k) c[k] = float_at(boxes, i * 4 + k);
      Box b;
      if (center == 1) {  // x_center, y_center, width, height
        b = {c[1] - c[3] / 2, c[0] - c[2] / 2, c[1] + c[3] / 2, c[0] + c[2] / 2};
      } else {  // y1, x1, y2, x2 with either corner first
        b = {std::min(c[0], c[2]), std::min(c[1], c[3]), std::max(c[0], c[2]),
             std::max(c[1], c[3])};
      }
      all[size_t(i)] = b;
    }
    std::vector<int64_t> rows;
    std::vector<int64_t> order;
    for (int64_t b = 0; b < batches && limit > 0; ++b) {
      for (int64_t c = 0; c < classes; ++c) {
        const int64_t base = (b * classes + c) * n;
        order.clear();
        for (int64_t i = 0; i < n; ++i) {
          if (float_at(scores, base + i) > score_min) order.push_back(i);
        }
        std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) {
          return float_at(scores, base + x) > float_at(scores, base + y);
        });
        std::vector<int64_t> kept;
        for (int64_t i : order) {
          if (int64_t(kept.size()) == limit) break;
          const Box& cand = all[size_t(b * n + i)];
          bool drop = std::any_of(kept.begin(), kept.end(), [&](int64_t k) {
            return suppresses(all[size_t(b * n + k)], cand, iou);
          });
          if (drop) continue;
          kept.push_back(i);
          rows.insert(rows.end(), {b, c, i});
        }
      }
    }
    NDArray out = NDArray::empty({int64_t(rows.size() / 3), 3}, DataType::Int(64));
    std::copy(rows.begin(), rows.end(), out.data_as<int64_t>());
    return out;
  });
}

}  // namespace relax::runtime::builtin
