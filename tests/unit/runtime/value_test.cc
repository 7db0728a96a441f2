// Values, shapes, tuples, NDArray views and DLPack, and the registry.
#include "relax/runtime/value.h"

#include "relax/runtime/registry.h"
#include "runtime_test_util.h"

namespace relax::runtime {
namespace {

using testing::error_of;
using testing::f32;

TEST(Value, KindsAndAccessors) {
  EXPECT_TRUE(Value().is_null());
  EXPECT_EQ(Value(3).as_int(), 3);
  EXPECT_EQ(Value(int64_t(1) << 40).as_int(), int64_t(1) << 40);
  EXPECT_EQ(Value(2.5).as_float(), 2.5);
  EXPECT_EQ(Value(4).as_float(), 4.0);  // ints widen to floats
  EXPECT_EQ(Value(true).kind(), ValueKind::kBool);
  EXPECT_EQ(Value(true).as_int(), 1);
  EXPECT_EQ(Value("hi").as_string(), "hi");
  EXPECT_EQ(Value(Shape({1, 2})).as_shape().dims(), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(Value(Tuple({Value(1), Value("x")})).as_tuple().size(), 2u);
  NDArray t = f32({2}, {1, 2});
  EXPECT_TRUE(Value(t).as_tensor().same_as(t));
  EXPECT_EQ(Value(PackedFunc("f", [](Args) -> Value { return 9; })).as_function()(Args()).as_int(),
            9);
  std::string msg = error_of([] { Value(Shape({2, 3})).as_tensor(); });
  EXPECT_NE(msg.find("expected a tensor, got shape (2, 3)"), std::string::npos) << msg;
  EXPECT_NE(error_of([] { Value(1.5).as_int(); }).find("expected an int, got float 1.5"),
            std::string::npos);
}

TEST(Value, EqualityAndDescribe) {
  EXPECT_EQ(Value(Shape({1, 2})), Value(Shape({1, 2})));
  EXPECT_FALSE(Value(Shape({1, 2})) == Value(Shape({2, 1})));
  EXPECT_EQ(Value("a"), Value("a"));
  EXPECT_FALSE(Value(1) == Value(true));
  NDArray t = NDArray::empty({2, 3}, DataType::Int(8));
  EXPECT_EQ(Value(t).describe(), "tensor (2, 3) int8");
  EXPECT_EQ(Value(Tuple({Value(1)})).describe(), "tuple of 1");
  EXPECT_EQ(Value::from_object(Ref<Object>(Shape({5}).node())).kind(), ValueKind::kShape);
}

TEST(NDArray, ViewsShareStorageAndCheckBounds) {
  NDArray a = testing::iota_f32({4, 4});
  NDArray row2 = a.view({4}, DataType::Float(32), 2 * 4 * 4);
  EXPECT_EQ(row2.data_as<float>()[0], 8.0f);
  row2.data_as<float>()[1] = -1;
  EXPECT_EQ(a.data_as<float>()[9], -1.0f);
  std::string msg = error_of([&] { a.view({5}, DataType::Float(32), 48); });
  EXPECT_NE(msg.find("does not fit in 64 bytes"), std::string::npos) << msg;
  EXPECT_NE(error_of([&] {
              a.view({int64_t(1) << 40, int64_t(1) << 40}, DataType::Float(32));
            }).find("too large"),
            std::string::npos);
  EXPECT_NE(error_of([] { NDArray::empty({-1}, DataType::Float(32)); }).find("negative dimension"),
            std::string::npos);
  // The view keeps the storage alive.
  NDArray keep = a.view({2}, DataType::Float(32), 4);
  a = NDArray();
  EXPECT_EQ(keep.data_as<float>()[0], 1.0f);
}

TEST(NDArray, DLPackExportAndImportDoNotCopy) {
  NDArray a = testing::iota_f32({3});
  DLManagedTensor* m = a.to_dlpack();
  EXPECT_EQ(m->dl_tensor.data, a.data());
  NDArray b = NDArray::from_dlpack(m);  // b owns m now
  EXPECT_EQ(b.data(), a.data());
  EXPECT_EQ(b.shape(), a.shape());
  int before = a.node()->use_count();
  b = NDArray();  // runs m's deleter, dropping its reference to a
  EXPECT_EQ(a.node()->use_count(), before - 1);
  float raw[2] = {1, 2};
  int64_t shape[1] = {2};
  DLTensor t{raw, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, shape, nullptr, 0};
  NDArray borrowed = NDArray::borrow(t);
  EXPECT_EQ(borrowed.data(), static_cast<void*>(raw));
  EXPECT_EQ(testing::values_of(borrowed.copy()), (std::vector<float>{1, 2}));
}

TEST(Registry, RegisterLookupOverrideRemove) {
  Registry::register_func("value_test.f", [](Args) -> Value { return 1; });
  EXPECT_EQ(Registry::get("value_test.f")(Args()).as_int(), 1);
  EXPECT_NE(error_of([] {
              Registry::register_func("value_test.f", [](Args) -> Value { return 2; });
            }).find("already registered"),
            std::string::npos);
  Registry::register_func(
      "value_test.f", [](Args) -> Value { return 2; }, true);
  EXPECT_EQ(Registry::get("value_test.f")(Args()).as_int(), 2);
  auto names = Registry::list_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "value_test.f"), names.end());
  EXPECT_TRUE(Registry::remove("value_test.f"));
  EXPECT_FALSE(Registry::get("value_test.f").defined());
  EXPECT_FALSE(Registry::remove("value_test.f"));
}

}  // namespace
}  // namespace relax::runtime
