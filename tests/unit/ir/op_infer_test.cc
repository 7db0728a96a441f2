// Struct-info inference of the core ops: broadcasting, symbolic shapes, attributes, and the
// messages of ill-typed calls.
#include <gtest/gtest.h>

#include "../../common/error_of.h"
#include "relax/arith/analyzer.h"
#include "relax/ir/block_builder.h"
#include "relax/ir/op.h"
#include "relax/op/op.h"

namespace relax {
namespace {

using tir::int_imm;
const DataType f32 = DataType::Float(32);

class OpInfer : public ::testing::Test {
 protected:
  /// The struct info `call` normalises to, as text.
  std::string infer(const Expr& call) { return to_string(get_struct_info(bb.normalize(call))); }
  /// The message of the error normalising `call` throws.
  std::string infer_error(const Expr& call) {
    return test::error_of([&] { bb.normalize(call); });
  }

  BlockBuilder bb;
  Ref<tir::Var> n = tir::var("n"), m = tir::var("m");
};

TEST_F(OpInfer, BroadcastingBinaryOps) {
  auto a = make_var("a", tensor_sinfo({n, int_imm(1), int_imm(4)}, f32));
  auto b = make_var("b", tensor_sinfo({int_imm(3), int_imm(1)}, f32));
  EXPECT_EQ(infer(op::add(a, b)), "Tensor((n, 3, 4), float32)");
  EXPECT_EQ(infer(op::multiply(b, a)), "Tensor((n, 3, 4), float32)");
  auto c = make_var("c", tensor_sinfo({m}, f32));
  auto d = make_var("d", tensor_sinfo({n}, f32));
  // n and m may or may not agree: only the rank is known.
  EXPECT_EQ(infer(op::subtract(c, d)), "Tensor(ndim=1, float32)");
  auto e = make_var("e", tensor_sinfo(f32, -1));
  EXPECT_EQ(infer(op::divide(a, e)), "Tensor(ndim=-1, float32)");
}

TEST_F(OpInfer, BinaryOpErrors) {
  auto a = make_var("a", tensor_sinfo(const_shape({2, 3}), f32));
  auto b = make_var("b", tensor_sinfo(const_shape({2, 3}), DataType::Int(32)));
  EXPECT_NE(infer_error(op::add(a, b)).find("relax.add: operand dtypes differ: float32 and int32"),
            std::string::npos);
  auto c = make_var("c", tensor_sinfo(const_shape({4}), f32));
  EXPECT_NE(infer_error(op::add(a, c)).find("dimension 1 is 3 in one operand and 4 in the other"),
            std::string::npos);
  EXPECT_NE(infer_error(call_op("relax.add", {a})).find("relax.add takes 2 argument(s), got 1"),
            std::string::npos);
}

TEST_F(OpInfer, UnaryOps) {
  auto a = make_var("a", tensor_sinfo({n, int_imm(4)}, f32));
  EXPECT_EQ(infer(op::exp(a)), "Tensor((n, 4), float32)");
  EXPECT_EQ(infer(op::relu(a)), "Tensor((n, 4), float32)");
  auto i = make_var("i", tensor_sinfo({n}, DataType::Int(32)));
  EXPECT_NE(infer_error(op::exp(i)).find("relax.exp: needs a floating-point tensor, got int32"),
            std::string::npos);
}

TEST_F(OpInfer, Matmul) {
  auto k = tir::var("k");
  auto a = make_var("a", tensor_sinfo({int_imm(8), n, k}, f32));
  auto b = make_var("b", tensor_sinfo({k, m}, f32));
  EXPECT_EQ(infer(op::matmul(a, b)), "Tensor((8, n, m), float32)");
  auto v = make_var("v", tensor_sinfo({k}, f32));
  EXPECT_EQ(infer(op::matmul(a, v)), "Tensor((8, n), float32)");
  EXPECT_EQ(infer(op::matmul(v, b)), "Tensor((m,), float32)");
  EXPECT_EQ(infer(op::matmul(a, b, DataType::Float(16))), "Tensor((8, n, m), float16)");
  auto x = make_var("x", tensor_sinfo(const_shape({2, 3}), f32));
  auto y = make_var("y", tensor_sinfo(const_shape({4, 5}), f32));
  EXPECT_NE(infer_error(op::matmul(x, y)).find("relax.matmul: reduction dimensions differ: 3"),
            std::string::npos);
}

TEST_F(OpInfer, ReshapeFlattenPermute) {
  auto x = make_var("x", tensor_sinfo({n, int_imm(2), int_imm(2)}, f32));
  EXPECT_EQ(infer(op::reshape(x, {n, int_imm(4)})), "Tensor((n, 4), float32)");
  EXPECT_EQ(infer(op::reshape(x, {int_imm(-1), int_imm(2)})), "Tensor((n * 2, 2), float32)");
  auto y = make_var("y", tensor_sinfo({n, int_imm(4)}, f32));
  EXPECT_EQ(infer(op::flatten(y)), "Tensor((n * 4,), float32)");
  auto s = make_var("s", tensor_sinfo(const_shape({2, 3, 4}), f32));
  EXPECT_NE(infer_error(op::reshape(s, const_shape({5, 5}))).find("(24 elements) to 25 elements"),
            std::string::npos);
  // An empty tensor gives no -1 to infer when the other dims multiply to 0 (as numpy refuses).
  auto e = make_var("e", tensor_sinfo(const_shape({0, 4}), f32));
  EXPECT_NE(infer_error(op::reshape(e, {int_imm(0), int_imm(-1)}))
                .find("cannot infer the -1 of (0, -1) for Tensor((0, 4), float32): the other "
                      "dimensions multiply to 0"),
            std::string::npos);
  EXPECT_EQ(infer(op::reshape(e, {int_imm(2), int_imm(-1)})), "Tensor((2, 0), float32)");
  EXPECT_EQ(infer(op::permute_dims(s)), "Tensor((4, 3, 2), float32)");
  EXPECT_EQ(infer(op::permute_dims(s, std::vector<int64_t>{0, 2, 1})), "Tensor((2, 4, 3), float32)");
  EXPECT_NE(
      infer_error(op::permute_dims(s, std::vector<int64_t>{0, 0, 1})).find("axis 0 appears twice"),
      std::string::npos);
  EXPECT_NE(infer_error(op::permute_dims(s, std::vector<int64_t>{0, 3, 1}))
                .find("axis 3 is out of range"),
            std::string::npos);
}

TEST_F(OpInfer, ShapeOfAndUnique) {
  auto x = make_var("x", tensor_sinfo({n, int_imm(3)}, f32));
  EXPECT_EQ(infer(op::shape_of(x)), "Shape((n, 3))");
  EXPECT_EQ(infer(op::unique(x)), "Tensor(ndim=1, float32)");
}

TEST_F(OpInfer, TensorToShape) {
  auto s = make_var("s", tensor_sinfo(const_shape({3}), DataType::Int(64)));
  EXPECT_EQ(infer(op::tensor_to_shape(s)), "Shape(ndim=3)");
  auto dyn = make_var("d", tensor_sinfo({n}, DataType::Int(64)));
  EXPECT_NE(
      infer_error(op::tensor_to_shape(dyn)).find("the length of the tensor must be a constant"),
      std::string::npos);
  auto f = make_var("f", tensor_sinfo(const_shape({2}), f32));
  EXPECT_NE(infer_error(op::tensor_to_shape(f)).find("expected an integer tensor"),
            std::string::npos);
  auto mat = make_var("mat", tensor_sinfo(const_shape({2, 2}), DataType::Int(64)));
  EXPECT_NE(infer_error(op::tensor_to_shape(mat)).find("expected a rank-1 tensor"),
            std::string::npos);
}

TEST_F(OpInfer, AttributeValidation) {
  auto x = make_var("x", tensor_sinfo(const_shape({2, 3}), f32));
  Expr bad_name = call_op("relax.permute_dims", {x}, make_attrs({{"axis", std::vector<int64_t>{1, 0}}}));
  EXPECT_NE(infer_error(bad_name).find(
                "relax.permute_dims has no attribute 'axis'; valid attributes: axes"),
            std::string::npos);
  Expr bad_type = call_op("relax.permute_dims", {x}, make_attrs({{"axes", std::string("01")}}));
  EXPECT_NE(infer_error(bad_type).find("attribute 'axes' should be a list of integers"),
            std::string::npos);
}

TEST_F(OpInfer, Bridges) {
  auto x = make_var("x", tensor_sinfo({n}, f32));
  auto gv = make_ref<GlobalVar>("kernel");
  EXPECT_EQ(infer(op::call_tir(gv, {x}, {tensor_sinfo({n}, f32), tensor_sinfo({n}, f32)})),
            "Tuple(Tensor((n,), float32), Tensor((n,), float32))");
  EXPECT_NE(infer_error(op::call_tir(gv, {x}, {tensor_sinfo(f32, 1)}))
                .find("needs a shape to allocate the output"),
            std::string::npos);
  EXPECT_EQ(infer(op::call_packed("f", {x})), "Object");
  EXPECT_EQ(infer(op::call_packed("f", {x}, {shape_sinfo(2)})), "Shape(ndim=2)");
  EXPECT_FALSE(OpRegistry::global().find("relax.call_packed")->pure);
  EXPECT_TRUE(OpRegistry::global().find("relax.call_pure_packed")->pure);
}

TEST(OpRegistry, UnknownOpSuggestsAName) {
  std::string err = test::error_of([] { get_op("relax.ad"); });
  EXPECT_NE(err.find("unknown op 'relax.ad'; did you mean 'relax.add'?"), std::string::npos) << err;
  EXPECT_EQ(OpRegistry::global().find("relax.matmul")->pattern, OpPattern::kOutEWiseFusable);
  EXPECT_EQ(OpRegistry::global().find("relax.add")->pattern, OpPattern::kBroadcast);
}

}  // namespace
}  // namespace relax
