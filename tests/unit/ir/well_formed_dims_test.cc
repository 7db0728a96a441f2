// The well-formed checker rejects a negative constant tensor dimension in struct info (issue
// 25): such a program compiled into an executable the loader then called damaged. Programs
// built through the C++ API reach the checker without the parser's check at the dimension.
#include <gtest/gtest.h>

#include "relax/ir/block_builder.h"
#include "relax/ir/well_formed.h"
#include "relax/op/op.h"

namespace relax {
namespace {

const DataType f32 = DataType::Float(32);

/// The well-formed errors of `fn(x) = x` with `x`'s struct info `sinfo`, as one string.
std::string errors_of_identity(StructInfo sinfo) {
  auto x = make_var("x", std::move(sinfo));
  auto f = make_ref<Function>(std::vector<Ref<Var>>{x}, make_ref<SeqExpr>(std::vector<Block>{}, x),
                              x->struct_info, true);
  IRModule mod;
  mod.add("f", f);
  std::string s;
  for (const auto& d : well_formed_errors(mod)) s += d.message + "\n";
  return s;
}

TEST(WellFormedDims, NegativeTensorDimensionIsAnError) {
  std::string e = errors_of_identity(tensor_sinfo(const_shape({-4, 3}), f32));
  EXPECT_NE(e.find("in function 'f': dimension 0 of the struct info of parameter 'x' is -4; a "
                   "tensor dimension must be >= 0"),
            std::string::npos)
      << e;
  e = errors_of_identity(
      tuple_sinfo({tensor_sinfo(const_shape({2}), f32), tensor_sinfo(const_shape({3, -1}), f32)}));
  EXPECT_NE(e.find("dimension 1 of the struct info of parameter 'x' is -1"), std::string::npos)
      << e;
}

TEST(WellFormedDims, ZeroAndSymbolicDimensionsAreFine) {
  EXPECT_EQ(errors_of_identity(tensor_sinfo(const_shape({0, 3}), f32)), "");
  EXPECT_EQ(errors_of_identity(tensor_sinfo(f32, 2)), "");
}

}  // namespace
}  // namespace relax
