// The nn.* converters run end to end: each Relay program's result against values computed in
// the test, or against the same computation written as Relax script.
#include <gtest/gtest.h>

#include <cmath>

#include "relay_test_util.h"

namespace relax::relay_test {
namespace {

/// A Relay program: def @main(params) { body }.
std::string prog(const std::string& params, const std::string& body) {
  return "#[version = \"0.0.5\"]\ndef @main(" + params + ") {\n  " + body + "\n}\n";
}

/// A Relax script module with main(params) returning `body`.
std::string rx(const std::string& params, const std::string& body) {
  return "@R.function\ndef main(" + params + "):\n    gv = " + body + "\n    return gv\n";
}

TEST(RelayOpsNN, Conv2dLayoutsStridesGroups) {
  expect_same(prog("%x: Tensor[(1, 8, 8, 4), float32], %w: Tensor[(3, 3, 2, 6), float32]",
                   "nn.conv2d(%x, %w, strides=[2, 1], padding=[1, 0, 1, 2], groups=2, channels=6, kernel_size=[3, 3], "
                   "data_layout=\"NHWC\", kernel_layout=\"HWIO\")"),
              rx("x: R.Tensor((1, 8, 8, 4), \"float32\"), w: R.Tensor((3, 3, 2, 6), \"float32\")",
                 "R.nn.conv2d(x, w, strides=[2, 1], padding=[1, 0, 1, 2], groups=2, data_layout=\"NHWC\", kernel_layout=\"HWIO\")"),
              {random_f32({1, 8, 8, 4}, 1), random_f32({3, 3, 2, 6}, 2)}, 1e-5, "conv2d");
}

TEST(RelayOpsNN, Conv2dByHand) {
  // A 3x3 input, a 2x2 kernel of ones: each output sums a window.
  NDArray out = run(import_text(prog("%x: Tensor[(1, 1, 3, 3), float32], %w: Tensor[(1, 1, 2, 2), float32]",
                                     "nn.conv2d(%x, %w, padding=[0, 0, 0, 0], kernel_size=[2, 2])")),
                    {f32({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}), f32({1, 1, 2, 2}, {1, 1, 1, 1})});
  EXPECT_TRUE(tensor_close_to(out, {1, 1, 2, 2}, {12, 16, 24, 28}));
}

TEST(RelayOpsNN, Conv1dConv3dAndTransposes) {
  expect_same(prog("%x: Tensor[(1, 2, 9), float32], %w: Tensor[(4, 2, 3), float32]",
                   "nn.conv1d(%x, %w, strides=[2], padding=[1, 2], dilation=[2])"),
              rx("x: R.Tensor((1, 2, 9), \"float32\"), w: R.Tensor((4, 2, 3), \"float32\")",
                 "R.nn.conv1d(x, w, strides=[2], padding=[1, 2], dilation=[2])"),
              {random_f32({1, 2, 9}, 3), random_f32({4, 2, 3}, 4)}, 1e-5, "conv1d");
  expect_same(prog("%x: Tensor[(1, 2, 4, 4, 4), float32], %w: Tensor[(3, 2, 2, 2, 2), float32]",
                   "nn.conv3d(%x, %w, padding=[1, 1, 1, 0, 0, 0])"),
              rx("x: R.Tensor((1, 2, 4, 4, 4), \"float32\"), w: R.Tensor((3, 2, 2, 2, 2), \"float32\")",
                 "R.nn.conv3d(x, w, padding=[1, 1, 1, 0, 0, 0])"),
              {random_f32({1, 2, 4, 4, 4}, 5), random_f32({3, 2, 2, 2, 2}, 6)}, 1e-5, "conv3d");
  expect_same(prog("%x: Tensor[(1, 4, 5, 5), float32], %w: Tensor[(4, 3, 3, 3), float32]",
                   "nn.conv2d_transpose(%x, %w, strides=[2, 2], padding=[1, 1, 1, 1], output_padding=[1, 1], kernel_layout=\"IOHW\")"),
              rx("x: R.Tensor((1, 4, 5, 5), \"float32\"), w: R.Tensor((4, 3, 3, 3), \"float32\")",
                 "R.nn.conv2d_transpose(x, w, strides=[2, 2], padding=[1, 1, 1, 1], output_padding=[1, 1])"),
              {random_f32({1, 4, 5, 5}, 7), random_f32({4, 3, 3, 3}, 8)}, 1e-5, "conv2dt");
  // Legacy "OIHW" on a transposed conv means (in, out, kh, kw).
  expect_same(prog("%x: Tensor[(1, 2, 6), float32], %w: Tensor[(2, 3, 3), float32]",
                   "nn.conv1d_transpose(%x, %w, strides=[2], kernel_layout=\"OIW\")"),
              rx("x: R.Tensor((1, 2, 6), \"float32\"), w: R.Tensor((2, 3, 3), \"float32\")",
                 "R.nn.conv1d_transpose(x, w, strides=[2])"),
              {random_f32({1, 2, 6}, 9), random_f32({2, 3, 3}, 10)}, 1e-5, "conv1dt");
}

TEST(RelayOpsNN, ConvChannelsLastLayoutsAndOutDtype) {
  expect_same(prog("%x: Tensor[(1, 7, 3), float32], %w: Tensor[(3, 3, 5), float32]",
                   "nn.conv1d(%x, %w, padding=[1, 1], data_layout=\"NWC\", kernel_layout=\"WIO\")"),
              rx("x: R.Tensor((1, 7, 3), \"float32\"), w: R.Tensor((3, 3, 5), \"float32\")",
                 "R.nn.conv1d(x, w, padding=[1, 1], data_layout=\"NWC\", kernel_layout=\"WIO\")"),
              {random_f32({1, 7, 3}, 21), random_f32({3, 3, 5}, 22)}, 1e-5, "conv1d_nwc");
  expect_same(prog("%x: Tensor[(1, 3, 3, 3, 2), float32], %w: Tensor[(2, 2, 2, 2, 4), float32]",
                   "nn.conv3d(%x, %w, data_layout=\"NDHWC\", kernel_layout=\"DHWIO\", out_layout=\"NCDHW\")"),
              rx("x: R.Tensor((1, 3, 3, 3, 2), \"float32\"), w: R.Tensor((2, 2, 2, 2, 4), \"float32\")",
                 "R.nn.conv3d(x, w, data_layout=\"NDHWC\", kernel_layout=\"DHWIO\", out_layout=\"NCDHW\")"),
              {random_f32({1, 3, 3, 3, 2}, 23), random_f32({2, 2, 2, 2, 4}, 24)}, 1e-5, "conv3d_ndhwc");
  // int8 data and weights accumulated in int32.
  NDArray out = run(import_text(prog("%x: Tensor[(1, 1, 2, 2), int8], %w: Tensor[(1, 1, 2, 2), int8]",
                                     "nn.conv2d(%x, %w, kernel_size=[2, 2], out_dtype=\"int32\")")),
                    {ints<int8_t>({1, 1, 2, 2}, {100, 100, 100, 100}, DataType::Int(8)),
                     ints<int8_t>({1, 1, 2, 2}, {100, 100, 100, 100}, DataType::Int(8))});
  EXPECT_EQ(out.dtype(), DataType::Int(32));
  EXPECT_TRUE(tensor_close_to(out, {1, 1, 1, 1}, {40000}));
}

TEST(RelayOpsNN, DenseMatmulBatchMatmul) {
  NDArray x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  NDArray w = f32({2, 3}, {1, 0, 0, 0, 1, 1});  // units x in
  EXPECT_TRUE(tensor_close_to(run(import_text(prog("%x: Tensor[(2, 3), float32], %w: Tensor[(2, 3), float32]",
                                                   "nn.dense(%x, %w, units=2)")), {x, w}),
                              {2, 2}, {1, 5, 4, 11}));
  EXPECT_TRUE(tensor_close_to(run(import_text(prog("%x: Tensor[(2, 3), float32], %w: Tensor[(2, 3), float32]",
                                                   "nn.matmul(%x, %w, transpose_b=True)")), {x, w}),
                              {2, 2}, {1, 5, 4, 11}));
  // transpose_b=True (what relay.nn.batch_matmul passes by default): (1, 2, 3) x (1, 2, 3)^T.
  EXPECT_TRUE(tensor_close_to(run(import_text(prog("%x: Tensor[(1, 2, 3), float32], %w: Tensor[(1, 2, 3), float32]",
                                                   "nn.batch_matmul(%x, %w, transpose_b=True)")),
                                  {f32({1, 2, 3}, {1, 2, 3, 4, 5, 6}), f32({1, 2, 3}, {1, 0, 0, 0, 1, 1})}),
                              {1, 2, 2}, {1, 5, 4, 11}));
  // Absent attributes take the C++ defaults (the printer omits them): no transposes.
  EXPECT_TRUE(tensor_close_to(run(import_text(prog("%x: Tensor[(1, 2, 3), float32], %w: Tensor[(1, 3, 1), float32]",
                                                   "nn.batch_matmul(%x, %w)")),
                                  {f32({1, 2, 3}, {1, 2, 3, 4, 5, 6}), f32({1, 3, 1}, {1, 1, 1})}),
                              {1, 2, 1}, {6, 15}));
  EXPECT_TRUE(tensor_close_to(run(import_text(prog("%x: Tensor[(1, 3, 2), float32], %w: Tensor[(1, 3, 1), float32]",
                                                   "nn.batch_matmul(%x, %w, transpose_a=True, transpose_b=False)")),
                                  {f32({1, 3, 2}, {1, 4, 2, 5, 3, 6}), f32({1, 3, 1}, {1, 1, 1})}),
                              {1, 2, 1}, {6, 15}));
}

TEST(RelayOpsNN, BiasAddAlongAxis) {
  NDArray x = f32({2, 2, 2}, {0, 0, 0, 0, 0, 0, 0, 0});
  EXPECT_TRUE(tensor_close_to(run(import_text(prog("%x: Tensor[(2, 2, 2), float32], %b: Tensor[(2), float32]",
                                                   "nn.bias_add(%x, %b)")), {x, f32({2}, {1, 2})}),
                              {2, 2, 2}, {1, 1, 2, 2, 1, 1, 2, 2}));
  EXPECT_TRUE(tensor_close_to(run(import_text(prog("%x: Tensor[(2, 2, 2), float32], %b: Tensor[(2), float32]",
                                                   "nn.bias_add(%x, %b, axis=-1)")), {x, f32({2}, {1, 2})}),
                              {2, 2, 2}, {1, 2, 1, 2, 1, 2, 1, 2}));
}

TEST(RelayOpsNN, Normalisations) {
  // batch_norm: (x - mean) / sqrt(var + eps) * gamma + beta per channel; the tuple's field 0.
  NDArray out = run(import_text(prog("%x: Tensor[(1, 2, 1, 2), float32], %g: Tensor[(2), float32], %b: Tensor[(2), float32], "
                                     "%m: Tensor[(2), float32], %v: Tensor[(2), float32]",
                                     "%0 = nn.batch_norm(%x, %g, %b, %m, %v, epsilon=0f);\n  %0.0")),
                    {f32({1, 2, 1, 2}, {1, 3, 10, 20}), f32({2}, {2, 1}), f32({2}, {0, 1}), f32({2}, {1, 10}),
                     f32({2}, {4, 25})});
  EXPECT_TRUE(tensor_close_to(out, {1, 2, 1, 2}, {0, 2, 1, 3}));
  // layer_norm over the last axis, center=False drops beta.
  out = run(import_text(prog("%x: Tensor[(1, 4), float32], %g: Tensor[(4), float32], %b: Tensor[(4), float32]",
                             "nn.layer_norm(%x, %g, %b, epsilon=0f, center=False)")),
            {f32({1, 4}, {1, 2, 3, 4}), f32({4}, {1, 1, 1, 2}), f32({4}, {5, 5, 5, 5})});
  double s = std::sqrt(1.25);
  EXPECT_TRUE(tensor_close_to(out, {1, 4}, {-1.5 / s, -0.5 / s, 0.5 / s, 3 / s}, 1e-5, 1e-5));
  expect_same(prog("%x: Tensor[(2, 4, 3), float32], %g: Tensor[(4), float32], %b: Tensor[(4), float32]",
                   "nn.group_norm(%x, %g, %b, num_groups=2, epsilon=1e-05f)"),
              rx("x: R.Tensor((2, 4, 3), \"float32\"), g: R.Tensor((4,), \"float32\"), b: R.Tensor((4,), \"float32\")",
                 "R.nn.group_norm(x, g, b, num_groups=2, channel_axis=1, axes=[2], epsilon=1e-05)"),
              {random_f32({2, 4, 3}, 11), random_f32({4}, 12), random_f32({4}, 13)}, 1e-5, "groupnorm");
  // instance_norm: each (sample, channel) normalised over its spatial values.
  out = run(import_text(prog("%x: Tensor[(1, 2, 2), float32], %g: Tensor[(2), float32], %b: Tensor[(2), float32]",
                             "nn.instance_norm(%x, %g, %b, epsilon=0f)")),
            {f32({1, 2, 2}, {1, 3, 5, 9}), f32({2}, {1, 2}), f32({2}, {0, 1})});
  EXPECT_TRUE(tensor_close_to(out, {1, 2, 2}, {-1, 1, -1, 3}));
}

TEST(RelayOpsNN, Pooling) {
  NDArray x = f32({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  EXPECT_TRUE(tensor_close_to(run(import_text(prog("%x: Tensor[(1, 1, 3, 3), float32]",
                                                   "nn.max_pool2d(%x, pool_size=[2, 2], strides=[2, 2], ceil_mode=True)")), {x}),
                              {1, 1, 2, 2}, {5, 6, 8, 9}));
  EXPECT_TRUE(tensor_close_to(run(import_text(prog("%x: Tensor[(1, 1, 3, 3), float32]",
                                                   "nn.avg_pool2d(%x, pool_size=[2, 2], padding=[1, 1, 0, 0], count_include_pad=True)")), {x}),
                              {1, 1, 3, 3}, {0.25, 0.75, 1.25, 1.25, 3, 4, 2.75, 6, 7}));
  EXPECT_TRUE(tensor_close_to(run(import_text(prog("%x: Tensor[(1, 1, 3, 3), float32]", "nn.global_max_pool2d(%x)")), {x}),
                              {1, 1, 1, 1}, {9}));
  EXPECT_TRUE(tensor_close_to(run(import_text(prog("%x: Tensor[(1, 3, 3, 1), float32]", "nn.global_avg_pool2d(%x, layout=\"NHWC\")")),
                                  {f32({1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9})}),
                              {1, 1, 1, 1}, {5}));
  EXPECT_TRUE(tensor_close_to(run(import_text(prog("%x: Tensor[(1, 1, 4), float32]", "nn.adaptive_avg_pool1d(%x, output_size=[2])")),
                                  {f32({1, 1, 4}, {1, 3, 5, 7})}),
                              {1, 1, 2}, {2, 6}));
  EXPECT_TRUE(tensor_close_to(run(import_text(prog("%x: Tensor[(1, 1, 3, 3), float32]", "nn.adaptive_max_pool2d(%x, output_size=[1, 1])")), {x}),
                              {1, 1, 1, 1}, {9}));
  expect_same(prog("%x: Tensor[(1, 2, 7), float32]", "nn.avg_pool1d(%x, pool_size=[3], strides=[2], padding=[1, 1])"),
              rx("x: R.Tensor((1, 2, 7), \"float32\")", "R.nn.avg_pool1d(x, pool_size=[3], strides=[2], padding=[1, 1])"),
              {random_f32({1, 2, 7}, 14)}, 1e-5, "pool1d");
  expect_same(prog("%x: Tensor[(1, 1, 4, 4, 4), float32]", "nn.max_pool3d(%x, pool_size=[2, 2, 2], strides=[2, 2, 2])"),
              rx("x: R.Tensor((1, 1, 4, 4, 4), \"float32\")", "R.nn.max_pool3d(x, pool_size=[2, 2, 2], strides=[2, 2, 2])"),
              {random_f32({1, 1, 4, 4, 4}, 15)}, 1e-5, "pool3d");
  EXPECT_TRUE(tensor_close_to(run(import_text(prog("%x: Tensor[(1, 1, 2, 4), float32]", "nn.adaptive_max_pool2d(%x, output_size=[1, 2])")),
                                  {f32({1, 1, 2, 4}, {1, 5, 2, 0, 3, 4, 8, 7})}),
                              {1, 1, 1, 2}, {5, 8}));
  EXPECT_TRUE(has(import_error(prog("%x: Tensor[(1, 1, 5, 5), float32]", "nn.adaptive_max_pool2d(%x, output_size=[2, 2])")),
                  "adaptive max pooling needs output sizes dividing the input (5 to 2)"));
}

TEST(RelayOpsNN, SoftmaxAndActivations) {
  double e1 = std::exp(1.0), e2 = std::exp(2.0);
  EXPECT_TRUE(tensor_close_to(run(import_text(prog("%x: Tensor[(2, 2), float32]", "nn.softmax(%x, axis=0)")),
                                  {f32({2, 2}, {1, 0, 2, 0})}),
                              {2, 2}, {e1 / (e1 + e2), 0.5, e2 / (e1 + e2), 0.5}));
  EXPECT_TRUE(tensor_close_to(run(import_text(prog("%x: Tensor[(2), float32]", "nn.log_softmax(%x)")), {f32({2}, {0, 0})}),
                              {2}, {std::log(0.5), std::log(0.5)}));
  NDArray x = f32({4}, {-2, -1, 0, 3});
  EXPECT_TRUE(tensor_close_to(run(import_text(prog("%x: Tensor[(4), float32]", "nn.relu(%x)")), {x}), {4}, {0, 0, 0, 3}));
  EXPECT_TRUE(tensor_close_to(run(import_text(prog("%x: Tensor[(4), float32]", "nn.leaky_relu(%x, alpha=0.5f)")), {x}),
                              {4}, {-1, -0.5, 0, 3}));
  EXPECT_TRUE(tensor_close_to(run(import_text(prog("%x: Tensor[(4), float32]", "nn.leaky_relu(%x)")), {x}),  // C++ default 0.25
                              {4}, {-0.5, -0.25, 0, 3}));
  EXPECT_TRUE(tensor_close_to(run(import_text(prog("%x: Tensor[(1, 2, 2), float32], %a: Tensor[(2), float32]", "nn.prelu(%x, %a)")),
                                  {f32({1, 2, 2}, {-2, 2, -2, 2}), f32({2}, {0.5, 0.25})}),
                              {1, 2, 2}, {-1, 2, -0.5, 2}));
  // dropout is the identity at inference; field 0 of its tuple.
  EXPECT_TRUE(tensor_close_to(run(import_text(prog("%x: Tensor[(4), float32]", "%0 = nn.dropout(%x, rate=0.3f);\n  %0.0")), {x}),
                              {4}, {-2, -1, 0, 3}));
}

TEST(RelayOpsNN, PadFlattenUpsamplingResize) {
  EXPECT_TRUE(tensor_close_to(run(import_text(prog("%x: Tensor[(1, 2), float32]", "nn.pad(%x, 7f, pad_width=[[1, 0], [0, 2]])")),
                                  {f32({1, 2}, {1, 2})}),
                              {2, 4}, {7, 7, 7, 7, 1, 2, 7, 7}));
  EXPECT_TRUE(tensor_close_to(run(import_text(prog("%x: Tensor[(3), float32]", "nn.pad(%x, 0f, pad_width=[[2, 1]], pad_mode=\"edge\")")),
                                  {f32({3}, {1, 2, 3})}),
                              {6}, {1, 1, 1, 2, 3, 3}));
  EXPECT_TRUE(tensor_close_to(run(import_text(prog("%x: Tensor[(2, 1, 2), float32]", "nn.batch_flatten(%x)")),
                                  {f32({2, 1, 2}, {1, 2, 3, 4})}),
                              {2, 2}, {1, 2, 3, 4}));
  EXPECT_TRUE(tensor_close_to(run(import_text(prog("%x: Tensor[(1, 1, 2, 2), float32]", "nn.upsampling(%x, scale_h=2f, scale_w=2f)")),
                                  {f32({1, 1, 2, 2}, {1, 2, 3, 4})}),
                              {1, 1, 4, 4}, {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}));
  EXPECT_TRUE(tensor_close_to(run(import_text(prog("%x: Tensor[(1, 1, 1, 2), float32]",
                                                   "image.resize2d(%x, size=[1, 3], method=\"linear\", coordinate_transformation_mode=\"align_corners\")")),
                                  {f32({1, 1, 1, 2}, {0, 4})}),
                              {1, 1, 1, 3}, {0, 2, 4}));
  expect_same(prog("%x: Tensor[(1, 5, 5, 2), float32]",
                   "image.resize2d(%x, size=[3, 7], layout=\"NHWC\", method=\"cubic\", cubic_alpha=-0.75f)"),
              rx("x: R.Tensor((1, 5, 5, 2), \"float32\")",
                 "R.image.resize2d(x, R.shape([3, 7]), layout=\"NHWC\", method=\"cubic\", cubic_alpha=-0.75, rounding_method=\"floor\")"),
              {random_f32({1, 5, 5, 2}, 16)}, 1e-5, "resize");
}

}  // namespace
}  // namespace relax::relay_test
