// The converters written out in other ops (depth_to_space, l2_normalize, mirror_pad, trilu,
// shape queries, element-wise qnn), Expr-valued attributes printed as meta references, and
// the coverage of the issue's operator list: a program calling every listed operator plus
// one unknown op is refused naming only the unknown one (the check runs before any IR).
#include <gtest/gtest.h>

#include <cmath>

#include "relay_test_util.h"

namespace relax::relay_test {
namespace {

std::string prog(const std::string& params, const std::string& body) {
  return "#[version = \"0.0.5\"]\ndef @main(" + params + ") {\n  " + body + "\n}\n";
}

TEST(RelayOpsExtra, DepthToSpaceAndBack) {
  std::vector<float> v(16);
  for (size_t k = 0; k < v.size(); ++k) v[k] = float(k);
  NDArray x = f32({1, 4, 2, 2}, v);
  // DCR: output (0, 0, 2h + i, 2w + j) = x(0, (2i + j) * 1 + 0, h, w).
  NDArray d2s = run(import_text(prog("%x: Tensor[(1, 4, 2, 2), float32]", "nn.depth_to_space(%x, block_size=2)")), {x});
  EXPECT_TRUE(tensor_close_to(d2s, {1, 1, 4, 4}, {0, 4, 1, 5, 8, 12, 9, 13, 2, 6, 3, 7, 10, 14, 11, 15}));
  NDArray round_trip = run(import_text(prog("%x: Tensor[(1, 4, 2, 2), float32]",
                                            "nn.depth_to_space(nn.space_to_depth(nn.depth_to_space(%x, block_size=2), block_size=2), block_size=2)")),
                           {x});
  EXPECT_TRUE(tensors_close(round_trip, d2s));
}

TEST(RelayOpsExtra, L2NormalizeMirrorPadTriluShapes) {
  EXPECT_TRUE(tensor_close_to(run(import_text(prog("%x: Tensor[(1, 2), float32]", "nn.l2_normalize(%x, eps=1e-12f, axis=[1])")),
                                  {f32({1, 2}, {3, 4})}),
                              {1, 2}, {0.6, 0.8}));
  EXPECT_TRUE(tensor_close_to(run(import_text(prog("%x: Tensor[(3), float32]", "nn.mirror_pad(%x, pad_width=[[2, 1]], mode=\"REFLECT\")")),
                                  {f32({3}, {1, 2, 3})}),
                              {6}, {3, 2, 1, 2, 3, 2}));
  EXPECT_TRUE(has(import_error(prog("%x: Tensor[(3), float32]", "nn.mirror_pad(%x, pad_width=[[1, 1]])")), "mode 'SYMMETRIC' is not supported"));
  EXPECT_TRUE(tensor_close_to(run(import_text(prog("%x: Tensor[(2, 2), float32]", "trilu(%x, 0, upper=False)")), {f32({2, 2}, {1, 2, 3, 4})}),
                              {2, 2}, {1, 0, 3, 4}));
  auto out = run_all(import_text(prog("%x: Tensor[(2, 3), float32]", "(shape_of(%x), ndarray_size(%x, dtype=\"int64\"))")),
                     {f32({2, 3}, {0, 0, 0, 0, 0, 0})});
  EXPECT_EQ(out[0].dtype(), DataType::Int(32));
  EXPECT_TRUE(tensor_close_to(out[0], {2}, {2, 3}));
  EXPECT_TRUE(tensor_close_to(out[1], {}, {6}));
}

TEST(RelayOpsExtra, QnnElementwise) {
  // (2 - 0) * 0.5 + (4 - 2) * 0.25 = 1.5 -> 1.5 / 0.5 + 1 = 4; (10 - 0) * 0.5 + 0 = 5 -> 11.
  NDArray r = run(import_text(prog("%a: Tensor[(2), int8], %b: Tensor[(2), int8]",
                                   "qnn.add(%a, %b, 0.5f, 0, 0.25f, 2, 0.5f, 1)")),
                  {ints<int8_t>({2}, {2, 10}, DataType::Int(8)), ints<int8_t>({2}, {4, 2}, DataType::Int(8))});
  EXPECT_EQ(r.dtype(), DataType::Int(8));
  EXPECT_TRUE(tensor_close_to(r, {2}, {4, 11}));
  NDArray m = run(import_text(prog("%a: Tensor[(1), int8], %b: Tensor[(1), int8]",
                                   "qnn.mul(%a, %b, 0.5f, 0, 0.5f, 0, 1f, 0)")),
                  {ints<int8_t>({1}, {4}, DataType::Int(8)), ints<int8_t>({1}, {6}, DataType::Int(8))});
  EXPECT_TRUE(tensor_close_to(m, {1}, {6}));
}

TEST(RelayOpsExtra, MetaReferencesInAttributesReadAsAbsent) {
  std::string text = "#[version = \"0.0.5\"]\ndef @main() {\n  arange(0f, 3f, 1f, start=meta[relay.Constant][0], dtype=\"float32\")\n}\n"
                     "#[metadata]\n{\"root\": 1, \"nodes\": [{\"type_key\": \"\"}, {\"type_key\": \"Map\", \"keys\": [\"relay.Constant\"], "
                     "\"data\": [2]}, {\"type_key\": \"Array\", \"data\": []}], \"b64ndarrays\": []}\n";
  EXPECT_TRUE(tensor_close_to(run(import_text(text), {}), {3}, {0, 1, 2}));
}

TEST(RelayOpsExtra, EveryOperatorOfTheIssueIsConverted) {
  const char* ops[] = {
      "nn.conv1d", "nn.conv2d", "nn.conv3d", "nn.conv1d_transpose", "nn.conv2d_transpose", "nn.conv3d_transpose",
      "nn.dense", "nn.matmul", "nn.batch_matmul", "nn.bias_add", "nn.batch_norm", "nn.layer_norm", "nn.group_norm",
      "nn.instance_norm", "nn.max_pool1d", "nn.max_pool2d", "nn.max_pool3d", "nn.avg_pool1d", "nn.avg_pool2d",
      "nn.avg_pool3d", "nn.global_max_pool2d", "nn.global_avg_pool2d", "nn.adaptive_avg_pool1d",
      "nn.adaptive_avg_pool2d", "nn.adaptive_avg_pool3d", "nn.adaptive_max_pool2d", "nn.softmax", "nn.log_softmax",
      "nn.relu", "nn.leaky_relu", "nn.prelu", "nn.pad", "nn.dropout", "nn.upsampling", "image.resize2d",
      "layout_transform", "reshape", "reverse_reshape", "transpose", "expand_dims", "squeeze", "concatenate", "split",
      "strided_slice", "take", "gather", "gather_nd", "scatter", "scatter_add", "scatter_elements", "scatter_nd", "where",
      "clip", "cast", "exp", "log", "sqrt", "rsqrt", "sigmoid", "tanh", "erf", "abs", "negative", "floor", "ceil", "round",
      "add", "subtract", "multiply", "divide", "power", "maximum", "minimum", "floor_divide", "floor_mod", "equal",
      "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and", "logical_or", "logical_not", "sum",
      "mean", "max", "min", "prod", "variance", "std", "all", "any", "argmax", "argmin", "topk", "one_hot", "zeros",
      "ones", "full", "zeros_like", "ones_like", "full_like", "arange", "qnn.quantize", "qnn.dequantize", "qnn.conv2d",
      "qnn.dense", "qnn.requantize"};
  std::string body = "%0 = not.an_op(%x);\n";
  for (size_t k = 0; k < std::size(ops); ++k) body += "  %a" + std::to_string(k) + " = " + ops[k] + "(%x);\n";
  std::string msg = import_error(prog("%x: Tensor[(2), float32]", body + "  %x"), "coverage");
  EXPECT_TRUE(has(msg, "unsupported Relay operators (1): not.an_op (line 3)"));
}

}  // namespace
}  // namespace relax::relay_test
