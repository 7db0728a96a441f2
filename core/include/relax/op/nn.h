// Builders for the neural-network ops ("relax.nn.*"): activations, softmax, normalisation,
// convolution and pooling. Each returns an unnormalised Call (see op/op.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "relax/ir/expr.h"

namespace relax::op {

Expr relu(Expr x);
/// x if x > 0 else alpha * x.
Expr leakyrelu(Expr x, double alpha = 0.01);
/// x * Phi(x), the erf form.
Expr gelu(Expr x);
/// GELU's tanh approximation.
Expr gelu_tanh(Expr x);
/// x * sigmoid(x).
Expr silu(Expr x);
Expr softmax(Expr x, int64_t axis = -1);
Expr log_softmax(Expr x, int64_t axis = -1);
/// Inference batch norm along `axis`: a tuple (out, moving_mean, moving_var).
Expr batch_norm(Expr data, Expr gamma, Expr beta, Expr moving_mean, Expr moving_var,
                int64_t axis = 1, double epsilon = 1e-5);
/// Normalises over `axes`; gamma and beta have those axes' shape.
Expr layer_norm(Expr data, Expr gamma, Expr beta, std::vector<int64_t> axes = {-1},
                double epsilon = 1e-5);

// ---- More activations (op/activation.cc), float tensors, ONNX semantics.

/// scale * (x if x > 0 else alpha * (exp(x) - 1)) with SELU's fixed alpha and scale.
Expr selu(Expr x);
/// x if x > 0 else alpha * (exp(x) - 1).
Expr elu(Expr x, double alpha = 1.0);
/// log(1 + exp(beta * x)) / beta, and x where beta * x > threshold.
Expr softplus(Expr x, double beta = 1.0, double threshold = 20.0);
/// clamp(alpha * x + beta, 0, 1).
Expr hardsigmoid(Expr x, double alpha = 0.2, double beta = 0.5);
/// x * clamp(x / 6 + 1/2, 0, 1).
Expr hardswish(Expr x);
/// x if x > 0 else alpha[c] * x, c the index along `axis`; alpha has one element per channel
/// (or one element).
Expr prelu(Expr data, Expr alpha, int64_t axis = 1);

// ---- More normalisations (op/norm.cc).

/// Group normalisation: statistics per sample over each of `num_groups` channel groups and the
/// `axes` (default: every axis but 0 and the channel axis); gamma and beta have one value per
/// channel.
Expr group_norm(Expr data, Expr gamma, Expr beta, int64_t num_groups, int64_t channel_axis = 1,
                std::optional<std::vector<int64_t>> axes = std::nullopt, double epsilon = 1e-5,
                bool center = true, bool scale = true);
/// Instance normalisation: group_norm with one group per channel.
Expr instance_norm(Expr data, Expr gamma, Expr beta, int64_t channel_axis = 1,
                   std::optional<std::vector<int64_t>> axes = std::nullopt, double epsilon = 1e-5,
                   bool center = true, bool scale = true);
/// x / sqrt(mean(x^2 over axes) + epsilon) * weight; weight has the normalised axes' shape.
Expr rms_norm(Expr data, Expr weight, std::vector<int64_t> axes = {-1}, double epsilon = 1e-5);
/// TVM's dropout: the tuple (output, mask), both like `data`. Legalised in inference form
/// (output = data, mask = ones).
Expr dropout(Expr data, double rate = 0.5);

/// conv2d attributes (TVM's names). Padding: 1, 2 or 4 values (top, left, bottom, right).
/// An empty layout means the op's default (NCHW data, OIHW kernel, output like the data).
struct Conv2DOptions {
  std::vector<int64_t> strides{1, 1};
  std::vector<int64_t> padding{0, 0, 0, 0};
  std::vector<int64_t> dilation{1, 1};
  int64_t groups = 1;
  DataType out_dtype = DataType::Void();
  std::string data_layout;
  std::string kernel_layout;
  std::string out_layout;
};
/// 2-D convolution; NCHW data with OIHW weights by default, any permutation of the letters
/// through the layouts (e.g. NHWC with HWIO or OHWI).
Expr conv2d(Expr data, Expr weight, const Conv2DOptions& options = {});

/// Attributes of the convolutions of any rank (op/conv.cc). strides and dilation: one value
/// for all spatial dims or one per dim; padding: 1, dims or 2 * dims values (all befores,
/// then all afters). output_padding is for the transposed ones. Empty layouts take the op's
/// defaults: NCW / NCDHW data; OIW / OIDHW kernels, IOW / IOHW for the transposed ones.
struct ConvOptions {
  std::vector<int64_t> strides{1};
  std::vector<int64_t> padding{0};
  std::vector<int64_t> dilation{1};
  int64_t groups = 1;
  std::vector<int64_t> output_padding{0};
  std::string data_layout;
  std::string kernel_layout;
  std::string out_layout;
  DataType out_dtype = DataType::Void();
};
Expr conv1d(Expr data, Expr weight, const ConvOptions& options = {});
Expr conv3d(Expr data, Expr weight, const ConvOptions& options = {});
/// Transposed convolutions: weight (in_channels, out_channels / groups, k...) in IOW / IOHW.
Expr conv1d_transpose(Expr data, Expr weight, const ConvOptions& options = {});
Expr conv2d_transpose(Expr data, Expr weight, const ConvOptions& options = {});
Expr conv3d_transpose(Expr data, Expr weight, const ConvOptions& options = {});

/// max_pool2d / avg_pool2d attributes (TVM's names). An empty layout means NCHW.
struct Pool2DOptions {
  std::vector<int64_t> pool_size{1, 1};
  std::vector<int64_t> strides{1, 1};
  std::vector<int64_t> padding{0, 0, 0, 0};
  std::vector<int64_t> dilation{1, 1};
  bool ceil_mode = false;
  bool count_include_pad = false;
  std::string layout;
};
Expr max_pool2d(Expr data, const Pool2DOptions& options);
Expr avg_pool2d(Expr data, const Pool2DOptions& options);

/// Pooling attributes for any rank (op/pool.cc); list attributes take one value for all
/// spatial dims or one per dim (padding also 2 * dims: befores, then afters). An empty
/// layout means NCW / NCHW / NCDHW.
struct PoolOptions {
  std::vector<int64_t> pool_size{1};
  std::vector<int64_t> strides{1};
  std::vector<int64_t> padding{0};
  std::vector<int64_t> dilation{1};
  bool ceil_mode = false;
  bool count_include_pad = false;
  std::string layout;
};
Expr max_pool1d(Expr data, const PoolOptions& options);
Expr max_pool3d(Expr data, const PoolOptions& options);
Expr avg_pool1d(Expr data, const PoolOptions& options);
Expr avg_pool3d(Expr data, const PoolOptions& options);
/// Adaptive average pooling to `output_size` (1 or dims values; the input size when empty):
/// output o of a dim averages input [floor(o * in / out), ceil((o + 1) * in / out)).
Expr adaptive_avg_pool1d(Expr data, std::vector<int64_t> output_size = {},
                         const std::string& layout = "");
Expr adaptive_avg_pool2d(Expr data, std::vector<int64_t> output_size = {},
                         const std::string& layout = "");
Expr adaptive_avg_pool3d(Expr data, std::vector<int64_t> output_size = {},
                         const std::string& layout = "");

/// relax.image.resize2d attributes (TVM's names and defaults; ONNX Resize semantics, see
/// op/resize.cc). roi is (start_h, start_w, end_h, end_w), used by tf_crop_and_resize.
struct Resize2DOptions {
  std::vector<double> roi{0, 0, 0, 0};
  std::string layout = "NCHW";
  /// nearest_neighbor, linear or cubic.
  std::string method = "linear";
  /// half_pixel, align_corners, asymmetric, pytorch_half_pixel, tf_half_pixel_for_nn or
  /// tf_crop_and_resize.
  std::string coordinate_transformation_mode = "half_pixel";
  /// For nearest_neighbor: round (half away from zero), floor, ceil, round_prefer_floor,
  /// round_prefer_ceil.
  std::string rounding_method = "round";
  /// The cubic kernel's parameter (ONNX uses -0.75).
  double cubic_alpha = -0.5;
  int64_t cubic_exclude = 0;
  double extrapolation_value = 0.0;
  DataType out_dtype = DataType::Void();
};
/// Resizes the spatial axes of 4-D data to `size` (height, width; one value for both).
Expr resize2d(Expr data, std::vector<PrimExpr> size, const Resize2DOptions& options = {});

/// Scaled dot-product attention in TVM's layout: query (B, Sq, H, D), key (B, Skv, H, D),
/// value (B, Skv, H, Dv) -> (B, Sq, H, Dv). `bias` broadcasts against (B, H, Sq, Skv); `scale`
/// defaults to 1 / sqrt(D); causal_mask is "TopLeft" or "BottomRight" (or empty for none).
Expr attention(Expr query, Expr key, Expr value, std::optional<Expr> bias = std::nullopt,
               std::optional<double> scale = std::nullopt, const std::string& causal_mask = "");

}  // namespace relax::op
