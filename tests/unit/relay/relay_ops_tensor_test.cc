// The tensor, math, indexing, creation and qnn converters run end to end against values
// computed in the test (or the same computation written as Relax script).
#include <gtest/gtest.h>

#include <cmath>

#include "relay_test_util.h"

namespace relax::relay_test {
namespace {

std::string prog(const std::string& params, const std::string& body) {
  return "#[version = \"0.0.5\"]\ndef @main(" + params + ") {\n  " + body + "\n}\n";
}

/// Runs a one-input program on `x` (float32).
NDArray run1(const std::string& x_type, const std::string& body, const NDArray& x) {
  return run(import_text(prog("%x: " + x_type, body)), {x});
}

NDArray i64(const std::vector<int64_t>& shape, const std::vector<int64_t>& v) { return ints<int64_t>(shape, v, DataType::Int(64)); }
NDArray i32(const std::vector<int64_t>& shape, const std::vector<int32_t>& v) { return ints<int32_t>(shape, v, DataType::Int(32)); }

const NDArray& x23() {
  static NDArray x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  return x;
}

TEST(RelayOpsTensor, ReshapeSpecialValues) {
  NDArray x = random_f32({2, 3, 4}, 1);
  auto shape_of = [&](const std::string& ns) {
    return run1("Tensor[(2, 3, 4), float32]", "reshape(%x, newshape=" + ns + ")", x).shape();
  };
  EXPECT_EQ(shape_of("[0, -1]"), (std::vector<int64_t>{2, 12}));
  EXPECT_EQ(shape_of("[-2]"), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(shape_of("[-3, 4]"), (std::vector<int64_t>{6, 4}));
  EXPECT_EQ(shape_of("[0, 0, -4, 2, -1]"), (std::vector<int64_t>{2, 3, 2, 2}));
  EXPECT_EQ(shape_of("[4, -1]"), (std::vector<int64_t>{4, 6}));
  // reverse_reshape matches special values from the right: (2, 3, 4) with [-1, 0] -> (6, 4).
  EXPECT_EQ(run1("Tensor[(2, 3, 4), float32]", "reverse_reshape(%x, newshape=[-1, 0])", x).shape(),
            (std::vector<int64_t>{6, 4}));
  EXPECT_TRUE(tensor_close_to(run1("Tensor[(2, 3), float32]", "reshape(%x, newshape=[3, 2])", x23()), {3, 2}, {1, 2, 3, 4, 5, 6}));
}

TEST(RelayOpsTensor, TransposeExpandSqueezeConcatStackSplit) {
  EXPECT_TRUE(tensor_close_to(run1("Tensor[(2, 3), float32]", "transpose(%x)", x23()), {3, 2}, {1, 4, 2, 5, 3, 6}));
  EXPECT_TRUE(tensor_close_to(run1("Tensor[(2, 3), float32]", "transpose(%x, axes=[-1, 0])", x23()), {3, 2}, {1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(run1("Tensor[(2, 3), float32]", "expand_dims(%x, axis=1, num_newaxis=2)", x23()).shape(), (std::vector<int64_t>{2, 1, 1, 3}));
  EXPECT_EQ(run1("Tensor[(1, 3, 1), float32]", "squeeze(%x, axis=[2])", f32({1, 3, 1}, {1, 2, 3})).shape(), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(run1("Tensor[(1, 3, 1), float32]", "squeeze(%x)", f32({1, 3, 1}, {1, 2, 3})).shape(), (std::vector<int64_t>{3}));
  EXPECT_TRUE(tensor_close_to(run1("Tensor[(2, 3), float32]", "concatenate((%x, %x), axis=-1)", x23()), {2, 6},
                              {1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6}));
  EXPECT_TRUE(tensor_close_to(run1("Tensor[(2, 3), float32]", "stack((%x, %x), axis=1)", x23()), {2, 2, 3},
                              {1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6}));
  EXPECT_TRUE(tensor_close_to(run1("Tensor[(2, 3), float32]", "%0 = split(%x, indices_or_sections=3, axis=1);\n  %0.2", x23()), {2, 1}, {3, 6}));
  EXPECT_TRUE(tensor_close_to(run1("Tensor[(2, 3), float32]", "%0 = split(%x, indices_or_sections=[1], axis=1);\n  %0.1", x23()), {2, 2},
                              {2, 3, 5, 6}));
}

TEST(RelayOpsTensor, StridedSlice) {
  NDArray x = f32({3, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  const std::string t = "Tensor[(3, 4), float32]";
  EXPECT_TRUE(tensor_close_to(run1(t, "strided_slice(%x, begin=[1, 0], end=[3, 4], strides=[1, 2])", x), {2, 2}, {4, 6, 8, 10}));
  EXPECT_TRUE(tensor_close_to(run1(t, "strided_slice(%x, begin=[-1], end=[-4], strides=[-2], axes=[1])", x), {3, 2},
                              {3, 1, 7, 5, 11, 9}));
  EXPECT_TRUE(tensor_close_to(run1(t, "strided_slice(%x, begin=[1, 1], end=[1, -1], slice_mode=\"size\")", x), {1, 3}, {5, 6, 7}));
  EXPECT_TRUE(tensor_close_to(run1(t, "strided_slice(%x, begin=[2], end=[3])", x), {1, 4}, {8, 9, 10, 11}));
}

TEST(RelayOpsTensor, TakeGatherScatter) {
  IRModule take = import_text(prog("%x: Tensor[(2, 3), float32], %i: Tensor[(2), int64]", "take(%x, %i, axis=1)"));
  // Relay's default mode clips out-of-range indices.
  EXPECT_TRUE(tensor_close_to(run(take, {x23(), i64({2}, {2, 7})}), {2, 2}, {3, 3, 6, 6}));
  EXPECT_TRUE(tensor_close_to(run(import_text(prog("%x: Tensor[(2, 3), float32], %i: Tensor[(3), int32]", "take(%x, %i)")),
                                  {x23(), i32({3}, {5, 0, 2})}),
                              {3}, {6, 1, 3}));
  EXPECT_TRUE(tensor_close_to(run(import_text(prog("%x: Tensor[(2, 3), float32], %i: Tensor[(2, 1), int64]", "gather(%x, %i, axis=1)")),
                                  {x23(), i64({2, 1}, {2, 0})}),
                              {2, 1}, {3, 4}));
  // gather_nd indexes with (M, Y...): here M = 2 index dims for Y = 2 lookups.
  EXPECT_TRUE(tensor_close_to(run(import_text(prog("%x: Tensor[(2, 3), float32], %i: Tensor[(2, 2), int64]", "gather_nd(%x, %i)")),
                                  {x23(), i64({2, 2}, {1, 0, 2, 1})}),
                              {2}, {6, 2}));
  IRModule sc = import_text(prog("%x: Tensor[(2, 3), float32], %i: Tensor[(2, 1), int64], %u: Tensor[(2, 1), float32]",
                                 "scatter_elements(%x, %i, %u, axis=1, reduction=\"add\")"));
  EXPECT_TRUE(tensor_close_to(run(sc, {x23(), i64({2, 1}, {1, 2}), f32({2, 1}, {10, 20})}), {2, 3}, {1, 12, 3, 4, 5, 26}));
  IRModule sc2 = import_text(prog("%x: Tensor[(2, 3), float32], %i: Tensor[(2, 1), int64], %u: Tensor[(2, 1), float32]",
                                  "scatter(%x, %i, %u, axis=1)"));
  EXPECT_TRUE(tensor_close_to(run(sc2, {x23(), i64({2, 1}, {1, 2}), f32({2, 1}, {10, 20})}), {2, 3}, {1, 10, 3, 4, 5, 20}));
  IRModule nd = import_text(prog("%x: Tensor[(2, 3), float32], %i: Tensor[(2, 1), int64], %u: Tensor[(1), float32]",
                                 "scatter_nd(%x, %i, %u, mode=\"add\")"));
  EXPECT_TRUE(tensor_close_to(run(nd, {x23(), i64({2, 1}, {1, 2}), f32({1}, {100})}), {2, 3}, {1, 2, 3, 4, 5, 106}));
}

TEST(RelayOpsTensor, WhereArgTopkOneHot) {
  IRModule w = import_text(prog("%c: Tensor[(3), bool], %x: Tensor[(3), float32]", "where(%c, %x, negative(%x))"));
  EXPECT_TRUE(tensor_close_to(run(w, {ints<uint8_t>({3}, {1, 0, 1}, DataType::Bool()), f32({3}, {1, 2, 3})}), {3}, {1, -2, 3}));
  NDArray am = run1("Tensor[(2, 3), float32]", "argmax(%x, axis=[1])", f32({2, 3}, {1, 9, 3, 7, 5, 6}));
  EXPECT_EQ(am.dtype(), DataType::Int(32));
  EXPECT_TRUE(tensor_close_to(am, {2}, {1, 0}));
  EXPECT_TRUE(tensor_close_to(run1("Tensor[(2, 3), float32]", "argmin(%x, axis=[0], keepdims=True)", f32({2, 3}, {1, 9, 3, 7, 5, 6})),
                              {1, 3}, {0, 1, 0}));
  auto tk = run_all(import_text(prog("%x: Tensor[(5), float32]", "topk(%x, k=2)")), {f32({5}, {3, 9, 1, 7, 5})});
  ASSERT_EQ(tk.size(), 2u);
  EXPECT_TRUE(tensor_close_to(tk[0], {2}, {9, 7}));
  EXPECT_TRUE(tensor_close_to(tk[1], {2}, {1, 3}));
  EXPECT_TRUE(tensor_close_to(run1("Tensor[(5), float32]", "topk(%x, k=2, ret_type=\"values\", is_ascend=True)", f32({5}, {3, 9, 1, 7, 5})),
                              {2}, {1, 3}));
  NDArray oh = run(import_text(prog("%i: Tensor[(2), int32]", "one_hot(%i, 5f, 0f, depth=3)")),
                   {i32({2}, {2, 0})});
  EXPECT_TRUE(tensor_close_to(oh, {2, 3}, {0, 0, 5, 5, 0, 0}));
  EXPECT_TRUE(tensor_close_to(run1("Tensor[(4), float32]", "sort(%x)", f32({4}, {3, 1, 4, 2})), {4}, {1, 2, 3, 4}));
  EXPECT_TRUE(tensor_close_to(run1("Tensor[(4), float32]", "argsort(%x, is_ascend=False)", f32({4}, {3, 1, 4, 2})), {4}, {2, 0, 3, 1}));
  EXPECT_TRUE(tensor_close_to(run1("Tensor[(4), float32]", "cumsum(%x, axis=0, exclusive=True)", f32({4}, {1, 2, 3, 4})), {4}, {0, 1, 3, 6}));
}

TEST(RelayOpsTensor, CreationOps) {
  IRModule m = import_text(prog("%x: Tensor[(2), float32]",
                                "(zeros(shape=[2, 2], dtype=\"float32\"), ones(shape=[3], dtype=\"int64\"), full(7f, shape=[2], dtype=\"float32\"), "
                                "zeros_like(%x), ones_like(%x), full_like(%x, 3f), arange(1f, 7f, 2f, dtype=\"float32\"), arange(4i64, dtype=\"int64\"))"));
  auto out = run_all(m, {f32({2}, {5, 6})});
  ASSERT_EQ(out.size(), 8u);
  EXPECT_TRUE(tensor_close_to(out[0], {2, 2}, {0, 0, 0, 0}));
  EXPECT_EQ(out[1].dtype(), DataType::Int(64));
  EXPECT_TRUE(tensor_close_to(out[1], {3}, {1, 1, 1}));
  EXPECT_TRUE(tensor_close_to(out[2], {2}, {7, 7}));
  EXPECT_TRUE(tensor_close_to(out[3], {2}, {0, 0}));
  EXPECT_TRUE(tensor_close_to(out[4], {2}, {1, 1}));
  EXPECT_TRUE(tensor_close_to(out[5], {2}, {3, 3}));
  EXPECT_TRUE(tensor_close_to(out[6], {3}, {1, 3, 5}));
  EXPECT_TRUE(tensor_close_to(out[7], {4}, {0, 1, 2, 3}));
}

TEST(RelayOpsTensor, LayoutTransformBroadcastTileRepeatReverse) {
  NDArray x = f32({1, 4, 1, 2}, {0, 1, 2, 3, 4, 5, 6, 7});  // NCHW, C = 4
  EXPECT_TRUE(tensor_close_to(run1("Tensor[(1, 4, 1, 2), float32]", "layout_transform(%x, src_layout=\"NCHW\", dst_layout=\"NHWC\")", x),
                              {1, 1, 2, 4}, {0, 2, 4, 6, 1, 3, 5, 7}));
  EXPECT_TRUE(tensor_close_to(run1("Tensor[(1, 4, 1, 2), float32]", "layout_transform(%x, src_layout=\"NCHW\", dst_layout=\"NCHW2c\")", x),
                              {1, 2, 1, 2, 2}, {0, 2, 1, 3, 4, 6, 5, 7}));
  EXPECT_TRUE(tensor_close_to(run1("Tensor[(2), float32]", "broadcast_to(%x, shape=[2, 2])", f32({2}, {1, 2})), {2, 2}, {1, 2, 1, 2}));
  EXPECT_TRUE(tensor_close_to(run1("Tensor[(2), float32]", "tile(%x, reps=[2])", f32({2}, {1, 2})), {4}, {1, 2, 1, 2}));
  EXPECT_TRUE(tensor_close_to(run1("Tensor[(2), float32]", "repeat(%x, repeats=2, axis=0)", f32({2}, {1, 2})), {4}, {1, 1, 2, 2}));
  EXPECT_TRUE(tensor_close_to(run1("Tensor[(2, 2), float32]", "repeat(%x, repeats=2)", f32({2, 2}, {1, 2, 3, 4})), {8},
                              {1, 1, 2, 2, 3, 3, 4, 4}));
  EXPECT_TRUE(tensor_close_to(run1("Tensor[(2, 3), float32]", "reverse(%x, axis=1)", x23()), {2, 3}, {3, 2, 1, 6, 5, 4}));
}

TEST(RelayOpsTensor, ElementwiseAndComparisons) {
  NDArray x = f32({4}, {0.25, 1, 2, 4});
  const std::string t = "Tensor[(4), float32]";
  EXPECT_TRUE(tensor_close_to(run1(t, "sqrt(%x)", x), {4}, {0.5, 1, std::sqrt(2.0), 2}));
  EXPECT_TRUE(tensor_close_to(run1(t, "rsqrt(%x)", x), {4}, {2, 1, 1 / std::sqrt(2.0), 0.5}));
  EXPECT_TRUE(tensor_close_to(run1(t, "log(exp(%x))", x), {4}, {0.25, 1, 2, 4}));
  EXPECT_TRUE(tensor_close_to(run1(t, "sigmoid(%x)", x), {4}, {1 / (1 + std::exp(-0.25)), 1 / (1 + std::exp(-1.0)), 1 / (1 + std::exp(-2.0)), 1 / (1 + std::exp(-4.0))}));
  EXPECT_TRUE(tensor_close_to(run1(t, "tanh(%x)", x), {4}, {std::tanh(0.25), std::tanh(1.0), std::tanh(2.0), std::tanh(4.0)}));
  EXPECT_TRUE(tensor_close_to(run1(t, "power(%x, 2f)", x), {4}, {0.0625, 1, 4, 16}));
  EXPECT_TRUE(tensor_close_to(run1(t, "maximum(%x, 1.5f)", x), {4}, {1.5, 1.5, 2, 4}));
  EXPECT_TRUE(tensor_close_to(run1(t, "floor_mod(%x, 1.5f)", x), {4}, {0.25, 1, 0.5, 1}));
  EXPECT_TRUE(tensor_close_to(run1(t, "cast(greater_equal(%x, 2f), dtype=\"float32\")", x), {4}, {0, 0, 1, 1}));
  EXPECT_TRUE(tensor_close_to(run1(t, "cast(logical_and(less(%x, 3f), not_equal(%x, 1f)), dtype=\"int32\")", x), {4}, {1, 0, 1, 0}));
  EXPECT_TRUE(tensor_close_to(run1(t, "clip(%x, a_min=0.5f, a_max=3f)", x), {4}, {0.5, 1, 2, 3}));
  EXPECT_TRUE(tensor_close_to(run1(t, "log2(%x)", x), {4}, {-2, 0, 1, 2}));
  EXPECT_TRUE(tensor_close_to(run1(t, "log10(multiply(%x, 25f))", x), {4}, {std::log10(6.25), std::log10(25.0), std::log10(50.0), 2}));
  IRModule ti = import_text(prog("%a: Tensor[(2), int32], %b: Tensor[(2), int32]", "(trunc_divide(%a, %b), trunc_mod(%a, %b), floor_divide(%a, %b))"));
  auto r = run_all(ti, {i32({2}, {-7, 7}), i32({2}, {2, -2})});
  EXPECT_TRUE(tensor_close_to(r[0], {2}, {-3, -3}));
  EXPECT_TRUE(tensor_close_to(r[1], {2}, {-1, 1}));
  EXPECT_TRUE(tensor_close_to(r[2], {2}, {-4, -4}));
  NDArray c = run1(t, "cast(%x, dtype=\"int32\")", f32({4}, {1.7f, -1.7f, 2, 0}));
  EXPECT_EQ(c.dtype(), DataType::Int(32));
  EXPECT_TRUE(tensor_close_to(c, {4}, {1, -1, 2, 0}));
}

TEST(RelayOpsTensor, Reductions) {
  const std::string t = "Tensor[(2, 3), float32]";
  EXPECT_TRUE(tensor_close_to(run1(t, "sum(%x, axis=[1])", x23()), {2}, {6, 15}));
  EXPECT_TRUE(tensor_close_to(run1(t, "sum(%x)", x23()), {}, {21}));
  EXPECT_TRUE(tensor_close_to(run1(t, "mean(%x, axis=[1], exclude=True)", x23()), {3}, {2.5, 3.5, 4.5}));
  EXPECT_TRUE(tensor_close_to(run1(t, "max(%x, axis=[0], keepdims=True)", x23()), {1, 3}, {4, 5, 6}));
  EXPECT_TRUE(tensor_close_to(run1(t, "min(%x, axis=[-1])", x23()), {2}, {1, 4}));
  EXPECT_TRUE(tensor_close_to(run1(t, "prod(%x, axis=[0])", x23()), {3}, {4, 10, 18}));
  EXPECT_TRUE(tensor_close_to(run1(t, "variance(%x, mean(%x, axis=[1], keepdims=True), axis=[1])", x23()), {2}, {2.0 / 3, 2.0 / 3}));
  EXPECT_TRUE(tensor_close_to(run1(t, "std(%x, mean(%x, axis=[1], keepdims=True), axis=[1], unbiased=True)", x23()), {2}, {1, 1}));
  EXPECT_TRUE(tensor_close_to(run1(t, "cast(all(greater(%x, 1f), axis=[1]), dtype=\"int32\")", x23()), {2}, {0, 1}));
  EXPECT_TRUE(tensor_close_to(run1(t, "cast(any(greater(%x, 5f), axis=[1]), dtype=\"int32\")", x23()), {2}, {0, 1}));
}

TEST(RelayOpsTensor, Qnn) {
  // quantize: round(x / 0.5) + 10, clipped to uint8; dequantize back; requantize to another scale.
  IRModule q = import_text(prog("%x: Tensor[(4), float32]",
                                "qnn.quantize(%x, 0.5f, 10, out_dtype=\"uint8\")"));
  NDArray qv = run(q, {f32({4}, {0, 1.2f, -20, 200})});
  EXPECT_EQ(qv.dtype(), DataType::UInt(8));
  EXPECT_TRUE(tensor_close_to(qv, {4}, {10, 12, 0, 255}));
  EXPECT_TRUE(tensor_close_to(run(import_text(prog("%q: Tensor[(3), uint8]", "qnn.dequantize(%q, 0.5f, 10)")),
                                  {ints<uint8_t>({3}, {10, 12, 0}, DataType::UInt(8))}),
                              {3}, {0, 1, -5}));
  NDArray rq = run(import_text(prog("%q: Tensor[(3), int8]", "qnn.requantize(%q, 0.5f, 0, 0.25f, 1, out_dtype=\"int8\")")),
                   {ints<int8_t>({3}, {4, -2, 100}, DataType::Int(8))});
  EXPECT_TRUE(tensor_close_to(rq, {3}, {9, -3, 127}));
  // qnn.dense: (x - 1) . (w - 2)^T in int32.
  NDArray d = run(import_text(prog("%x: Tensor[(1, 2), int8], %w: Tensor[(2, 2), int8]",
                                   "qnn.dense(%x, %w, 1, 2, 0.5f, 0.5f, units=2)")),
                  {ints<int8_t>({1, 2}, {3, 5}, DataType::Int(8)), ints<int8_t>({2, 2}, {3, 2, 4, 6}, DataType::Int(8))});
  EXPECT_EQ(d.dtype(), DataType::Int(32));
  EXPECT_TRUE(tensor_close_to(d, {1, 2}, {2, 20}));
  NDArray cv = run(import_text(prog("%x: Tensor[(1, 1, 2, 2), uint8], %w: Tensor[(1, 1, 1, 1), int8]",
                                    "qnn.conv2d(%x, %w, 2, 0, 1f, 1f, kernel_size=[1, 1], channels=1)")),
                   {ints<uint8_t>({1, 1, 2, 2}, {2, 3, 4, 5}, DataType::UInt(8)), ints<int8_t>({1, 1, 1, 1}, {3}, DataType::Int(8))});
  EXPECT_TRUE(tensor_close_to(cv, {1, 1, 2, 2}, {0, 3, 6, 9}));
}

}  // namespace
}  // namespace relax::relay_test
