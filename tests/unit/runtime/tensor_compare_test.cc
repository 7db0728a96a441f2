// The tests' shared tensor comparison (tests/common/tensor_compare.h): tolerances, NaN and
// infinities, exact integers, and messages that name the first differing index.
#include "../../common/tensor_compare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace relax::test {
namespace {

using runtime::NDArray;

template <class T>
NDArray array(const std::vector<int64_t>& shape, DataType t, const std::vector<T>& values) {
  NDArray a = NDArray::empty(shape, t);
  EXPECT_EQ(size_t(a.numel()), values.size());
  std::memcpy(a.data(), values.data(), a.nbytes());
  return a;
}

NDArray f32(const std::vector<int64_t>& shape, const std::vector<float>& values) {
  return array(shape, DataType::Float(32), values);
}

std::string message_of(const ::testing::AssertionResult& r) {
  EXPECT_FALSE(r) << "expected a mismatch";
  return r.message();
}

TEST(TensorCompare, ToleranceIsAbsolutePlusRelative) {
  NDArray want = f32({2}, {1, 100});
  EXPECT_TRUE(tensors_close(f32({2}, {1.5f, 100}), want, 0, 0.5));
  EXPECT_FALSE(tensors_close(f32({2}, {1.6f, 100}), want, 0, 0.5));
  EXPECT_TRUE(tensors_close(f32({2}, {1, 110}), want, 0.1, 0));
  EXPECT_FALSE(tensors_close(f32({2}, {1, 111}), want, 0.1, 0));
  EXPECT_TRUE(tensors_close(f32({2}, {1.5f, 110.5f}), want, 0.1, 0.5));
  // rtol = atol = 0: equality.
  EXPECT_TRUE(tensors_close(want, want.copy(), 0, 0));
  EXPECT_FALSE(tensors_close(f32({2}, {1, std::nextafter(100.0f, 200.0f)}), want, 0, 0));
}

TEST(TensorCompare, NanMatchesNanAndInfinitiesMatchThemselves) {
  float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  NDArray want = f32({3}, {nan, inf, -inf});
  EXPECT_TRUE(tensors_close(f32({3}, {nan, inf, -inf}), want, 0, 0));
  EXPECT_FALSE(tensors_close(f32({3}, {0, inf, -inf}), want, 1, 1));
  EXPECT_FALSE(tensors_close(f32({3}, {nan, -inf, -inf}), want, 1, 1));
  EXPECT_FALSE(tensors_close(f32({3}, {nan, 1e30f, -inf}), want, 1, 1));
  EXPECT_FALSE(tensors_close(want, f32({3}, {1, inf, -inf}), 1, 1));
}

TEST(TensorCompare, MessagesNameShapeDtypeAndTheFirstDifference) {
  EXPECT_EQ(message_of(tensors_close(f32({2, 3}, std::vector<float>(6)),
                                     f32({3, 2}, std::vector<float>(6)))),
            "shape (2, 3), want (3, 2)");
  EXPECT_EQ(message_of(tensors_close(f32({1}, {0}), array<int32_t>({1}, DataType::Int(32), {0}))),
            "dtype float32, want int32");
  NDArray want = f32({2, 3}, {0, 1, 2, 3, 4, 5});
  EXPECT_EQ(message_of(tensors_close(f32({2, 3}, {0, 1, 2, 3.5f, 4, 9}), want)),
            "2 of 6 elements differ (rtol 1e-05, atol 1e-05); the first at [1, 0]: got 3.5, want "
            "3; the largest difference at [1, 2]: got 9, want 5");
  EXPECT_EQ(message_of(tensor_close_to(f32({2}, {0, 1}), {2}, {0, 2})),
            "1 of 2 elements differ (rtol 1e-05, atol 1e-05); the first at [1]: got 1, want 2");
  EXPECT_EQ(message_of(tensor_close_to(f32({2}, {0, 1}), {1, 2}, {0, 1})),
            "shape (2,), want (1, 2)");
  EXPECT_EQ(message_of(tensor_close_to(f32({2}, {0, 1}), {2}, {0, 1, 2})),
            "the reference holds 3 values for 2 elements");
  EXPECT_EQ(message_of(tensors_close(NDArray(), want)), "got is an undefined NDArray");
}

TEST(TensorCompare, IntegersAreExactAndEveryDtypeIsRead) {
  DataType i64 = DataType::Int(64);
  int64_t big = (int64_t(1) << 60) + 1;
  EXPECT_TRUE(tensors_close(array<int64_t>({1}, i64, {big}), array<int64_t>({1}, i64, {big})));
  // Equal as doubles, not as integers.
  EXPECT_FALSE(
      tensors_close(array<int64_t>({1}, i64, {big}), array<int64_t>({1}, i64, {big - 1}), 0, 0));
  EXPECT_TRUE(tensors_close(array<uint8_t>({2}, DataType::Bool(), {0, 1}),
                            array<uint8_t>({2}, DataType::Bool(), {0, 1})));
  EXPECT_TRUE(tensor_close_to(array<int8_t>({2}, DataType::Int(8), {-3, 7}), {2}, {-3, 7}));
  EXPECT_TRUE(tensor_close_to(array<uint16_t>({2}, DataType::UInt(16), {65535, 1}), {2},
                              std::vector<int>{65535, 1}));
  // float16 1.5 and -2 (0x3E00, 0xC000); bfloat16 1.5 (0x3FC0).
  EXPECT_TRUE(tensor_close_to(array<uint16_t>({2}, DataType::Float(16), {0x3E00, 0xC000}), {2},
                              {1.5, -2}, 0, 0));
  EXPECT_TRUE(
      tensor_close_to(array<uint16_t>({1}, DataType::BFloat(16), {0x3FC0}), {1}, {1.5}, 0, 0));
  EXPECT_TRUE(tensor_close_to(array<double>({}, DataType::Float(64), {0.1}), {}, {0.1}, 0, 0));
}

}  // namespace
}  // namespace relax::test
