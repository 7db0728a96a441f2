// Builders for the neural-network ops ("relax.nn.*"): activations, softmax, normalisation,
// convolution and pooling. Each returns an unnormalised Call (see op/op.h).
#pragma once

#include <cstdint>
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

/// conv2d attributes (TVM's names). Padding: 1, 2 or 4 values (top, left, bottom, right).
struct Conv2DOptions {
  std::vector<int64_t> strides{1, 1};
  std::vector<int64_t> padding{0, 0, 0, 0};
  std::vector<int64_t> dilation{1, 1};
  int64_t groups = 1;
  DataType out_dtype = DataType::Void();
};
/// 2-D convolution of NCHW data with OIHW weights.
Expr conv2d(Expr data, Expr weight, const Conv2DOptions& options = {});

/// max_pool2d / avg_pool2d attributes (TVM's names).
struct Pool2DOptions {
  std::vector<int64_t> pool_size{1, 1};
  std::vector<int64_t> strides{1, 1};
  std::vector<int64_t> padding{0, 0, 0, 0};
  std::vector<int64_t> dilation{1, 1};
  bool ceil_mode = false;
  bool count_include_pad = false;
};
Expr max_pool2d(Expr data, const Pool2DOptions& options);
Expr avg_pool2d(Expr data, const Pool2DOptions& options);

}  // namespace relax::op
